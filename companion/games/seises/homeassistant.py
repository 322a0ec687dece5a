"""Seises in Home Assistant (:mod:`companion.club.homeassistant`): the counts of a game it shows as the table's
sensors, beside those of every game (the game, whose turn, the last message)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.club.homeassistant import Sensor

__all__ = ["sensors"]


def sensors(state: Mapping[str, Any]) -> list[Sensor]:
    """The pot, each seat's score, and once a seat reached 50 (§5) the winner, in a game whose snapshot is
    ``state``."""
    seats = [Sensor(f"score_{n}", f"Seat {n} score", ("scores", n - 1)) for n in range(1, len(state["scores"]) + 1)]
    winner = Sensor("winner", "Winner", ("winner",), icon="mdi:trophy", measurement=False)
    return [Sensor("pot", "Pot", ("pot",), icon="mdi:poker-chip"), *seats, winner]
