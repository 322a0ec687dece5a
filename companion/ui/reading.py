"""A frame read back as words, as a person reads the panel.

The OLED draws every text in one of four X11 "fixed" fonts (:data:`companion.ui.screens.LINE_HEIGHT`), whose
characters are cells of one size each (5x8, 6x10, 6x13 bold, 10x20). A character drawn is therefore a known bitmap
in a cell at some pixel of the frame, and the frame can be read without knowing what was meant to be on it: every
cell of every font is looked up among the font's glyphs, and the glyphs found side by side, a cell apart, are a line
of text. So a test reads the frame the real ssd1306 driver sent (decoded from its I2C bytes) and finds out whether a
word was cut, hidden or left out, in any language::

    >>> from PIL import ImageDraw
    >>> from companion.ui.screens import font
    >>> image = Image.new("1", (128, 64))
    >>> ImageDraw.Draw(image).text((3, 2), "Turno: Asiento 3", font=font("body"), fill=1)
    >>> ImageDraw.Draw(image).text((0, 40), "Bolsa 12", font=font("big"), fill=1)
    >>> [(line.size, line.x, line.y, line.text) for line in read(image)]
    [('body', 3, 2, 'Turno: Asiento 3'), ('big', 0, 40, 'Bolsa 12')]

Text drawn dark on a lit box (a menu's chosen line) is read too, with ``inverted`` set. Where two readings of the same
pixels disagree (a stroke of a letter is also a whole '|' or '.' glyph in a smaller font), the longer line wins: a
frame is read as its longest texts first, as a person does; a line of strokes alone ('_', '-', '|', '.') is a rule
or an icon's edge, not text. A lone mark ('¨', '¸') is the same few pixels in two fonts, so which font it was in
cannot be told; words can. The fonts' ellipsis (slot 0x85) reads as '…'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from companion.ui.fonts import ELLIPSIS
from companion.ui.screens import LINE_HEIGHT, FontSize, digit_rows, font

__all__ = ["Line", "read", "words"]

_CHARS = [chr(code) for code in (*range(0x21, 0x7F), *range(0xA1, 0x100))] + [ELLIPSIS]
_STROKES = frozenset("_-¯|.'`,:;")  # what a rule or an icon's edge also is: a line of only these is no text


@dataclass(frozen=True, slots=True)
class Line:
    """A line of text found on a frame: its font, its first cell's top-left pixel, and what it says (spaces between
    its words, one a blank cell)."""

    size: FontSize
    x: int
    y: int
    text: str
    inverted: bool = False

    @property
    def width(self) -> int:
        return len(self.text) * _cell(self.size)[0]


@cache
def _cell(size: FontSize) -> tuple[int, int]:
    width = int(font(size).getlength("M"))
    return width, LINE_HEIGHT[size]


@cache
def _glyphs(size: FontSize) -> dict[tuple[int, ...], str]:
    """Each glyph of the font as the columns of its cell (a column: its pixels as bits, the top one lowest)."""
    width, height = _cell(size)
    found: dict[tuple[int, ...], str] = {}
    for char in _CHARS:
        image = Image.new("1", (width, height))
        ImageDraw.Draw(image).text((0, 0), char, font=font(size), fill=1)
        columns = tuple(_columns(image, 0, height)[:width])
        if any(columns):
            found.setdefault(columns, "…" if char == ELLIPSIS else char)  # the first of two look-alikes
    return found


@cache
def _numbers(size: FontSize) -> tuple[int, dict[tuple[int, ...], str]]:
    """The digits and the minus of the font, each as its columns on the rows the digits cover: a score's bar drawn
    right under it (the 4-row grid's), or a box that ends in the cell's first rows, leaves a number to be read. The
    mask of those rows, and the glyphs so masked."""
    top, bottom = digit_rows(size)
    mask = ((1 << (bottom + 1)) - 1) & ~((1 << top) - 1)
    numbers = {columns: char for columns, char in _glyphs(size).items() if char in "0123456789-"}
    return mask, {tuple(column & mask for column in columns): char for columns, char in numbers.items()}


def _columns(image: Image.Image, top: int, height: int) -> list[int]:
    pixels = image.load()
    assert pixels is not None
    return [sum(1 << row for row in range(height) if pixels[x, top + row]) for x in range(image.width)]


def _hits(image: Image.Image, size: FontSize) -> Iterable[tuple[int, int, str]]:
    """Every cell of the frame that is a glyph of ``size``: its x, y and character."""
    width, height = _cell(size)
    glyphs = _glyphs(size)
    mask, numbers = _numbers(size)
    second = {columns[1] for columns in numbers}  # never blank in a number: a cheap first look before the whole cell
    if image.height < height:
        return
    columns = _columns(image, 0, height)
    pixels = image.load()
    assert pixels is not None
    top_bit = 1 << (height - 1)
    for y in range(image.height - height + 1):
        if y:  # the window moves down a row: each column drops its top pixel and takes the next one below
            below = y + height - 1
            columns = [(column >> 1) | (top_bit if pixels[x, below] else 0) for x, column in enumerate(columns)]
        for x in range(image.width - width + 1):
            cell = tuple(columns[x : x + width])
            char = glyphs.get(cell)
            if char is None and columns[x + 1] & mask in second:
                masked = tuple(column & mask for column in cell)
                if masked != cell:  # something over or under the digits' rows: a bar, a box
                    char = numbers.get(masked)
            if char is not None:
                yield x, y, char


def _lines(image: Image.Image, size: FontSize, inverted: bool) -> list[Line]:
    width, _height = _cell(size)
    by_row: dict[int, dict[int, str]] = defaultdict(dict)
    for x, y, char in _hits(image, size):
        by_row[y][x] = char
    lines: list[Line] = []
    for y, row in by_row.items():
        taken: set[int] = set()
        for x in sorted(row):
            if x in taken:
                continue
            text, at, blanks = "", x, 0
            while blanks <= 1:  # a word's next character, or one blank cell (a space) and the next word
                if at in row:
                    text += " " * blanks + row[at]
                    taken.add(at)
                    blanks = 0
                else:
                    blanks += 1
                at += width
            lines.append(Line(size, x, y, text, inverted))
    return lines


def _lit(line: Line) -> int:
    """How many lit pixels the line's glyphs have (dark ones when it is inverted)."""
    pixels = _pixels(line.size)
    return sum(pixels.get(char, 0) for char in line.text)


@cache
def _pixels(size: FontSize) -> dict[str, int]:
    return {char: sum(bin(column).count("1") for column in columns) for columns, char in _glyphs(size).items()}


def _ink(line: Line, picture: Image.Image) -> tuple[int, int, int, int]:
    """The box of the lit pixels of ``line``'s cells (a font's cell has rows above and below its glyphs: two lines
    set close, a name over its count, share cell rows but no pixel)."""
    _width, height = _cell(line.size)
    box = (line.x, line.y, line.x + line.width, line.y + height)
    ink = picture.crop(box).getbbox()
    return box if ink is None else (box[0] + ink[0], box[1] + ink[1], box[0] + ink[2], box[1] + ink[3])


def _overlaps(box: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int]]) -> bool:
    left, top, right, bottom = box
    return any(left < r and x < right and top < b and y < bottom for x, y, r, b in boxes)


def read(image: Image.Image) -> list[Line]:
    """The lines of text on ``image`` (a 1-bit frame), top to bottom and left to right."""
    grey = image.convert("L")  # a lit pixel may be 1 or 255 (Image.new("1", size, 1) stores 1)
    frame = grey.point(lambda value: 255 if value else 0).convert("1")
    inverse = grey.point(lambda value: 0 if value else 255).convert("1")
    candidates = [
        line
        for picture, inverted in ((frame, False), (inverse, True))
        for size in LINE_HEIGHT
        for line in _lines(picture, size, inverted)
    ]
    # The longest readings first, and of two as long the one that explains more lit pixels (an accented capital
    # rather than the cedilla its accent and top also make): a shorter one that shares pixels with a line already
    # read is a stroke of it.
    candidates.sort(key=lambda line: (-len(line.text.replace(" ", "")), -_lit(line), line.y, line.x))
    accepted: list[Line] = []
    boxes: list[tuple[int, int, int, int]] = []
    for line in candidates:
        if set(line.text) - {" "} <= _STROKES:
            continue
        ink = _ink(line, inverse if line.inverted else frame)
        if not _overlaps(ink, boxes):
            accepted.append(line)
            boxes.append(ink)
    return sorted(accepted, key=lambda line: (line.y, line.x))


def words(image: Image.Image) -> str:
    """Everything ``image`` says, a line of text a line (as :func:`read` finds them)."""
    return "\n".join(line.text for line in read(image))
