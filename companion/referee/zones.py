"""What lies on each zone, as the card events tell it: cards and unknown tags, the zones holding more than one, and
the warnings lit until their card leaves. What each zone is for (its role) and which card heads it (a line's
master card) come from the config and the game kind. Pure; the tracker (:mod:`companion.nfc.tracking`) is the
one that follows tags, this only keeps what its events said.

A card the table finds lying on a zone when it starts (:class:`CardFound`) was laid before the power went: it is
no play (made, taken back by an UNDO, or never confirmed), and the players lift it and lay it again to play it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.view import ZoneLight

__all__ = ["CardFound", "Zones"]


@dataclass(frozen=True, slots=True)
class CardFound:
    """``card`` was lying on ``zone`` when the table started (read in the zone's first scans): not a card laid."""

    zone: str
    card: str


class Zones:
    def __init__(self, roles: Mapping[str, str], heads: Mapping[str, str]) -> None:
        self.roles = dict(roles)  # zone -> what the game kind makes of it ("table", a suit, a master id, "auto")
        self.heads = dict(heads)  # zone -> the card that heads it (from its role, or learnt at a game's start)
        self.lying: dict[str, set[str]] = {zone: set() for zone in roles}  # cards (or unknown tags' uids) there
        self.crowded: set[str] = set()  # zones holding more than one card
        self.warnings: dict[str, ZoneLight] = {}  # zone -> ILLEGAL | UNKNOWN, until its card leaves

    def waiting(self) -> list[str]:
        """The zones that have no head yet, in the config's order."""
        return [zone for zone in self.roles if zone not in self.heads]

    def lay(self, zone: str, item: str) -> bool:
        """``item`` arrived on ``zone``; whether that crowds the zone (which card is meant? the one left once the
        others are taken away)."""
        present = self.lying.setdefault(zone, set())
        present.add(item)
        if len(present) > 1:
            self.crowded.add(zone)
            return True
        return False

    def lift(self, zone: str, item: str) -> tuple[str | None, bool]:
        """``item`` left ``zone``: the item left alone on a zone that was crowded (it is the one meant), and
        whether that cleared the zone's warning (its last card left)."""
        present = self.lying.setdefault(zone, set())
        present.discard(item)
        if zone in self.crowded and len(present) == 1:
            self.crowded.discard(zone)
            self.warnings.pop(zone, None)
            return next(iter(present)), False
        if not present and zone in self.warnings:
            self.crowded.discard(zone)
            del self.warnings[zone]
            return None, True
        return None, False

    def head_of(self, card: str) -> str | None:
        """The zone ``card`` heads, if any."""
        return next((zone for zone, head in self.heads.items() if head == card), None)
