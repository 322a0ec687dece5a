"""The menu: presses in, choices out; every state it can reach fits the screen in both languages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import pytest
from PIL import Image, ImageDraw

from companion.events import Press
from companion.games import kinds
from companion.i18n import N_, Said, languages
from companion.menu import Choice, Menu, Settings, decks_for, players_for
from companion.ui.screens import HEIGHT, WIDTH, draw_menu
from companion.view import Language, tr

EIGHT_LINES = {f"z{i}": "auto" for i in range(1, 9)}  # a 6º SET table's zones: both games play on them


def press(menu: Menu, *buttons: str) -> list[Choice | None]:
    return [menu.press(Press(button, "short", 0.0)) for button in buttons]


def test_the_first_level_lists_the_settings_with_their_values() -> None:
    view = Menu(Settings()).view()
    assert view.title == "Menú" and view.selected == 0
    assert view.items == (
        "Juego: Seises",
        "Jugadores: 4",
        "Baraja: Española 40",
        "Idioma: Español",
        "Nueva partida",
        "Cerrar",
    )


def test_pass_moves_down_and_wraps_round() -> None:
    menu = Menu(Settings())
    press(menu, *["pass"] * 5)
    assert menu.view().selected == 5
    press(menu, "pass")
    assert menu.view().selected == 0


def test_picking_a_value_returns_it_and_goes_back_to_the_settings() -> None:
    menu = Menu(Settings())
    assert press(menu, "pass", "pass", "confirm") == [None, None, None]
    assert menu.view().title == "Baraja" and menu.view().items == ("Española 40", "Española 48")
    assert press(menu, "pass", "confirm") == [None, Choice("deck", "spanish-48")]
    assert menu.settings == Settings(deck="spanish-48")
    assert menu.view().selected == 2 and menu.view().items[2] == "Baraja: Española 48"


def test_only_player_counts_that_deal_the_whole_deck_are_offered() -> None:
    assert players_for("seises", "spanish-40") == (2, 4, 5, 8)
    assert players_for("seises", "spanish-48") == (2, 3, 4, 6, 8)
    assert players_for("sexto-set", "squadratik") == (4,)
    menu = Menu(Settings(players=8))
    press(menu, "pass", "confirm")
    assert menu.view().items == ("2 (ideal 4-8)", "4", "5", "8") and menu.view().selected == 3


def test_changing_the_game_moves_deck_and_players_to_playable_values() -> None:
    menu = Menu(Settings(players=5), zones=EIGHT_LINES)
    assert press(menu, "confirm", "pass", "confirm")[-1] == Choice("game", "sexto-set")
    assert menu.settings == Settings(game="sexto-set", players=4, deck="squadratik")
    press(menu, "confirm", "pass", "confirm")
    assert menu.settings == Settings(game="seises", players=4, deck="spanish-40")


def test_the_language_changes_the_menu_at_once() -> None:
    menu = Menu(Settings())
    assert press(menu, "pass", "pass", "pass", "confirm", "pass", "confirm")[-1] == Choice("language", "en")
    assert menu.view().title == "Menu" and menu.view().items[3] == "Language: English"


def test_undo_goes_back_then_closes_and_a_long_undo_closes_from_anywhere() -> None:
    menu = Menu(Settings())
    assert press(menu, "pass", "confirm", "undo") == [None, None, None]
    assert menu.view().title == "Menú" and menu.view().selected == 1
    assert press(menu, "undo") == [Choice("close")]
    press(menu, "confirm")
    assert menu.press(Press("undo", "long", 0.0)) == Choice("close")
    assert menu.view().title == "Menú" and menu.press(Press("confirm", "long", 0.0)) is None


def test_new_game_and_close_are_actions() -> None:
    menu = Menu(Settings())
    assert press(menu, *["pass"] * 4, "confirm", "confirm") == [None] * 5 + [Choice("new_game")]
    assert press(menu, "pass", "confirm") == [None, Choice("close")]


def test_settings_that_cannot_be_played_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="6 players cannot play seises with spanish-40: use 2, 4, 5, 8"):
        Settings(players=6)
    with pytest.raises(ValueError, match="use squadratik"):
        Settings(game="sexto-set", deck="spanish-40")
    with pytest.raises(ValueError, match="choose seises or sexto-set"):
        Settings(game="poker")


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_menu_screen_fits(
    language: str, on_screen: Callable[[Callable[[ImageDraw.ImageDraw], object]], Image.Image]
) -> None:
    for game in kinds():
        for deck in decks_for(game):
            for players in players_for(game, deck):
                menu = Menu(Settings(game, players, deck, language), zones=EIGHT_LINES)  # type: ignore[arg-type]
                for line in range(6):
                    on_screen(partial(draw_menu, menu=menu.view()))
                    if line < 4:
                        press(menu, "confirm")
                        for _ in range(len(menu.view().items)):
                            on_screen(partial(draw_menu, menu=menu.view()))
                            press(menu, "pass")
                        press(menu, "undo")
                    press(menu, "pass")


@pytest.mark.parametrize("language", languages())
def test_a_table_that_serves_its_page_offers_to_pair_a_phone_and_the_line_fits(language: Language) -> None:
    menu = Menu(Settings(language=language), pairing=True)
    view = menu.view()
    assert view.items[-2:] == (tr("pair", language), tr("close", language))
    draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), replace(view, selected=len(view.items) - 2))
    assert press(menu, *["pass"] * (len(view.items) - 2), "confirm")[-1] == Choice("pair")


@pytest.mark.parametrize("language", languages())
def test_a_table_whose_zones_cannot_play_a_game_does_not_offer_it_and_says_why(language: Language) -> None:
    menu = Menu(Settings(language=language), zones={"z1": "table"})  # a Seises table: one zone
    press(menu, "confirm")
    view = menu.view()
    assert view.items == ("Seises",), "6º SET needs a zone for each of its 8 lines"
    assert view.hint == {"es": "6º SET: zonas no aptas", "en": "6º SET: not these zones"}[language]
    draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), view)  # the hint fits the screen
    assert press(menu, "pass", "confirm") == [None, Choice("game", "seises")]
    assert Menu(Settings(language=language), zones=EIGHT_LINES).view().hint == tr("menu_hint", language)


def test_a_game_resumed_on_zones_that_cannot_play_it_opens_the_game_list_on_the_first_one() -> None:
    menu = Menu(Settings(game="sexto-set"), zones={"z1": "table"})
    press(menu, "confirm")
    assert menu.view().items == ("Seises",) and menu.view().selected == 0


@pytest.mark.parametrize("language", languages())
def test_new_game_asks_for_a_second_ok_and_any_other_button_leaves_it_unpicked(language: Language) -> None:
    menu = Menu(Settings(language=language))
    assert press(menu, *["pass"] * 4, "confirm") == [None] * 5
    view = menu.view()
    assert view.items[4] == tr("new_game_sure", language) and view.hint == tr("new_game_sure_hint", language)
    assert (view.items[4], view.hint) == {
        "es": ("¿Nueva partida?", "Otro OK: acaba la partida"),
        "en": ("New game?", "OK again: this game ends"),
    }[language]
    draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), view)  # fits
    assert press(menu, "pass") == [None], "PASS: not picked"
    assert menu.view().items[4] == tr("new_game", language) and menu.view().hint == tr("menu_hint", language)
    assert press(menu, "confirm") == [Choice("close")], "a single OK on the next line is that line's"
    press(menu, *["pass"] * 4, "confirm")
    assert menu.press(Press("confirm", "long", 0.0)) is None, "a long OK is not the second press"
    assert press(menu, "confirm", "confirm") == [None, Choice("new_game")]


@pytest.mark.parametrize("language", languages())
def test_a_table_with_a_voice_offers_how_much_it_says_and_every_screen_of_it_fits(language: Language) -> None:
    menu = Menu(Settings(language=language, speech="rulings"), pairing=True)
    view = menu.view()
    assert view.items[4] == f"{tr('speech', language)}: {tr('rulings', language)}"
    assert len(view.items) == 8, "game, players, deck, language, voice, new game, pair, close"
    draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), replace(view, selected=4))
    press(menu, *["pass"] * 4, "confirm")
    assert menu.view().items == tuple(tr(level, language) for level in ("off", "rulings", "all"))
    for selected in range(3):
        draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), replace(menu.view(), selected=selected))
    assert press(menu, "pass", "confirm") == [None, Choice("speech", "all")]
    assert menu.settings.speech == "all" and menu.view().selected == 4
    assert Menu(Settings(language=language)).view().items[4] == tr("new_game", language), "no voice: no line"


def test_a_speech_level_the_menu_does_not_know_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="speech 'loud': choose off, rulings, all"):
        Settings(speech="loud")


@pytest.mark.parametrize("language", languages())
def test_a_voice_switched_on_at_a_table_that_cannot_sound_says_what_to_do_on_the_screen(language: Language) -> None:
    mute = Said(N_("Silent: companion doctor"))  # the assembly's, at a table without a sound card or espeak-ng
    menu = Menu(Settings(language=language, speech="off"), mute=mute)
    assert menu.view().items[4] == f"{tr('speech', language)}: {tr('off', language)}"
    press(menu, *["pass"] * 4, "confirm")
    assert menu.view().hint == tr("menu_hint", language), "listing the levels: nothing is switched on yet"
    assert press(menu, "confirm") == [Choice("speech", "off")]
    assert menu.view().hint == tr("menu_hint", language), "off: nothing to say"
    press(menu, "confirm", "pass", "confirm")  # rulings
    view = menu.view()
    assert menu.settings.speech == "rulings" and view.hint == mute.text(language)
    assert view.hint != mute.text("en" if language != "en" else "es"), "in the table's language"
    draw_menu(ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT))), view)  # fits
    press(menu, "pass")
    assert menu.view().hint == tr("menu_hint", language), "said once, until the next press"
