"""Text from a tag, a deck file or the config is drawn safely at the table: any character, any length, through
the real drawing code and the real ssd1306 driver. Unsupported glyphs are replaced, a word too long for the
screen is cut with an ellipsis, a message too long loses its last lines: the update is never lost."""

from __future__ import annotations

from dataclasses import replace
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from companion.examples import example_views
from companion.games.seises import Seat, SeisesView
from companion.games.sexto_set import Line, SextoSetView
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.fonts import ELLIPSIS, drawable
from companion.ui.screens import FontSize, draw_table, font, render, wrap
from companion.view import MenuView, Message, MessageKind, TableView

VIEWS = example_views("es")
ANY_TEXT = st.text(max_size=300)  # every code point but surrogates: emoji, RTL marks, controls, CJK, combining marks
LONG_WORD = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=30, max_size=200)


def shown(view: TableView) -> Image.Image:
    """``view`` through the Screen, luma's ssd1306 driver and a fake I2C bus: the frame the OLED got."""
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    assert screen.show(view, 0.0), "a frame was sent"
    return bus.last_image().convert("1")


# any kind a game may declare (each way of laying a message out), and the end of the game with its last screen
KINDS = st.builds(
    MessageKind, name=st.just("a game's"), covers=st.booleans(), ruling=st.booleans(), milestone=st.booleans()
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=KINDS | st.just(MessageKind.END_OF_GAME), title=ANY_TEXT | LONG_WORD, action=ANY_TEXT | LONG_WORD)
def test_any_message_text_reaches_the_screen(kind: MessageKind, title: str, action: str) -> None:
    view = replace(VIEWS["sexto-set"], message=Message(kind, title, action))
    assert shown(view).tobytes() == render(view).convert("1").tobytes()


@settings(max_examples=100, deadline=None)
@given(names=st.lists(ANY_TEXT | LONG_WORD, min_size=4, max_size=8), footer=ANY_TEXT)
def test_any_seat_name_reaches_the_scoreboard(names: list[str], footer: str) -> None:
    seats = tuple(Seat(name, 10, 3) for name in names)
    game = SeisesView(seats=seats, turn=len(seats) - 1, mano=0, pot=3, reserve=40, hand=1)
    view = TableView(game=game, message=Message(MessageKind.INFO, footer) if footer else None)
    shown(view)


@settings(max_examples=100, deadline=None)
@given(ids=st.lists(ANY_TEXT, min_size=8, max_size=8))
def test_any_master_card_from_a_deck_file_reaches_the_scoreboard(ids: list[str]) -> None:
    lines = tuple(Line(i, 1, 2, "B") for i in ids)
    game = replace(VIEWS["sexto-set"].game, lines=lines)
    assert isinstance(game, SextoSetView)
    shown(TableView(game=game))


@settings(max_examples=100, deadline=None)
@given(title=ANY_TEXT, items=st.lists(ANY_TEXT | LONG_WORD, min_size=1, max_size=8), hint=ANY_TEXT)
def test_any_menu_text_reaches_the_screen(title: str, items: list[str], hint: str) -> None:
    shown(TableView(menu=MenuView(title, tuple(items), len(items) - 1, hint)))


def test_a_url_is_cut_with_an_ellipsis_and_an_emoji_drawn_as_a_question_mark() -> None:
    url = "https://example.com/cards/seises/" + "a" * 60
    image = Image.new("1", (128, 64))
    draw_table(ImageDraw.Draw(image), TableView(message=Message(MessageKind.ILLEGAL, "Carta 🂡", url)))
    assert wrap("Carta 🂡", "bold", 126) == ["Carta ?"]
    expected = Image.new("1", (128, 64))
    draw_table(ImageDraw.Draw(expected), TableView(message=Message(MessageKind.ILLEGAL, "Carta ?", url)))
    assert ImageChops.difference(image, expected).getbbox() is None
    cut_line = [line for line in _lines_of(url) if line.endswith(ELLIPSIS)]
    assert cut_line and cut_line[0].startswith("https://")


def _lines_of(text: str) -> list[str]:
    from companion.ui.screens import _cut_to_fit

    with _cut_to_fit():
        return wrap(text, "body", 126)


def test_every_glyph_drawable_returns_has_ink_and_a_right_to_left_mark_has_none() -> None:
    for size in get_args(FontSize):
        for char in drawable("".join(map(chr, range(0x20, 0x250))) + "…"):
            if char != " ":
                assert font(size).getbbox(char)[2] > 0, (size, hex(ord(char)))
    assert drawable("\u200fשלום\u200e") == "????"
    assert drawable("Erdős\tcafé") == "Erdos café"
