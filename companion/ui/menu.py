"""The menu, driven by the three buttons: pure state, presses in, a chosen setting out.

A long CONFIRM opens it (the daemon's call). In the menu PASS moves to the next line, CONFIRM picks the line,
UNDO goes back (and closes the menu from its first level). Picking a setting opens the list of its values;
picking a value returns it as a :class:`Choice` and goes back to the settings::

    >>> menu = Menu(Settings())
    >>> menu.press(Press(Button.PASS, "short", 0.0)), menu.press(Press(Button.CONFIRM, "short", 0.1))
    (None, None)
    >>> menu.press(Press(Button.PASS, "short", 0.2)), menu.press(Press(Button.CONFIRM, "short", 0.3))
    (None, Choice(key='players', value=5))
    >>> menu.settings.players
    5

Only values that make a playable game are offered: Seises deals every card, so the number of players must
divide the deck (40 cards: 2, 4, 5 or 8 players; 48: 2, 3, 4, 6 or 8; counts below the sheet's ideal 4 to 8 say
so), and 6º SET is played by two pairs. Seises seat names come from the config (``seat_names``), in the order
the players sit; they are not set here: at a new game's first play the referee asks which of them laid the 6 of
oros, and numbers the seats from that player.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from companion.events import Button, Press
from companion.ui.text import LANGUAGES, tr
from companion.view import Language, MenuView

__all__ = ["GAMES", "Choice", "Menu", "Settings", "decks_for", "players_for"]

GAMES = ("seises", "sexto-set")
_DECK_SIZES = {"spanish-40": 40, "spanish-48": 48, "squadratik": 0}
_SETTINGS = ("game", "players", "deck", "language")
_IDEAL_PLAYERS = 4  # "Lo ideal es que intervengan de cuatro a ocho jugadores" (Seises §2)
_ACTIONS = ("new_game", "close")
Key = Literal["game", "players", "deck", "language", "new_game", "close"]


def decks_for(game: str) -> tuple[str, ...]:
    return ("spanish-40", "spanish-48") if game == "seises" else ("squadratik",)


def players_for(game: str, deck: str) -> tuple[int, ...]:
    if game == "seises":  # as companion.rules.seises.player_counts, without loading the deck
        return tuple(count for count in range(2, 9) if _DECK_SIZES[deck] % count == 0)
    return (4,)


@dataclass(frozen=True, slots=True)
class Settings:
    """What the next game will be, and the table's language."""

    game: str = "seises"
    players: int = 4
    deck: str = "spanish-40"
    language: Language = "es"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game {self.game!r}: choose {' or '.join(GAMES)}")
        if self.deck not in decks_for(self.game):
            raise ValueError(f"deck {self.deck!r} does not play {self.game}: use {', '.join(decks_for(self.game))}")
        counts = players_for(self.game, self.deck)
        if self.players not in counts:
            raise ValueError(
                f"{self.players} players cannot play {self.game} with {self.deck}: use {', '.join(map(str, counts))}"
            )


@dataclass(frozen=True, slots=True)
class Choice:
    """A line picked in the menu: a setting and its new value, or "new_game" / "close" (value None)."""

    key: Key
    value: str | int | None = None


class Menu:
    """The menu's state: which level (the settings, or one setting's values) and which line is highlighted."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.editing: str | None = None  # the setting whose values are listed, or None on the first level
        self.selected = 0

    def press(self, press: Press) -> Choice | None:
        """Apply one press; return what was picked, if anything."""
        if press.kind == "long":
            # A long UNDO leaves the menu from anywhere; other long presses mean nothing here.
            return self._close() if press.button == Button.UNDO else None
        lines = len(self._lines())
        if press.button == Button.PASS:
            self.selected = (self.selected + 1) % lines
            return None
        if press.button == Button.UNDO:
            if self.editing is None:
                return self._close()
            self.selected, self.editing = _SETTINGS.index(self.editing), None
            return None
        return self._pick()

    def view(self) -> MenuView:
        """The menu as the screen shows it, in the table's language."""
        language = self.settings.language
        if self.editing is None:
            items = tuple(
                f"{tr(key, language)}: {self._label(key, getattr(self.settings, key), note=False)}" for key in _SETTINGS
            ) + tuple(tr(action, language) for action in _ACTIONS)
            title = tr("menu", language)
        else:
            items = tuple(self._label(self.editing, value) for value in self._values(self.editing))
            title = tr(self.editing, language)
        return MenuView(title=title, items=items, selected=self.selected, hint=tr("menu_hint", language))

    def _lines(self) -> tuple[object, ...]:
        return (*_SETTINGS, *_ACTIONS) if self.editing is None else self._values(self.editing)

    def _values(self, key: str) -> tuple[str | int, ...]:
        if key == "game":
            return GAMES
        if key == "deck":
            return decks_for(self.settings.game)
        if key == "players":
            return players_for(self.settings.game, self.settings.deck)
        return LANGUAGES

    def _label(self, key: str, value: str | int, *, note: bool = True) -> str:
        """A value as listed; a Seises player count below the sheet's ideal says so where there is room."""
        if key != "players":
            return tr(str(value), self.settings.language)
        below_ideal = note and self.settings.game == "seises" and int(value) < _IDEAL_PLAYERS
        return f"{value} ({tr('ideal_players', self.settings.language)})" if below_ideal else str(value)

    def _pick(self) -> Choice | None:
        if self.editing is None:
            key = (*_SETTINGS, *_ACTIONS)[self.selected]
            if key in _ACTIONS:
                return Choice("new_game") if key == "new_game" else self._close()
            self.editing = key
            values = self._values(key)
            self.selected = values.index(getattr(self.settings, key))
            return None
        key, value = self.editing, self._values(self.editing)[self.selected]
        self.settings = _with(self.settings, key, value)
        self.selected, self.editing = _SETTINGS.index(key), None
        choice: Choice = Choice(key, value)  # type: ignore[arg-type]  # key is one of _SETTINGS
        return choice

    def _close(self) -> Choice:
        self.editing, self.selected = None, 0
        return Choice("close")


def _with(settings: Settings, key: str, value: str | int) -> Settings:
    """``settings`` with ``key`` changed, the deck and player count moved to playable values if they no longer are."""
    game = str(value) if key == "game" else settings.game
    deck = str(value) if key == "deck" else settings.deck
    if deck not in decks_for(game):
        deck = decks_for(game)[0]
    players = int(value) if key == "players" else settings.players
    if players not in players_for(game, deck):
        players = players_for(game, deck)[0]
    language = str(value) if key == "language" else settings.language
    return replace(settings, game=game, deck=deck, players=players, language=language)  # type: ignore[arg-type]
