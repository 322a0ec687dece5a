"""The air between the reader's antenna and the tags: ISO/IEC 14443-2/3 type A framing, timing and collisions.

Frames travel as bit strings held in an ``int`` (first bit on air = bit 0), because anticollision frames end and
begin in the middle of bytes and because a collision is a property of single bits (Manchester coding lets the
reader see both tags' subcarriers in the same bit period).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

FC_HZ = 13_560_000
BIT_S = 128 / FC_HZ  # one bit at 106 kbit/s, about 9.44 us
# Frame delay time PCD to PICC (ISO/IEC 14443-3, 6.2.1.1): n = 9, depending on the last bit the reader sent.
FDT_LAST_1_S = 1236 / FC_HZ
FDT_LAST_0_S = 1172 / FC_HZ


def crc_a(data: bytes | bytearray, preset: int = 0x6363) -> int:
    """CRC_A of ISO/IEC 14443-3 (CRC-16/ISO-IEC-14443-3-A); bytes on air are LSB first."""
    crc = preset
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return crc & 0xFFFF


def with_crc(data: bytes) -> bytes:
    crc = crc_a(data)
    return data + bytes((crc & 0xFF, crc >> 8))


def crc_ok(frame: bytes) -> bool:
    return len(frame) >= 3 and crc_a(frame[:-2]) == frame[-2] | (frame[-1] << 8)


def frame_time_s(nbits: int) -> float:
    """Time on air of a frame of ``nbits`` data bits: start bit, a parity bit per whole byte, end of frame."""
    return (1 + nbits + nbits // 8 + 1) * BIT_S


@dataclass
class Answer:
    """What one tag sends back: ``nbits`` bits of ``value``, after ``delay_s`` from the end of the reader's frame."""

    value: int
    nbits: int
    delay_s: float = FDT_LAST_1_S
    bad_parity: bool = False

    @classmethod
    def of_bytes(cls, data: bytes, delay_s: float = FDT_LAST_1_S) -> Answer:
        return cls(int.from_bytes(data, "little"), 8 * len(data), delay_s)

    @classmethod
    def nibble(cls, value: int, delay_s: float = FDT_LAST_1_S) -> Answer:
        """A 4-bit ACK or NAK."""
        return cls(value & 0x0F, 4, delay_s)


@dataclass
class Reception:
    """What the reader's receiver gets from all the tags that answered together."""

    value: int
    nbits: int
    delay_s: float
    collision: int | None = None  # index of the first bit where answers disagreed
    bad_parity: bool = False


def superpose(answers: list[Answer]) -> Reception:
    """Several answers in the same time slot: equal bits read fine, the first differing bit is a collision."""
    nbits = max(a.nbits for a in answers)
    shortest = min(a.nbits for a in answers)
    value = 0
    every = (1 << nbits) - 1
    for answer in answers:
        value |= answer.value
        every &= answer.value
    differ = (value ^ every) & ((1 << shortest) - 1)
    collision: int | None = None
    if differ:
        collision = (differ & -differ).bit_length() - 1
    elif shortest < nbits:
        collision = shortest  # one tag stopped while another went on
    return Reception(
        value=value,
        nbits=nbits,
        delay_s=max(a.delay_s for a in answers),
        collision=collision,
        bad_parity=collision is None and any(a.bad_parity for a in answers),
    )


class Tag(Protocol):
    """Anything in the field: it hears every frame the reader sends while the field powers it."""

    def power(self, on: bool) -> None: ...

    def hear(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None: ...


@dataclass
class Field:
    """One reader's RF field and the tags in it. ``add`` and ``remove`` are what a player's hand does."""

    tags: list[Tag] = field(default_factory=list)
    powered: bool = False
    _noise: int = 0
    _rng: random.Random = field(default_factory=lambda: random.Random(14443))

    def add(self, *tags: Tag) -> None:
        for tag in tags:
            if tag not in self.tags:
                self.tags.append(tag)
                tag.power(self.powered)

    def remove(self, *tags: Tag) -> None:
        for tag in tags:
            if tag in self.tags:
                self.tags.remove(tag)
                tag.power(False)

    def clear(self) -> None:
        self.remove(*list(self.tags))

    def noise(self, frames: int = 1) -> None:
        """The next ``frames`` receive windows get a burst of interference (a damaged frame) instead of silence."""
        self._noise += frames

    def switch(self, on: bool) -> None:
        if on != self.powered:
            self.powered = on
            for tag in self.tags:
                tag.power(on)

    def transmit(self, frame: bytes, nbits: int, crypto1: bool) -> Reception | None:
        """The reader sends ``nbits`` bits of ``frame``; every powered tag hears it at once."""
        if not self.powered:
            return None
        answers = [a for a in (tag.hear(frame, nbits, crypto1) for tag in self.tags) if a is not None]
        if self._noise:
            self._noise -= 1
            length = 8 * self._rng.randint(1, 3)
            answers.append(Answer(self._rng.getrandbits(length), length, FDT_LAST_1_S, bad_parity=True))
        return superpose(answers) if answers else None


def uid_bytes(uid: Iterable[int] | bytes | str) -> bytes:
    """A UID from bytes, a list of ints or hex text (``"04A1B2C3D4E5F6"``, spaces and colons allowed)."""
    if isinstance(uid, str):
        text = uid.replace(":", "").replace(" ", "")
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise ValueError(f"{uid!r} is not a UID in hex (like 04A1B2C3D4E5F6)") from None
    return bytes(uid)
