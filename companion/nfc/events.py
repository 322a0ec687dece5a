"""What the readers report and what the table tracker makes of it: small frozen values, no behaviour.

Zones are the names the config gives the pads (``"O"``, ``"M1R"``, ``"table"``); a card is its deck id
(``"6O"``); a UID is the tag's raw bytes; ``t`` is the time of the scan in seconds on the caller's clock.
"""

from __future__ import annotations

from dataclasses import dataclass


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
class SameCardTwice:
    """One card read on several zones at once: a card lying across two pads, or two tags bound to one card."""

    card: str
    zones: tuple[str, ...]
    t: float = 0.0


TableEvent = CardArrived | CardLeft | UnknownTag | SameCardTwice
