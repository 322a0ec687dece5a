"""The few words the screens and the menu write themselves, in Spanish and English.

Everything else on the screen (seat names, message texts) comes already translated in the view. Every string
here is drawn by the screen tests in both languages, so one that is too long fails a test, not a game::

    >>> tr("pot", "es"), tr("pot", "en")
    ('Bote', 'Pot')
"""

from __future__ import annotations

from companion.view import Language

__all__ = ["LANGUAGES", "STRINGS", "tr"]

LANGUAGES: tuple[Language, ...] = ("es", "en")

# key -> (Spanish, English)
STRINGS: dict[str, tuple[str, str]] = {
    "pot": ("Bote", "Pot"),
    "reserve": ("Reserva", "Reserve"),
    "reserve_short": ("Res.", "Res."),
    "owed": ("Debe", "Owed"),
    "hand": ("Mano", "Hand"),  # the hand number: "Mano 3"
    "turn": ("Turno", "Turn"),
    "draw_pile": ("Mazo", "Pile"),
    "masters": ("Maestras", "Masters"),
    "masters_short": ("Maest.", "Mast."),
    "leads_next": ("Sale", "Next"),  # the pair that leads the next set
    "sets": ("Sets", "Sets"),
    "winner": ("Gana", "Winner"),
    "draw": ("Empate", "Draw"),
    "menu": ("Menú", "Menu"),
    "menu_hint": ("OK elige PASO baja", "OK pick PASS next"),
    "game": ("Juego", "Game"),
    "players": ("Jugadores", "Players"),
    "ideal_players": ("ideal 4-8", "ideal 4-8"),  # beside a Seises player count below the sheet's ideal
    "deck": ("Baraja", "Deck"),
    "language": ("Idioma", "Language"),
    "new_game": ("Nueva partida", "New game"),
    "close": ("Cerrar", "Close"),
    "seises": ("Seises", "Seises"),
    "sexto-set": ("6º SET", "6º SET"),
    "spanish-40": ("Española 40", "Spanish 40"),
    "spanish-48": ("Española 48", "Spanish 48"),
    "squadratik": ("Squadratik", "Squadratik"),
    "es": ("Español", "Español"),
    "en": ("English", "English"),
    "no_game": ("Sin partida", "No game"),
    "no_game_hint": ("Mantén OK: menú", "Hold OK: menu"),
}


def tr(key: str, language: str) -> str:
    """The string ``key`` in ``language`` ("es" or "en"; anything else falls back to Spanish)."""
    spanish, english = STRINGS[key]
    return english if language == "en" else spanish
