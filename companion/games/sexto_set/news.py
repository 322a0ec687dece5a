"""What a 6º SET action did beyond placing its card: a set that started or ended (the kind's ``news``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["News", "SetEnded", "SetStarted"]


@dataclass(frozen=True, slots=True)
class SetEnded:
    winner: str | None  # "A", "B", or None for a drawn set
    leads_next: str  # the pair that places the next set's first card


@dataclass(frozen=True, slots=True)
class SetStarted:
    number: int  # from 1


News = SetEnded | SetStarted
