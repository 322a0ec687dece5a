"""What "fits on the screen" means in these tests: drawn on a canvas larger than the display, so that nothing is
clipped, a screen lights pixels of the display's 128x64 only."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageDraw

from companion.config import GameConfig
from companion.examples import ExampleTable
from companion.ui.screens import HEIGHT, WIDTH

Drawing = Callable[[ImageDraw.ImageDraw], object]


def on_screen(drawing: Drawing) -> Image.Image:
    canvas = Image.new("1", (2 * WIDTH, 2 * HEIGHT))
    drawing(ImageDraw.Draw(canvas))
    box = canvas.getbbox()
    assert box is None or (box[2] <= WIDTH and box[3] <= HEIGHT), (
        f"lit pixels reach x={box[2] - 1}, y={box[3] - 1}: past the {WIDTH}x{HEIGHT} display"
    )
    return canvas.crop((0, 0, WIDTH, HEIGHT))


@pytest.fixture(name="on_screen")
def on_screen_fixture() -> Callable[[Drawing], Image.Image]:
    """``on_screen(lambda draw: draw_x(draw, ...))``: the drawing, checked to stay on the display (the real fonts'
    pixels, not the layout's own measure of them); returns what the display shows."""
    return on_screen


@pytest.fixture
def example_table() -> Iterator[Callable[..., ExampleTable]]:
    """``example_table(config)``: an :class:`ExampleTable` of ``config`` (robot players at a table wired as every
    table is), closed when the test ends."""
    made: list[ExampleTable] = []

    def make(config: GameConfig, robots: Any = None) -> ExampleTable:
        made.append(ExampleTable(config, robots))
        return made[-1]

    yield make
    for table in made:
        table.close()
