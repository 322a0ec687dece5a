"""What a Seises action did beyond laying its card, read from the snapshots before and after it (the kind's
``news``): the screen and ``companion play`` word the same items, so the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ChipOwed", "GameWon", "HandWon", "News", "Reneged", "SomebodyReneged"]


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


News = Reneged | SomebodyReneged | ChipOwed | HandWon | GameWon
