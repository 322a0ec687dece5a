"""What an action did beyond laying its card: the news items a game kind reads from the snapshots before and after
it (each kind's ``news``). The command line says them in a verdict, the referee on the screen; both read the same
items, so the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ChipOwed",
    "GameWon",
    "HandWon",
    "News",
    "Reneged",
    "SetEnded",
    "SetStarted",
    "SomebodyReneged",
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
