"""6º SET in ``companion play``'s transcript: what an action did beyond laying its card, written after its verdict
(a set begun or won, who leads the next one, the match over), from the game's news (:func:`.news`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from companion.games.sexto_set import match_verdict, news
from companion.games.sexto_set.news import SetEnded, SetStarted
from companion.i18n import translate

__all__ = ["notes"]


def notes(before: Mapping[str, Any], after: Mapping[str, Any], lang: str) -> Iterable[str]:
    """The news of one action, in the order they happened, in ``lang``."""
    for item in news(before, after):
        if isinstance(item, SetStarted):
            yield translate("set {number} begins", lang).format(number=item.number)
        elif isinstance(item, SetEnded):
            if item.winner is None:
                yield translate("drawn set", lang)
            else:
                yield translate("pair {pair} wins the set", lang).format(pair=item.winner)
            if not after["match"]["over"]:
                yield translate("pair {pair} leads the next one", lang).format(pair=item.leads_next)
    if after["match"]["over"] and not before["match"]["over"]:
        yield translate("the match is over: {verdict}", lang).format(verdict=match_verdict(after["match"]).text(lang))
