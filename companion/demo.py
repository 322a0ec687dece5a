"""``companion demo``: a complete game through the whole stack, on a machine without hardware.

Robot players hold dealt hands and act as people at the table would: they lay each card on a pad of simulated
MFRC522 readers (SPI-level chips read by our driver), press CONFIRM, PASS and UNDO on gpiozero's mock pins, and
lift the card again. The real luma ssd1306 driver draws every screen onto a fake I2C bus, decoded back into a
picture; the zone LEDs are gpiozero LEDs on mock pins (a game of one zone) or LED commands for the hub (more zones).
Every committed action goes to a real journal. The run includes read noise, one illegal attempt and one undo.

Time is simulated, so a seed gives the same game and the same output every time. The readers are polled around
each change only: polls of an unchanged table produce no events.

By default the demo tells the story in the table's language: the first plays with the seat that made them, the
illegal attempt and its red LED, the undo, each hand or set won with its pot, the standings and the final screen.
``verbose`` prints every event as it happens (each card laid, button press, LED change and message). The
registry and the journal live in a temporary folder that is removed at the end unless ``keep`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpiozero.pins.mock import MockFactory, MockPWMPin
from PIL import Image

import companion.sim
from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press, SameCardTwice, UnknownTag
from companion.games import DEFAULT_GAME, Robots, ending, find_kind
from companion.hardware import load_pinmap
from companion.i18n import N_, _, translate
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.rules import Action, Pay, Play
from companion.table import Table
from companion.ui.buttons import Buttons
from companion.ui.display import FakeI2CBus, Screen, frame_to_text, make_device
from companion.ui.lights import LOOK, HubZoneLights, StatusLed, ZoneLights
from companion.view import Message, MessageKind, TableView, ZoneLight

if TYPE_CHECKING:
    from companion.web.virtual import Hand

__all__ = ["Demo", "served"]

PI_4 = "c03111"  # the mock board: a Raspberry Pi 4 Model B, so a pin it lacks fails
POLL_S = 0.01  # the back-end's poll interval
PRESS_S = 0.15  # how long a finger holds a button for a short press
HOLD_S = 1.7  # ... and for a long one
ILLEGAL_STEP = 6  # the action before which a player lays a card that does not fit
UNDO_STEP = 10  # ... and after which a player takes a play back with a long UNDO, and makes it again
STOPPED = 130  # the exit status of a demo stopped mid-game (as a shell says a command ended by Ctrl-C)
PLAYS_TOLD = 6  # the plays the default story names one by one, at the start of each game
SHOWN = {
    MessageKind.ILLEGAL,
    MessageKind.UNKNOWN_CARD,
    MessageKind.END_OF_HAND,
    MessageKind.END_OF_SET,
    MessageKind.END_OF_GAME,
    MessageKind.RENEGE,
}


# The demo's own words, by key: English msgids, said in the demo's language (the table's messages come from the
# referee in the same language).
WORDS: dict[str, str] = {
    "title": N_("companion demo: {game}, seed {seed}"),
    "journal": N_("journal: {path}"),
    "lays": N_("{who} lays {card}"),
    "lays_on": N_("{who} lays {card} on {zone}"),
    "pays": N_("{who} pays a chip"),
    "passes": N_("{who} passes"),
    "more": N_("… (--verbose shows every play)"),
    "illegal": N_("{who} lays {card} on {zone}: LED {colour}, screen “{title}”; takes it back"),
    "undo": N_("long UNDO: {title}"),
    "off": N_("off"),
    "green": N_("green"),
    "red": N_("blinking red"),
    "amber": N_("blinking amber"),
    "standings": N_("Standings"),
    "result": N_("Result: {verdict}"),
    "web": N_("the table in a browser: {url}"),
    "hold": N_("still on {url} until Ctrl-C"),
    "person": N_("you play seat {seat} on the page; the robots play the others and wait for your turn"),
    "seats": N_("--seat {seat}: {game} has seats 1 to {seats} (0: the robots play them all)"),
    "watch": N_("The robots play every seat: give --seat N to play one"),
    "robots": N_("The robots are playing: wait for your turn"),
    "over": N_("The game is over"),
    "stopped": N_("stopped: the game is left unfinished"),
    "summary": N_("{game}: {actions} actions confirmed, {rows} journal rows, {noise} noisy reads, {s} s of table time"),
}
# The messages the default story tells (title only): the reneges and questions are in the verbose log.
TOLD = {MessageKind.END_OF_HAND, MessageKind.END_OF_SET, MessageKind.END_OF_GAME}


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
    now: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    language: str = "es"
    verbose: bool = False  # every event, not only the story
    keep: bool = False  # keep the temporary folder (registry and journal) and say where it is
    screens: list[tuple[float, Image.Image]] | None = None  # when a list, each frame sent and its table time
    web: tuple[str, int] | None = None  # serve the table's page there (companion.web), playing at the table's pace
    speed: float = 1.0  # with web: how many times faster than the table's pace
    hold: bool = False  # with web: keep serving after the game, until interrupted
    seat: int | None = None  # with web: the seat (from 1; 6º SET: pair A is 1) a person plays on the page
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)  # the page's, while served
    _stopping: threading.Event = field(default_factory=threading.Event, init=False)  # stop(), SIGINT, SIGTERM

    def say(self, key: str, **fields: object) -> str:
        return translate(WORDS[key], self.language).format(**fields)

    def stop(self) -> None:
        """End the demo where it is (from any thread): the game is left unfinished, the page stops being served."""
        self._stopping.set()

    def run(self) -> int:
        workdir = Path(tempfile.mkdtemp(prefix="companion-demo-"))
        try:
            return self._run(workdir)
        finally:
            if not self.keep:
                shutil.rmtree(workdir, ignore_errors=True)

    def _run(self, workdir: Path) -> int:
        rng = random.Random(self.seed)
        companion.sim.reset()  # the demo owns the simulated bench: readers, fields and clock start afresh
        if self.frames is not None:
            self.frames.mkdir(parents=True, exist_ok=True)
        own_factory = self.factory is None
        factory = self.factory or MockFactory(revision=PI_4, pin_class=MockPWMPin)
        pinmap = load_pinmap()
        kind = find_kind(self.game)
        config, zones = GameConfig(name=kind.name, players=4, language=self.language), kind.default_zones()
        self.zone_names = tuple(zones)
        registry = Registry.load(workdir / "registry.toml", deck=config.deck_name)
        self.backend = SimBackend(list(zones), registry)
        self.backend.init()
        for card in Referee(config, zones).game.deck:
            registry.bind(self.backend.tag(card.id).uid, card.id)  # every card enrolled, as after companion enroll
        registry.save()
        self.journal = Journal(self.journal_path or workdir / "journal.db")
        self.referee = Referee(config, zones)
        status = StatusLed(pinmap.status_led, pin_factory=factory)
        if len(zones) == 1:  # one zone: the Pi's own reader and LEDs; more zones go through the hub
            pins = {zone: pinmap.zones[zone] for zone in zones}
            self.lights: ZoneLights | HubZoneLights = ZoneLights(pins, status, pin_factory=factory)
        else:
            self.lights = HubZoneLights(self.zone_names, self._hub_led, status)
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
        self.robots: Robots | None = None
        self._awaiting: int | None = None  # while the robots wait for the page's person: the actions before
        self._last_lights: dict[str, ZoneLight] = {}
        self._last_message: object = None
        self.told = 0
        self.out(self.say("title", game=self.referee.current_game.name, seed=self.seed))
        if self.keep or self.journal_path is not None:
            self.out(self.say("journal", path=self.journal.path))
        try:
            if self.web is not None:
                self._serve(self.web)
            self.table.start(self.now)
            try:
                self._play()
            except _Stopped:
                self.out(self.say("stopped"))
                return STOPPED
            self.out("")
            for line in self._standings():
                self.out(line)
            if isinstance(self.bus, FakeI2CBus):
                self.out(frame_to_text(self.bus.last_image()))
            self.out(self._summary())
            self.out("")
            if self.hold:
                self._hold()
        finally:
            if self._loop is not None:
                self._stop_serving(self._loop)
            self.buttons.close()
            self.lights.close() if isinstance(self.lights, ZoneLights) else status.close()
            self.journal.close()
            if own_factory:
                factory.close()
        return 0

    # ---- the table's page ------------------------------------------------------------------------------------

    def _serve(self, listen: tuple[str, int]) -> None:
        """Serve the page from a loop of the demo's own, which runs while the table waits (:meth:`_wait`): the table
        and the server never run at once, as in the daemon where both are on one loop."""
        from companion.web import WebServer

        self._loop = loop = asyncio.new_event_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C while the robots wait for the page's person
            with contextlib.suppress(ValueError, RuntimeError):  # a thread other than the main one has no signals
                loop.add_signal_handler(signum, self.stop)
        from companion.web.virtual import VirtualTable

        virtual = VirtualTable(lambda: self.referee, self.backend, self.pins, self._hand)
        self.server = WebServer(self.table, listen, virtual)
        self.table.outputs.append(self.server)
        self._serving = loop.create_task(self.server.serve())
        loop.run_until_complete(self._listening())
        self.out(self.say("web", url=self._url()))

    async def _listening(self) -> None:
        while self.server.port is None:
            if self._serving.done():  # the server said why in the log
                host, port = self.server.listen
                raise OSError(
                    _("--web: cannot listen on {host}:{port}; give a free address").format(host=host, port=port)
                )
            await asyncio.sleep(0.01)

    def _url(self) -> str:
        host = self.server.listen[0]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{self.server.port}/"

    def _hold(self) -> None:
        """Keep serving the finished game until SIGINT or SIGTERM (or :meth:`stop`)."""
        if self._loop is None:
            return
        self.out(self.say("hold", url=self._url()))
        while not self._stopping.is_set():
            self._loop.run_until_complete(asyncio.sleep(0.05))

    def _stop_serving(self, loop: asyncio.AbstractEventLoop) -> None:
        self._serving.cancel()
        loop.run_until_complete(asyncio.gather(self._serving, return_exceptions=True))
        loop.close()

    # ---- the players' hands and fingers ---------------------------------------------------------------------

    def _wait(self, seconds: float) -> None:
        """Let ``seconds`` of table time pass, polling the readers and ticking the buttons as the daemon does; with
        the page served, as much real time passes (divided by ``speed``) while it serves."""
        if self._loop is not None:
            self._loop.run_until_complete(asyncio.sleep(seconds / self.speed))
            if self._stopping.is_set():
                raise _Stopped
        end = self.now + seconds
        while self.now < end:
            self.now = round(self.now + POLL_S, 6)
            self.buttons.tick(self.now)
            self.screen.tick(self.now)

    def _poll(self, times: int) -> None:
        for _count in range(times):
            self.now = round(self.now + POLL_S, 6)
            for scan in self.backend.poll(self.now):
                self.table.scan(scan, self.now)

    def _press_button(self, button: Button, hold: float = PRESS_S) -> None:
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
        self._tell_play(action, zone)
        if isinstance(action, Play):
            assert zone is not None
            self._lay(action.card, zone)
            self._wait(self.rng.uniform(0.3, 1.2))  # a look at the green LED
            self._press_button(Button.CONFIRM)
            self._lift(action.card)
        else:
            self._press_button(Button.PASS)
            self._press_button(Button.CONFIRM)
        self._wait(self.rng.uniform(0.5, 2.5))  # the next player thinks

    def _illegal_attempt(self, hand: list[str], zone: str) -> bool:
        """A player lays a card that does not fit, sees the red LED and the reason, and takes it back."""
        wrong = [card for card in hand if self.referee.current_game.reason(self._action(card, zone)) is not None]
        if not wrong:
            return False
        card = self.rng.choice(wrong)
        self._lay(card, zone)
        self._wait(1.5)
        view = self.referee.view()
        colour = LOOK[view.zone_lights[zone]][0]
        title = view.message.title if view.message is not None else ""
        who, name = self._who(), self.referee.card_name(card)
        self._tell(self.say("illegal", who=who, card=name, zone=zone, colour=self.say(colour), title=title))
        self._lift(card)
        self._wait(0.5)
        return True

    def _action(self, card: str, zone: str) -> Action:
        meant = self.referee.meaning(card, zone)
        return meant if not isinstance(meant, Message) else Play(card)

    def _committed(self, before: int) -> bool:
        return len(self.referee.current_game.actions) > before

    # ---- the game ---------------------------------------------------------------------------------------------

    def _play(self) -> None:
        """Zones learn their heads, if the game has any; then the robots play until they are done."""
        referee = self.referee
        game = referee.current_game
        for where, head in zip(referee.waiting_zones, referee.game_kind.heads(game), strict=False):
            self._lay(head, where)
            self._wait(0.4)
            self._lift(head)
        zone_of = {head: zone for zone, head in referee.zone_heads.items()}
        self.robots = robots = referee.game_kind.robots(game, self.rng)
        seat = self._person_seat()
        moves: list[Callable[[], None]] = []  # how to give each committed action's card back to its hand
        step, illegal_done, undo_done = 0, False, seat is not None  # the robots take nothing back from a person
        while not robots.over():
            if seat is not None and robots.turn() == seat:
                self._person(robots, seat, moves)
                continue
            action, hand = robots.choose()
            if not illegal_done and step >= ILLEGAL_STEP and hand is not None:
                zones = self.zone_names
                illegal_done = self._illegal_attempt(hand, zones[0] if len(zones) == 1 else self.rng.choice(zones))
            before = len(game.actions)
            zone: str | None = None
            if isinstance(action, Play):
                zone = zone_of[action.line] if action.line else self.zone_names[0]
            self._perform(action, zone)
            assert self._committed(before), f"the table did not take {action}"
            drawn = robots.played(action, hand)
            moves.append(partial(robots.unplayed, action, hand, drawn))
            if not undo_done and step >= UNDO_STEP and isinstance(action, Play) and game.outcome() is None:
                self._undo_and_redo(
                    action, zone, partial(robots.unplayed, action, hand, drawn), partial(robots.played, action, hand)
                )
                undo_done = True
            step += 1
            message = referee.view().message
            if message is not None and message.kind is MessageKind.END_OF_SET:
                self._wait(3.0)  # the players gather the cards for the next set

    # ---- a person at the page -------------------------------------------------------------------------------

    def _person_seat(self) -> int | None:
        """The person's seat as :meth:`Robots.turn` counts it (from 0), or None when the robots play every seat."""
        if self.seat is None or self.web is None:  # a person plays on the page only
            return None
        seats = len(
            self.referee.game_kind.standings(self.referee.current_game, self.referee)[1]
        )  # a row a seat or pair
        if not 1 <= self.seat <= seats:
            raise ValueError(self.say("seats", seat=self.seat, game=self.referee.current_game.name, seats=seats))
        self.out(self.say("person", seat=self.seat))
        return self.seat - 1

    def _hand(self) -> Hand:
        from companion.web.virtual import Hand  # aiohttp: only with --web

        """What the page's person holds, and whether the table waits for them (the virtual table's input)."""
        robots = self.robots
        if self.seat is None:
            return Hand([], wait=self.say("watch"))
        if robots is None:
            return Hand([], wait=self.say("robots"))
        seat = self.seat - 1
        held = {card for hand in robots.held(seat) for card in hand}
        cards = [card.id for card in self.referee.current_game.deck if card.id in held]
        if robots.over():
            return Hand(cards, wait=self.say("over"))
        awaited = self._awaiting == len(self.referee.current_game.actions)  # and nothing was committed since
        return Hand(cards, wait=None if awaited else self.say("robots"))

    def _person(self, robots: Robots, seat: int, moves: list[Callable[[], None]]) -> None:
        """The person's turn: the robots wait while the table runs at its own pace and the page's hand lays cards
        in the readers' fields and presses the mock buttons. Ends once an action is committed (the card then goes
        from the pad to its row) or taken back (a long UNDO: its card returns to its hand)."""
        game = self.referee.current_game
        before = len(game.actions)
        robots.held(seat)  # dealt here, before the page may ask for the hand
        self._awaiting = before
        self.server.show(self.referee.view(), self.now)  # the page: the hand may play now
        try:
            while len(game.actions) == before:
                self._tick()
        finally:
            self._awaiting = None
        while len(moves) > len(game.actions):
            moves.pop()()
        if len(game.actions) < before:
            return
        action = game.actions[-1]
        card = action.card if isinstance(action, Play) else None
        hand = next((hand for hand in robots.held(seat) if card in hand), None)
        drawn = robots.played(action, hand)
        moves.append(partial(robots.unplayed, action, hand, drawn))
        for lying in self.backend.lying():
            self._lift(lying)
        self._wait(0.5)

    def _tick(self) -> None:
        """One poll of the readers at the table's own pace: table time is real time while a person plays, so a
        press on the page lasts as long as the page holds the button."""
        assert self._loop is not None
        start = time.monotonic()
        self._loop.run_until_complete(asyncio.sleep(POLL_S))
        if self._stopping.is_set():
            raise _Stopped
        self.now = round(self.now + time.monotonic() - start, 6)
        self.buttons.tick(self.now)
        self.screen.tick(self.now)
        for scan in self.backend.poll(self.now):
            self.table.scan(scan, self.now)

    def _undo_and_redo(
        self, action: Action, zone: str | None, unplay: Callable[[], Any], replay: Callable[[], Any]
    ) -> None:
        """A player changes their mind: a long UNDO takes the last play back, and they play it again."""
        before = len(self.referee.current_game.actions)
        self._press_button(Button.UNDO, hold=HOLD_S)
        assert len(self.referee.current_game.actions) == before - 1, "the long UNDO did not take the play back"
        message = self.referee.view().message
        self._tell(self.say("undo", title=message.title if message is not None else ""))
        unplay()
        self.told = min(self.told, PLAYS_TOLD - 1)  # the play made again is told, as the story's next line
        self._perform(action, zone)
        assert self._committed(before - 1)
        replay()

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
        """An event of the verbose log."""
        if self.verbose:
            self.out(f"{self.now:9.2f}s  {text}")

    def _tell(self, text: str) -> None:
        """A line of the story, printed in every mode."""
        self.out(f"{self.now:9.2f}s  {text}")

    def _who(self) -> str:
        """Who plays now (a seat, a pair), in the table's words."""
        return self.referee.game_kind.whose_turn(self.referee.current_game, self.referee)

    def _tell_play(self, action: Action, zone: str | None) -> None:
        """The first plays of a game, one line each, with the seat that made them; then one line says there is
        more, and only the story goes on."""
        self.told += 1
        if self.told > PLAYS_TOLD + 1 or self.verbose:
            return
        if self.told == PLAYS_TOLD + 1:
            self._tell(self.say("more"))
            return
        who = self._who()
        if not isinstance(action, Play):
            self._tell(self.say("pays" if isinstance(action, Pay) else "passes", who=who))
        elif len(self.zone_names) > 1:
            self._tell(self.say("lays_on", who=who, card=self.referee.card_name(action.card), zone=zone))
        else:
            self._tell(self.say("lays", who=who, card=self.referee.card_name(action.card)))

    def _standings(self) -> list[str]:
        """The final standings as a table, as the game kind counts them (points per seat, sets per pair), and the
        result: the winner and the rule that named it, as every part of the table says it."""
        referee = self.referee
        head, rows = referee.game_kind.standings(referee.current_game, referee)
        widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

        def line(cells: list[str]) -> str:
            return "  " + "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            )

        rule = "  " + "  ".join("-" * width for width in widths)
        table = [self.say("standings") + ":", line(head), rule, *(line(row) for row in rows)]
        end = ending(referee.current_game)
        if end is None:
            return table
        verdict = referee.game_kind.verdict(referee.current_game, end, referee).text(self.language)
        return [*table, self.say("result", verdict=verdict)]

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
            text = message.title + (f" — {message.todo}" if message.todo else "")
            if message.kind in TOLD and not self.verbose:
                self._tell(message.title)
            self._line(f"screen: {text}")
            # the last screen is drawn once, at the end of the game
            shown = message.kind in SHOWN and message.kind != MessageKind.END_OF_GAME
            if self.verbose and shown and isinstance(self.bus, FakeI2CBus):
                self.out(frame_to_text(self.bus.last_image()))
        self._last_message = message

    def _frame(self, sent: bool) -> None:
        if not sent:
            return
        self.counts["frames"] = self.counts.get("frames", 0) + 1
        if not isinstance(self.bus, FakeI2CBus):
            return
        if self.frames is not None:
            self.bus.last_image().save(self.frames / f"{self.game}-{self.counts['frames']:05d}.png")
        if self.screens is not None:
            self.screens.append((self.now, self.bus.last_image().copy()))

    def _summary(self) -> str:
        game = self.referee.current_game
        rows = len(self.journal.entries(self.table.game_id))
        noise = self.counts.get("noise", 0)
        summary = self.say(
            "summary", game=game.name, actions=len(game.actions), rows=rows, noise=noise, s=f"{self.now:.0f}"
        )
        if self.verbose:
            summary += "; " + ", ".join(f"{value} {name}" for name, value in sorted(self.counts.items()))
        return summary


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
    while getattr(getattr(demo, "server", None), "port", None) is None:
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


class _Stopped(Exception):
    """The demo was stopped mid-game (:meth:`Demo.stop`)."""


class _Screen:
    def __init__(self, demo: Demo) -> None:
        self.demo = demo

    def show(self, view: TableView, now: float) -> None:
        self.demo._frame(self.demo.screen.show(view, now))
        self.demo._shown(view)


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
