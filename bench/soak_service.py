"""The chaos soak against the real service: ``companion run`` in a process of its own, SIGKILLed at random
moments and started again, its reader hub on a pty with garbage and unplugs on the link.

``python -m bench soak --service [--minutes N] [--seed S]``. Each game has a folder of its own (config, registry,
journal). The hub is ``companion.hub.simulated.SimulatedHub``: the firmware in a process of its own, on simulated
readers, at the far end of a pty under the config's ``hub_port`` (a symlink, as udev makes). Robot players lay and
lift cards on the hub's zones from this process (``SimulatedHub.put``/``take``) and press CONFIRM, PASS and UNDO
on the service's mock pins through its named pipe of presses (``GPIOZERO_PIN_FACTORY=mock``,
``COMPANION_PRESSES``: ``companion/ui/presses.py``). What this process sees of the service is what a person at
the table sees or a technician reads: the zone LEDs (the hub's own state), the journal file (opened read-only)
and the log.

Before each action a fault comes with a chance ``rate``, at a random moment of the action (before the card is
laid, while it waits for CONFIRM, just after CONFIRM, after the commit, after the lift):

- ``kill``: SIGKILL of the service, then a new one on the same files;
- ``unplug``: the pty closed and its path gone, for a while, then a new pty under the same path;
- ``garbage``: random bytes on the link, between two frames: from the hub (as line noise is), or to it;
- ``unknown tag``: a tag no card is bound to, laid and lifted; ``illegal``: a card that does not fit, laid and
  lifted; ``two cards``: another card laid with the one meant, then lifted; ``wrong zone`` (6º SET): the card laid
  on another line's zone first; ``undo``: a long UNDO after the action, and the action made again. (A bouncing
  button is the in-process soak's: the pipe presses cleanly.)

The promises checked (a broken one is a violation; the goal is 0): after every kill, every action the service had
committed (logged, or seen in the journal) is in the journal, once, and the journal replays to the players' game;
the restarted service says it resumed exactly the journal's entries, and ``PRAGMA integrity_check`` is ``ok``;
every action the players confirm is committed exactly once and no fault commits one; the service never dies
(but by SIGKILL) nor logs a traceback; every bad input gets its message: the unknown tag blinks amber, the
illegal card and the two cards red, the unplugged hub is logged lost and comes back, garbage is logged as a link
fault. A seed fixes every choice (cards, faults, where in an action they fall); how the service's own work falls
against them is the machine's.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench import soak_web
from companion.config import GameConfig
from companion.games import Robots, find_kind
from companion.hub.protocol import COLOURS, MODES
from companion.hub.session import LOG_EVERY_S
from companion.hub.simulated import SimulatedHub
from companion.journal import Entry, Journal, JournalError
from companion.nfc.registry import Registry
from companion.referee import Referee
from companion.rules import Action, Game, Play
from companion.ui.presses import ENV as PRESSES

if TYPE_CHECKING:
    from bench.soak_club import ClubSoak

FAULTS = ("kill", "unplug", "garbage", "unknown tag", "illegal", "two cards", "wrong zone", "undo")
WEIGHTS = (4, 2, 3, 1, 1, 1, 1, 1)  # the faults of the process and the link come most often
MOMENTS = ("before", "laid", "confirmed", "committed", "lifted")
# When a fault strikes: a player tries a wrong card before the card meant, lays two together, takes the action
# back once it is done; the process and the link fail at any moment of the action.
WHEN = {
    "unknown tag": "before",
    "illegal": "before",
    "wrong zone": "before",
    "two cards": "laying",
    "undo": "lifted",
}
MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
WAIT_S = 20.0  # the longest a step may take on a busy machine before it is a violation
START_S = 60.0  # ... and a start of the service or the hub
GARBAGE_SAID_S = LOG_EVERY_S + 2.0  # link faults are logged at most every LOG_EVERY_S


class Violation(Exception):
    """A promise broken; the game cannot go on (the players and the table no longer agree)."""


def uid_of(index: int) -> bytes:
    """A 7-byte UID for card ``index`` of the deck (NTAG213s have 7-byte UIDs, NXP's 0x04 first). Each differs in
    its first three bytes: two tags that share them give the same level-1 anticollision answer, and the hub's
    readers confirm a lone card by that answer alone (``quick_confirm``, docs/NFC.md)."""
    return bytes((0x04, index, 0xC0, 0xDE, 0x00, 0x00, index))


UNKNOWN_UID = bytes.fromhex("04BADBADBADBAD")


class Service:
    """``companion run`` in a process of its own; its log lines are read as they come, with the time of each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.presses = folder / "presses"  # the named pipe the service reads its button presses from
        self.lines: list[tuple[float, str]] = []
        self.process: subprocess.Popen[str] | None = None
        self.page: str | None = None  # the address of its page, once it says it

    def start(self) -> int:
        """Start it; returns the index of its first log line."""
        env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", PRESSES: str(self.presses)}

        def unit_limits() -> None:  # the unit's LimitNOFILE=, which the page's flood must leave the table
            resource.setrlimit(resource.RLIMIT_NOFILE, (soak_web.NOFILE, soak_web.NOFILE))

        self.process = process = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--config", str(self.folder / "config.toml")],
            env=env,
            cwd=self.folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=unit_limits,
        )
        first = len(self.lines)
        self.page = None

        def read() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                if "the table's page is on " in line:
                    self.page = line.split("the table's page is on ")[1].split()[0].rstrip("/")

        threading.Thread(target=read, name="service-log", daemon=True).start()
        return first

    def said(self, text: str, since: int = 0) -> int | None:
        """The index of the first log line from ``since`` on that holds ``text``."""
        for index in range(since, len(self.lines)):
            if text in self.lines[index][1]:
                return index
        return None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        assert self.process is not None
        self.page = None  # no page to attack while it goes
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> int:
        assert self.process is not None
        self.page = None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)

    def press(self, button: str, long: bool = False) -> bool:
        """Press ``button`` (the service holds it 0.1 s, or past the long press); False if no service listens."""
        try:
            pipe = os.open(self.presses, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # killed (or not started yet): a press on a table that is off goes nowhere
            return False
        try:
            os.write(pipe, f"{button}{' long' if long else ''}\n".encode())
        finally:
            os.close(pipe)
        return True


@dataclass
class Players:
    """Robot players of one game (the game kind's own), and the game as they know it: what the table confirmed."""

    name: str
    rng: random.Random
    config: GameConfig = field(init=False)
    zones: dict[str, str] = field(init=False)
    game: Game = field(init=False)
    _robots: Robots = field(init=False)
    _hand: list[str] | None = None  # the hand the chosen card comes from
    _undo: Callable[[], None] = field(default=lambda: None)  # the robots' side of taking the last action back

    def __post_init__(self) -> None:
        self.config = GameConfig(name=self.name, players=4)
        # 6º SET's zones head their master cards' lines from the start, as a config can say; Seises has one zone
        self.zones = (
            {f"z{i}": m for i, m in enumerate(MASTERS, start=1)} if self.name == "sexto-set" else {"z1": "table"}
        )
        self.game = Referee(self.config, self.zones).game
        self._robots = find_kind(self.name).robots(self.game, self.rng)

    def over(self) -> bool:
        return self._robots.over()

    def choose(self) -> tuple[Action, str | None, list[str]]:
        """The next action, the zone its card goes on, and the cards in the hand it comes from."""
        action, self._hand = self._robots.choose()
        zone = None
        if isinstance(action, Play):
            zone = next(z for z, head in self.zones.items() if head == action.line) if action.line else "z1"
        return action, zone, list(self._hand or self._robots.hand())

    def done(self, action: Action) -> None:
        """The table committed ``action``."""
        hand = self._hand
        self.game.push(action)
        drawn = self._robots.played(action, hand)
        self._undo = lambda: self._robots.unplayed(action, hand, drawn)

    def undone(self) -> None:
        """The table took the last action back."""
        self.game.pop()
        self._undo()

    def can_undo(self) -> bool:
        """Whether the last action can be taken back and made again as it was (as the demo: it ended nothing)."""
        return self.game.outcome() is None

    def free_card(self, meant: str, rng: random.Random) -> str | None:
        """A card of the deck not played yet (nor a master card), other than ``meant``."""
        played = {a.card for a in self.game.actions if isinstance(a, Play)}
        free = [c.id for c in self.game.deck if c.id not in played and c.id != meant and c.id not in MASTERS]
        return rng.choice(free) if free else None


@dataclass
class ServiceSoak:
    seed: int
    minutes: float
    rate: float = 0.4
    out: Callable[[str], None] = print
    counts: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    games: int = 0
    actions: int = 0  # actions the table committed, over all games
    step: int = 0  # actions attempted, over all games: where a violation is replayed from
    club: ClubSoak | None = None  # the table publishes to a club, a hostile client beside it (bench/soak_club.py)

    def run(self) -> list[str]:
        self._chaos = random.Random(self.seed)
        end = time.monotonic() + self.minutes * 60
        neighbour = soak_web.HostileNeighbour(self._page, random.Random(self.seed * 31 + 1))  # bench/soak_web.py
        neighbour.start()
        try:
            while self.games < 1 or time.monotonic() < end:
                name = ("sexto-set", "seises")[self.games % 2]
                folder = Path(tempfile.mkdtemp(prefix="soak-"))
                try:
                    self._game(name, folder, end)
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
                self.games += 1
                for violation in neighbour.violations:
                    self._violate(violation)
                neighbour.violations.clear()
        finally:
            neighbour.stop()
        self.counts.update(neighbour.counts)
        for violation in neighbour.violations:
            self._violate(violation)
        return self.violations

    def _page(self) -> soak_web.Target | None:
        """The page of the service running now, from its log; None while none serves."""
        service: Service | None = getattr(self, "service", None)  # none before the first game's
        if service is None or service.process is None or not service.alive():
            return None
        return None if service.page is None else soak_web.Target(service.page, service.process.pid)

    # ---- one game -------------------------------------------------------------------------------------------

    def _game(self, name: str, folder: Path, end: float) -> None:
        self.players = players = Players(name, random.Random(self.seed * 7919 + self.games))
        self.folder, self.name = folder, name
        registry = Registry.load(folder / "registry.toml", deck=players.config.deck_name)
        self.uids = {card.id: uid_of(i) for i, card in enumerate(players.game.deck)}
        for card, uid in self.uids.items():
            registry.bind(uid, card)
        registry.save()
        zones = "".join(f'{zone} = "{role}"\n' for zone, role in players.zones.items())
        (folder / "config.toml").write_text(
            f'[game]\nname = "{name}"\n[zones]\n{zones}'
            f'[readers]\nbackend = "hub"\nhub_port = "{folder / "hub"}"\nregistry = "{folder / "registry.toml"}"\n'
            f'[journal]\npath = "{folder / "journal.db"}"\n[web]\nlisten = "127.0.0.1:0"\n'
            + (self.club.table(self.games) if self.club else "")
        )
        self.hub = SimulatedHub(folder / "hub", zones=len(players.zones))
        self.hub.start()
        self.service = Service(folder)
        self.lying: dict[str, set[str]] = {zone: set() for zone in players.zones}  # what the hub's readers hold
        self.rows = 0  # the journal's action and undo rows that the players know of
        self.garbage: list[float] = []  # when garbage went on the link (and must be logged), this life
        try:
            self._start()
            # a long run stops at its time; the first game of any run is played to its end
            while not players.over() and (self.games == 0 or time.monotonic() < end):
                self.step += 1
                self._action()
            self._check_garbage_said(final=True)
            if self.club is not None:
                self.club.caught_up(folder / "journal.db", players.over())
            self._stop()
            self.counts["games completed" if players.over() else "games cut at the end"] += 1
        except Violation as exc:
            self._violate(str(exc))
        finally:
            if self.service.alive():
                self.service.kill()
            self.hub.stop()

    def _start(self) -> None:
        first = self.service.start()
        if not self._until(lambda: self.service.said("hub online", first) is not None, START_S):
            raise Violation(f"the service did not come up with the hub: {self._log(first)}")
        self.life = first
        self.life_rows = len(self._actions())
        self.garbage = []
        resumed = self.service.said("resumed game", first)
        entries = self._journal()
        if resumed is not None and f"after {len(entries)} journal entries" not in self.service.lines[resumed][1]:
            raise Violation(f"the journal holds {len(entries)} entries, but {self.service.lines[resumed][1]}")

    def _stop(self) -> None:
        self._check_log()
        status = self.service.stop()
        if status != 0:
            raise Violation(f"SIGTERM: the service exited {status}: {self._log(self.life)}")
        self._check_journal("after the service stopped")

    # ---- one action, with faults ----------------------------------------------------------------------------

    def _action(self) -> None:
        action, zone, hand = self.players.choose()
        todo: dict[str, str] = {}  # moment -> the fault that strikes then (each strikes once)
        if self._chaos.random() < self.rate:
            possible = [(f, w) for f, w in zip(FAULTS, WEIGHTS, strict=True) if self._possible(f, action)]
            fault = self._chaos.choices([f for f, _ in possible], [w for _, w in possible])[0]
            moments = MOMENTS if isinstance(action, Play) else [m for m in MOMENTS if m != "laid"]
            todo[WHEN.get(fault) or self._chaos.choice(moments)] = fault
        self._perform(action, zone, hand, todo)

    def _perform(self, action: Action, zone: str | None, hand: list[str], todo: dict[str, str]) -> None:
        """Lay the card (or press PASS), wait for the green LED, press CONFIRM, see it committed, lift the card;
        the faults in ``todo`` strike at their moments. A kill or an unplug may lose a pending play or a press:
        the players look at the table again (the card lies there still) and go on."""
        card = action.card if isinstance(action, Play) else None
        self._fault_at("before", todo, action, zone, hand)
        for _ in range(3):
            if card is not None and zone is not None:
                self._lay(card, zone, extra=todo.pop("laying", None) == "two cards")
                self._fault_at("laid", todo, action, zone, hand)
                if self._committed():
                    break
                if not self._until(lambda: self._led(zone) == ("green", "steady") or self._committed()):
                    raise Violation(f"{action} on {zone}: the LED is {self._led(zone)}, not steady green")
                if self._committed():
                    break
            elif not self.service.press("pass"):
                continue
            kills = self.counts["kill"]
            self.service.press("confirm")
            self._fault_at("confirmed", todo, action, zone, hand)
            if self.counts["kill"] != kills and not self._committed():
                continue  # killed after CONFIRM: the press, or the pending play, may have gone with the service
            if self._until(self._committed):
                break
            if not self.service.alive():
                raise Violation(f"{action}: the service died: {self._log(self.life)}")
            raise Violation(f"{action}: CONFIRM pressed, nothing committed within {WAIT_S:.0f} s")
        else:
            raise Violation(f"{action}: not committed after three tries")
        self._confirmed(action)
        self._fault_at("committed", todo, action, zone, hand)
        if card is not None and zone is not None:
            self._lift(card, zone)
        self._fault_at("lifted", todo, action, zone, hand)

    def _possible(self, fault: str, action: Action) -> bool:
        if fault in ("two cards", "illegal"):
            return isinstance(action, Play)
        if fault == "wrong zone":
            return isinstance(action, Play) and len(self.players.zones) > 1
        return True

    def _fault_at(self, now: str, todo: dict[str, str], action: Action, zone: str | None, hand: list[str]) -> None:
        fault = todo.pop(now, None)
        if fault is None:
            return
        self.counts[fault] += 1
        before = self.rows
        if fault == "kill":
            time.sleep(self._chaos.uniform(0.0, 0.25))  # a press takes the service 0.1 s: before, during, after
            self._kill()
        elif fault == "unplug":
            self._unplug()
        elif fault == "garbage":
            self._garbage()
        elif fault == "unknown tag":
            self._bad_card(UNKNOWN_UID, zone or self._chaos.choice(list(self.players.zones)), ("amber", "blink"))
        elif fault == "illegal":
            self._illegal(action, zone, hand)
        elif fault == "wrong zone":
            assert isinstance(action, Play) and zone is not None
            elsewhere = self._chaos.choice([z for z in self.players.zones if z != zone])
            self._bad_card(self.uids[action.card], elsewhere, None)
        elif fault == "undo":
            self._undo(action, zone, hand)
            return
        # just after CONFIRM, the play may be committing: _perform counts it
        if now != "confirmed" and (self.rows != before or len(self._actions()) != self.rows):
            raise Violation(f"the fault {fault} ({now}) committed an action (a phantom): {self._actions()[-2:]}")

    # ---- the faults -----------------------------------------------------------------------------------------

    def _kill(self) -> None:
        """SIGKILL, then: what the service had committed is on disk, once, and a new one resumes exactly that."""
        self.service.kill()
        logged = sum(1 for _, line in self.service.lines[self.life :] if ": action " in line or ": undo " in line)
        rows = len(self._actions())
        if rows < self.life_rows + logged:
            raise Violation(f"killed: {logged} actions logged as committed, but {rows - self.life_rows} on disk")
        if rows > self.rows + 1:
            raise Violation(f"killed: {rows} action rows on disk, the players confirmed {self.rows} (+1 at most)")
        self._check_integrity()
        self._start()
        self.counts["restarts"] += 1
        # a card the restarted table finds lying on a zone is no play: it asks to lift it and lay it again
        for zone, cards in self.lying.items():
            for card in sorted(cards):
                self._lift(card, zone)
                self._lay(card, zone)
        if rows == self.rows:
            self._check_journal("after the restart")

    def _unplug(self) -> None:
        """The cable out for a while: the service says the hub is lost, and takes it back when it returns."""
        since = len(self.service.lines)
        self.hub.unplug()
        self.garbage.clear()  # bytes on a link that went away may never be read
        time.sleep(self._chaos.uniform(0.05, 2.0))
        if not self._until(lambda: self.service.said("hub offline", since) is not None):
            raise Violation("the hub was unplugged, and the service did not say so")
        back = len(self.service.lines)
        self.hub.plug()
        if not self._until(lambda: self.service.said("hub online", back) is not None):
            raise Violation(f"the hub was plugged in again, and the service did not take it back: {self._log(back)}")

    def _garbage(self) -> None:
        """Random bytes on the link, between two frames: from the hub (the service logs them as link faults), or
        to the hub (its decoder skips them; a 0x03 among them must not reach the firmware as Ctrl-C)."""
        data = self._chaos.randbytes(self._chaos.randint(1, 64))
        self.counts["garbage bytes"] += len(data)
        if self._chaos.random() < 0.5:
            self.hub.noise(data)
            if data.strip(b"\0"):  # zero bytes alone are frame delimiters, not faults
                self.garbage.append(time.monotonic())
            self._check_garbage_said()
            return
        try:
            port = os.open(self.folder / "hub", os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return  # the hub is unplugged, or booting again
        try:
            os.write(port, data)
        except OSError:
            pass
        finally:
            os.close(port)
        status = self.hub.status()
        if status.mode != "hub" or status.interrupts:
            raise Violation(f"garbage to the hub ({data.hex()}): {status.mode} mode, {status.interrupts} Ctrl-C")

    def _bad_card(self, uid: bytes, zone: str, look: tuple[str, str] | None) -> None:
        """A tag laid on ``zone`` and lifted; its LED shows ``look`` and goes off once the tag is gone. (None: a
        card laid on a zone where it may be legal; it stays pending there until the card meant is laid.)"""
        index = self._index(zone)
        self.hub.put(index, uid)
        if look is not None and not self._until(lambda: self._led(zone) == look):
            raise Violation(f"{uid.hex()} on {zone}: the LED is {self._led(zone)}, not {look}")
        if look is None:
            time.sleep(0.3)
        self.hub.take(index, uid)
        self._settle(zone, uid)
        if look is not None and not self._until(lambda: self._led(zone) == ("off", "steady")):
            raise Violation(f"{uid.hex()} lifted off {zone}: the LED stays {self._led(zone)}")

    def _illegal(self, action: Action, zone: str | None, hand: list[str]) -> None:
        assert isinstance(action, Play) and zone is not None
        wrong = [c for c in hand if self.players.game.reason(Play(c, action.line)) is not None]
        if not wrong:
            return
        self._bad_card(self.uids[self._chaos.choice(wrong)], zone, ("red", "blink"))

    def _undo(self, action: Action, zone: str | None, hand: list[str]) -> None:
        """A long UNDO takes the committed action back (when it ended no hand nor set); the player makes it again."""
        if not self.players.can_undo():
            self.counts["undo"] -= 1  # it cannot be made again as it was: no undo this time
            return
        before = self.rows
        self.service.press("undo", long=True)
        if not self._until(lambda: len(self._actions()) == before + 1):
            raise Violation("a long UNDO took nothing back")
        if self._actions()[-1].kind != "undo":
            raise Violation(f"a long UNDO wrote {self._actions()[-1]}")
        self.rows += 1
        self.actions -= 1
        self.players.undone()
        self._check_journal("after the undo")
        self._perform(action, zone, hand, {})

    # ---- the table, as the players see it -------------------------------------------------------------------

    def _lay(self, card: str, zone: str, extra: bool = False) -> None:
        if card in self.lying[zone]:
            return
        self.hub.put(self._index(zone), self.uids[card])
        if extra and (other := self.players.free_card(card, self._chaos)) is not None:
            self.counts["two cards"] += 1
            uid = self.uids[other]
            self.hub.put(self._index(zone), uid)
            if not self._until(lambda: self._led(zone) == ("red", "blink")):
                raise Violation(f"two cards on {zone}: the LED is {self._led(zone)}, not blinking red")
            self.hub.take(self._index(zone), uid)
            self._settle(zone, uid)
        self.lying[zone].add(card)

    def _lift(self, card: str, zone: str) -> None:
        self.hub.take(self._index(zone), self.uids[card])
        self.lying[zone].discard(card)
        self._settle(zone, self.uids[card])

    def _settle(self, zone: str, uid: bytes) -> None:
        """Wait until the hub's readers no longer see ``uid`` on ``zone`` (it debounces a lift over a few scans)."""
        index = self._index(zone)
        if not self._until(lambda: uid not in self.hub.status().zones[index]):
            raise Violation(f"{uid.hex()} lifted off {zone}, the hub still sees it")

    def _led(self, zone: str) -> tuple[str, str]:
        colour, mode = self.hub.status().leds[self._index(zone)]
        return COLOURS[colour], MODES[mode]

    def _index(self, zone: str) -> int:
        return list(self.players.zones).index(zone)

    def _committed(self) -> bool:
        return len(self._actions()) > self.rows

    def _confirmed(self, action: Action) -> None:
        rows = self._actions()
        if len(rows) != self.rows + 1:
            raise Violation(f"{action}: {len(rows) - self.rows} rows committed, not 1")
        self.rows += 1
        self.actions += 1
        self.players.done(action)
        self._check_journal(f"after {action}")

    # ---- the promises ---------------------------------------------------------------------------------------

    def _journal(self) -> list[Entry]:
        """The last game's entries on disk (read-only; none before the service has written its first)."""
        path = self.folder / "journal.db"
        for _ in range(50):
            try:
                journal = Journal.read_only(path)
            except JournalError:
                if not path.exists():
                    return []
                time.sleep(0.02)
                continue
            try:
                record = journal.last_game()
                return journal.entries(record.id) if record is not None else []
            except JournalError:
                time.sleep(0.02)  # the service was writing its first rows
            finally:
                journal.close()
        raise Violation(f"the journal {path} cannot be read")

    def _actions(self) -> list[Entry]:
        return [entry for entry in self._journal() if entry.kind in ("action", "undo")]

    def _check_journal(self, when: str) -> None:
        entries = self._journal()
        replay = Referee(self.players.config, self.players.zones)
        try:
            replay.replay(entries)
        except (ValueError, IndexError) as exc:
            raise Violation(f"{when}: the journal does not replay ({exc})") from None
        if replay.game.snapshot() != self.players.game.snapshot():
            raise Violation(f"{when}: the journal replays to another game than the players'")

    def _check_integrity(self) -> None:
        journal = Journal.read_only(self.folder / "journal.db")
        try:
            if (check := journal.integrity()) != "ok":
                raise Violation(f"killed: PRAGMA integrity_check says {check}")
        finally:
            journal.close()

    def _check_log(self) -> None:
        for _, line in self.service.lines[self.life :]:
            if "Traceback" in line or (" failed" in line and "handling" in line):
                raise Violation(f"the service logged: {line}")

    def _check_garbage_said(self, final: bool = False) -> None:
        """Garbage on the link is logged as a link fault (at most LOG_EVERY_S later)."""
        now = time.monotonic()
        if final and self.garbage:
            self._until(lambda: time.monotonic() > self.garbage[-1] + GARBAGE_SAID_S)
            now = time.monotonic()
        due = [t for t in self.garbage if now - t > GARBAGE_SAID_S]
        if not due:
            return
        said = [t for t, line in self.service.lines[self.life :] if "hub link faults" in line]
        for t in due:
            if not any(s > t for s in said):
                raise Violation(f"garbage on the link at {t:.1f} was not logged as a link fault")
        self.garbage = [t for t in self.garbage if t not in due]

    def _until(self, condition: Callable[[], bool], timeout: float = WAIT_S) -> bool:
        end = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > end:
                return False
            time.sleep(0.02)
        return True

    def _log(self, since: int) -> str:
        return " | ".join(line for _, line in self.service.lines[since:][-8:])

    def _violate(self, what: str) -> None:
        where = f"seed {self.seed}, game {self.games + 1} ({self.name}), step {self.step}"
        self.violations.append(
            f"{where}: {what}; replay with python -m bench soak --service --seed {self.seed} --minutes {self.minutes:g}"
        )
        print(f"{where}: the service's last log lines:", file=sys.stderr)  # what it was doing, for the replay
        for _, line in self.service.lines[-40:]:
            print(f"  {line}", file=sys.stderr)


def main(minutes: float, seed: int) -> int:
    from bench.soak_club import ClubSoak

    soak = ServiceSoak(seed, minutes)
    started = time.monotonic()
    with ClubSoak(seed) as club:
        soak.club = club
        violations = soak.run()
    violations += club.violations
    counts = soak.counts
    out = soak.out
    out(
        f"games: {soak.games} ({counts['games completed']} completed), {soak.actions} actions committed, "
        f"{soak.step} attempted, {(time.monotonic() - started) / 60:.1f} minutes (seed {seed})"
    )
    out(
        f"kills {counts['kill']}, restarts {counts['restarts']}, unplugs {counts['unplug']}, "
        f"garbage bytes {counts['garbage bytes']}"
    )
    out("faults injected: " + ", ".join(f"{kind} {counts[kind]}" for kind in FAULTS))
    soak_web.report(counts, out)
    for line in club.report():
        out(line)
    out(f"invariant violations: {len(violations)} (goal 0)")
    for violation in violations[:20]:
        out(f"  {violation}")
    return 1 if violations else 0
