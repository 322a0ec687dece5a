"""``companion run``: the service at the table.

One asyncio loop owns the table (:class:`~companion.table.Table`). The devices open in a fixed order, the table is
built around them (:mod:`companion.assembly`, the wiring the demo runs too), and everything stops in reverse:
journal, registry, screen, pins, readers, then the table (which resumes the last unfinished game from the journal)
with its LEDs, buttons, page and publisher, then the tasks: page, readers, ticker, publisher. Readers poll in their
own thread (or, for the hub, on the serial port's descriptor) and gpiozero calls back from its threads: both hand
their events to the loop with ``call_soon_threadsafe``, so the table only ever runs on the loop. SIGTERM and SIGINT
stop the service cleanly; the screen says so, and what the journal could not write by then is logged, kept in a
side file and offered to replay at the next start. Logs go to stderr, for journald.

A part that cannot start is said plainly: a missing display or a journal that cannot be opened (or that another
process holds) leave the table refereeing (the log and, for the journal, the screen and the status LED say so; the
journal is tried again until it opens); a damaged journal is set aside and a new one started; a wrong config,
registry or pin map stop the service at start with the key and what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import luma.core.error
from gpiozero.exc import GPIOZeroError

from companion.assembly import Devices, assemble
from companion.config import Config
from companion.decks import load_deck
from companion.hardware import load_pinmap, pinmap_path
from companion.journal import Journal, JournalDamaged, JournalError, keep_unwritten, kept_unwritten
from companion.nfc.backends import Feed
from companion.nfc.registry import Registry
from companion.pins import PinFactoryError, choose, make_factory
from companion.readers import Readers, Setup, kind
from companion.referee import HubStatus, JournalNotice
from companion.referee.texts import TEXT
from companion.speech import Aplay, Speaker
from companion.systemd import Notifier
from companion.table import Table
from companion.ui.buttons import Buttons
from companion.ui.display import Screen, make_device, parse_options
from companion.ui.frames import FrameFolder
from companion.ui.presses import ENV as PRESSES
from companion.ui.presses import PressPipe
from companion.view import Message, MessageKind, TableView

if TYPE_CHECKING:
    from companion.club.publisher import Publisher
    from companion.web import WebServer

__all__ = ["Daemon", "StartError"]

log = logging.getLogger("companion")

TICK_S = 0.05  # buttons' long presses and the screen's dimming are looked at this often
JOURNAL_RETRY_S = 5.0  # a journal that is not recording is tried again this often


class StartError(RuntimeError):
    """A part that the table cannot do without failed to start; the message says what to do."""


@dataclass
class Daemon:
    config: Config
    pin_factory: Any = None  # gpiozero's; None is the one companion.pins chooses (lgpio on a Pi)
    display: Any = None  # a luma device; None builds one from the config
    clock: Callable[[], float] = time.monotonic
    on_started: Callable[[Daemon], None] | None = None  # the tests' and the benchmark's hook
    systemd: Notifier = field(default_factory=Notifier.from_environ)  # READY=1, WATCHDOG=1 (companion.systemd)
    table: Table | None = None
    screen: Screen | None = None
    stopped_view: TableView | None = None  # what the screen was left showing
    publisher: Publisher | None = None  # the club's broker's, with [mqtt]
    web: WebServer | None = None  # the table's page, when the config serves it
    speaker: Speaker | None = None  # the table's voice ("off" until the config or a person switches it on)
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    _readers: Readers | None = None

    async def run(self, stop: asyncio.Event | None = None) -> int:
        loop = asyncio.get_running_loop()
        stop = stop or asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not in the main thread
                loop.add_signal_handler(signum, stop.set)
        tasks: list[asyncio.Task[None]] = []
        try:
            try:
                self._start(loop, tasks)
            except OSError as exc:
                raise StartError(
                    f"{exc}: is SPI or I2C switched on, and may this user open it? companion doctor says"
                ) from exc
            except GPIOZeroError as exc:
                raise StartError(f"GPIO: {exc}; companion doctor says more") from exc
            except PinFactoryError as exc:
                raise StartError(f"GPIO: {exc}") from exc
            if self.on_started is not None:
                self.on_started(self)
            self.systemd.send("READY=1")
            await stop.wait()
            log.info("stopping")
            return 0
        finally:
            self.systemd.send("STOPPING=1")
            for task in reversed(tasks):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self._say_stopped()
            self._stack.close()  # every part, in reverse order of start
            for signum in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signum)

    # ---- start-up, in order ---------------------------------------------------------------------------------

    def _start(self, loop: asyncio.AbstractEventLoop, tasks: list[asyncio.Task[None]]) -> None:
        """Open the devices, build the table around them (:func:`companion.assembly.assemble`), start it, and run
        what runs: the readers, the page, the publisher and the ticker."""
        config = self.config
        readers_kind = kind(config.backend)
        pinmap = load_pinmap(pinmap_path(config.pinmap))
        problems = readers_kind.zone_problems(pinmap, list(config.zones))
        if problems:
            raise StartError("; ".join(problems))
        journal, set_aside = self._open_journal()
        # Bindings are kept under the deck's own name (what enroll writes), not the path the config gives.
        registry = Registry.load(config.registry, deck=load_deck(config.game.deck_name).name)
        screen = self._open_screen()
        if self.pin_factory is None:
            choice = choose(readers_kind)
            log.info("pins: %s", choice.reason)
            self.pin_factory = make_factory(choice)
            self._stack.callback(self.pin_factory.close)
        try:
            readers = readers_kind.open(Setup(config, pinmap, registry, self.pin_factory, self.clock))
        except ValueError as exc:  # a setting of the kind's own that cannot be used; the message names it
            raise StartError(str(exc)) from None
        self._stack.callback(readers.close)
        devices = Devices(
            journal,
            registry,
            readers,
            pinmap,
            self.pin_factory,
            self.clock,
            loop.call_soon_threadsafe,
            screen,
            voice=Aplay(config.speech.device),  # spawned only for a sentence to say: "off" runs nothing
        )
        assembly = assemble(config, devices)
        self._stack.callback(assembly.close)
        self.table = table = assembly.table
        if set_aside is not None:
            table.referee.handle(JournalNotice("journal_aside"), self.clock())
        table.start(self.clock())
        self._offer_unwritten(table)
        log.info("table ready: %s, zones %s", config.game.name, ", ".join(config.zones))
        if presses := os.environ.get(PRESSES, ""):  # a PC: buttons pressed from another process
            try:
                self._stack.enter_context(PressPipe(Path(presses), pinmap.buttons, self.pin_factory))
            except (ValueError, OSError) as exc:
                raise StartError(str(exc)) from None
            log.info("buttons: pressed from the named pipe %s", presses)
        self.web, self.publisher, self.speaker = assembly.web, assembly.publisher, assembly.speaker
        if self.web is not None:
            tasks.append(loop.create_task(self.web.serve(), name="web"))
        self._readers = readers
        feed = Feed(self._guarded(lambda scan: table.scan(scan, self.clock())), self._link)
        tasks.append(loop.create_task(readers.run(feed), name="readers"))
        tasks.append(loop.create_task(self._tick(assembly.buttons, screen), name="ticker"))
        if self.publisher is not None:  # a task of its own, woken as an output, that the table never waits for
            tasks.append(loop.create_task(self.publisher.run(), name="mqtt"))
        table.show(self.clock())

    def _open_journal(self) -> tuple[Journal, Path | None]:
        """The journal, and where a damaged one was set aside (None if it was not).

        A journal that cannot be opened is never swapped for one in memory: the table referees, says it is not
        recording, and the ticker tries the file again every ``JOURNAL_RETRY_S``, writing all that waits once it
        opens. A damaged file (corrupt, or not a journal) is moved aside, kept, and a new journal started.
        """
        journal = Journal(self.config.journal, connect=False)
        self._stack.callback(journal.close)
        set_aside = None
        try:
            try:
                journal.connect()
            except JournalDamaged as exc:
                set_aside = journal.set_aside()
                log.error("%s: set aside as %s (kept); a new journal starts", exc, set_aside)
                journal.connect()
        except (JournalError, OSError) as exc:
            log.error("%s: the table is NOT recording; trying again every %.0f s", exc, JOURNAL_RETRY_S)
        return journal, set_aside

    def _offer_unwritten(self, table: Table) -> None:
        """Offer to replay what the last stop could not write (its side file), if it goes on from this game."""
        try:
            found = kept_unwritten(self.config.journal, _runtime_folder())
        except ValueError as exc:
            log.error("%s: left where it is", exc)
            return
        if found is None:
            return
        path, kept = found
        count = sum(len(unwritten.entries) for unwritten in kept)
        if table.offer(path, kept, self.clock()):
            log.warning("%s: %d entries the last stop could not write: CONFIRM replays them, UNDO not", path, count)
        else:
            log.error("%s: %d entries the last stop could not write do not go on from this game: kept", path, count)

    def _keep_unwritten(self, table: Table) -> Message | None:
        """At stop, what the players confirmed that is not on disk: each entry logged, all kept in a side file that
        the next start offers to replay; what the screen is left saying about them (None: nothing is unwritten)."""
        table.retry_journal(self.clock())  # the disk may be back since the last try
        kept = table.unwritten()
        if not kept:
            return None
        for unwritten in kept:
            game = unwritten.game or "new"
            for entry in unwritten.entries:
                log.error("not written: game %s: %s %s (t=%.3f)", game, entry.kind, entry.text, entry.t)
        count = sum(len(unwritten.entries) for unwritten in kept)
        try:
            path = keep_unwritten(self.config.journal, kept, _runtime_folder())
        except OSError as exc:
            log.error("%d entries not written cannot be kept in a file (%s): the log above has them", count, exc)
            todo = "stopped_lost_do"
        else:
            log.error("%d entries not written are kept in %s: the next start offers to replay them", count, path)
            todo = "stopped_unwritten_do"
        referee = table.referee
        return Message(MessageKind.DISK_FULL, referee.text("stopped_unwritten", n=count), referee.text(todo))

    def _open_screen(self) -> Screen | None:
        try:
            device = self.display
            if device is None:
                options = self.config.display or load_pinmap(pinmap_path(self.config.pinmap)).oled
                if self.config.frames is not None:  # no panel: PNG frames the size of the configured one
                    size = parse_options(options)
                    device = FrameFolder(self.config.frames, size.width, size.height)
                    log.info("screen: PNG frames in %s", self.config.frames)
                else:
                    device = make_device(options)
        except (OSError, ValueError, ImportError, luma.core.error.Error) as exc:
            log.error("no display (%s): refereeing without a screen; companion doctor says what is wrong", exc)
            return None
        # Frames go out from the screen's own thread: a full frame holds the I2C bus 23 ms even at 400 kHz.
        self.screen = Screen(device, dim_after_s=self.config.dim_after_s, background=True)
        self._stack.callback(self.screen.close)  # after the last frame (the stopped screen) is sent
        return self.screen

    @staticmethod
    def _guarded(call: Callable[[Any], None]) -> Callable[[Any], None]:
        """``call``, with a failure logged rather than fatal: one bad event must not stop the table."""

        def run(item: Any) -> None:
            try:
                call(item)
            except Exception:
                log.exception("handling %r failed", item)

        return run

    def _link(self, up: bool, reason: str, zones: tuple[int, int] | None) -> None:
        """Readers behind a link (the hub) came up or were lost: the referee says so on the screen and status LED."""
        assert self.table is not None
        if not up:
            log.warning("readers lost: %s", reason)
        try:
            self.table.status(HubStatus(up, zones), self.clock())
        except Exception:
            log.exception("handling the readers' link (%s) failed", "up" if up else "lost")

    async def _tick(self, buttons: Buttons, screen: Screen | None) -> None:
        assert self.table is not None
        retry = self.clock() + JOURNAL_RETRY_S
        while True:
            await asyncio.sleep(TICK_S)
            now = self.clock()
            self.systemd.tick(time.monotonic())  # from the loop: a loop that is stuck stops the pings
            buttons.tick(now)
            if screen is not None:
                screen.tick(now)
            if now >= retry:
                retry = now + JOURNAL_RETRY_S
                self.table.retry_journal(now)

    def _say_stopped(self) -> None:
        if self.table is None:
            return
        self.stopped_view = self.table.referee.stopped_view()
        if unwritten := self._keep_unwritten(self.table):
            self.stopped_view = replace(self.stopped_view, message=unwritten)
        for output in self.table.outputs:
            output.show(self.stopped_view, self.clock())
        # the log is English whatever the table speaks (docs/TRANSLATING.md): the screen's words in English
        log.info("stopped: %s", TEXT["stopped"] if unwritten is None else "plays not written, logged above, kept")


def _runtime_folder() -> Path | None:
    """systemd's runtime folder for the service (``RuntimeDirectory=``, kept across restarts), where the side file
    of unwritten entries goes when the journal's own folder cannot be written."""
    folder = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    return Path(folder) if folder else None
