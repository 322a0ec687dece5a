"""Seises in ``companion play``'s transcript: what an action did beyond laying its card, written after its verdict
(``seat 2 plays the 5 of cups; seat 2 wins the hand and the pot (6 chips)``), from the game's news (:func:`.news`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from companion.games.seises import news
from companion.games.seises.news import ChipOwed, GameWon, HandWon, Reneged, SomebodyReneged
from companion.i18n import translate, translate_n

__all__ = ["notes"]


def notes(before: Mapping[str, Any], after: Mapping[str, Any], lang: str) -> Iterable[str]:
    """The news of one action, in the order they happened, in ``lang``."""
    for item in news(before, after):
        if isinstance(item, Reneged):
            penalty = translate_n(" (-{points} point)", " (-{points} points)", item.points, lang)
            penalty = penalty.format(points=item.points) if item.points else ""
            yield translate("renege!", lang) + penalty
        elif isinstance(item, SomebodyReneged):
            yield translate("renege!: every seat paid while playable cards are in hands", lang)
        elif isinstance(item, ChipOwed):
            yield translate("reserve empty: the chip is owed", lang)
        elif isinstance(item, HandWon):
            said = translate_n(
                "seat {seat} wins the hand and the pot ({chips} chip)",
                "seat {seat} wins the hand and the pot ({chips} chips)",
                item.chips,
                lang,
            )
            yield said.format(seat=item.seat, chips=item.chips)
        elif isinstance(item, GameWon):
            yield translate("seat {seat} wins the game", lang).format(seat=item.seat)
