"""What an action did beyond laying its card, read from the snapshots before and after it.

The command line says it in a verdict, the referee on the screen; both ask :func:`news`, so the two always agree::

    >>> from companion.rules import Play, Seises
    >>> game = Seises(players=4)
    >>> before = game.snapshot(); game.push(Play("6O")); news(before, game.snapshot())
    []
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ChipOwed", "GameWon", "HandWon", "News", "Reneged", "SetEnded", "news"]


@dataclass(frozen=True, slots=True)
class Reneged:
    seat: int  # from 1
    card: str


@dataclass(frozen=True, slots=True)
class ChipOwed:
    seat: int


@dataclass(frozen=True, slots=True)
class HandWon:
    seat: int
    chips: int  # the pot it took
    next_hand: int


@dataclass(frozen=True, slots=True)
class GameWon:
    seat: int
    score: int


@dataclass(frozen=True, slots=True)
class SetEnded:
    winner: str | None  # "A", "B", or None for a drawn set


News = Reneged | ChipOwed | HandWon | GameWon | SetEnded


def news(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[News]:
    """In the order things happened: a renuncio and a chip owed come before the hand (and the game) they end."""
    if after["game"] != "seises":
        ended = after["result"] is not None and before["result"] is None
        return [SetEnded(after["result"]["winner"])] if ended else []
    seat = before["turn"]
    found: list[News] = []
    if len(after["reneges"]) > len(before["reneges"]):
        found.append(Reneged(seat, after["reneges"][-1]["card"]))
    if sum(after["owed"]) > sum(before["owed"]):
        found.append(ChipOwed(seat))
    if after["hand"] != before["hand"] or after["winner"] is not None:
        found.append(HandWon(seat, after["scores"][seat - 1] - before["scores"][seat - 1], after["hand"]))
    if after["winner"] is not None:
        found.append(GameWon(after["winner"], after["scores"][after["winner"] - 1]))
    return found
