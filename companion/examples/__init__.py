"""Example table states, one per screen, for ``companion screens``, the docs and the screen tests.

Every example is a moment of a real game: robot players (:mod:`companion.games.<game>.robots`) play with a fixed seed,
through a :class:`~companion.referee.Referee` fed the events a table sends (a card laid on its zone, CONFIRM,
the card lifted; PASS then CONFIRM for a pay or a pass), up to the moment shown. So a screen can only show what
the rules allow, with the referee's own messages. Each game gives its own moments (the ``examples`` module of its
package, played on an :class:`ExampleTable`). The menu is the real :class:`~companion.menu.Menu` after the presses that
open the deck's list, the game's list, and "new game" picked once. The seats take the longest names a table is
likely to set, so a text that grows past its box fails the screen tests in both languages.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press
from companion.games import AnyKind, Robots, game_module, kinds
from companion.menu import Menu, Settings
from companion.referee import Referee
from companion.rules import Action, Play
from companion.view import Language, MessageKind, TableView

__all__ = ["NAMES", "SEED", "ExampleTable", "example_views", "game_examples", "message_is"]

SEED = 7  # the robots' seed: the same games, so the same reference frames, every time
NAMES = ("Ana", "Luis", "Maribel", "Pau", "Íñigo", "Eva", "Toño", "Begoña")  # in the order they sit
_STEPS = 5_000  # more actions than any game of the examples takes


class ExampleTable:
    """A referee and robot players at one table, every action made as the players make it. Zones that learn
    their head get it first; ``robots`` makes other robots than the game kind's own."""

    def __init__(self, config: GameConfig, robots: Callable[[Any, random.Random], Robots] | None = None) -> None:
        self.kind = kinds()[config.name]
        self.zone_names = tuple(self.kind.default_zones())
        self.referee = Referee(config, self.kind.default_zones())
        self.now = 0.0
        rng = random.Random(SEED)
        game = self.referee.current_game
        for zone, head in zip(self.zone_names, self.kind.heads(game), strict=False):
            self.lay(zone, head)
            self.event(CardLeft(zone, head))
        self.robots = robots(game, rng) if robots is not None else self.kind.robots(game, rng)

    def event(self, event: object) -> None:
        self.now += 1.0
        self.referee.handle(event, self.now)  # type: ignore[arg-type]  # one of the referee's events

    def press(self, button: Button) -> None:
        self.event(Press(button, "short", self.now))

    def lay(self, zone: str, card: str) -> None:
        self.event(CardArrived(zone, card))

    def view(self) -> TableView:
        return self.referee.view()

    def step(self) -> None:
        """The next robot's action: laid, confirmed (saying who made the first play when asked), lifted."""
        action, hand = self.robots.choose()
        self._act(action, self._zone(action))
        self.robots.played(action, hand)

    def _zone(self, action: Action) -> str:
        line = action.line if isinstance(action, Play) else None
        headed = {head: zone for zone, head in self.referee.zone_heads.items()}  # the zone each line's head heads
        return headed.get(line) or self.zone_names[0] if line else self.zone_names[0]

    def _act(self, action: Action, zone: str) -> None:
        before = len(self.referee.current_game.actions)
        if isinstance(action, Play):
            self.lay(zone, action.card)
            self.press(Button.CONFIRM)
            if self.referee.asking_first_seat:
                self.press(Button.CONFIRM)  # the first name offered laid the 6 of oros
            self.event(CardLeft(zone, action.card))
        else:
            self.press(Button.PASS)
            self.press(Button.CONFIRM)
        if len(self.referee.current_game.actions) != before + 1:
            raise AssertionError(f"the referee did not take {action}: {self.referee.view().message}")

    def until(self, moment: Callable[[TableView], bool]) -> TableView:
        """Play on until ``moment`` holds for the view; the view then."""
        for _ in range(_STEPS):
            view = self.view()
            if moment(view):
                return view
            self.step()
        raise AssertionError(f"seed {SEED}: the robots did not reach the moment in {_STEPS} actions")

    def illegal(self) -> TableView:
        """The player whose turn it is lays a card of their hand that does not fit: the screen then. The card is
        taken back."""
        game, zone = self.referee.current_game, self.zone_names[0]
        card = next(card for card in self.robots.hand() if game.reason(Play(card)) is not None)
        self.lay(zone, card)
        view = self.view()
        self.event(CardLeft(zone, card))
        return view


def message_is(kind: MessageKind) -> Callable[[TableView], bool]:
    """A moment: a message of ``kind`` on the screen."""
    return lambda view: view.message is not None and view.message.kind is kind


def _menu(language: Language, *buttons: Button) -> TableView:
    """The menu of a table of the default game (its own zones) after a long CONFIRM and ``buttons``."""
    menu = Menu(Settings(language=language))
    for button in buttons:
        menu.press(Press(button, "short", 0.0))
    return TableView(menu=menu.view(), language=language)


def game_examples(kind: AnyKind, language: Language) -> dict[str, TableView]:
    """The moments a game gives (``examples(language)`` in the ``examples`` module of its package, beside its
    kind), or none when it has no such module."""
    module = game_module(kind, "examples")
    if module is None:
        return {}
    examples: Callable[[Language], dict[str, TableView]] = module.examples
    return examples(language)


@cache
def _examples(language: Language) -> Mapping[str, TableView]:
    views: dict[str, TableView] = {}
    for kind in kinds().values():
        views.update(game_examples(kind, language))
    views["menu"] = _menu(language, Button.PASS, Button.PASS, Button.CONFIRM, Button.PASS)  # its second deck
    views["menu-games"] = _menu(language, Button.CONFIRM)  # the games its zones play, and which they cannot
    views["menu-new-game"] = _menu(language, *[Button.PASS] * 4, Button.CONFIRM)  # "New game?": OK again
    views["pairing"] = TableView(language=language, pairing="042917")
    views["no-game"] = TableView(language=language)
    return MappingProxyType(views)


def example_views(language: Language) -> Mapping[str, TableView]:
    """Named example views in ``language``: every screen and every message kind, each a real game's moment."""
    return _examples(language)
