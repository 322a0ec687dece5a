"""The OLED screens: pure drawing functions from a view to the pixels of a 128x64 1-bit display.

Each ``draw_*`` function takes a Pillow ``ImageDraw`` (luma's ``canvas`` gives one) and a view, and draws
white on black. Nothing here reads a clock or a device, so the same function draws on the OLED, into a PNG
for the docs, and in the tests.

A text that does not fit its box raises :class:`TextOverflow` instead of spilling into its neighbour: the
screen tests draw every screen in both languages with the longest values a game can reach, so a string that
is too long fails there and never reaches a table. Names chosen by players are shortened on purpose.

At the table (:func:`draw_table`, what the screen calls) nothing may raise: a text from a tag, a deck file or
the config can be anything. There a text too wide for its box, or a word too wide for the screen, is cut with
an ellipsis, and a message too long for the screen loses its last lines. Every text, everywhere, is drawn
through :func:`~companion.ui.fonts.drawable`, which replaces the characters the fonts have no glyph for.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal, Protocol

from PIL import Image, ImageDraw, ImageFont

from companion.games import game_module, kinds
from companion.ui.fonts import ELLIPSIS, drawable
from companion.view import MenuView, Message, MessageKind, Scoreboard, TableView, tr

__all__ = [
    "CELL_W",
    "HEIGHT",
    "PAGE_S",
    "WIDTH",
    "Slot",
    "TextOverflow",
    "card_icon",
    "cell",
    "covers_scoreboard",
    "draw_menu",
    "draw_message",
    "draw_pairing",
    "draw_table",
    "first_fitting",
    "footer",
    "footer_lines",
    "header_footer",
    "pages",
    "put_on",
    "register_screen",
    "render",
    "screen_for",
    "shorten",
]

WIDTH, HEIGHT = 128, 64
PAGE_S = 3.0  # how long each line of a message on the footer is shown (docs/SCREENS.md)
FontSize = Literal["small", "body", "bold", "big"]
Align = Literal["left", "right", "center"]

# Four sizes of the public-domain X11 "fixed" fonts: crisp on a 1-bit display at every pixel, unlike a
# scaled TrueType font, and they cover all of Latin-1 (ñ, á, º, ¿).
_FONT_FILES: dict[FontSize, str] = {"small": "5x8.pil", "body": "6x10.pil", "bold": "6x13B.pil", "big": "10x20.pil"}
LINE_HEIGHT: dict[FontSize, int] = {"small": 8, "body": 10, "bold": 13, "big": 20}

# The scoreboards: a header line, a grid of two columns of up to four cells, a footer line.
_HEADER_Y, _GRID_Y, _FOOTER_Y = 0, 12, 54
CELL_W = WIDTH // 2
_GRID_H = _FOOTER_Y - 2 - _GRID_Y  # 40 px between the rules


@dataclass(frozen=True, slots=True)
class Slot:
    """A text of a scoreboard's cell: its box (x and width from the cell's left) in a font, on a baseline (the row
    of the cell where its digits end, so texts of two sizes line up)."""

    x: int
    width: int
    size: FontSize
    baseline: int


class TextOverflow(ValueError):
    """A text wider than its box, or a message longer than the screen."""


_cutting: ContextVar[bool] = ContextVar("cutting", default=False)  # at the table: cut what does not fit


@contextmanager
def _cut_to_fit() -> Iterator[None]:
    token = _cutting.set(True)
    try:
        yield
    finally:
        _cutting.reset(token)


def cut(text: str, size: FontSize, width: int) -> str:
    """``text`` as it fits ``width``: whole, or its start and an ellipsis."""
    text = drawable(text)
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + ELLIPSIS, size) > width:
        text = text[:-1]
    return text + ELLIPSIS


@cache
def font(size: FontSize) -> ImageFont.ImageFont:
    path = resources.files("companion.ui.fonts").joinpath(_FONT_FILES[size])
    return ImageFont.load(str(path))


def text_width(text: str, size: FontSize) -> int:
    return int(font(size).getlength(drawable(text)))


@cache
def digit_rows(size: FontSize) -> tuple[int, int]:
    """The first and last row of the font's cell that its digits cover."""
    image = Image.new("1", (LINE_HEIGHT[size], LINE_HEIGHT[size]))
    ImageDraw.Draw(image).text((0, 0), "0", font=font(size), fill=1)
    box = image.getbbox()
    assert box is not None
    return box[1], box[3] - 1


def put(
    draw: ImageDraw.ImageDraw,
    xy: tuple[int, int],
    text: str,
    size: FontSize,
    width: int,
    *,
    align: Align = "left",
    fill: int = 1,
) -> None:
    """Write ``text`` in a box ``width`` pixels wide starting at ``xy``; refuse a text that would not fit."""
    text = cut(text, size, width) if _cutting.get() else drawable(text)
    used = text_width(text, size)
    if used > width:
        raise TextOverflow(f"{text!r} is {used} px wide in the {size} font but its box is {width} px: shorten the text")
    x, y = xy
    if align == "right":
        x += width - used
    elif align == "center":
        x += (width - used) // 2
    draw.text((x, y), text, font=font(size), fill=fill)


def first_fitting(candidates: Sequence[str], size: FontSize, width: int) -> str:
    """The first of ``candidates`` (longest wording first) that fits ``width``; the last one otherwise."""
    for text in candidates:
        if text_width(text, size) <= width:
            return text
    return candidates[-1]


def shorten(text: str, size: FontSize, width: int) -> str:
    """A player's name cut to fit ``width``, marked with a final '.' when cut."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + ".", size) > width:
        text = text[:-1]
    return text + "."


def wrap(text: str, size: FontSize, width: int) -> list[str]:
    """Break ``text`` at spaces into lines that fit ``width``; a single word too wide raises TextOverflow (at the
    table, it is cut with an ellipsis)."""
    lines: list[str] = []
    for word in drawable(text).split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            if text_width(word, size) > width:
                if not _cutting.get():
                    raise TextOverflow(f"the word {word!r} of {text!r} is wider than the screen: shorten it")
                word = cut(word, size, width)
            lines.append(word)
    return lines


def header_footer(draw: ImageDraw.ImageDraw, header: tuple[str, str], footer: tuple[str, str]) -> None:
    """Two short texts left and right on the header line and on the footer line, with rules between."""
    for y, (left, right) in ((_HEADER_Y, header), (_FOOTER_Y, footer)):
        right_w = text_width(right, "body")
        put(draw, (0, y), left, "body", WIDTH - right_w - 4 if right else WIDTH)
        if right:
            put(draw, (WIDTH - right_w, y), right, "body", right_w)
    draw.line((0, _GRID_Y - 2, WIDTH - 1, _GRID_Y - 2), fill=1)
    draw.line((0, _FOOTER_Y - 2, WIDTH - 1, _FOOTER_Y - 2), fill=1)
    draw.line((CELL_W - 1, _GRID_Y - 1, CELL_W - 1, _FOOTER_Y - 3), fill=1)


def cell(index: int, rows: int) -> tuple[int, int, int]:
    """The left, top and height of cell ``index``: cells fill the left column top to bottom, then the right one."""
    column, row = divmod(index, rows)
    height = _GRID_H // rows
    return column * CELL_W, _GRID_Y + row * height, height


def card_icon(draw: ImageDraw.ImageDraw, x: int, baseline: int, size: FontSize, fill: int) -> None:
    """A card outline as tall as the digits beside it, so that the number reads as 'cards in hand'."""
    top, bottom = digit_rows(size)
    height = bottom - top
    draw.rectangle((x, baseline - height, x + max(4, height * 2 // 3), baseline), outline=fill)


def put_on(draw: ImageDraw.ImageDraw, origin: tuple[int, int], slot: Slot, text: str, fill: int, align: Align) -> None:
    x, y = origin
    put(
        draw,
        (x + slot.x, y + slot.baseline - digit_rows(slot.size)[1]),
        text,
        slot.size,
        slot.width,
        align=align,
        fill=fill,
    )


def footer(left: str, right: str, message: str) -> tuple[str, str]:
    """The footer line: the scoreboard's own two texts, or a line of the last message across the whole line (one
    of :func:`footer_lines`, which fit it)."""
    return (shorten(message, "body", WIDTH), "") if message else (left, right)


def footer_lines(message: Message | None) -> list[str]:
    """A message shown on the scoreboard's footer, whole: its title, then what to do, in lines that each fill the
    footer at most. The screen shows them one at a time, each for :data:`PAGE_S` seconds, round and round; a
    title and what to do that fit one line together share it."""
    if message is None:
        return [""]
    joint = " " if message.title.endswith(("?", "!", ".", ":")) else ". "
    whole = f"{message.title}{joint}{message.todo}" if message.todo else message.title
    if text_width(drawable(whole), "body") <= WIDTH:
        return [whole]
    lines = wrap(message.title, "body", WIDTH)
    return lines + (wrap(message.todo, "body", WIDTH) if message.todo else [])


def pages(view: TableView) -> int:
    """How many pages ``view`` is shown in: the lines of a message on the scoreboard's footer (or of what to do
    under a game's last screen), else one."""
    with _cut_to_fit():
        if view.menu is None and view.pairing is None and view.message is not None and _final_for(view) is not None:
            return len(_todo_lines(view.message))
        return len(footer_lines(view.message)) if _on_footer(view) else 1


def _todo_lines(message: Message) -> list[str]:
    return wrap(message.todo, "body", WIDTH) if message.todo else [""]


def _on_footer(view: TableView) -> bool:
    shows_scoreboard = view.menu is None and view.pairing is None and view.game is not None
    return shows_scoreboard and view.message is not None and not covers_scoreboard(view.message)


def draw_message(draw: ImageDraw.ImageDraw, message: Message) -> None:
    """A message over the whole screen: the title in bold under a bar, then what to do.

    Errors (hub lost, reader down, disk full) get an inverted title bar, so they stand out from the end of a
    hand at a glance.
    """
    title = wrap(message.title, "bold", WIDTH - 2)
    todo = wrap(message.todo, "body", WIDTH - 2) if message.todo else []
    height = len(title) * LINE_HEIGHT["bold"] + 2 + len(todo) * LINE_HEIGHT["body"]
    if height > HEIGHT and _cutting.get():
        title, todo = _first_lines(title, todo)
    elif height > HEIGHT:
        raise TextOverflow(
            f"the message {message.title!r} / {message.todo!r} needs {height} px of the screen's {HEIGHT}: shorten it"
        )
    alarm = message.kind in {MessageKind.HUB_LOST, MessageKind.READER_DOWN, MessageKind.DISK_FULL}
    fill = 0 if alarm else 1
    if alarm:
        draw.rectangle((0, 0, WIDTH - 1, len(title) * LINE_HEIGHT["bold"]), fill=1)
    y = 0
    for text in title:
        put(draw, (1, y), text, "bold", WIDTH - 2, align="center", fill=fill)
        y += LINE_HEIGHT["bold"]
    if not alarm:
        draw.line((0, y, WIDTH - 1, y), fill=1)
    y += 2
    for text in todo:
        put(draw, (1, y), text, "body", WIDTH - 2, align="center")
        y += LINE_HEIGHT["body"]


def _first_lines(title: list[str], todo: list[str]) -> tuple[list[str], list[str]]:
    """As much of a message as the screen holds: the title first; the last line kept ends with an ellipsis."""
    title_rows = min(len(title), HEIGHT // LINE_HEIGHT["bold"])
    todo_rows = min(len(todo), (HEIGHT - title_rows * LINE_HEIGHT["bold"] - 2) // LINE_HEIGHT["body"])
    kept_title, kept_todo = title[:title_rows], todo[:todo_rows]
    if kept_todo:
        kept_todo[-1] = cut(kept_todo[-1] + ELLIPSIS, "body", WIDTH - 2)
    else:
        kept_title[-1] = cut(kept_title[-1] + ELLIPSIS, "bold", WIDTH - 2)
    return kept_title, kept_todo


def draw_menu(draw: ImageDraw.ImageDraw, menu: MenuView) -> None:
    """The menu: an inverted title bar, four items around the highlighted one, and the buttons' hint."""
    draw.rectangle((0, 0, WIDTH - 1, LINE_HEIGHT["body"]), fill=1)
    put(draw, (1, 1), menu.title, "body", WIDTH - 2, fill=0)
    visible = 4
    first = min(max(menu.selected - visible + 2, 0), max(len(menu.items) - visible, 0))
    for row, index in enumerate(range(first, min(first + visible, len(menu.items)))):
        y = 12 + row * LINE_HEIGHT["body"]
        fill = 1
        if index == menu.selected:
            draw.rectangle((0, y, WIDTH - 1, y + LINE_HEIGHT["body"] - 1), fill=1)
            fill = 0
        put(draw, (2, y), menu.items[index], "body", WIDTH - 4, fill=fill)
    if first > 0:
        draw.polygon(((WIDTH - 6, 16), (WIDTH - 2, 16), (WIDTH - 4, 13)), fill=1 if first != menu.selected else 0)
    put(draw, (0, HEIGHT - LINE_HEIGHT["small"]), menu.hint, "small", WIDTH, align="center")


def draw_pairing(draw: ImageDraw.ImageDraw, code: str, language: str) -> None:
    """The code a phone pairs with (docs/WEB.md): a title, the digits large in two groups of three, where to type
    them, and that any button closes it."""
    put(draw, (1, 0), tr("pairing_title", language), "bold", WIDTH - 2, align="center")
    draw.line((0, LINE_HEIGHT["bold"], WIDTH - 1, LINE_HEIGHT["bold"]), fill=1)
    half = len(code) // 2
    put(draw, (0, 16), f"{code[:half]} {code[half:]}", "big", WIDTH, align="center")
    put(draw, (0, 38), tr("pairing_hint", language), "body", WIDTH, align="center")
    put(draw, (0, HEIGHT - LINE_HEIGHT["small"]), tr("pairing_close", language), "small", WIDTH, align="center")


def covers_scoreboard(message: Message | None) -> bool:
    """Whether ``message`` takes the whole screen (it needs attention) rather than the footer line."""
    return message is not None and message.kind.covers


def draw_table(draw: ImageDraw.ImageDraw, view: TableView, page: int = 0) -> None:
    """Whatever the table shows now: the menu, else a message that needs attention, else the scoreboard, with
    line ``page`` of a message on its footer (:func:`pages` says how many there are).

    Never raises on a text: what does not fit is cut (see the module's notes).
    """
    with _cut_to_fit():
        _draw_table(draw, view, page)


def _draw_table(draw: ImageDraw.ImageDraw, view: TableView, page: int = 0) -> None:
    if view.menu is not None:
        draw_menu(draw, view.menu)
    elif view.pairing is not None:
        draw_pairing(draw, view.pairing, view.language)
    elif view.message is not None and (final := _final_for(view)) is not None:
        lines = _todo_lines(view.message)
        final(draw, view.game, language=view.language, title=view.message.title, footer=lines[page % len(lines)])
    elif view.message is not None and covers_scoreboard(view.message):
        draw_message(draw, view.message)
    elif view.game is not None:
        lines = footer_lines(view.message)
        screen_for(view.game)(draw, view.game, language=view.language, message=lines[page % len(lines)])
    else:
        title = view.message.title if view.message else tr("no_game", view.language)
        draw_message(draw, Message(MessageKind.INFO, title, tr("no_game_hint", view.language)))


class DrawScoreboard(Protocol):
    """A game's screen: draws its scoreboard ``view`` on the 128x64 screen; ``message`` takes its footer line."""

    def __call__(self, draw: ImageDraw.ImageDraw, view: Any, *, language: str = ..., message: str = ...) -> None: ...


class DrawFinal(Protocol):
    """A game's last screen: the end of its game (``title``, who won) over its final standings from the scoreboard
    ``view``, and the ``footer`` line (a line of what to do)."""

    def __call__(self, draw: ImageDraw.ImageDraw, view: Any, *, language: str, title: str, footer: str) -> None: ...


_SCREENS: dict[type[Scoreboard], DrawScoreboard] = {}
_FINALS: dict[type[Scoreboard], DrawFinal] = {}


def register_screen(view: type[Scoreboard], draw: DrawScoreboard, *, final: DrawFinal | None = None) -> None:
    """Make ``draw`` the screen of every scoreboard of type ``view``, and ``final`` (if any) the screen of its game's
    end, in place of the end's message alone: what a game's ``screen`` module does when imported
    (``companion/games/<game>/screen.py``)."""
    _SCREENS[view] = draw
    if final is not None:
        _FINALS[view] = final


def _final_for(view: TableView) -> DrawFinal | None:
    """The last screen of ``view``'s game, when its message is the end of the game and the game has one."""
    if view.game is None or view.message is None or view.message.kind != MessageKind.END_OF_GAME:
        return None
    screen_for(view.game)  # its screen module, which registers both, is imported
    return next((_FINALS[kind] for kind in type(view.game).__mro__ if kind in _FINALS), None)


def screen_for(scoreboard: Scoreboard) -> DrawScoreboard:
    """The screen that draws ``scoreboard``: its game's, found by the scoreboard's type. A game's ``screen`` module
    beside its kind is imported at the first look-up, so the core (the referee, the kinds) never loads Pillow."""
    for view in type(scoreboard).__mro__:
        if view in _SCREENS:
            return _SCREENS[view]
    for kind in kinds().values():
        game_module(kind, "screen")  # registers its screen
    for view in type(scoreboard).__mro__:
        if view in _SCREENS:
            return _SCREENS[view]
    raise LookupError(f"no game's screen draws a {type(scoreboard).__name__}")


def render(view: TableView, page: int = 0) -> Image.Image:
    """The 128x64 1-bit image of ``view`` (its page ``page``), as the OLED shows it."""
    image = Image.new("1", (WIDTH, HEIGHT))
    draw_table(ImageDraw.Draw(image), view, page)
    return image
