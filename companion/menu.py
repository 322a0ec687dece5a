"""The menu, driven by the three buttons: pure state, presses in, a chosen setting out.

A long CONFIRM opens it (the daemon's call). In the menu PASS moves to the next line, CONFIRM picks the line,
UNDO goes back (and closes the menu from its first level). Picking a setting opens the list of its values;
picking a value returns it as a :class:`Choice` and goes back to the settings. "New game" ends the game being
played, so it asks for a second CONFIRM (any other button leaves it unpicked)::

    >>> menu = Menu(Settings())
    >>> menu.press(Press(Button.PASS, "short", 0.0)), menu.press(Press(Button.CONFIRM, "short", 0.1))
    (None, None)
    >>> menu.press(Press(Button.PASS, "short", 0.2)), menu.press(Press(Button.CONFIRM, "short", 0.3))
    (None, Choice(key='players', value=5))
    >>> menu.settings.players
    5

Only values that make a playable game are offered: each game kind (:mod:`companion.games`) says whether the
table's zones can play it (the games they cannot are left out, and the game's list says so), which decks it plays and
which player counts each deck deals to (counts below the rule sheet's ideal say so). Seat names come from
the config (``seat_names``), in the order the players sit; they are not set here. The menu is core logic: it takes
input events and gives a :class:`~companion.view.MenuView`, which the screen draws (``ui.screens.draw_menu``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from companion.config import SPEECH_LEVELS
from companion.decks import Deck, load_deck
from companion.events import Button, Press
from companion.games import DEFAULT_GAME, find_kind, kinds
from companion.i18n import Said, language_name, languages
from companion.view import Language, MenuView, tr

__all__ = ["Choice", "Menu", "Settings", "decks_for", "games_for", "label", "players_for", "unfit_games"]

_SETTINGS = ("game", "players", "deck", "language", "speech")
Key = Literal["game", "players", "deck", "language", "speech", "new_game", "pair", "close"]


def unfit_games(zones: Mapping[str, str]) -> dict[str, tuple[Said, ...]]:
    """The games a table whose zones are ``zones`` (zone -> role) cannot play, each with why
    (:meth:`~companion.games.GameKind.zones_unfit`)."""
    return {name: unfit for name, kind in kinds().items() if (unfit := kind.zones_unfit(zones))}


def games_for(zones: Mapping[str, str]) -> tuple[str, ...]:
    """The games a table whose zones are ``zones`` can play, the built-in ones first."""
    unfit = unfit_games(zones)
    return tuple(name for name in kinds() if name not in unfit)


def decks_for(game: str) -> tuple[str, ...]:
    return find_kind(game).decks


def players_for(game: str, deck: str) -> tuple[int, ...]:
    return find_kind(game).player_counts(_deck(deck))


def label(key: str, value: str | int, game: str, language: str, *, note: bool = True) -> str:
    """A value of setting ``key`` as the menu lists it, in ``language``; a player count below the rule sheet's ideal
    says so where there is room (``note``)."""
    if key == "game":
        return find_kind(str(value)).title(language)
    if key == "language":
        return language_name(str(value))  # each language in its own words, whatever the menu speaks
    if key != "players":
        return tr(str(value), language)
    ideal = find_kind(game).ideal_players
    below_ideal = note and ideal is not None and int(value) < ideal[0]
    return f"{value} (ideal {ideal[0]}-{ideal[1]})" if below_ideal and ideal else str(value)


@cache
def _deck(name: str) -> Deck:
    return load_deck(name)


@dataclass(frozen=True, slots=True)
class Settings:
    """What the next game will be, the table's language, and how much it says aloud (None: it has no voice, and
    the menu does not offer one)."""

    game: str = DEFAULT_GAME
    players: int = 4
    deck: str = ""  # empty: the game's own deck
    language: Language = "es"
    speech: str | None = None  # one of SPEECH_LEVELS

    def __post_init__(self) -> None:
        if self.game not in kinds():
            raise ValueError(f"game {self.game!r}: choose {' or '.join(kinds())}")
        if not self.deck:
            object.__setattr__(self, "deck", decks_for(self.game)[0])
        if self.deck not in decks_for(self.game):
            raise ValueError(f"deck {self.deck!r} does not play {self.game}: use {', '.join(decks_for(self.game))}")
        counts = players_for(self.game, self.deck)
        if self.players not in counts:
            raise ValueError(
                f"{self.players} players cannot play {self.game} with {self.deck}: use {', '.join(map(str, counts))}"
            )
        if self.speech is not None and self.speech not in SPEECH_LEVELS:
            raise ValueError(f"speech {self.speech!r}: choose {', '.join(SPEECH_LEVELS)}")


@dataclass(frozen=True, slots=True)
class Choice:
    """A line picked in the menu: a setting and its new value, or "new_game" / "pair" / "close" (value None)."""

    key: Key
    value: str | int | None = None


class Menu:
    """The menu's state: which level (the settings, or one setting's values) and which line is highlighted.

    ``pairing``: the table serves its page, and the menu offers to show the code a phone pairs with. ``zones``: the
    table's (zone -> role; by default the settings' game's own), which say the games it offers. ``mute``: the
    table's voice cannot sound (no sound card, no espeak-ng): what to do, said as the hint once a person switches
    it on."""

    def __init__(
        self,
        settings: Settings,
        *,
        pairing: bool = False,
        zones: Mapping[str, str] | None = None,
        mute: Said | None = None,
    ) -> None:
        self.settings = settings
        self.mute = mute
        self.warning: Said | None = None  # said as the hint until the next press
        zones = find_kind(settings.game).default_zones() if zones is None else zones
        self.games, self.missing = games_for(zones), tuple(unfit_games(zones))
        self.actions: tuple[Key, ...] = ("new_game", "pair", "close") if pairing else ("new_game", "close")
        self.editing: str | None = None  # the setting whose values are listed, or None on the first level
        self.selected = 0
        self.sure = False  # "new game" was picked once: the next CONFIRM starts it

    def press(self, press: Press) -> Choice | None:
        """Apply one press; return what was picked, if anything."""
        sure, self.sure = self.sure, False
        self.warning = None
        if sure and press.button == Button.CONFIRM and press.kind == "short":
            return Choice("new_game")
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
                f"{tr(key, language)}: {self._label(key, getattr(self.settings, key), note=False)}"
                for key in self._settings()
            ) + tuple(
                tr("new_game_sure" if self.sure and action == "new_game" else action, language)
                for action in self.actions
            )
            title = tr("menu", language)
        else:
            items = tuple(self._label(self.editing, value) for value in self._values(self.editing))
            title = tr(self.editing, language)
        hint = tr("new_game_sure_hint" if self.sure else "menu_hint", language)
        if self.warning is not None:
            hint = self.warning.text(language)
        if self.editing == "game" and self.missing:  # why a game is not listed
            hint = tr("games_missing", language).format(
                games=", ".join(label("game", g, g, language) for g in self.missing)
            )
        return MenuView(title=title, items=items, selected=self.selected, hint=hint)

    def _settings(self) -> tuple[str, ...]:
        """The settings listed: the voice's only at a table that has one."""
        return _SETTINGS if self.settings.speech is not None else _SETTINGS[:-1]

    def _lines(self) -> tuple[object, ...]:
        return (*self._settings(), *self.actions) if self.editing is None else self._values(self.editing)

    def _values(self, key: str) -> tuple[str | int, ...]:
        if key == "game":
            return self.games
        if key == "deck":
            return decks_for(self.settings.game)
        if key == "players":
            return players_for(self.settings.game, self.settings.deck)
        if key == "speech":
            return SPEECH_LEVELS
        return languages()

    def _label(self, key: str, value: str | int, *, note: bool = True) -> str:
        return label(key, value, self.settings.game, self.settings.language, note=note)

    def _pick(self) -> Choice | None:
        if self.editing is None:
            key = (*self._settings(), *self.actions)[self.selected]
            if key == "new_game":
                self.sure = True
                return None
            if key in self.actions:
                return self._close() if key == "close" else Choice(key)
            self.editing = key
            values = self._values(key)
            now = getattr(self.settings, key)
            self.selected = values.index(now) if now in values else 0  # a game resumed on zones unfit for it
            return None
        key, value = self.editing, self._values(self.editing)[self.selected]
        self.settings = _with(self.settings, key, value)
        if key == "speech" and value != "off":
            self.warning = self.mute  # a voice switched on that cannot sound: what to do
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
    speech = str(value) if key == "speech" else settings.speech
    return replace(settings, game=game, deck=deck, players=players, language=language, speech=speech)
