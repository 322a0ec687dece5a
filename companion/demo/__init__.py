"""``companion demo``: a complete game through the whole stack, on a machine without hardware.

The table is the daemon's own wiring (:mod:`companion.assembly`) around simulated devices (:mod:`~companion.demo.
bench`: MFRC522 chips simulated at the register level, gpiozero's mock pins, the real luma ssd1306 driver on a fake
I2C bus). Robot players play it (:mod:`~companion.demo.script`: who plays what, when), the demo tells what happens
(:mod:`~companion.demo.story`: the words a person reads on the terminal) and, with ``web``, serves the table's page,
where a person may play a seat (:mod:`~companion.demo.person`). The run includes read noise, one illegal attempt and
one undo.

Time is simulated, so a seed gives the same game and the same output every time. The registry and the journal live
in a temporary folder that is removed at the end unless ``keep`` is set.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpiozero.pins.mock import MockFactory, MockPWMPin
from PIL import Image

from companion.demo.bench import Bench, Stopped
from companion.demo.person import Person
from companion.demo.script import Script
from companion.demo.story import Story
from companion.games import DEFAULT_GAME, Robots
from companion.hardware import load_pinmap
from companion.referee import Referee
from companion.sim.oled import FakeI2CBus
from companion.table import Table
from companion.ui.display import frame_to_text, make_device

if TYPE_CHECKING:
    from companion.web import WebServer
    from companion.web.virtual import Hand

__all__ = ["Demo", "save_gif", "served"]

PI_4 = "c03111"  # the mock board: a Raspberry Pi 4 Model B, so a pin it lacks fails
STOPPED = 130  # the exit status of a demo stopped mid-game (as a shell says a command ended by Ctrl-C)


@dataclass
class Demo:
    game: str = DEFAULT_GAME
    seed: int = 1
    frames: Path | None = None
    out: Callable[[str], None] = print
    journal_path: Path | None = None
    factory: MockFactory | None = None  # gpiozero's mock pins; a test passes its own to read the pin histories
    bus: Any = None  # the OLED's I2C bus; None is a FakeI2CBus, which decodes every frame back into a picture
    display: Any = None  # a luma device on ``bus``; None makes one (luma keeps each device it makes until exit)
    language: str = "es"
    verbose: bool = False  # every event, not only the story
    keep: bool = False  # keep the temporary folder (registry and journal) and say where it is
    screens: list[tuple[float, Image.Image]] | None = None  # when a list, each frame sent and its table time
    web: tuple[str, int] | None = None  # serve the table's page there (companion.web), playing at the table's pace
    speed: float = 1.0  # with web: how many times faster than the table's pace
    hold: bool = False  # with web: keep serving after the game, until interrupted
    seat: int | None = None  # with web: the seat (from 1; 6º SET: pair A is 1) a person plays on the page
    voice: Path | None = None  # a folder: every sentence the table says, as <game>-NNN.wav with its .txt
    bench: Bench | None = field(default=None, init=False)  # the table, while it runs
    _person: Person | None = field(default=None, init=False)
    _stopping: threading.Event = field(default_factory=threading.Event, init=False)  # stop(), SIGINT, SIGTERM

    # ---- what the tests and the documents look at ---------------------------------------------------------------

    @property
    def table(self) -> Table:
        assert self.bench is not None
        return self.bench.table

    @property
    def referee(self) -> Referee:
        assert self.bench is not None
        return self.bench.referee

    @property
    def counts(self) -> dict[str, int]:
        """What happened at the table, counted: frames, presses, LED changes and commands, noisy reads..."""
        assert self.bench is not None
        return self.bench.counts

    @property
    def robots(self) -> Robots | None:
        return None if self._person is None else self._person.robots

    @property
    def _awaiting(self) -> int | None:
        """While the robots wait for the page's person: the actions before."""
        return None if self._person is None else self._person.awaiting

    @property
    def server(self) -> WebServer | None:
        return None if self._person is None else self._person.server

    def _url(self) -> str:
        assert self._person is not None
        return self._person.url()

    def stop(self) -> None:
        """End the demo where it is (from any thread): the game is left unfinished, the page stops being served."""
        self._stopping.set()

    # ---- the run -------------------------------------------------------------------------------------------------

    def run(self) -> int:
        workdir = Path(tempfile.mkdtemp(prefix="companion-demo-"))
        try:
            return self._run(workdir)
        finally:
            if not self.keep:
                shutil.rmtree(workdir, ignore_errors=True)

    def _run(self, workdir: Path) -> int:
        if self.frames is not None:
            self.frames.mkdir(parents=True, exist_ok=True)
        own_factory = self.factory is None
        factory = self.factory or MockFactory(revision=PI_4, pin_class=MockPWMPin)
        self.bus = self.bus or FakeI2CBus()
        try:
            self.bench = bench = self._bench(
                self.game,
                self.language,
                workdir,
                seed=self.seed,
                journal=self.journal_path,
                factory=factory,
                pinmap=load_pinmap(),
                display=self.display or make_device([], bus=self.bus),
                bus=self.bus,
                web=self.web,
                hand=self._hand,
                voice=self.voice,
            )
            try:
                return self._play(bench)
            finally:
                if self._person is not None:
                    self._person.close()
                bench.close()
        finally:
            if own_factory:
                factory.close()

    def _play(self, bench: Bench) -> int:
        bench.stopping, bench.speed = self._stopping, self.speed
        bench.on_frame = self._frame
        story = Story(bench, self.out, self.language, self.verbose)
        self._person = person = Person(bench, story, self.seat)
        self.out(story.say("title", game=bench.referee.current_game.name, seed=self.seed))
        if self.keep or self.journal_path is not None:
            self.out(story.say("journal", path=bench.journal.path))
        if bench.assembly.web is not None:
            person.serve(bench.assembly.web)
        bench.table.start(bench.now)
        try:
            self._script(bench, story, person).play()
        except Stopped:
            self.out(story.say("stopped"))
            return STOPPED
        self.out("")
        for line in story.standings():
            self.out(line)
        if isinstance(self.bus, FakeI2CBus):
            self.out(frame_to_text(self.bus.last_image()))
        self._game_over(bench)
        self.out(story.summary())
        self.out("")
        if self.hold:
            person.hold()
        return 0

    # ---- what a demo with faults (bench/soak.py) makes its own -------------------------------------------------

    def _bench(self, *args: Any, **kwargs: Any) -> Bench:
        return Bench(*args, **kwargs)

    def _script(self, bench: Bench, story: Story, person: Person) -> Script:
        return Script(bench, story, person)

    def _game_over(self, bench: Bench) -> None:
        """The game is over, its outputs still open."""

    def _hand(self) -> Hand:
        """The page's person's hand (the virtual table's input)."""
        assert self._person is not None
        return self._person.hand()

    def _frame(self, image: Image.Image) -> None:
        """A frame the panel got: kept as a PNG, and with its table time for the GIF."""
        assert self.bench is not None
        if self.frames is not None:
            image.save(self.frames / f"{self.game}-{self.bench.counts['frames']:05d}.png")
        if self.screens is not None:
            self.screens.append((self.bench.now, image.copy()))


@contextlib.contextmanager
def served(demo: Demo, timeout: float = 30.0) -> Iterator[str]:
    """``demo`` (given ``web``) run in a thread of its own for as long as the block runs, and its page's address;
    stopped on leaving (its game left unfinished if a person has not played it to its end). For the tests and the
    screenshots, which play the person's seat from a browser or through the routes."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            demo.run()
        except BaseException as exc:  # said in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="demo", daemon=True)
    thread.start()
    end = time.monotonic() + timeout
    while getattr(demo.server, "port", None) is None:
        if failed or not thread.is_alive() or time.monotonic() > end:
            raise RuntimeError(f"the demo did not serve its page: {failed or 'it took too long'}")
        time.sleep(0.01)
    try:
        yield demo._url()
    finally:
        demo.stop()
        thread.join(timeout)
    if failed:
        raise failed[0]


GIF_SCALE = 2  # the 128x64 panel, twice as large: a pixel of the OLED is still a sharp square
GIF_MS = (40, 2000)  # each screen stays as long as it did at the table, within these bounds (milliseconds)


def save_gif(screens: list[tuple[float, Image.Image]], path: Path) -> int:
    """Write ``screens`` (table time, picture) as an animated GIF; returns how many frames it holds."""
    times = [now for now, _ in screens]
    durations = [
        round(min(max((after - now) * 1000, GIF_MS[0]), GIF_MS[1]))
        for now, after in zip(times, [*times[1:], times[-1] + GIF_MS[1] / 1000], strict=True)
    ]
    pictures = [
        image.convert("L").resize((image.width * GIF_SCALE, image.height * GIF_SCALE), Image.Resampling.NEAREST)
        for _, image in screens
    ]
    pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=durations, loop=0, format="GIF")
    return len(pictures)
