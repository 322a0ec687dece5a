"""Seises's final standings as the demo prints them: each seat's points, best first."""

from __future__ import annotations

from companion.games.kind import Voice
from companion.games.seises.rules import Seises

__all__ = ["standings"]


def standings(game: Seises, voice: Voice) -> tuple[list[str], list[list[str]]]:
    """The head and the rows, a seat a row as the table names it."""
    head = [voice.text("seat", n="").strip(), voice.text("points_head")]
    rows = [[voice.seat_name(seat), str(score)] for seat, score in enumerate(game.scores)]
    rows.sort(key=lambda row: -int(row[1]))
    return head, rows
