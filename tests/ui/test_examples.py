"""The example screens show what a real table can show: moments of robot games, and a state the menu reaches."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image, ImageDraw

from companion.config import GameConfig
from companion.events import Press
from companion.examples import NAMES, ExampleTable, example_views
from companion.games.seises import SeisesView
from companion.hardware import load_pinmap
from companion.i18n import languages
from companion.menu import Menu, Settings
from companion.rules import Play
from companion.rules.transcript import noted_seat_one, parse_line
from companion.ui.screens import covers_scoreboard, draw_menu, draw_message, screen_for
from companion.view import Language, MenuView, TableView, ZoneLight


def _menu_views(language: Language) -> set[MenuView]:
    """Every screen the menu shows, from every setting, after any presses (a search over its states)."""
    seen: set[MenuView] = set()
    start = Menu(Settings(language=language))
    waiting = [(start.settings, start.editing, start.selected)]
    visited = set(waiting)
    while waiting:
        settings, editing, selected = waiting.pop()
        for button in ("pass", "confirm", "undo"):
            menu = Menu(settings)
            menu.editing, menu.selected = editing, selected
            seen.add(menu.view())
            menu.press(Press(button, "short", 0.0))
            seen.add(menu.view())
            state = (menu.settings, menu.editing, menu.selected)
            if state not in visited:
                visited.add(state)
                waiting.append(state)
    return seen


@pytest.mark.parametrize("language", languages())
def test_the_menu_examples_are_screens_the_menu_shows(language: Language) -> None:
    menus = {name: view.menu for name, view in example_views(language).items() if name.startswith("menu")}
    assert set(menus) == {"menu", "menu-games", "menu-new-game"}
    assert all(menu is not None and menu in _menu_views(language) for menu in menus.values())


@pytest.mark.parametrize("language", languages())
def test_the_game_over_example_crowns_the_highest_score(language: Language) -> None:
    game = example_views(language)["seises-game-over"].game
    assert isinstance(game, SeisesView) and game.winner is not None
    scores = [seat.score for seat in game.seats]
    assert scores[game.winner] == max(scores) >= game.target


@pytest.mark.parametrize("language", languages())
def test_every_seises_example_deals_a_whole_deck(language: Language) -> None:
    for name, view in example_views(language).items():
        if isinstance(view.game, SeisesView):
            players = len(view.game.seats)
            hand_size = (40 if 40 % players == 0 else 48) // players
            assert all(seat.cards_left <= hand_size for seat in view.game.seats), name
            assert view.game.pot + view.game.reserve == 50 or view.game.winner is not None, name


@pytest.mark.parametrize("language", languages())
def test_every_example_fits_without_cutting(
    language: Language, on_screen: Callable[[Callable[[ImageDraw.ImageDraw], object]], Image.Image]
) -> None:
    """Drawn as the tests draw fixed wording: a text wider than its box raises instead of being cut, and every
    lit pixel is on the display."""
    for view in example_views(language).values():
        on_screen(lambda draw, view=view: _draw_strict(draw, view))


def _draw_strict(draw: ImageDraw.ImageDraw, view: TableView) -> None:
    if view.menu is not None:
        draw_menu(draw, view.menu)
    elif view.message is not None and covers_scoreboard(view.message):
        draw_message(draw, view.message)
    elif view.game is not None:
        message = view.message.title if view.message else ""
        screen_for(view.game)(draw, view.game, language=view.language, message=message)


def test_an_example_table_is_wired_as_every_table_and_journals_what_it_played(
    example_table: Callable[..., ExampleTable],
) -> None:
    """The robots play at a table the assembly built: every action they made is on its journal, the zone LED of
    the card they lay lights on its mock pin, and the view is the one the table showed its outputs."""
    table = example_table(GameConfig("seises", 4, language="en", seat_names=NAMES[:4]))
    for _ in range(9):
        table.step()
    game = table.referee.current_game
    entries = table.table.journal.entries(table.table.game_id)
    assert [parse_line(entry.text) for entry in entries] == game.actions, "each action journaled, in order"
    assert noted_seat_one(entries[0].text) == (1, NAMES[0]), "who laid the 6 of oros, asked and answered"
    card = next(card for card in table.robots.hand() if game.reason(Play(card)) is None)
    table.lay("z1", card)
    assert table.view().zone_lights["z1"] is ZoneLight.PENDING_OK
    green = load_pinmap().zones["z1"].green
    assert table.pin_factory.pin(green).state, "its LED lit green, on the pin map's pin"
