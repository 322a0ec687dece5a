"""``companion demo``: a complete game through the whole stack, on a machine without hardware.

Robot players hold dealt hands and act as people at the table would: they lay each card on a pad of simulated
MFRC522 readers (SPI-level chips read by our driver), press CONFIRM, PASS and UNDO on gpiozero's mock pins, and
lift the card again. The real luma ssd1306 driver draws every screen onto a fake I2C bus, decoded back into a
picture; the zone LEDs are gpiozero LEDs on mock pins (Seises) or LED commands for the hub (6º SET, 8 zones).
Every committed action goes to a real journal. The run includes read noise, one illegal attempt and one undo.

Time is simulated, so a seed gives the same game and the same output every time. The readers are polled around
each change only: polls of an unchanged table produce no events.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

import companion.sim
from companion.config import GameConfig
from companion.hardware import load_pinmap
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.nfc.events import CardArrived, CardLeft, SameCardTwice, UnknownTag
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.rules import Action, Play, Seises, SextoSet
from companion.rules.robots import SeisesTable, SextoSetTable
from companion.table import Table
from companion.ui.buttons import Buttons, Press
from companion.ui.lights import LOOK, HubZoneLights, StatusLed, ZoneLights
from companion.ui.screen import FakeI2CBus, Screen, frame_to_text, make_device
from companion.view import MessageKind, TableView, ZoneLight

__all__ = ["Demo"]

PI_4 = "c03111"  # the mock board: a Raspberry Pi 4 Model B, so a pin it lacks fails
POLL_S = 0.01  # the back-end's poll interval
PRESS_S = 0.15  # how long a finger holds a button for a short press
HOLD_S = 1.7  # ... and for a long one
MASTERS_ZONES = tuple(f"z{i}" for i in range(1, 9))
SHOWN = {
    MessageKind.ILLEGAL,
    MessageKind.UNKNOWN_CARD,
    MessageKind.END_OF_HAND,
    MessageKind.END_OF_SET,
    MessageKind.END_OF_GAME,
    MessageKind.RENEGE,
}


@dataclass
class Demo:
    game: str = "seises"
    seed: int = 1
    frames: Path | None = None
    out: Callable[[str], None] = print
    journal_path: Path | None = None
    factory: MockFactory | None = None  # gpiozero's mock pins; a test passes its own to read the pin histories
    bus: Any = None  # the OLED's I2C bus; None is a FakeI2CBus, which decodes every frame back into a picture
    display: Any = None  # a luma device on ``bus``; None makes one (luma keeps each device it makes until exit)
    now: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def run(self) -> int:
        rng = random.Random(self.seed)
        companion.sim.reset()  # the demo owns the simulated bench: readers, fields and clock start afresh
        workdir = Path(tempfile.mkdtemp(prefix="companion-demo-"))
        if self.frames is not None:
            self.frames.mkdir(parents=True, exist_ok=True)
        own_factory = self.factory is None
        factory = self.factory or MockFactory(revision=PI_4, pin_class=MockPWMPin)
        pinmap = load_pinmap()
        if self.game == "seises":
            config, zones = GameConfig(name="seises", players=4), {"z1": "table"}
        else:
            config, zones = GameConfig(name="sexto-set"), dict.fromkeys(MASTERS_ZONES, "auto")
        registry = Registry.load(workdir / "registry.toml", deck=config.deck_name)
        self.backend = SimBackend(list(zones), registry)
        self.backend.init()
        for card in Referee(config, zones).game.deck:
            registry.bind(self.backend.tag(card.id).uid, card.id)  # every card enrolled, as after companion enroll
        registry.save()
        self.journal = Journal(self.journal_path or workdir / "journal.db")
        self.referee = Referee(config, zones)
        status = StatusLed(pinmap.status_led, pin_factory=factory)
        if self.game == "seises":
            pins = {"z1": pinmap.zones["z1"]}
            self.lights: ZoneLights | HubZoneLights = ZoneLights(pins, status, pin_factory=factory)
        else:
            self.lights = HubZoneLights(MASTERS_ZONES, self._hub_led, status)
        self.bus = self.bus or FakeI2CBus()
        self.screen = Screen(self.display or make_device([], bus=self.bus))
        self.table = Table(
            self.referee,
            TableTracker(registry, absences=3),
            self.journal,
            outputs=[self.lights, _Screen(self)],  # the LED first: it is what the player looks at
            on_event=self._event,
        )
        self.buttons = Buttons(
            pinmap.buttons, self._press, lambda call: call(), clock=lambda: self.now, pin_factory=factory
        )
        self.pins = {name: factory.pin(pin) for name, pin in pinmap.buttons.items()}
        self.rng = rng
        self._last_lights: dict[str, ZoneLight] = {}
        self._last_message: object = None
        self.out(f"companion demo: {self.game}, seed {self.seed}; journal {self.journal.path}")
        try:
            self.table.start(self.now)
            if self.game == "seises":
                self._play_seises()
            else:
                self._play_sexto_set()
            self.out("")
            if isinstance(self.bus, FakeI2CBus):
                self.out(frame_to_text(self.bus.last_image()))
            self.out(self._summary())
        finally:
            self.buttons.close()
            self.lights.close() if isinstance(self.lights, ZoneLights) else status.close()
            self.journal.close()
            if own_factory:
                factory.close()
        return 0

    # ---- the players' hands and fingers ---------------------------------------------------------------------

    def _wait(self, seconds: float) -> None:
        """Let ``seconds`` of table time pass, polling the readers and ticking the buttons as the daemon does."""
        end = self.now + seconds
        while self.now < end:
            self.now = round(self.now + POLL_S, 6)
            self.buttons.tick(self.now)
            self.screen.tick(self.now)

    def _poll(self, times: int) -> None:
        for _ in range(times):
            self.now = round(self.now + POLL_S, 6)
            for scan in self.backend.poll(self.now):
                self.table.scan(scan, self.now)

    def _press_button(self, button: str, hold: float = PRESS_S) -> None:
        pin = self.pins[button]
        pin.drive_low()
        self._wait(hold)
        pin.drive_high()
        self._wait(0.2)

    def _lay(self, card: str, zone: str) -> None:
        """A card is laid on a pad and read (with some read noise now and then)."""
        self.backend.put(card, zone)
        if self.rng.random() < 0.08:
            self.backend.noise(zone, 1)  # a garbled read: the tracker keeps what it has
            self.counts["noise"] = self.counts.get("noise", 0) + 1
        self._poll(3)

    def _lift(self, card: str) -> None:
        self.backend.take(card)
        self._poll(4)  # the tracker calls a card gone after 3 clean empty polls

    def _perform(self, action: Action, zone: str | None) -> None:
        if isinstance(action, Play):
            assert zone is not None
            self._lay(action.card, zone)
            self._wait(self.rng.uniform(0.3, 1.2))  # a look at the green LED
            self._press_button("confirm")
            self._lift(action.card)
        else:
            self._press_button("pass")
            self._press_button("confirm")
        self._wait(self.rng.uniform(0.5, 2.5))  # the next player thinks

    def _illegal_attempt(self, hand: list[str], zone: str) -> bool:
        """A player lays a card that does not fit, sees the red LED and the reason, and takes it back."""
        wrong = [card for card in hand if self.referee.game.reason(self._action(card, zone)) is not None]
        if not wrong:
            return False
        card = self.rng.choice(wrong)
        self._lay(card, zone)
        self._wait(1.5)
        self._lift(card)
        self._wait(0.5)
        return True

    def _action(self, card: str, zone: str) -> Action:
        return Play(card, self.referee.lines.get(zone)) if isinstance(self.referee.game, SextoSet) else Play(card)

    def _committed(self, before: int) -> bool:
        return len(self.referee.game.actions) > before

    # ---- the two games --------------------------------------------------------------------------------------

    def _play_seises(self) -> None:
        game = self.referee.game
        assert isinstance(game, Seises)
        robots = SeisesTable(game, self.rng, renege=0.02)
        step, illegal_done, undo_done = 0, False, False
        while game.winner is None:
            action = robots.choose()
            seat = game.turn
            assert seat is not None
            if not illegal_done and step >= 12:
                illegal_done = self._illegal_attempt(robots.hands[seat], "z1")
            before = len(game.actions)
            self._perform(action, "z1")
            assert self._committed(before), f"the table did not take {action}"
            robots.played(seat, action)
            if not undo_done and step >= 20 and isinstance(action, Play) and game.turn is not None:
                self._undo_and_redo(
                    action, "z1", partial(robots.unplayed, seat, action), partial(robots.played, seat, action)
                )
                undo_done = True
            step += 1

    def _undo_and_redo(
        self, action: Action, zone: str | None, unplay: Callable[[], Any], replay: Callable[[], Any]
    ) -> None:
        """A player changes their mind: a long UNDO takes the last play back, and they play it again."""
        before = len(self.referee.game.actions)
        self._press_button("undo", hold=HOLD_S)
        assert len(self.referee.game.actions) == before - 1, "the long UNDO did not take the play back"
        unplay()
        self._perform(action, zone)
        assert self._committed(before - 1)
        replay()

    def _play_sexto_set(self) -> None:
        game = self.referee.game
        assert isinstance(game, SextoSet)
        for zone, master in zip(MASTERS_ZONES, game.masters, strict=True):  # each zone learns its master card
            self._lay(master, zone)
            self._wait(0.4)
            self._lift(master)
        zone_of = {master: zone for zone, master in self.referee.lines.items()}
        robots = SextoSetTable(game, self.rng)
        step, illegal_done, undo_done = 0, False, False
        while max(game.sets_won.values()) < 2 and game.set_number <= 5:
            action, hand = robots.choose()
            if not illegal_done and step >= 6 and hand is not None:
                illegal_done = self._illegal_attempt(hand, self.rng.choice(MASTERS_ZONES))
            before = len(game.actions)
            line_zone = zone_of[action.line] if isinstance(action, Play) and action.line else None
            self._perform(action, line_zone)
            assert self._committed(before), f"the table did not take {action}"
            drawn = robots.played(action, hand)
            if not undo_done and step >= 10 and isinstance(action, Play) and game.result is None:
                self._undo_and_redo(
                    action,
                    line_zone,
                    partial(robots.unplayed, action, hand, drawn),
                    partial(robots.played, action, hand),
                )
                undo_done = True
            step += 1
            if game.result is not None and max(game.sets_won.values()) < 2:
                self._wait(3.0)  # the pairs gather the cards for the next set

    # ---- what the demo prints -------------------------------------------------------------------------------

    def _press(self, press: Press) -> None:
        self.table.press(press, self.now)

    def _event(self, event: object, now: float) -> None:
        if isinstance(event, Press):
            self.counts["presses"] = self.counts.get("presses", 0) + 1
            self._line(f"{'held ' if event.kind == 'long' else ''}{event.button.upper()}")
        elif isinstance(event, CardArrived):
            self._line(f"{event.zone}: {self.referee.card_name(event.card)} laid")
        elif isinstance(event, CardLeft):
            self.counts["lifts"] = self.counts.get("lifts", 0) + 1
        elif isinstance(event, UnknownTag | SameCardTwice):
            self._line(str(event))

    def _line(self, text: str) -> None:
        self.out(f"{self.now:9.2f}s  {text}")

    def _hub_led(self, zone: str, colour: str, mode: str) -> None:
        self.counts["led commands"] = self.counts.get("led commands", 0) + 1

    def _shown(self, view: TableView) -> None:
        for zone, light in view.zone_lights.items():
            if self._last_lights.get(zone, ZoneLight.OFF) != light:
                colour, mode = LOOK[light]
                self._line(f"{zone} LED: {colour}" + (f" ({mode})" if colour != "off" else ""))
                self.counts["led changes"] = self.counts.get("led changes", 0) + 1
        self._last_lights = dict(view.zone_lights)
        message = view.message
        if message is not None and message != self._last_message:
            self._line(f"screen: {message.title}" + (f" — {message.action}" if message.action else ""))
            if message.kind in SHOWN and isinstance(self.bus, FakeI2CBus):
                self.out(frame_to_text(self.bus.last_image()))
        self._last_message = message

    def _frame(self, sent: bool) -> None:
        if not sent:
            return
        self.counts["frames"] = self.counts.get("frames", 0) + 1
        if self.frames is not None and isinstance(self.bus, FakeI2CBus):
            self.bus.last_image().save(self.frames / f"{self.game}-{self.counts['frames']:05d}.png")

    def _summary(self) -> str:
        game = self.referee.game
        outcome = game.outcome()
        counts = ", ".join(f"{value} {name}" for name, value in sorted(self.counts.items()))
        rows = len(self.journal.entries(self.table.game_id))
        return (
            f"{game.name}: {len(game.actions)} actions committed, {rows} journal rows; outcome {outcome}; "
            f"{counts}; {self.now:.0f} s of table time"
        )


class _Screen:
    def __init__(self, demo: Demo) -> None:
        self.demo = demo

    def show(self, view: TableView, now: float) -> None:
        self.demo._frame(self.demo.screen.show(view, now))
        self.demo._shown(view)
