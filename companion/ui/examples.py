"""Example table states, one per screen, for ``companion screens``, the docs and the screen tests.

Every example is a moment of a real game: robot players (:mod:`companion.rules.robots`) play with a fixed seed,
through a :class:`~companion.referee.Referee` fed the events a table sends (a card laid on its zone, CONFIRM,
the card lifted; PASS then CONFIRM for a pay or a pass), up to the moment shown. So a screen can only show what
the rules allow, with the referee's own messages. The menu is the real :class:`~companion.ui.menu.Menu` after
the presses that open the deck's list. The seats take the longest names a table is likely to set, so a text
that grows past its box fails the screen tests in both languages.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType

from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press, UnknownTag
from companion.referee import HubStatus, JournalStatus, ReaderStatus, Referee
from companion.rules import Action, Play, Seises, SextoSet
from companion.rules.robots import SeisesTable, SextoSetTable
from companion.ui.menu import Menu, Settings
from companion.view import Language, MessageKind, SeisesView, SextoSetView, TableView

__all__ = ["SEED", "example_views"]

SEED = 7  # the robots' seed: the same games, so the same reference frames, every time
_NAMES = ("Ana", "Luis", "Maribel", "Pau", "Íñigo", "Eva", "Toño", "Begoña")  # in the order they sit
_LINE_ZONES = tuple(f"z{i}" for i in range(1, 9))
_STEPS = 5_000  # more actions than any game of the examples takes


class _Table:
    """A referee and robot players at one table, every action made as the players make it."""

    def __init__(self, config: GameConfig, renege: float = 0.05) -> None:
        sexto_set = config.name == "sexto-set"
        zones = dict.fromkeys(_LINE_ZONES, "auto") if sexto_set else {"z1": "table"}
        self.referee = Referee(config, zones)
        self.now = 0.0
        rng = random.Random(SEED)
        game = self.referee.game
        self.robots: SeisesTable | SextoSetTable
        if isinstance(game, SextoSet):
            for zone, master in zip(_LINE_ZONES, game.masters, strict=True):  # each zone learns its master card
                self.lay(zone, master)
                self.event(CardLeft(zone, master))
            self.robots = SextoSetTable(game, rng)
        else:
            assert isinstance(game, Seises)
            self.robots = SeisesTable(game, rng, renege=renege)

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
        """The next robot's action: laid, confirmed (saying who laid the 6 of oros when asked), lifted."""
        if isinstance(self.robots, SeisesTable):
            seat = self.robots.game.turn
            assert seat is not None
            action: Action = self.robots.choose()
            self._act(action, "z1")
            self.robots.played(seat, action)
        else:
            action, hand = self.robots.choose()
            zone = self._zone(action)
            self._act(action, zone)
            self.robots.played(action, hand)

    def _zone(self, action: Action) -> str:
        line = action.line if isinstance(action, Play) else None
        return next((zone for zone, master in self.referee.lines.items() if master == line), _LINE_ZONES[0])

    def _act(self, action: Action, zone: str) -> None:
        before = len(self.referee.game.actions)
        if isinstance(action, Play):
            self.lay(zone, action.card)
            self.press(Button.CONFIRM)
            if self.referee.asking is not None:
                self.press(Button.CONFIRM)  # the first name offered laid the 6 of oros
            self.event(CardLeft(zone, action.card))
        else:
            self.press(Button.PASS)
            self.press(Button.CONFIRM)
        if len(self.referee.game.actions) != before + 1:
            raise AssertionError(f"the referee did not take {action}: {self.referee.message}")

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
        assert isinstance(self.robots, SeisesTable)
        game = self.robots.game
        assert game.turn is not None
        card = next(card for card in self.robots.hands[game.turn] if game.reason(Play(card)) is not None)
        self.lay("z1", card)
        view = self.view()
        self.event(CardLeft("z1", card))
        return view


def _seises(players: int, language: Language, renege: float = 0.05) -> _Table:
    """A Seises table of ``players`` with seat names; ``renege`` is how often a seat pays holding a legal card."""
    deck = "spanish-40" if 40 % players == 0 else "spanish-48"
    config = GameConfig("seises", players, deck, language=language, seat_names=_NAMES[:players])
    return _Table(config, renege)


def _seises_game(view: TableView) -> SeisesView:
    assert isinstance(view.game, SeisesView)
    return view.game


def _mid_game(view: TableView) -> bool:
    """The game well under way: a seat past half the target, and a round played in the hand."""
    game = _seises_game(view)
    dealt = 40 if 40 % len(game.seats) == 0 else 48
    played = dealt - sum(seat.cards_left for seat in game.seats)
    return (
        view.message is None
        and max(seat.score for seat in game.seats) >= game.target // 2
        and played >= len(game.seats)
    )


def _kind(kind: MessageKind) -> Callable[[TableView], bool]:
    return lambda view: view.message is not None and view.message.kind is kind


def _set_over(view: TableView) -> bool:
    return isinstance(view.game, SextoSetView) and view.game.result is not None


def _second_set(view: TableView) -> bool:
    """A set under way after one has ended, so the match's tallies count, with cards left on the pile."""
    game = view.game
    assert isinstance(game, SextoSetView)
    return view.message is None and sum(game.sets_won) == 1 and game.result is None and 0 < game.draw_pile < 10


def _menu(language: Language) -> TableView:
    """The menu after a long CONFIRM: deck list of a Seises game of 4, its second deck highlighted."""
    menu = Menu(Settings("seises", 4, "spanish-40", language))
    for button in (Button.PASS, Button.PASS, Button.CONFIRM, Button.PASS):
        menu.press(Press(button, "short", 0.0))
    return TableView(menu=menu.view(), language=language)


@cache
def _examples(language: Language) -> Mapping[str, TableView]:
    views: dict[str, TableView] = {}
    for players in (2, 3, 4, 5, 6, 8):
        views[f"seises-{players}-seats"] = _seises(players, language).until(_mid_game)
    table = _seises(4, language)
    table.lay("z1", "6O")
    table.press(Button.CONFIRM)
    views["message-question"] = table.view()
    table.press(Button.CONFIRM)
    table.event(CardLeft("z1", "6O"))
    table.until(_mid_game)
    views["message-illegal"] = table.illegal()
    table.event(UnknownTag("z1", bytes.fromhex("04A1B2C3D4E580")))
    views["message-unknown-card"] = table.view()
    table.event(CardLeft("z1", "04A1B2C3D4E580"))
    for name, (trouble, mended) in {
        "message-hub-lost": (HubStatus(online=False), HubStatus(online=True)),
        "message-reader-down": (ReaderStatus("z1", ok=False), ReaderStatus("z1", ok=True)),
        "message-disk-full": (JournalStatus(ok=False), JournalStatus(ok=True)),
    }.items():
        table.event(trouble)
        views[name] = table.view()
        table.event(mended)
    views["message-end-of-hand"] = table.until(_kind(MessageKind.END_OF_HAND))
    # A table that pays half the time it could play: the renuncios, the reserve run dry and a 50-point pot
    # come in the first hand.
    table = _seises(5, language, renege=0.5)
    views["seises-renege"] = table.until(_kind(MessageKind.RENEGE))
    views["seises-owed"] = table.until(lambda view: _kind(MessageKind.INFO)(view) and _seises_game(view).owed > 0)
    views["message-end-of-game"] = table.until(_kind(MessageKind.END_OF_GAME))
    table.press(Button.UNDO)  # the message read, the scoreboard shows the winner
    views["seises-game-over"] = table.view()
    table = _Table(GameConfig("sexto-set", language=language))
    views["sexto-set"] = table.until(_second_set)
    views["message-end-of-set"] = table.until(_kind(MessageKind.END_OF_SET))
    table.press(Button.UNDO)
    views["sexto-set-result"] = table.view()
    views["menu"] = _menu(language)
    views["no-game"] = TableView(language=language)
    return MappingProxyType(views)


def example_views(language: Language) -> Mapping[str, TableView]:
    """Named example views in ``language``: every screen and every message kind, each a real game's moment."""
    return _examples(language)
