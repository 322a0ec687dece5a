"""What comes in at the table: the readers' scans, what the table tracker makes of them, the button presses.

Small frozen values, no behaviour, no device: the referee and the table take these, the back-ends and the
buttons' driver make them. Zones are the names the config gives the pads (``"O"``, ``"M1R"``, ``"table"``); a
card is its deck id (``"6O"``); a UID is the tag's raw bytes, written as :func:`hexuid` spells it; ``t`` is the
time of the scan or press in seconds on the caller's clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

__all__ = [
    "Button",
    "CardArrived",
    "CardLeft",
    "Press",
    "SameCardTwice",
    "TableEvent",
    "UnknownTag",
    "UnknownTagLeft",
    "ZoneScan",
    "hexuid",
]


def hexuid(uid: bytes) -> str:
    """A UID as the registry, the logs and the screen write it: uppercase hex, no separators.

    >>> hexuid(bytes([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]))
    '04A1B2C3D4E5F6'
    """
    return uid.hex().upper()


@dataclass(frozen=True, slots=True)
class ZoneScan:
    """One poll of one zone: the UIDs read there.

    ``error`` is set when the read was garbled (a CRC or parity error, a collision the inventory could not
    settle) or the reader did not answer at all (``reader_down``): the tracker then keeps what was on the zone.
    ``tag_cards`` are card ids read from tag memory, as ``(uid, card_id)`` pairs, for tags the registry may not
    know.
    """

    zone: str
    uids: tuple[bytes, ...]
    t: float
    error: str | None = None
    tag_cards: tuple[tuple[bytes, str], ...] = ()
    reader_down: bool = False


@dataclass(frozen=True, slots=True)
class CardArrived:
    zone: str
    card: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class CardLeft:
    zone: str
    card: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class UnknownTag:
    """A tag neither the registry nor its own memory names: enroll it (``companion enroll``).

    ``claims`` is set when the tag's memory names a card the registry binds to another tag: two tags claim that
    card (a copied tag), and neither this one's word nor the registry's makes it that card.
    """

    zone: str
    uid: bytes
    t: float = 0.0
    claims: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownTagLeft:
    """An unknown tag is no longer on its zone unnamed: it left, or a later read of its memory named it (a
    ``CardArrived`` follows)."""

    zone: str
    uid: bytes
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class SameCardTwice:
    """One card read on several zones at once: a card lying across two pads, or two tags bound to one card."""

    card: str
    zones: tuple[str, ...]
    t: float = 0.0


TableEvent = CardArrived | CardLeft | UnknownTag | UnknownTagLeft | SameCardTwice


class Button(StrEnum):
    """The three buttons. Each value is the button's word in the pin map (``[buttons] undo = 13``)."""

    CONFIRM = "confirm"
    PASS = "pass"
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class Press:
    """A press as the referee sees it: which button, short or long, and when it was recognised."""

    button: Button
    kind: Literal["short", "long"]
    t: float
