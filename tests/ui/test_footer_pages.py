"""A message on the scoreboard's footer is read whole: its title and what to do, a line at a time, every word as it
was said, never cut; read back from the frames the real ssd1306 driver sent as the screen turns its pages."""

from __future__ import annotations

import re

import pytest

from companion.config import GameConfig
from companion.events import Button
from companion.examples import ExampleTable, example_views
from companion.examples.contact import page_frames
from companion.games import kinds
from companion.i18n import languages
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.reading import read
from companion.ui.screens import ELLIPSIS, PAGE_S, covers_scoreboard, pages
from companion.view import TableView

FOOTER_Y = 54  # the footer line's top row


def footer_pages(view: TableView) -> list[str]:
    """The footer line of each page the screen shows for ``view``, as a person reads them, turning with time."""
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    seen = [
        " ".join(line.text for line in read(frame) if line.y >= FOOTER_Y) for frame in page_frames(view, screen, bus)
    ]
    screen.tick(pages(view) * PAGE_S + 0.1)  # round again: the first line comes back
    seen.append(" ".join(line.text for line in read(bus.last_image()) if line.y >= FOOTER_Y))
    return seen


def letters(text: str) -> str:
    return re.sub(r"\W", "", text)


def footer_moments(language: str) -> list[TableView]:
    """Messages the scoreboard's footer shows: the examples', and at a table of each game the PASS question and an
    undo's words."""
    views = [view for view in example_views(language).values() if view.message and view.game]
    for name in kinds():
        with ExampleTable(GameConfig(name, language=language)) as table:
            for _ in range(3):
                table.step()
            table.press(Button.PASS)
            views.append(table.view())
            table.press(Button.UNDO)
            table.press(Button.UNDO, "long")
            views.append(table.view())
    return [view for view in views if view.message is not None and not covers_scoreboard(view.message)]


@pytest.mark.parametrize("language", languages())
def test_every_footer_message_is_read_whole_a_line_at_a_time(language: str) -> None:
    moments = footer_moments(language)
    assert len(moments) >= 4
    for view in moments:
        assert view.message is not None
        shown = footer_pages(view)
        said = f"{view.message.title} {view.message.todo}"
        assert ELLIPSIS not in "".join(shown), f"{said!r} is cut: {shown}"
        assert letters("".join(shown[:-1])) == letters(said), f"{said!r} reads {shown[:-1]}"
        assert shown[-1] == shown[0], "the pages go round"
