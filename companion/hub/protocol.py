"""The reader hub's link protocol: frames, messages and a stream decoder (see docs/PROTOCOL.md).

One file for the Pi (CPython) and the hub (MicroPython): the firmware build compiles this very file with
``mpy-cross``, so it uses only what MicroPython has, does no I/O and keeps no clock.

A frame on the wire is ``COBS(version, seq, type, payload, crc16) 0x00``. COBS leaves no zero byte inside a
frame, so the zero that ends one is also where a receiver that joined mid-stream, or read garbage, starts
afresh: the link resynchronises on the next frame whatever came before. (A sender that starts a session sends
one zero first, so that its first frame does not join whatever the receiver last read.)

>>> frame = encode_frame(7, Heartbeat(42))
>>> decoder = FrameDecoder()
>>> decoder.feed(b"torn fr" + bytes(1) + frame[:4])
[]
>>> decoder.feed(frame[4:])
[(7, Heartbeat(scans=42))]
>>> decoder.counts["garbage"]
7
"""

import struct

try:
    from micropython import const  # type: ignore[import-not-found,unused-ignore]
except ImportError:

    def const(x: int) -> int:  # type: ignore[misc,unused-ignore]  # MicroPython's is generic
        return x


try:  # noqa: SIM105 (MicroPython has no contextlib; only mypy needs Any)
    from typing import Any
except ImportError:
    pass

PROTOCOL_VERSION = const(1)

# Message types. Hub to host below 0x80, host to hub from 0x80. HELLO's type and the first three bytes of its
# payload (the firmware version) never change, so a host can name the firmware of a hub it cannot talk to.
HELLO = const(0x01)
ZONE = const(0x02)
SNAPSHOT = const(0x03)
HEARTBEAT = const(0x04)
ACK = const(0x05)
ERROR = const(0x06)
SYNC = const(0x81)
SET_LED = const(0x82)
MAINTENANCE = const(0x83)
WRITE_TAG = const(0x84)

# Colours and modes of a zone LED, by their code on the wire.
COLOURS = ("off", "green", "red", "amber")
MODES = ("steady", "blink")

# ERROR codes. HUB_ZONE stands for the whole hub (a configuration error) in the zone field.
READER_DOWN = const(1)
READER_UP = const(2)
BAD_CONFIG = const(3)
HUB_ZONE = const(0xFF)

# ACK statuses.
ACK_OK = const(0)
ACK_BAD_ZONE = const(1)
ACK_BAD_LED = const(2)
ACK_FAILED = const(3)
ACK_TAG_FAILED = const(4)

# WRITE_TAG reaches an NTAG21x's user memory only (pages 4 to 39 of an NTAG213): pages 0 to 3 hold the UID, the
# lock bytes and the capability container, and a wrong write there spoils the tag for good.
FIRST_USER_PAGE = const(4)
LAST_USER_PAGE = const(39)

_HEADER = const(3)  # version, seq, type
_CRC = const(2)
MAX_PAYLOAD = const(240)
# A COBS frame of the longest payload; a run of non-zero bytes longer than this is garbage.
MAX_ENCODED = const(_HEADER + MAX_PAYLOAD + _CRC + 2)
MAX_UIDS = const(4)  # per zone: one card is what an antenna reads reliably; a few more are reported, not more


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


# A table rather than a bit loop: on an RP2040 the bit loop costs milliseconds per frame.
_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): ``crc16(b"123456789") == 0x29B1``."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte, one byte longer per 254."""
    out = bytearray(len(data) + len(data) // 254 + 1)
    code_at = 0
    code = 1
    o = 1
    for byte in data:
        if byte:
            out[o] = byte
            o += 1
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
    out[code_at] = code
    return bytes(out[:o])


def cobs_decode(data: bytes) -> bytes:
    """The inverse of ``cobs_encode``; ``ValueError`` when ``data`` cannot come from it."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise ValueError("COBS block runs past the frame")
        out.extend(data[i + 1 : end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def _u16(data: bytes, at: int) -> int:
    return (data[at] << 8) | data[at + 1]


def uid_is_valid(uid: bytes) -> bool:
    """A UID a type A tag can have: 4, 7 or 10 bytes (ISO/IEC 14443-3, single, double and triple size), and not
    all 00 nor all FF (what a reader's empty FIFO or a floating MISO line reads, never a tag's)."""
    return len(uid) in (4, 7, 10) and uid != bytes(len(uid)) and uid != b"\xff" * len(uid)


def _pack_uids(out: bytearray, uids: "tuple[bytes, ...]") -> None:
    if len(uids) > MAX_UIDS:
        raise ValueError(f"{len(uids)} UIDs on one zone: the protocol carries {MAX_UIDS} at most")
    out.append(len(uids))
    for uid in uids:
        if not uid_is_valid(uid):
            raise ValueError(f"a UID of {len(uid)} bytes: a type A UID has 4, 7 or 10, not all 00 nor all FF")
        out.append(len(uid))
        out.extend(uid)


def _unpack_uids(data: bytes, at: int) -> "tuple[tuple[bytes, ...], int]":
    count = data[at]
    at += 1
    if count > MAX_UIDS:
        raise ValueError(f"zone with {count} UIDs")
    uids = []
    for _ in range(count):
        size = data[at]
        uid = bytes(data[at + 1 : at + 1 + size])
        if len(uid) != size or not uid_is_valid(uid):
            raise ValueError("bad UID")
        uids.append(uid)
        at += 1 + size
    return tuple(uids), at


class Message:
    """A value with the fields named in ``FIELDS``; its ``repr`` is the same in CPython and MicroPython.

    A message whose payload is a fixed record of integers gives its ``struct`` format in ``FORMAT`` and needs no
    code of its own to encode and decode; the others override ``payload`` and ``decode``.
    """

    TYPE = 0
    FIELDS: "tuple[str, ...]" = ()
    FORMAT = ""
    protocol = PROTOCOL_VERSION

    def payload(self) -> bytes:
        return struct.pack(self.FORMAT, *self.values())

    @classmethod
    def decode(cls, data: bytes, version: int) -> "Message":
        if len(data) != struct.calcsize(cls.FORMAT):
            raise ValueError(f"{cls.__name__} payload of {len(data)} bytes")
        make: Any = cls  # each subclass takes its FIELDS in order
        message: Message = make(*struct.unpack(cls.FORMAT, data))
        return message

    def values(self) -> "tuple[object, ...]":
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and type(self) is type(other) and self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({fields})"


class Hello(Message):
    """The hub's first frame after boot or a SYNC: who it is and the state of its readers.

    ``health`` has one byte per zone: 0 when the zone's reader answered at start-up, else an ERROR code.
    ``boot`` is drawn at random on each boot; ``event`` is the number of the last zone change so far.
    """

    TYPE = HELLO
    FIELDS = ("protocol", "firmware", "boot", "event", "health")

    def __init__(
        self,
        firmware: "tuple[int, int, int]",
        boot: int,
        event: int,
        health: "tuple[int, ...]",
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        self.protocol = protocol
        self.firmware = firmware
        self.boot = boot
        self.event = event
        self.health = health

    def payload(self) -> bytes:
        return (
            bytes(self.firmware)
            + bytes((self.boot >> 8, self.boot & 0xFF, self.event >> 8, self.event & 0xFF))
            + bytes(self.health)
        )

    @staticmethod
    def decode(data: bytes, version: int) -> "Hello":
        if len(data) < 3:
            raise ValueError("HELLO too short")
        firmware = (data[0], data[1], data[2])
        if version != PROTOCOL_VERSION:
            # Only the firmware version is known to mean the same in every protocol version.
            return Hello(firmware, 0, 0, (), protocol=version)
        if len(data) < 7:
            raise ValueError("HELLO too short")
        return Hello(firmware, _u16(data, 3), _u16(data, 5), tuple(data[7:]))


class ZoneReport(Message):
    """The cards now on one zone, sent when they change; ``event`` numbers the changes of one boot."""

    TYPE = ZONE
    FIELDS = ("event", "zone", "uids")

    def __init__(self, event: int, zone: int, uids: "tuple[bytes, ...]") -> None:
        self.event = event
        self.zone = zone
        self.uids = uids

    def payload(self) -> bytes:
        out = bytearray((self.event >> 8, self.event & 0xFF, self.zone))
        _pack_uids(out, self.uids)
        return bytes(out)

    @staticmethod
    def decode(data: bytes, version: int) -> "ZoneReport":
        uids, end = _unpack_uids(data, 3)
        if end != len(data):
            raise ValueError("ZONE has trailing bytes")
        return ZoneReport(_u16(data, 0), data[2], uids)


class Snapshot(Message):
    """The cards on every zone after change number ``event``: a lost ZONE frame heals at the next one."""

    TYPE = SNAPSHOT
    FIELDS = ("event", "zones")

    def __init__(self, event: int, zones: "tuple[tuple[bytes, ...], ...]") -> None:
        self.event = event
        self.zones = zones

    def payload(self) -> bytes:
        out = bytearray((self.event >> 8, self.event & 0xFF))
        for uids in self.zones:
            _pack_uids(out, uids)
        return bytes(out)

    @staticmethod
    def decode(data: bytes, version: int) -> "Snapshot":
        zones = []
        at = 2
        while at < len(data):
            uids, at = _unpack_uids(data, at)
            zones.append(uids)
        return Snapshot(_u16(data, 0), tuple(zones))


class Heartbeat(Message):
    """The hub is alive; ``scans`` is how many times it scanned every zone since the last heartbeat."""

    TYPE = HEARTBEAT
    FIELDS = ("scans",)
    FORMAT = ">H"

    def __init__(self, scans: int) -> None:
        self.scans = min(scans, 0xFFFF)


class Ack(Message):
    """The hub's answer to the host's frame number ``seq``: ``ACK_OK`` or why it refused it."""

    TYPE = ACK
    FIELDS = ("seq", "status")
    FORMAT = ">BB"

    def __init__(self, seq: int, status: int) -> None:
        self.seq = seq
        self.status = status


class ZoneError(Message):
    """A zone's reader failed (``READER_DOWN``) or came back (``READER_UP``), or the configuration is wrong
    (``BAD_CONFIG``, zone ``HUB_ZONE``); ``detail`` says what to do."""

    TYPE = ERROR
    FIELDS = ("zone", "code", "detail")

    def __init__(self, zone: int, code: int, detail: str) -> None:
        self.zone = zone
        self.code = code
        self.detail = detail

    def payload(self) -> bytes:
        return bytes((self.zone, self.code)) + self.detail.encode()[: MAX_PAYLOAD - 2]

    @staticmethod
    def decode(data: bytes, version: int) -> "ZoneError":
        return ZoneError(data[0], data[1], bytes(data[2:]).decode())


class Sync(Message):
    """Host to hub on connecting: send HELLO, then the changes after ``event`` if still on boot ``boot``."""

    TYPE = SYNC
    FIELDS = ("boot", "event")
    FORMAT = ">HH"

    def __init__(self, boot: int, event: int) -> None:
        self.boot = boot
        self.event = event


class SetLed(Message):
    """Host to hub: light ``zone``'s LED; ``colour`` and ``mode`` are indices of ``COLOURS`` and ``MODES``."""

    TYPE = SET_LED
    FIELDS = ("zone", "colour", "mode")
    FORMAT = ">BBB"

    def __init__(self, zone: int, colour: int, mode: int) -> None:
        self.zone = zone
        self.colour = colour
        self.mode = mode


class Maintenance(Message):
    """Host to hub: restart into maintenance mode (the REPL, no scanning, no watchdog) after the ACK; for deploys."""

    TYPE = MAINTENANCE


class WriteTag(Message):
    """Host to hub: write ``data`` (whole 4-byte pages, user memory only) from ``page`` on the tag ``uid`` lying
    on ``zone``, and read it back; the ACK says ``ACK_OK`` only when it reads back as written."""

    TYPE = WRITE_TAG
    FIELDS = ("zone", "uid", "page", "data")

    def __init__(self, zone: int, uid: bytes, page: int, data: bytes) -> None:
        self.zone = zone
        self.uid = uid
        self.page = page
        self.data = data

    def payload(self) -> bytes:
        _check_pages(self.page, len(self.data))
        out = bytearray((self.zone,))
        _pack_uids(out, (self.uid,))
        out.append(self.page)
        out.extend(self.data)
        return bytes(out)

    @staticmethod
    def decode(data: bytes, version: int) -> "WriteTag":
        uids, at = _unpack_uids(data, 1)
        if len(uids) != 1 or at >= len(data):
            raise ValueError("WRITE_TAG needs one UID and a page")
        page, pages = data[at], bytes(data[at + 1 :])
        _check_pages(page, len(pages))
        return WriteTag(data[0], uids[0], page, pages)


def _check_pages(page: int, size: int) -> None:
    if size == 0 or size % 4 or page < FIRST_USER_PAGE or page + size // 4 - 1 > LAST_USER_PAGE:
        raise ValueError(
            f"a write of {size} bytes from page {page}: whole pages within the user memory, pages "
            f"{FIRST_USER_PAGE} to {LAST_USER_PAGE}"
        )


_TYPES = {
    cls.TYPE: cls
    for cls in (Hello, ZoneReport, Snapshot, Heartbeat, Ack, ZoneError, Sync, SetLed, Maintenance, WriteTag)
}


def encode_frame(seq: int, message: Message) -> bytes:
    """The bytes on the wire for ``message`` as the sender's frame number ``seq`` (0 to 255)."""
    payload = message.payload()
    if len(payload) > MAX_PAYLOAD:
        name = type(message).__name__
        raise ValueError(f"{name} payload of {len(payload)} bytes: at most {MAX_PAYLOAD}")
    body = bytes((message.protocol, seq & 0xFF, message.TYPE)) + payload
    crc = crc16(body)
    return cobs_encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


# What the decoder counts: every way a stream can go wrong, and what it dropped for it.
COUNTS = (
    "frames",  # accepted
    "garbage",  # bytes in runs too long to be a frame, or not valid COBS
    "truncated",  # frames shorter than a header and a checksum
    "bad_checksum",
    "bad_version",
    "unknown_type",
    "bad_payload",
    "repeated",  # a sequence number equal to the last one accepted
    "out_of_order",  # one that goes backwards
    "lost",  # frames that never arrived, from gaps in the numbers
)

# After this many frames in a row refused for their sequence number, the sender restarted without the frame
# that says so (a lost HELLO or SYNC): follow its numbers from there.
_RENUMBER_AFTER = const(3)


class FrameDecoder:
    """A byte stream in, whole and checked messages out: ``feed()`` returns ``[(seq, message), ...]``.

    Feed it any chunks, down to single bytes; it keeps a partial frame until its end arrives. Nothing malformed
    escapes it and nothing raises: each fault is counted in ``counts`` (keys in ``COUNTS``) and skipped.
    A HELLO or SYNC starts the sender's numbering afresh; any other frame must carry a later number than the
    last one accepted (8 bits, wrapping).
    """

    def __init__(self) -> None:
        self.counts = {name: 0 for name in COUNTS}
        self._buffer = bytearray()
        self._discarding = False
        self._last_seq = -1
        self._refused = 0

    def feed(self, data: bytes) -> "list[tuple[int, Message]]":
        out: list[tuple[int, Message]] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._collect(data[start:])
                return out
            self._collect(data[start:end])
            if self._discarding:
                self._discarding = False
            elif self._buffer:
                frame = self._frame(bytes(self._buffer))
                if frame is not None:
                    out.append(frame)
            self._buffer = bytearray()
            start = end + 1

    def _collect(self, chunk: bytes) -> None:
        if self._discarding:
            self.counts["garbage"] += len(chunk)
            return
        self._buffer.extend(chunk)
        if len(self._buffer) > MAX_ENCODED:
            self.counts["garbage"] += len(self._buffer)
            self._buffer = bytearray()
            self._discarding = True

    def _frame(self, encoded: bytes) -> "tuple[int, Message] | None":
        counts = self.counts
        try:
            body = cobs_decode(encoded)
        except ValueError:
            counts["garbage"] += len(encoded)
            return None
        if len(body) < _HEADER + _CRC:
            counts["truncated"] += 1
            return None
        if crc16(body[:-_CRC]) != _u16(body, len(body) - _CRC):
            counts["bad_checksum"] += 1
            return None
        version, seq, kind = body[0], body[1], body[2]
        cls = _TYPES.get(kind)
        if version != PROTOCOL_VERSION:
            counts["bad_version"] += 1
            if cls is not Hello:
                return None
        if cls is None:
            counts["unknown_type"] += 1
            return None
        payload = body[_HEADER:-_CRC]
        try:
            message = cls.decode(payload, version)
        except (ValueError, IndexError, UnicodeError):
            counts["bad_payload"] += 1
            return None
        if not self._in_sequence(seq, kind in (HELLO, SYNC)):
            return None
        counts["frames"] += 1
        return seq, message

    def _in_sequence(self, seq: int, restart: bool) -> bool:
        if not restart and self._last_seq >= 0:
            step = (seq - self._last_seq) & 0xFF
            if step == 0 or step >= 0x80:
                self.counts["repeated" if step == 0 else "out_of_order"] += 1
                self._refused += 1
                if self._refused < _RENUMBER_AFTER:
                    return False
            else:
                self.counts["lost"] += step - 1
        self._refused = 0
        self._last_seq = seq
        return True
