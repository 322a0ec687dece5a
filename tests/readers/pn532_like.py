"""A reader type companion does not ship, added the way docs/EXTENDING.md ("Adding a reader") says: this one module,
registered once. Nothing else in companion names it.

It is "PN532-like": an NXP PN532 reduced to what a zone needs, simulated at its frames (PN532 User Manual,
UM0701-02, chapter 6 and section 7), one chip per zone on a bus of its own:

* every frame is ``00 00 FF LEN LCS TFI DATA.. DCS 00`` (section 6.2.1.1): LEN + LCS and TFI + DATA + DCS are 0
  modulo 256; the host sends TFI D4, the chip answers D5 and the command code plus one;
* the chip acknowledges a command with the ACK frame ``00 00 FF 00 FF 00`` (6.2.1.3) before its answer: a driver
  that takes the first frame for the answer reads nothing;
* ``GetFirmwareVersion`` (0x02, 7.2.2) answers IC 0x32 and the firmware's version;
* ``InListPassiveTarget`` (0x4A, 7.3.5) lists at most two targets (MaxTg is 1 or 2): a third card in the field
  is not seen.

The kind reads those chips through its own little driver and the core's :class:`ReaderBackend` (debounce and
threads stay the core's); doctor asks each chip its firmware version; enrolling needs tag writes it does not
have, so enroll says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from companion.config import Config
from companion.doctor.checks import Check, System
from companion.hardware import PinMap
from companion.nfc.backends import ReaderBackend
from companion.nfc.errors import NfcProtocolError, ReaderNotResponding
from companion.readers import ReaderKind, Readers, Setup
from companion.readers.registry import register

ACK = bytes.fromhex("0000FF00FF00")
HOST, CHIP = 0xD4, 0xD5
GET_FIRMWARE_VERSION, IN_LIST_PASSIVE_TARGET = 0x02, 0x4A
MAX_TARGETS = 2  # InListPassiveTarget's MaxTg (UM0701-02, 7.3.5)


def frame(tfi: int, data: bytes) -> bytes:
    """A normal information frame (UM0701-02, 6.2.1.1)."""
    body = bytes([tfi]) + data
    return bytes([0x00, 0x00, 0xFF, len(body), -len(body) & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0x00])


def unframe(raw: bytes) -> bytes:
    """TFI and data of a normal information frame; a checksum that does not add up is a garbled frame."""
    if raw[:3] != b"\x00\x00\xff" or (raw[3] + raw[4]) & 0xFF or len(raw) != raw[3] + 7:
        raise NfcProtocolError(f"not a PN532 frame: {raw.hex()}")
    body = raw[5 : 5 + raw[3]]
    if (sum(body) + raw[5 + raw[3]]) & 0xFF:
        raise NfcProtocolError("PN532 frame checksum wrong")
    return body


@dataclass
class Chip:
    """One simulated chip and the tags in its field (their UIDs, in the order they came)."""

    field: list[bytes] = field(default_factory=list)
    firmware: tuple[int, int] = (1, 6)
    answers: bool = True  # False: unplugged, nothing comes back

    def exchange(self, raw: bytes) -> list[bytes]:
        """The frames the chip sends back for one command frame: the ACK, then the answer."""
        if not self.answers:
            return []
        body = unframe(raw)
        assert body[0] == HOST, "the host's frames carry TFI D4"
        command, params = body[1], body[2:]
        if command == GET_FIRMWARE_VERSION:
            answer = bytes([0x32, *self.firmware, 0x07])
        elif command == IN_LIST_PASSIVE_TARGET:
            listed = self.field[: min(params[0], MAX_TARGETS)]
            answer = bytes([len(listed)])
            for number, uid in enumerate(listed, start=1):
                answer += bytes([number, 0x00, 0x44, 0x00, len(uid)]) + uid  # SENS_RES, SEL_RES of an NTAG
        else:
            raise NotImplementedError(f"this PN532-like chip knows no command {command:02X}")
        return [ACK, frame(CHIP, bytes([command + 1]) + answer)]


BUS: dict[str, Chip] = {}  # the simulated chips by zone: a test lays tags in their fields


class Pn532:
    """The driver: a zone's chip behind ``exchange`` (one command frame in, the chip's frames out)."""

    def __init__(self, exchange: Callable[[bytes], list[bytes]]) -> None:
        self.exchange = exchange

    def command(self, code: int, params: bytes = b"") -> bytes:
        frames = self.exchange(frame(HOST, bytes([code]) + params))
        if not frames:
            raise ReaderNotResponding("the PN532 does not answer")
        if frames[0] != ACK:  # the chip acknowledges before it answers (UM0701-02, 6.2.1.3)
            raise NfcProtocolError("the PN532 did not acknowledge the command")
        body = unframe(frames[1])
        if body[:2] != bytes([CHIP, code + 1]):
            raise NfcProtocolError(f"the PN532 answered {body.hex()} to command {code:02X}")
        return body[2:]

    def version(self) -> tuple[int, int, int]:
        ic, version, revision, _ = self.command(GET_FIRMWARE_VERSION)
        return ic, version, revision

    def init(self) -> None:
        self.version()

    def scan(self, on_select: Callable[[bytes, int], None] | None = None) -> list[bytes]:
        answer = self.command(IN_LIST_PASSIVE_TARGET, bytes([MAX_TARGETS, 0x00]))  # 106 kbps type A
        uids, at = [], 1
        for _ in range(answer[0]):
            length = answer[at + 4]
            uids.append(bytes(answer[at + 5 : at + 5 + length]))
            at += 5 + length
        return uids


class Pn532Readers(ReaderKind):
    name = "pn532"
    summary = "PN532-like readers, one per zone (a test's reader type)"
    simulated = True  # its chips are simulated: off a Pi, mock pins

    def open(self, setup: Setup) -> Readers:
        chips = [(zone, Pn532(BUS.setdefault(zone, Chip()).exchange)) for zone in setup.config.zones]
        backend = ReaderBackend(chips, setup.registry)
        backend.prepare(setup.config.poll_interval_s, setup.clock)
        return backend

    def device_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        for zone in config.zones:
            chip = BUS.setdefault(zone, Chip())
            try:
                ic, version, revision = Pn532(chip.exchange).version()
            except OSError as exc:
                yield Check(f"reader {zone}", False, f"PN532: {exc}", f"check {zone}'s PN532 wiring")
                continue
            yield Check(f"reader {zone}", True, f"PN{ic:02X} firmware {version}.{revision}")


register(Pn532Readers())
