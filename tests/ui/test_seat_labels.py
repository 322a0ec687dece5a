"""The Seises scoreboard as a family reads it with the default config (no seat names): every seat's number in its
cell, the mano's mark beside it, and whose turn it is in the footer, at every player count and in every language;
read back from the frame the real ssd1306 driver sent."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from companion.config import GameConfig
from companion.decks import load_deck
from companion.examples import ExampleTable
from companion.games import find_kind
from companion.games.seises import SeisesView
from companion.i18n import languages, translate
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.reading import read
from companion.ui.screens import cell

SEISES = find_kind("seises")
COUNTS = sorted({n for deck in SEISES.decks for n in SEISES.player_counts(load_deck(deck))})


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("players", COUNTS)
def test_with_no_seat_names_every_seat_its_mano_and_whose_turn_can_be_read(
    players: int, language: str, example_table: Callable[..., ExampleTable]
) -> None:
    deck = next(name for name in SEISES.decks if players in SEISES.player_counts(load_deck(name)))
    table = example_table(GameConfig("seises", players, deck, language=language))  # no seat names: the default
    for _ in range(players + 1):  # a round and one more play: the turn and the mano are different seats
        table.step()
    view = table.view()
    game = view.game
    assert isinstance(game, SeisesView) and view.message is None and not any(seat.score for seat in game.seats)
    bus = FakeI2CBus()
    Screen(make_device([], bus=bus)).show(view, now=0.0)
    lines = read(bus.last_image())
    texts = [line.text for line in lines]
    rows = (players + 1) // 2
    for index in range(players):
        x, y, height = cell(index, rows)
        # the label is the top line that begins at the cell's left edge
        label = min(
            (line for line in lines if x <= line.x <= x + 2 and y <= line.y < y + height), key=lambda line: line.y
        )
        assert label.text == (f"{index + 1}*" if index == game.mano else str(index + 1)), texts
    turn = translate("Turn", language)
    seat = translate("Seat {n}", language).format(n=game.turn + 1)
    assert f"{turn}: {seat}" in texts or f"{turn}: {game.turn + 1}" in texts, texts
