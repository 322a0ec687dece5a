"""Actions and cards in words, as the table and ``companion play`` say them, in Spanish or English::

>>> from companion.rules import Play, Seises
>>> describe(Seises(players=4), Play("6O"), "en")
'plays the 6 of coins'
"""

from __future__ import annotations

from companion.rules.base import Action, Game, Pass, Pay

__all__ = ["card_name", "describe", "undone_words"]


def describe(game: Game, action: Action, lang: str = "es") -> str:
    """An action in words: ``juega 6 de oros``, ``coloca N07 en la línea de la maestra 2 negra``."""
    es = lang != "en"
    if isinstance(action, Pay):
        return "paga una ficha" if es else "pays one chip"
    if isinstance(action, Pass):
        return "pasa: no puede enlazar" if es else "passes: cannot link"
    name = card_name(game, action.card, lang)
    if action.line is None:
        return f"juega {name}" if es else f"plays the {name}"
    line = card_name(game, action.line, lang)
    return f"coloca {name} en la línea de la {line}" if es else f"places {name} on the line of {line}"


def undone_words(game: Game, action: Action, lang: str = "es") -> str:
    """What an undo took back, as the table says it: ``6 de oros``, ``el pago de una ficha``."""
    es = lang != "en"
    if isinstance(action, Pay):
        return "el pago de una ficha" if es else "the chip paid"
    if isinstance(action, Pass):
        return "el paso" if es else "the pass"
    return card_name(game, action.card, lang)


def card_name(game: Game, card_id: str, lang: str = "es") -> str:
    """A card's name in the deck, or its id as typed when the deck has no such card."""
    card = game.deck.get(card_id)
    return card.name(lang) if card is not None else card_id
