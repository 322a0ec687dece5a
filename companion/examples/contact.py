"""A whole game on the panel, for a person to read through: the contact sheet of ``docs/screens/``.

Robot players play a game of each kind from its first card to its end (:class:`~companion.examples.ExampleTable`,
the examples' seed, the default config: nobody named the seats), and the screen shows the table's view after every
event, as the daemon's does. The sheet keeps the frames the real ssd1306 driver sent when something new is said: the
scoreboard before the first card, then each sentence the first time it is on the screen, every page of it (a message
on the footer turns a line at a time), and the last screen. The same sentence said again ("¿Pagar una ficha?") and
the scoreboard changing under it add nothing to read, so a game of a few hundred plays fits on one sheet::

    >>> frames = game_frames(min(kinds()), "en")  # any game
    >>> sheet = contact_sheet(frames)
    >>> len(frames) > 10, sheet.width, (sheet.height - GAP) % (HEIGHT + GAP)
    (True, 532, 0)
"""

from __future__ import annotations

from PIL import Image

from companion.config import GameConfig
from companion.examples import ExampleTable, message_is
from companion.games import kinds
from companion.i18n import languages
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.screens import HEIGHT, PAGE_S, WIDTH, pages
from companion.view import MessageKind, TableView

__all__ = ["COLUMNS", "GAP", "contact_sheet", "contact_sheets", "game_frames"]

COLUMNS = 4  # frames side by side: a sheet as wide as a page of docs at the docs' scale
GAP = 4  # pixels between frames, lit, so that each frame's black edge shows


class _Watched(ExampleTable):
    """An example table that keeps every view it showed its outputs."""

    def __init__(self, config: GameConfig) -> None:
        self.views: list[TableView] = []
        super().__init__(config)

    def show(self, view: TableView, now: float) -> None:
        super().show(view, now)
        self.views.append(view)


def game_frames(game: str, language: str) -> list[Image.Image]:
    """The frames of a whole game of ``game`` in ``language`` worth reading (see the module's notes), in order."""
    with _Watched(GameConfig(game, language=language)) as table:
        table.until(message_is(MessageKind.END_OF_GAME))
    views = table.views
    said: set[object] = {views[0].message}
    kept = [views[0]]
    for view in views[1:]:
        if view.message is not None and view.message not in said:
            said.add(view.message)
            kept.append(view)
    kept.append(views[-1])
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    frames: list[Image.Image] = []
    now = 0.0
    for view in kept:
        for frame in page_frames(view, screen, bus, now):
            if not frames or frame.tobytes() != frames[-1].tobytes():  # the last screen may be the last said
                frames.append(frame)
        now += (pages(view) + 1) * PAGE_S
    return frames


def page_frames(
    view: TableView, screen: Screen | None = None, bus: FakeI2CBus | None = None, now: float = 0.0
) -> list[Image.Image]:
    """The frames the real driver sends for ``view`` shown at ``now``, one a page of its footer as the pages turn
    (once round): what a person sees of it over time. ``screen`` sends on ``bus`` (by default a new screen on a new
    fake bus)."""
    if screen is None or bus is None:
        bus = FakeI2CBus()
        screen = Screen(make_device([], bus=bus))
    screen.show(view, now)
    frames = []
    for page in range(pages(view)):
        screen.tick(now + page * PAGE_S + 0.1)
        frames.append(bus.last_image())
    return frames


def contact_sheet(frames: list[Image.Image], columns: int = COLUMNS) -> Image.Image:
    """``frames`` in rows of ``columns``, left to right, top to bottom, with a lit gap around each."""
    rows = -(-len(frames) // columns)
    sheet = Image.new("1", (GAP + columns * (WIDTH + GAP), GAP + rows * (HEIGHT + GAP)), 255)
    for index, frame in enumerate(frames):
        row, column = divmod(index, columns)
        lit = frame.convert("L").point(lambda value: 255 if value else 0).convert("1")  # a lit pixel may be 1
        sheet.paste(lit, (GAP + column * (WIDTH + GAP), GAP + row * (HEIGHT + GAP)))
    return sheet


def contact_sheets() -> dict[str, Image.Image]:
    """A whole game of every kind in every language, each as ``<language>-<game>-whole-game``."""
    return {
        f"{language}-{game}-whole-game": contact_sheet(game_frames(game, language))
        for language in languages()
        for game in kinds()
    }
