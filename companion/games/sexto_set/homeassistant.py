"""6º SET in Home Assistant (:mod:`companion.club.homeassistant`): the counts of a match it shows as the table's
sensors, beside those of every game (the game, whose turn, the last message)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.club.homeassistant import Sensor
from companion.games.sexto_set.rules import PAIRS

__all__ = ["sensors"]


def sensors(state: Mapping[str, Any]) -> list[Sensor]:
    """Each pair's score (the match's master cards, the sheet's objective), the master cards of the set beside it
    and its sets; once the match is over, its winner and the rule that named it."""
    counts = [
        sensor
        for pair in PAIRS
        for sensor in (
            Sensor(f"score_{pair}", f"Pair {pair} score", ("match", "master_cards", pair)),
            Sensor(f"masters_{pair}", f"Pair {pair} master cards", ("masters_won", pair), icon="mdi:crown"),
            Sensor(f"sets_{pair}", f"Pair {pair} sets", ("match", "sets", pair), icon="mdi:trophy-variant"),
        )
    ]
    return [
        *counts,
        Sensor("winner", "Winner", ("match", "winner"), icon="mdi:trophy", measurement=False),
        Sensor("decided_by", "Decided by", ("match", "decided_by"), icon="mdi:scale-balance", measurement=False),
    ]
