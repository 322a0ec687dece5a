"""The last screen of a Seises game: who won over the final standings (every seat by its score, best first), and
what to do on its footer, a line at a time; read back from the frames the real ssd1306 driver sent."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from companion.config import GameConfig
from companion.examples import NAMES, ExampleTable, message_is
from companion.i18n import languages
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.reading import read
from companion.ui.screens import PAGE_S, WIDTH, pages
from companion.view import MessageKind

FOOTER_Y = 54


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(
    ("players", "deck", "named"), [(2, "spanish-40", True), (4, "spanish-40", False), (8, "spanish-48", True)]
)
def test_the_last_screen_shows_the_winner_over_every_seats_final_score(
    players: int, deck: str, named: bool, language: str, example_table: Callable[..., ExampleTable]
) -> None:
    names = NAMES[:players] if named else ()
    table = example_table(GameConfig("seises", players, deck, language=language, seat_names=names))
    view = table.until(message_is(MessageKind.END_OF_GAME))
    assert view.message is not None
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    screen.show(view, now=0.0)
    lines = read(bus.last_image())
    assert lines[0].text == view.message.title, "who won, on top"
    columns = sorted(lines[1:], key=lambda line: (line.x >= WIDTH // 2, line.y))  # down the first column, then the next
    scores = [int(line.text) for line in columns if re.fullmatch(r"-?\d+", line.text)]
    game = table.referee.game
    assert scores == sorted(game.scores, reverse=True), "every seat's final score, best first"
    shown = [line.text for line in lines[1:] if line.y < FOOTER_Y and not re.fullmatch(r"-?\d+", line.text)]
    seats = [table.referee.seat_name(seat) for seat in range(players)]
    assert len(shown) == players and all(sum(seat.startswith(label) for seat in seats) == 1 for label in shown), (
        f"each seat once, by a name that tells it apart: {shown} of {seats}"
    )
    footer = []
    for page in range(pages(view)):
        screen.tick(page * PAGE_S + 0.1)
        footer += [line.text for line in read(bus.last_image()) if line.y >= FOOTER_Y]
    assert re.sub(r"\W", "", "".join(footer)) == re.sub(r"\W", "", view.message.todo), "what to do, whole"
