"""The demo's table: simulated devices, built into the daemon's own wiring (:func:`companion.assembly.assemble`),
and the hands and fingers that use them on a simulated clock.

The readers are MFRC522 chips simulated at the register level (:class:`~companion.nfc.backends.SimBackend`, read
by our driver), the buttons and LEDs gpiozero's on mock pins, the OLED the real luma ssd1306 driver on a fake I2C
bus decoded back into a picture; the zone LEDs are the Pi's (a game of one zone) or LED commands for the hub (more
zones). Every card of the deck is enrolled in a registry of its own and every committed action goes to a real
journal. The readers are polled around each change only: polls of an unchanged table produce no events. Given a
``voice`` folder, the table says everything it would say aloud (``[speech] level = "all"``) into it, as WAV files.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpiozero.pins.mock import MockFactory
from PIL import Image

import companion.sim
from companion.assembly import Assembly, Devices, assemble
from companion.config import Config, GameConfig, SpeechConfig
from companion.events import Button
from companion.games import find_kind
from companion.hardware import PinMap
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.nfc.registry import Registry
from companion.readers.sim import KIND as SIM_READERS
from companion.referee import Referee
from companion.sim.oled import FakeI2CBus
from companion.speech import WavFiles
from companion.table import Table
from companion.ui.display import Screen
from companion.ui.lights import HubZoneLights, StatusLed
from companion.view import TableView

if TYPE_CHECKING:
    from companion.web.virtual import Hand

__all__ = ["HOLD_S", "POLL_S", "PRESS_S", "Bench", "Stopped"]

POLL_S = 0.01  # the back-end's poll interval
PRESS_S = 0.15  # how long a finger holds a button for a short press
HOLD_S = 1.7  # ... and for a long one


class Stopped(Exception):
    """The demo was stopped mid-game."""


class Bench:
    """The demo's table of ``game`` (the config a table of its default zones would have) in ``workdir``: its
    devices, the assembly built on them, its clock ``now`` and what its hands do."""

    def __init__(
        self,
        game: str,
        language: str,
        workdir: Path,
        *,
        seed: int,
        journal: Path | None,
        factory: MockFactory,
        pinmap: PinMap,
        display: Any,
        bus: Any,
        web: tuple[str, int] | None,
        hand: Callable[[], Hand] | None,
        voice: Path | None = None,
    ) -> None:
        companion.sim.reset()  # the demo owns the simulated bench: readers, fields and clock start afresh
        kind = find_kind(game)
        zones = kind.default_zones()
        game_config = GameConfig(name=kind.name, players=4, language=language)
        self.config = Config(
            game=game_config,
            zones=zones,
            backend=SIM_READERS.name,  # the simulated chips below, as the config names their reader kind
            registry=workdir / "registry.toml",
            journal=journal or workdir / "journal.db",
            web=web,
            speech=SpeechConfig(level="all") if voice is not None else SpeechConfig(),
        )
        self.zone_names = tuple(zones)
        self.now = 0.0
        self.counts: dict[str, int] = {}
        self.rng = random.Random(seed)
        self.on_view: Callable[[TableView], None] = lambda view: None  # the story's, once it listens
        self.on_frame: Callable[[Image.Image], None] = lambda image: None  # each frame the panel got
        self.loop: asyncio.AbstractEventLoop | None = None  # the page's, while served
        self.speed = 1.0  # with the page served: how many times faster than the table's pace
        self._ticked: float | None = None  # when the last tick at the table's own pace ended (real time)
        self.stopping = threading.Event()
        registry = Registry.load(self.config.registry, deck=game_config.deck_name)
        self.backend = SimBackend(list(zones), registry)
        self.backend.init()
        self.journal = Journal(self.config.journal)
        self.bus = bus
        self.screen = Screen(display)
        hub = None if len(zones) == 1 else self._hub_lights  # one zone: the Pi's own reader and LEDs
        devices = Devices(
            self.journal,
            registry,
            self.backend,
            pinmap,
            factory,
            clock=lambda: self.now,
            call_soon=lambda call: call(),
            screen=_Screen(self),
            lights=hub,
            hand=hand,
            voice=WavFiles(voice, prefix=f"{kind.name}-") if voice is not None else None,
        )
        self.assembly: Assembly = assemble(self.config, devices)
        for card in self.referee.current_game.deck:
            registry.bind(self.backend.tag(card.id).uid, card.id)  # every card enrolled, as after companion enroll
        registry.save()
        self.pins = {name: factory.pin(pin) for name, pin in pinmap.buttons.items()}

    @property
    def table(self) -> Table:
        return self.assembly.table

    @property
    def referee(self) -> Referee:
        return self.assembly.table.referee

    def close(self) -> None:
        self.assembly.close()
        self.journal.close()

    def _hub_lights(self, status: StatusLed) -> HubZoneLights:
        return HubZoneLights(self.zone_names, self._hub_led, status)

    def _hub_led(self, zone: str, colour: str, mode: str) -> None:
        self.count("led commands")

    def count(self, what: str, more: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + more

    # ---- time ------------------------------------------------------------------------------------------------

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` of table time pass, ticking the buttons and the screen as the daemon does; with the page
        served, as much real time passes (divided by ``speed``) while it serves."""
        self._ticked = None  # table time runs by itself again: no real time since the last tick counts
        if self.loop is not None:
            self.loop.run_until_complete(asyncio.sleep(seconds / self.speed))
            if self.stopping.is_set():
                raise Stopped
        end = self.now + seconds
        while self.now < end:
            self.now = round(self.now + POLL_S, 6)
            self.assembly.buttons.tick(self.now)
            self.screen.tick(self.now)

    def tick(self) -> None:
        """One poll of the readers at the table's own pace: table time is real time while the page is played, so a
        press on the page lasts as long as the page holds the button."""
        assert self.loop is not None
        # from the last tick's end: the time the table took between two ticks is table time too, or a press held
        # 1.6 s on the page would be held less than the long press's 1.5 s at the table
        start = self._ticked if self._ticked is not None else time.monotonic()
        self.loop.run_until_complete(asyncio.sleep(POLL_S))
        if self.stopping.is_set():
            raise Stopped
        self._ticked = time.monotonic()
        self.now = round(self.now + self._ticked - start, 6)
        self.assembly.buttons.tick(self.now)
        self.screen.tick(self.now)
        for scan in self.backend.poll(self.now):
            self.table.scan(scan, self.now)

    def poll(self, times: int) -> None:
        for _count in range(times):
            self.now = round(self.now + POLL_S, 6)
            for scan in self.backend.poll(self.now):
                self.table.scan(scan, self.now)

    # ---- hands and fingers -----------------------------------------------------------------------------------

    def press(self, button: Button, hold: float = PRESS_S) -> None:
        pin = self.pins[button]
        pin.drive_low()
        self.wait(hold)
        pin.drive_high()
        self.wait(0.2)

    def lay(self, card: str, zone: str) -> None:
        """A card is laid on a pad and read (with some read noise now and then)."""
        self.backend.put(card, zone)
        if self.rng.random() < 0.08:
            self.backend.noise(zone, 1)  # a garbled read: the tracker keeps what it has
            self.count("noise")
        self.poll(3)

    def lift(self, card: str) -> None:
        self.backend.take(card)
        self.poll(4)  # the tracker calls a card gone after 3 clean empty polls


class _Screen:
    """The OLED as an output of the table: each frame the panel got is counted and handed on, then the view is."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench

    def watch(self, watcher: Callable[[Image.Image], None]) -> None:
        """The page's mirror of the panel (:meth:`companion.ui.display.Screen.watch`)."""
        self.bench.screen.watch(watcher)

    def show(self, view: TableView, now: float) -> None:
        bench = self.bench
        if bench.screen.show(view, now):
            bench.count("frames")
            if isinstance(bench.bus, FakeI2CBus):
                bench.on_frame(bench.bus.last_image())
        bench.on_view(view)
