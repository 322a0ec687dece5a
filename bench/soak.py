"""The chaos soak: whole games of both through the table's real stack, with faults injected at random, and the
table's promises checked after every fault and at the end of every game.

``python -m bench soak [--minutes N] [--seed S]``. The games are the demo's (robot players, simulated MFRC522
chips read by our driver over the simulated SPI bus, gpiozero's mock pins, the real ssd1306 driver on a fake I2C
bus, the journal on a real file), on a simulated clock, so a seed gives the same run. The faults:

- ``noise``: garbled reads on the zone a card is laid on;
- ``dead reader``: the zone's reader stops answering for a while (the chip is unplugged), then comes back;
- ``hub lost``: the hub link drops and comes back (the table's hub status; the link itself is fuzzed in tests/hub);
- ``disk full`` / ``read-only``: the journal refuses writes (SQLite's own ``max_page_count`` / ``query_only``)
  for a few plays, then takes them again;
- ``restart``: the table is dropped between two plays, as a power cut or SIGKILL leaves it, and a new one starts
  on the same journal file (tests/daemon/test_power_cut.py SIGKILLs the real service process);
- ``hostile tag``: a tag no card is bound to, carrying any text (emoji, right-to-left marks, a long URL);
- ``bounce``: the CONFIRM button bounces before it settles;
- ``two cards``: a second card laid on the zone with the one meant, then taken away;
- ``wrong zone`` (6º SET): the card laid on another line's zone first, where it does not belong.

The promises checked (a broken one is a violation; the goal is 0): every committed action is in the journal
exactly once, and a replay of the journal (plus what waits in memory for the disk) equals the referee's state;
no fault commits an action (no phantom); the LEDs and the screen show the referee's view.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import companion.sim
from companion.demo import Demo
from companion.demo.bench import PRESS_S, Bench
from companion.demo.person import Person
from companion.demo.script import Script
from companion.demo.story import Story
from companion.events import Button
from companion.games.sexto_set.rules import SextoSet
from companion.journal import Entry, Journal
from companion.nfc.backends import SimBackend
from companion.nfc.ndef import FIRST_PAGE, LAST_USER_PAGE, card_id_pages
from companion.nfc.tracking import TableTracker
from companion.referee import HubStatus, Referee
from companion.rules import Action, Play
from companion.sim.oled import FakeI2CBus
from companion.table import Table
from companion.ui.display import make_device
from companion.ui.lights import LOOK, ZoneLights
from companion.ui.screens import render
from companion.view import StatusLight, ZoneLight

FAULTS = (
    "noise",
    "dead reader",
    "hub lost",
    "disk full",
    "read-only",
    "restart",
    "hostile tag",
    "bounce",
    "two cards",
    "wrong zone",
)
HOSTILE = ("🂡🂢🂣", "\u202eO6\u202c", "https://example.com/" + "x" * 80, "Ж" * 30, "\x00\x07\n", "6O\u200f", "")
RETRY_S = 5.0  # as the daemon's JOURNAL_RETRY_S
MAX_PAGES = 1_073_741_823


@dataclass
class Soak(Demo):
    """A demo game with faults: ``rate`` is the chance of a fault before each play."""

    rate: float = 0.4
    faults: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    bitten: Counter[str] = field(default_factory=Counter)  # disk faults during which a journal write failed
    _disk_fault: str = ""  # the disk fault in force, if any
    _disk_back_in: int = 0  # plays until a failing disk takes writes again
    _next_retry: float = RETRY_S
    _hub_leds: dict[str, tuple[str, str]] = field(default_factory=dict)
    _extra: str | None = None  # a second card to lay with the next one
    _chaos: random.Random = field(default_factory=random.Random)

    def run(self) -> int:
        self._chaos = random.Random(self.seed * 7919 + 1)
        self.out = lambda line: None
        return super().run()

    def _bench(self, *args: Any, **kwargs: Any) -> Bench:
        return _Bench(self, *args, **kwargs)

    def _script(self, bench: Bench, story: Story, person: Person) -> Script:
        return _Script(self, bench, story, person)

    def _game_over(self, bench: Bench) -> None:
        """The game is over (the outputs are still open): the disk comes back, and the promises are checked."""
        self._disk_back()
        self._wait(RETRY_S + 0.1)
        self._check("end of game")

    @property
    def _table(self) -> Bench:
        assert self.bench is not None
        return self.bench

    @property
    def now(self) -> float:
        return self._table.now

    @property
    def journal(self) -> Journal:
        return self._table.journal

    @property
    def backend(self) -> SimBackend:
        return self._table.backend

    def _wait(self, seconds: float) -> None:
        self._table.wait(seconds)

    def _poll(self, times: int) -> None:
        self._table.poll(times)

    def _lay(self, card: str, zone: str) -> None:
        self._table.lay(card, zone)

    def _lift(self, card: str) -> None:
        self._table.lift(card)

    # ---- the play, with faults ------------------------------------------------------------------------------

    def _perform(self, action: Action, zone: str | None, perform: Callable[[], None]) -> None:
        if self._disk_back_in:
            self._disk_back_in -= 1
            if not self._disk_back_in:
                self._disk_back()
        if self._chaos.random() < self.rate:
            kind = self._chaos.choice([k for k in FAULTS if self._possible(k, action)])
            self.faults[kind] += 1
            self._fault(kind, action, zone)
        before = len(self.referee.game.actions)
        perform()
        if len(self.referee.game.actions) != before + 1:
            self._violate(f"{action}: {len(self.referee.game.actions) - before} actions committed, not 1")

    def _possible(self, kind: str, action: Action) -> bool:
        if kind in ("disk full", "read-only"):
            return not self._disk_back_in
        if kind == "restart":
            return not self._disk_back_in and self.journal.backlog == 0 and self.referee.game.outcome() is None
        if kind in ("two cards", "wrong zone"):
            return isinstance(action, Play) and (kind == "two cards" or isinstance(self.referee.game, SextoSet))
        return True

    def _fault(self, kind: str, action: Action, zone: str | None) -> None:
        count = len(self.referee.game.actions)
        where = zone or self.rng_zone()
        if kind == "noise":
            self.backend.noise(where, self._chaos.randint(1, 4))
            self._poll(3)
        elif kind == "dead reader":
            device = list(self.referee.zones.roles).index(where)
            companion.sim.unplug(0, device)
            self._poll(5)
            self._expect(where in self.referee.readers_down, f"reader {where} unplugged but not said")
            companion.sim.reader(0, device).unplugged = False
            self._poll(8)
            self._expect(where not in self.referee.readers_down, f"reader {where} back but still said down")
        elif kind == "hub lost":
            self.table.status(HubStatus(False), self.now)
            self._expect(self.referee.view().status is not StatusLight.READY, "hub lost but the status LED is ready")
            self._wait(1.0)
            self.table.status(HubStatus(True), self.now)
        elif kind in ("disk full", "read-only"):
            db = self.journal._connection()
            if kind == "disk full":
                pages = db.execute("PRAGMA page_count").fetchone()[0]
                db.execute(f"PRAGMA max_page_count = {pages}")
            else:
                db.execute("PRAGMA query_only = ON")
            self._disk_fault, self._disk_back_in = kind, self._chaos.randint(1, 4)
        elif kind == "restart":
            self._restart()
        elif kind == "hostile tag":
            name = self._hostile_tag()
            self.backend.put(name, where)
            self._poll(3)
            self._wait(0.5)
            self.backend.take(name)
            self._poll(5)
        elif kind == "two cards":
            assert isinstance(action, Play)
            self._extra = self._card_in_hand(action.card)  # laid with the card meant: see _lay
        elif kind == "wrong zone":
            assert isinstance(action, Play)
            elsewhere = [z for z in self.referee.zones.roles if z != zone]
            wrong = self._chaos.choice(elsewhere)
            self._lay(action.card, wrong)
            self._wait(0.5)
            self._lift(action.card)
        if len(self.referee.game.actions) != count:
            self._violate(f"the fault {kind} committed an action (a phantom)")
        self._check(f"after the fault {kind}")

    def _laid(self, zone: str) -> None:
        """A card was laid on ``zone``: with it, the second card of a "two cards" fault."""
        extra, self._extra = self._extra, None
        if extra is not None:
            self.backend.put(extra, zone)
            self._poll(3)
            self._expect(self.referee.pending is None, f"two cards on {zone}, yet one waits for CONFIRM")
            self.backend.take(extra)
            self._poll(5)

    def _hostile_tag(self) -> str:
        """A tag laid by a prankster: garbage in its memory, any text as its card id, or a clone of a card's UID
        saying it is another card. Returns the name the simulated back-end knows it by."""
        name = f"hostile-{sum(self.faults.values())}"
        tag = self.backend.tag(name)
        memory = tag.memory
        choice = self._chaos.randrange(3)
        if choice == 0:
            memory[4 * FIRST_PAGE : 4 * (LAST_USER_PAGE + 1)] = self._chaos.randbytes(
                4 * (LAST_USER_PAGE + 1 - FIRST_PAGE)
            )
        elif choice == 1:
            text = self._chaos.choice(HOSTILE).encode("utf-8")[:100]
            payload = b"\x02es" + text
            record = bytes((0xD1, 0x01, len(payload))) + b"T" + payload
            data = bytes((0, 0, 0, 0x03, len(record))) + record + b"\xfe"
            memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
        else:
            played = [a.card for a in self.referee.game.actions if isinstance(a, Play)]
            original = self._chaos.choice(played) if played else self.referee.game.deck.cards[0].id
            other = self._card_in_hand(original) or original
            clone = companion.sim.Ntag213(self.backend.tag(original).uid)
            data = card_id_pages(other)
            clone.memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
            self.backend._tags[name] = clone
        return name

    def rng_zone(self) -> str:
        return self._chaos.choice(list(self.referee.zones.roles))

    def _card_in_hand(self, meant: str) -> str | None:
        """A card no one has played yet, other than ``meant``."""
        game = self.referee.game
        played = {a.card for a in game.actions if isinstance(a, Play)}
        free = [c.id for c in game.deck if c.id not in played and c.id != meant and not c.id.startswith("M")]
        return self._chaos.choice(free) if free else None

    def _bounce(self, button: Button) -> None:
        """Before a press: CONFIRM bounces now and then."""
        if button == Button.CONFIRM and self._chaos.random() < self.rate / 4:
            self.faults["bounce"] += 1
            pin = self._table.pins[button]
            for _ in range(self._chaos.randint(2, 5)):  # a contact bounces for a few milliseconds
                pin.drive_low()
                self._wait(0.002)
                pin.drive_high()
                self._wait(0.002)

    def _waited(self) -> None:
        if self.now >= self._next_retry:  # what the daemon's ticker does
            self._next_retry = self.now + RETRY_S
            self.table.retry_journal(self.now)

    def _disk_back(self) -> None:
        if self._disk_fault and not self.referee.journal_ok:
            self.bitten[self._disk_fault] += 1
        self._disk_fault, self._disk_back_in = "", 0
        db = self.journal._connection()
        db.execute(f"PRAGMA max_page_count = {MAX_PAGES}")
        db.execute("PRAGMA query_only = OFF")

    def _restart(self) -> None:
        """Drop the table as a power cut leaves it and start a new one on the journal file."""
        old, path = self.referee, self.journal.path
        registry = self.table.tracker.registry
        self.journal.close()
        journal = Journal(path)
        referee = Referee(old.config, old.zones.roles)
        table = Table(referee, TableTracker(registry, absences=3), journal, self.table.outputs, self.table.on_event)
        table.start(self.now)
        if referee.game.snapshot() != old.game.snapshot() or referee.zones.heads != old.zones.heads:
            self._violate(f"the restart resumed {len(referee.game.actions)} actions, not {len(old.game.actions)}")
            return
        referee.game = old.game  # the same state (checked above); the robots hold this object
        self._table.assembly.table, self._table.journal = table, journal
        self._table.assembly.buttons.on_press = lambda press: table.press(press, press.t)  # the same pins, wired anew
        self._poll(table.tracker.absences)  # its first look at the zones, as the daemon polls them from its start

    # ---- the promises ---------------------------------------------------------------------------------------

    def _violate(self, what: str) -> None:
        self.violations.append(f"{self.game} seed {self.seed} at {self.now:.2f}s: {what}")

    def _expect(self, condition: bool, what: str) -> None:
        if not condition:
            self._violate(what)

    def _check(self, when: str) -> None:
        self._check_journal(when)
        self._check_outputs(when)

    def _check_journal(self, when: str) -> None:
        """The journal on disk, then what waits in memory for it, replays to the referee's state exactly."""
        table, journal = self.table, self.journal
        reader = Journal.read_only(journal.path)
        try:
            on_disk = reader.entries(table.game_id) if table._unsaved is None else []
        finally:
            reader.close()
        waiting: list[Entry] = [entry for _, entry, _ in journal._backlog] + table._held
        replay = Referee(self.referee.config, self.referee.zones.roles)
        try:
            replay.replay(on_disk + waiting)
        except (ValueError, IndexError) as exc:
            self._violate(f"{when}: the journal does not replay ({exc})")
            return
        if replay.game.snapshot() != self.referee.game.snapshot():
            self._violate(f"{when}: the journal replays to another state than the referee's")
        if isinstance(self.referee.game, SextoSet) and replay.zones.heads != self.referee.zones.heads:
            self._violate(f"{when}: the journal's zones are not the referee's")

    def _check_outputs(self, when: str) -> None:
        view = self.referee.view()
        drawn = render(view).convert("1").tobytes()
        if isinstance(self.bus, FakeI2CBus) and self.bus.last_image().convert("1").tobytes() != drawn:
            self._violate(f"{when}: the screen does not show the referee's view")
        if isinstance(self._table.assembly.lights, ZoneLights):
            for zone, led in self._table.assembly.lights._leds.items():
                light = view.zone_lights.get(zone, ZoneLight.OFF)
                red, green = led.device.red, led.device.green
                if light is ZoneLight.OFF:
                    ok = not red.is_lit and not green.is_lit and red._blink_thread is None
                elif light is ZoneLight.PENDING_OK:
                    ok = green.is_lit and not red.is_lit
                else:
                    ok = red._blink_thread is not None or led.device._blink_thread is not None
                self._expect(ok, f"{when}: zone {zone}'s LED does not show {light}")
        else:
            for zone in self.referee.zones.roles:
                look = LOOK[view.zone_lights.get(zone, ZoneLight.OFF)]
                self._expect(self._hub_leds.get(zone, ("off", "steady")) == look, f"{when}: {zone}'s LED is not {look}")
        status = self._table.assembly.lights.status.led if isinstance(self._table.assembly.lights, ZoneLights) else None
        if status is not None:
            steady = status._blink_thread is None and status.is_lit
            self._expect(steady == (view.status is StatusLight.READY), f"{when}: the status LED is not {view.status}")


class _Bench(Bench):
    """The demo's table, its hands' faults and the ticker's journal retries the soak's."""

    def __init__(self, soak: Soak, *args: Any, **kwargs: Any) -> None:
        self.soak = soak
        super().__init__(*args, **kwargs)

    def wait(self, seconds: float) -> None:
        super().wait(seconds)
        self.soak._waited()

    def press(self, button: Button, hold: float = PRESS_S) -> None:
        self.soak._bounce(button)
        super().press(button, hold)

    def lay(self, card: str, zone: str) -> None:
        super().lay(card, zone)
        self.soak._laid(zone)

    def _hub_led(self, zone: str, colour: str, mode: str) -> None:
        super()._hub_led(zone, colour, mode)
        self.soak._hub_leds[zone] = (colour, mode)


class _Script(Script):
    """The robots' script, with a chance of a fault before each play."""

    def __init__(self, soak: Soak, *args: Any) -> None:
        self.soak = soak
        super().__init__(*args)

    def _perform(self, action: Action, zone: str | None) -> None:
        self.soak._perform(action, zone, lambda: super(_Script, self)._perform(action, zone))


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def resident_mb() -> float:
    """This process's resident memory now (not its peak: a leak shows as growth from game to game)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(minutes: float, seed: int, out: Callable[[str], None] = print) -> tuple[Counter[str], int, list[str]]:
    """Games, alternating Seises and 6º SET, until ``minutes`` have passed (at least one of each); returns the
    faults injected per kind, the games completed and the violations."""
    faults: Counter[str] = Counter()
    violations: list[str] = []
    games = 0
    bitten: Counter[str] = Counter()
    end = time.monotonic() + minutes * 60
    baseline: tuple[float, int] | None = None
    bus = FakeI2CBus()
    display = make_device([], bus=bus)  # one for all games: luma's atexit hook keeps every device it makes
    while games < 2 or time.monotonic() < end:
        game = ("seises", "sexto-set")[games % 2]
        run = Soak(game=game, seed=seed + games, bus=bus, display=display)
        run.run()
        faults.update(run.faults)
        violations += run.violations
        bitten.update(run.bitten)
        games += 1
        if games == 2:  # after one game of each: imports, fonts and caches are in
            baseline = (resident_mb(), descriptors())
    assert baseline is not None
    out(f"games completed: {games} (seed {seed})")
    out(
        "faults injected: "
        + ", ".join(f"{kind} {faults[kind]}" for kind in FAULTS)
        + f"; {sum(faults.values())} in all"
    )
    for kind in ("disk full", "read-only"):
        out(f"{kind}: a journal write failed (and waited in memory) during {bitten[kind]} of {faults[kind]}")
    out(f"invariant violations: {len(violations)} (goal 0)")
    for violation in violations[:20]:
        out(f"  {violation}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out(
        f"growth after the first two games: resident memory {baseline[0]:.1f} -> {resident_mb():.1f} MB, "
        f"open descriptors {baseline[1]} -> {descriptors()}; peak resident {peak:.1f} MB"
    )
    return faults, games, violations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to play (at least one game of each)")
    parser.add_argument("--seed", type=int, default=1, help="the same seed plays the same games and faults")
    parser.add_argument(
        "--service",
        action="store_true",
        help="against the real service: companion run SIGKILLed and restarted, its hub on a pty (soak_service.py), "
        "publishing to a club on mosquitto beside a hostile client (soak_club.py)",
    )
    args = parser.parse_args(argv)
    if args.service:
        from bench import soak_service

        command = f"python -m bench soak --service --minutes {args.minutes:g} --seed {args.seed}"
        print(f"## Chaos soak of the service ({command})")
        return soak_service.main(args.minutes, args.seed)
    logging.getLogger("companion").addHandler(logging.NullHandler())  # the faults' log lines are expected
    print(f"## Chaos soak (python -m bench soak --minutes {args.minutes:g} --seed {args.seed})")
    _, _, violations = soak(args.minutes, args.seed)
    return 1 if violations else 0


if __name__ == "__main__":
    raise SystemExit(main())
