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

__all__ = [
    "ChipOwed",
    "GameWon",
    "HandWon",
    "News",
    "Reneged",
    "SetEnded",
    "SetStarted",
    "SomebodyReneged",
    "news",
]


@dataclass(frozen=True, slots=True)
class Reneged:
    seat: int  # from 1
    card: str
    points: int  # what the penalty took from its score (0 when renuncios are only flagged)


@dataclass(frozen=True, slots=True)
class SomebodyReneged:
    """A whole round of pays while legal cards lie in hands: some seat paid holding one, but which is unknown."""


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
    leads_next: str  # the pair that places the next set's first card


@dataclass(frozen=True, slots=True)
class SetStarted:
    number: int  # from 1


News = Reneged | SomebodyReneged | ChipOwed | HandWon | GameWon | SetStarted | SetEnded


def news(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[News]:
    """In the order things happened: a renuncio and a chip owed come before the hand (and the game) they end."""
    if after["game"] != "seises":
        found: list[News] = []
        if after["set"] != before["set"]:
            found.append(SetStarted(after["set"]))
        if after["result"] is not None and before["result"] is None:
            found.append(SetEnded(after["result"]["winner"], after["turn"]))
        return found
    seat = before["turn"]
    found = []
    if len(after["reneges"]) > len(before["reneges"]):
        renege = after["reneges"][-1]
        found.append(Reneged(seat, renege["card"], renege["points"]))
    if sum(after["owed"]) > sum(before["owed"]):
        found.append(ChipOwed(seat))
    if len(after["payments"]) > len(before["payments"]) and _round_of_pays(after["payments"], after["players"]):
        found.append(SomebodyReneged())
    if after["hand"] != before["hand"] or after["winner"] is not None:
        found.append(HandWon(seat, before["pot"], after["hand"]))  # a renuncio penalty is not the pot
    if after["winner"] is not None:
        found.append(GameWon(after["winner"], after["scores"][after["winner"] - 1]))
    return found


def _round_of_pays(payments: list[dict[str, Any]], players: int) -> bool:
    """The pays since the last card played make up whole rounds: every seat paid in turn while the same cards,
    never on the table and so in somebody's hand, were legal. Pays claim the legal cards of their moment, and a
    card played leaves that set for good, so the run of equal claims at the end is the run of pays."""
    legal = payments[-1]["legal"]
    run = 0
    for payment in reversed(payments):
        if payment["legal"] != legal:
            break
        run += 1
    return bool(legal) and run % players == 0
