"""Example table states, one per screen, for ``companion screens``, the docs and the screen tests.

Every example is a moment of a real game: robot players (:mod:`companion.games.<game>.robots`) play with a fixed seed
at a table wired as every table is (:func:`companion.assembly.assemble`: the referee, the card tracker, a journal in a
folder of its own, the LEDs and buttons on gpiozero's mock pins), making each action as players make it (a card laid
on its zone, CONFIRM, the card lifted; PASS then CONFIRM for a pay or a pass), up to the moment shown; the view is the
one the table showed its outputs then. So a screen can only show what the rules allow, with the referee's own
messages. Each game gives its own moments (the ``examples`` module of its package, played on an
:class:`ExampleTable`). The menu is the real :class:`~companion.menu.Menu` after the presses that open the deck's
list, the game's list, and "new game" picked once. The seats take the longest names a table is likely to set, so a
text that grows past its box fails the screen tests in both languages.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Self

from gpiozero.pins.mock import MockFactory

from companion.assembly import Devices, assemble
from companion.config import Config, GameConfig
from companion.events import Button, Press, ZoneScan
from companion.games import AnyKind, Robots, game_module, kinds
from companion.hardware import load_pinmap
from companion.journal import Journal
from companion.menu import Menu, Settings
from companion.nfc.registry import Registry
from companion.readers.sim import SimReaders
from companion.referee import Referee
from companion.referee.health import HealthEvent
from companion.rules import Action, Play
from companion.ui.lights import HubZoneLights, StatusLed
from companion.view import Language, MessageKind, Output, TableView

__all__ = ["NAMES", "SEED", "ExampleTable", "example_views", "game_examples", "message_is"]

SEED = 7  # the robots' seed: the same games, so the same reference frames, every time
NAMES = ("Ana", "Luis", "Maribel", "Pau", "Íñigo", "Eva", "Toño", "Begoña")  # in the order they sit
_STEPS = 5_000  # more actions than any game of the examples takes
_MEMORY = Path("/dev/shm")  # Linux's tmpfs (glibc's shm_open folder), on every Debian machine


class _Hands:
    """The readers of an example table: the players' hands, which say what lies on each zone (the table is run by
    hand, scan by scan). Its zone LEDs are the Pi's when the pin map wires every zone, else the hub's, as the
    demo's are."""

    def __init__(self, zones: tuple[str, ...], wired: tuple[str, ...]) -> None:
        self.zones, self.wired = zones, wired

    async def run(self, feed: Any) -> None:
        raise RuntimeError("an example table is run by hand: it has no readers to run")

    def lights(self, status: StatusLed) -> Output | None:
        if set(self.zones) <= set(self.wired):
            return None
        return HubZoneLights(self.zones, lambda zone, colour, mode: None, status)

    def close(self) -> None:
        pass


class ExampleTable:
    """Robot players at one table, every action made as the players make it: cards laid on and lifted from its
    zones (the scans a reader would send), its buttons pressed. Zones that learn their head get it first;
    ``robots`` makes other robots than the game kind's own. Close it (or use it in a ``with``) to let go of its
    pins and its journal."""

    def __init__(self, config: GameConfig, robots: Callable[[Any, random.Random], Robots] | None = None) -> None:
        self.kind = kinds()[config.name]
        zones = self.kind.default_zones()
        self.zone_names = tuple(zones)
        self.now = 0.0
        # the journal is thrown away with the table: kept in memory where the machine has a tmpfs for it, so that its
        # thousands of synced writes cost no disk flush
        self._folder = tempfile.TemporaryDirectory(
            prefix="companion-example-", dir=_MEMORY if _MEMORY.is_dir() else None
        )
        folder = Path(self._folder.name)
        table_config = Config(
            game=config,
            zones=zones,
            backend=SimReaders.name,
            registry=folder / "registry.toml",
            journal=folder / "j.db",
        )
        self._journal = Journal(table_config.journal)
        registry = Registry.load(table_config.registry, deck=config.deck_name)
        pinmap = load_pinmap()
        self.pin_factory = MockFactory()  # the LEDs' and the buttons' pins
        devices = Devices(
            self._journal,
            registry,
            _Hands(self.zone_names, tuple(pinmap.zones)),
            pinmap,
            self.pin_factory,
            clock=lambda: self.now,
            call_soon=lambda call: call(),
            screen=self,  # what the table showed last is the example's view
        )
        self.assembly = assemble(table_config, devices)
        self.table = self.assembly.table
        self._uids: dict[str, bytes] = {}
        self._lying: dict[str, list[bytes]] = {zone: [] for zone in self.zone_names}
        self._shown: TableView | None = None
        self.table.start(self.now)
        for index, card in enumerate(self.referee.current_game.deck):  # every card enrolled, as companion enroll does
            uid = bytes((0x04, 0xE5, index >> 8, index & 0xFF, 0x5A, 0x71, 0x80))
            self._uids[card.id] = uid
            registry.bind(uid, card.id)
        rng = random.Random(SEED)
        game = self.referee.current_game
        for zone, head in zip(self.zone_names, self.kind.heads(game), strict=False):
            self.lay(zone, head)
            self.lift(zone, head)
        self.robots = robots(game, rng) if robots is not None else self.kind.robots(game, rng)

    @property
    def referee(self) -> Referee:
        return self.table.referee

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.assembly.close()
        self._journal.close()
        self._folder.cleanup()

    def show(self, view: TableView, now: float) -> None:
        self._shown = view

    def view(self) -> TableView:
        """What the table showed its outputs last."""
        assert self._shown is not None, "the table shows its view as it starts"
        return self._shown

    # ---- what the players do ---------------------------------------------------------------------------------

    def _tick(self) -> float:
        self.now += 1.0
        return self.now

    def _scan(self, zone: str, again: int = 1) -> None:
        for _ in range(again):
            now = self._tick()
            self.table.scan(ZoneScan(zone, tuple(self._lying[zone]), now), now)

    def lay(self, zone: str, card: str) -> None:
        """``card`` laid on ``zone``: its reader's next scan finds it."""
        self.tag(zone, self._uids[card])

    def lift(self, zone: str, card: str) -> None:
        """``card`` taken off ``zone``: gone once as many scans as the table waits for have missed it."""
        self.untag(zone, self._uids[card])

    def tag(self, zone: str, uid: bytes) -> None:
        """A tag laid on ``zone`` (a card's, or one that is no card of the deck)."""
        self._lying[zone].append(uid)
        self._scan(zone)

    def untag(self, zone: str, uid: bytes) -> None:
        self._lying[zone].remove(uid)
        self._scan(zone, self.table.tracker.absences)

    def reader(self, zone: str, answers: bool) -> None:
        """``zone``'s reader stops answering its scans, or answers again."""
        now = self._tick()
        self.table.scan(ZoneScan(zone, tuple(self._lying[zone]), now, reader_down=not answers), now)

    def press(self, button: Button, kind: Literal["short", "long"] = "short") -> None:
        """``button`` pressed: ``kind`` is "short", or "long" (held past the long press's time)."""
        now = self._tick()
        self.table.press(Press(button, kind, now), now)

    def status(self, event: HealthEvent) -> None:
        """The hub's link or the journal's disk changed, as the service and the journal tell the table."""
        now = self._tick()
        self.table.status(event, now)

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
            self.lift(zone, action.card)
        else:
            self.press(Button.PASS)
            self.press(Button.CONFIRM)
        if len(self.referee.current_game.actions) != before + 1:
            raise AssertionError(f"the table did not take {action}: {self.view().message}")

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
        self.lift(zone, card)
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
