"""From zone scans to card events: presence debounce and UID-to-card, pure (no I/O, time passed in).

A card counts as there as soon as it is read, and as gone only after ``absences`` consecutive clean scans
without it; a scan with ``error`` set is not clean (a garbled answer means something is there) and starts the
count again. So a card that
flickers out of range for fewer scans than that never produces an event. Unknown tags are followed the same way:
``UnknownTag`` when one arrives, ``UnknownTagLeft`` when it leaves (or is named at last); the tracker is the one
place that knows which tags lie where.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from companion.events import (
    CardArrived,
    CardLeft,
    SameCardTwice,
    TableEvent,
    UnknownTag,
    UnknownTagLeft,
    ZoneScan,
    hexuid,
)


class CardNames(Protocol):
    """What the tracker needs of a registry."""

    def card_for(self, uid: bytes) -> str | None: ...

    def uid_for(self, card_id: str) -> str | None: ...


class _Presence:
    """One tag on one zone: what it is and how many clean scans in a row have missed it."""

    __slots__ = ("card", "claims", "missed")

    def __init__(self, card: str | None, claims: str | None = None) -> None:
        self.card = card
        self.claims = claims
        self.missed = 0


class TableTracker:
    """Feed it every ``ZoneScan``; it returns the events that scan caused.

    ``registry`` is anything with ``card_for(uid) -> str | None`` and ``uid_for(card) -> str | None`` (a
    :class:`~companion.nfc.registry.Registry`); a tag it does not know is named by the card id stored on the tag,
    when the scan carries one, ``known`` (if given) accepts it and the registry does not bind that card to another
    tag (then two tags claim the card: ``UnknownTag`` with ``claims``). A tag first left unnamed (its memory could
    not be read) is named when a later scan carries its card id.
    """

    def __init__(self, registry: CardNames, absences: int = 3, known: Callable[[str], bool] | None = None) -> None:
        if absences < 1:
            raise ValueError(
                f"absences must be at least 1 (scans without a card before it counts as gone), not {absences}"
            )
        self.registry = registry
        self._known = known
        self.absences = absences
        self._zones: dict[str, dict[bytes, _Presence]] = {}

    def tags_on(self, zone: str) -> set[bytes]:
        """The UIDs the tracker holds as lying on ``zone``, unknown tags included."""
        return set(self._zones.get(zone, {}))

    def unknown_on(self, zone: str) -> set[bytes]:
        """The UIDs lying on ``zone`` that no card is known for."""
        return {uid for uid, p in self._zones.get(zone, {}).items() if p.card is None}

    def cards_on(self, zone: str) -> list[str]:
        """The cards the tracker holds as lying on ``zone``."""
        return [p.card for p in self._zones.get(zone, {}).values() if p.card is not None]

    def _name(self, uid: bytes, scan: ZoneScan) -> tuple[str | None, str | None]:
        """The card the tag is, and the card it claims to be when the registry gives that card another tag."""
        card = self.registry.card_for(uid)
        if card is not None:
            return card, None
        said = dict(scan.tag_cards).get(uid)
        if said is None or (self._known is not None and not self._known(said)):
            return None, None
        owner = self.registry.uid_for(said)
        if owner is not None and owner != hexuid(uid):
            return None, said
        return said, None

    def feed(self, scan: ZoneScan) -> list[TableEvent]:
        present = self._zones.setdefault(scan.zone, {})
        events: list[TableEvent] = []
        gone: list[TableEvent] = []  # unknown tags that left: said first, so a card laid in their place is alone
        for uid in scan.uids:
            presence = present.get(uid)
            if presence is not None:
                presence.missed = 0
                if presence.card is not None or uid not in dict(scan.tag_cards):
                    continue
                card, claims = self._name(uid, scan)  # its memory was read at last
                if card is None:
                    if claims is not None and claims != presence.claims:
                        presence.claims = claims
                        events.append(UnknownTag(scan.zone, uid, scan.t, claims))
                    continue
                presence.card = card
                events.append(UnknownTagLeft(scan.zone, uid, scan.t))  # it is a card now
            else:
                card, claims = self._name(uid, scan)
                present[uid] = _Presence(card, claims)
                if card is None:
                    events.append(UnknownTag(scan.zone, uid, scan.t, claims))
                    continue
            events.append(CardArrived(scan.zone, card, scan.t))
            zones = tuple(sorted(z for z, tags in self._zones.items() if card in (p.card for p in tags.values())))
            if len(zones) > 1:
                events.append(SameCardTwice(card, zones, scan.t))
        if scan.error is not None:
            # A garbled answer came from something on the pad: the run of clean absences starts again.
            for presence in present.values():
                presence.missed = 0
        else:
            read = set(scan.uids)
            for uid, presence in list(present.items()):
                if uid in read:
                    continue
                presence.missed += 1
                if presence.missed >= self.absences:
                    del present[uid]
                    if presence.card is not None:
                        events.append(CardLeft(scan.zone, presence.card, scan.t))
                    else:
                        gone.append(UnknownTagLeft(scan.zone, uid, scan.t))
        return gone + events
