"""Actions and cards in words, as the table and ``companion play`` say them, in any language::

>>> from companion.games.seises.rules import Seises
>>> from companion.rules import Play
>>> describe(Seises(players=4), Play("6O"), "en")
'plays the 6 of coins'
"""

from __future__ import annotations

from companion.i18n import translate
from companion.rules.base import Action, Game, Play

__all__ = ["card_name", "describe", "undone_words"]


def describe(game: Game, action: Action, lang: str = "es") -> str:
    """An action in words: ``juega 6 de oros``, ``coloca N07 en la línea de la maestra 2 negra``."""
    if not isinstance(action, Play):
        return translate(action.deed, lang)
    name = card_name(game, action.card, lang)
    if action.line is None:
        return translate("plays the {card}", lang).format(card=name)
    line = card_name(game, action.line, lang)
    return translate("places {card} on the line of {line}", lang).format(card=name, line=line)


def undone_words(game: Game, action: Action, lang: str = "es") -> str:
    """What an undo took back, as the table says it: ``6 de oros``, ``el pago de una ficha``."""
    if not isinstance(action, Play):
        return translate(action.taken_back, lang)
    return card_name(game, action.card, lang)


def card_name(game: Game, card_id: str, lang: str = "es") -> str:
    """A card's name in the deck, or its id as typed when the deck has no such card."""
    card = game.deck.get(card_id)
    return card.name(lang) if card is not None else card_id
