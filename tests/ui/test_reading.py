"""The frame reader (companion.ui.reading) reads back what was drawn, in every font, at any pixel, lit or dark."""

from __future__ import annotations

from collections import Counter

from hypothesis import assume, example, given
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from companion.examples import example_views
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.fonts import ELLIPSIS
from companion.ui.reading import _STROKES, Line, _glyphs, read, words
from companion.ui.screens import HEIGHT, LINE_HEIGHT, WIDTH, FontSize, font, text_width


def unique_glyphs(size: FontSize) -> list[str]:
    """The characters whose glyph no other character of the font shares (a reader cannot tell look-alikes)."""
    image_of: dict[str, bytes] = {}
    for char in "".join(_glyphs(size).values()) + "Il1|O0":
        image = Image.new("1", (12, 20))
        ImageDraw.Draw(image).text((0, 0), ELLIPSIS if char == "…" else char, font=font(size), fill=1)
        image_of[char] = image.tobytes()
    counts = Counter(image_of.values())
    return sorted(char for char, picture in image_of.items() if counts[picture] == 1 and char not in _STROKES)


@st.composite
def drawn_lines(draw: st.DrawFn) -> tuple[FontSize, int, int, str, bool]:
    size: FontSize = draw(st.sampled_from(list(LINE_HEIGHT)))
    word = st.text(st.sampled_from(unique_glyphs(size)), min_size=1, max_size=6)
    text = " ".join(draw(st.lists(word, min_size=1, max_size=4)))
    # A lone mark ('¨', '¸') is the same few pixels in two fonts, one row apart: a text has a letter or a digit.
    assume(any(char.isalnum() for char in text))
    width = text_width(text, size)
    if width > WIDTH:
        text = text[: WIDTH // text_width("M", size)].strip()
        width = text_width(text, size)
    x = draw(st.integers(0, WIDTH - width))
    y = draw(st.integers(0, HEIGHT - LINE_HEIGHT[size]))
    return size, x, y, text.replace("…", ELLIPSIS), draw(st.booleans())


@given(drawn_lines())
@example(("small", 0, 6, "Á", False))  # its accent and its top also make a whole cedilla in the cell above
def test_a_line_drawn_anywhere_in_any_font_reads_back_as_it_was_written(
    line: tuple[FontSize, int, int, str, bool],
) -> None:
    size, x, y, text, inverted = line
    image = Image.new("1", (WIDTH, HEIGHT), int(inverted))
    ImageDraw.Draw(image).text((x, y), text, font=font(size), fill=int(not inverted))
    assert read(image) == [Line(size, x, y, text.replace(ELLIPSIS, "…"), inverted)]


def test_every_example_screen_reads_as_its_words() -> None:
    """The frames the real ssd1306 driver sent for the example screens (decoded from the fake bus's bytes) read
    back as the words a person sees on them: whose turn, the pot, a message's title and what to do."""
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    said: dict[str, str] = {}
    for language in ("es", "en"):
        for name, view in example_views(language).items():
            screen.show(view, now=0.0)
            said[f"{language}-{name}"] = words(bus.last_image())
    assert "Bote 1\nReserva 49" in said["es-seises-5-seats"]
    assert "¿Quién puso el 6 de\noros?" in said["es-message-question"]
    assert "Sin hilera de copas" in said["es-message-illegal"]
    assert said["es-menu"] == "Baraja\nEspañola 40\nEspañola 48\nOK elige PASO baja"
    assert all(text for text in said.values()), [name for name, text in said.items() if not text]


@given(
    size=st.sampled_from(list(LINE_HEIGHT)),
    number=st.integers(min_value=-99, max_value=999),
    x=st.integers(min_value=0, max_value=60),
)
def test_a_number_with_a_bar_right_under_it_or_a_box_over_it_reads_as_written(
    size: FontSize, number: int, x: int
) -> None:
    """A score's bar under its digits (the 4-row grid's) and the inverted box of the cell above it touch the digits'
    cells; the number is still read, as a person reads it."""
    image = Image.new("1", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    top, bottom = 20, 20 + LINE_HEIGHT[size]
    draw.text((x, top), str(number), font=font(size), fill=1)
    rows = [row for row in range(top, bottom) if image.crop((0, row, WIDTH, row + 1)).getbbox()]
    draw.line((0, rows[-1] + 1, WIDTH - 1, rows[-1] + 1), fill=1)  # the bar, right under the digits
    draw.rectangle((0, 0, WIDTH - 1, rows[0] - 2), fill=1)  # a box ending a row over them
    assert str(number) in [line.text for line in read(image)]
