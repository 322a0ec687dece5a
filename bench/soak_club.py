"""The club in the service's soak: the table publishes to a real mosquitto, a club counts what it publishes, and a
hostile client on the same broker does what a hostile LAN client does.

The broker is Debian's mosquitto with the sample config (systemd/mosquitto-companion.conf and .acl), on a free
loopback port, its password file, ACL and persistence in a folder of the run's own. Every game of the soak is a
table of its own (``mesa-<n>``: each game has a new journal, whose game numbers start again at 1), logged in with
its table name, as docs/CLUB.md says. The club is :class:`companion.club.service.Club` on a :class:`League` on
disk, on a loop in a thread of this process. The hostile client holds a table's login of its own (``intruso``: a
table's password read off its config, or a guest's), and tries, bounded in count and time (one try every 0.2 to
1 s):

- ``takeover``: connects with the club's client id and a clean session (which would throw the club's session away,
  with what the broker kept for it), or with the table's (which would push the table off);
- ``flood``: malformed and oversize payloads (:func:`payloads`) on the table's topics (which the ACL refuses) and
  the intruder's own (which the club reads), events and status;
- ``forged``: plausible events on the table's topic: an entry past the journal's, a game won by another seat;
- ``subscribe and drop``: subscribes to everything, and closes its socket without a DISCONNECT;
- ``silent``: TCP connections held open a few seconds without a CONNECT;
- ``no login``: anonymous, a wrong password, the club's username with a wrong password (each must be refused).

The promises checked at the end of each game, before the service stops (a broken one is a violation): every
event of the table's journal (its games' starts, entries and ends) reached the club (lost entries: 0), nothing
the table did not publish is in the league under its name, the club counted each finished game exactly once (its
results), the club's task never stopped nor its loop froze, and no bad login was let in. A club that stopped or
froze is started again, as systemd restarts a service whose process ends, so that one fault does not hide the
next.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import logging
import os
import random
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt

from companion.club.broker import LocalBroker
from companion.club.feed import pending
from companion.club.service import CLIENT_ID, Club
from companion.club.standings import League
from companion.config import MqttConfig
from companion.journal import Cursor, Journal

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "systemd" / "mosquitto-companion.conf"
ACL = ROOT / "systemd" / "mosquitto-companion.acl"
INTRUDER = "intruso"
ACTIONS = ("takeover", "flood", "forged", "subscribe and drop", "silent", "no login")
CAUGHT_UP_S = 30.0  # how long the club may take to hold a game's every event once the game is over
FROZEN_S = 10.0  # a club's loop that has not turned for this long is frozen
DEEP = 100_000  # how deep the nesting of the deepest payload
OVERSIZE = 1_000_000  # bytes of the oversize payload (bounded: it goes over the loopback once a flood at most)
START = {"game": "seises", "players": 4, "deck": "", "options": {}}


def _event(game: Any, seq: Any, kind: str, **fields: Any) -> dict[str, Any]:
    return {"id": f"{game}:{seq}", "game": game, "type": kind, **fields}


def payloads(fifo: Path, game: int) -> dict[str, bytes]:
    """The malformed and oversize payloads of a flood, by kind (the bounds a club must hold to, issue 22): each
    start is of a game of its own from ``game`` on (a second start of a game is a duplicate, left out unread),
    and the entries are of ``game``, whose start the flood sends first (:func:`start`)."""
    big = 2**63

    def start(number: int, **settings: Any) -> dict[str, Any]:
        return _event(number, 0, "start", settings={**START, **settings}, wall=0.0)

    texts: dict[str, Any] = {
        "integer past 64 bits": start(big),
        "entry past 64 bits": _event(game, big, "action", text="play 1O", t=1.0),
        "400-digit time": _event(game, 1, "action", text="play 1O", t=10**400),
        "deck a device": start(game + 1, deck="/dev/ptmx"),
        "deck a FIFO": start(game + 2, deck=str(fifo)),
        "deck a file": start(game + 3, deck="/etc/passwd"),
        "control characters": start(game + 4, seat_names=["\x1b[2J", "\u202eA", "\x00", "\x07"]),
        "oversize": {**start(game + 5), "padding": "x" * OVERSIZE},
        "wrong types": _event(str(game), "1", "action", text=["play"], t="soon"),
        "no id": {"game": game, "type": "start"},
        "not an object": [1, 2, 3],
        "forged end": _event(game, "end", "end", outcome={"termination": "won", "winner": "seat 1"}, after="all"),
    }
    found = {kind: json.dumps(text).encode() for kind, text in texts.items()}
    found["deep nesting"] = b"[" * DEEP + b"]" * DEEP
    found["not UTF-8"] = b"\xff\xfe\x00{"
    found["not JSON"] = b"{'id': 1"
    found["empty"] = b""
    return found


class Refused(OSError):
    """The broker refused a CONNECT (its CONNACK's return code)."""


class Raw:
    """One MQTT 3.1.1 connection written by hand: what a hostile client sends, without a library's manners."""

    def __init__(self, port: int, timeout: float = 5.0) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def connect(self, client_id: str, username: str | None, password: str | None, clean: bool = True) -> None:
        flags = (0x80 if username is not None else 0) | (0x40 if password is not None else 0) | (2 if clean else 0)
        body = _text("MQTT") + bytes((4, flags)) + struct.pack("!H", 30) + _text(client_id)
        body += (_text(username) if username is not None else b"") + (_text(password) if password is not None else b"")
        self._send(0x10, body)
        answer = self._read(4)
        if answer[:2] != b"\x20\x02":
            raise Refused(f"no CONNACK: {answer.hex()}")
        if answer[3]:
            raise Refused(f"CONNACK return code {answer[3]}")

    def publish(self, topic: str, payload: bytes | str) -> None:
        """QoS 0: the broker says nothing, whether it took it or not."""
        self._send(0x30, _text(topic) + (payload.encode() if isinstance(payload, str) else payload))

    def subscribe(self, topic: str) -> None:
        self._send(0x82, struct.pack("!H", 1) + _text(topic) + b"\x01")

    def disconnect(self) -> None:
        with contextlib.suppress(OSError):
            self._send(0xE0, b"")
        self.close()

    def close(self) -> None:
        self.socket.close()

    def _send(self, head: int, body: bytes) -> None:
        length, size = b"", len(body)
        while True:
            size, digit = divmod(size, 128)
            length += bytes((digit | (0x80 if size else 0),))
            if not size:
                break
        self.socket.sendall(bytes((head,)) + length + body)

    def _read(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            part = self.socket.recv(count - len(data))
            if not part:
                break
            data += part
        return data


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _text(text: str) -> bytes:
    data = text.encode()
    return struct.pack("!H", len(data)) + data


class Broker(LocalBroker):
    """mosquitto with the sample config and ACL, on a free loopback port, every file in ``folder`` (stopped and its
    log read as the club's own broker's)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(_free_port(), folder)
        self.passwords: dict[str, str] = {}

    def config(self) -> str:
        """The sample config, its listener, files and persistence moved here (its TLS lines are comments)."""
        lines = []
        for line in SAMPLE.read_text().splitlines():
            words = line.split()
            if not words or words[0].startswith("#") or words[0] in ("persistence_location", "log_dest", "user"):
                continue
            if words[0] == "listener":
                line = f"listener {self.port} 127.0.0.1"
            elif words[0] == "password_file":
                line = f"password_file {self.folder / 'passwd'}"
            elif words[0] == "acl_file":
                line = f"acl_file {self.folder / 'acl'}"
            lines.append(line)
        lines += [
            f"persistence_location {self.folder}/",
            f"log_dest file {self.folder / 'mosquitto.log'}",
            f"user {getpass.getuser()}",  # as root, it would become mosquitto, who may not write here
        ]
        return "\n".join(lines) + "\n"

    def add(self, *users: str) -> None:
        """Logins for ``users`` (each password its own), the broker told to read them again (SIGHUP)."""
        for user in users:
            self.passwords[user] = f"{user}-{random.randrange(10**9)}"
        plain = self.folder / "passwd"
        plain.write_text("".join(f"{user}:{password}\n" for user, password in self.passwords.items()))
        subprocess.run(["mosquitto_passwd", "-U", str(plain)], check=True, capture_output=True)
        if self.process is not None:
            self.process.send_signal(signal.SIGHUP)
            for user in users:
                self._until_in(user)

    def start(self) -> None:
        program = shutil.which("mosquitto", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
        assert program is not None, "mosquitto is missing: apt install mosquitto (make debian)"
        (self.folder / "acl").write_text(ACL.read_text())
        (self.folder / "mosquitto.conf").write_text(self.config())
        self.process = subprocess.Popen(
            [program, "-c", str(self.folder / "mosquitto.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        end = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return
            if self.process.poll() is not None or time.monotonic() > end:
                said = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise RuntimeError(f"mosquitto did not start: {said} {self.log()[-400:]}")
            time.sleep(0.02)

    def _until_in(self, user: str) -> None:
        """Wait until the broker takes ``user``'s login (it reads its password file again after a SIGHUP)."""
        end = time.monotonic() + 10
        while True:
            raw = Raw(self.port)
            try:
                raw.connect(f"check-{user}", user, self.passwords[user])
                raw.disconnect()
                return
            except (Refused, OSError):
                raw.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)


class WatchedClub(Club):
    """The club, with the last message it took kept (what a stopped or frozen club was reading)."""

    last: str = ""

    def _receive(self, message: aiomqtt.Message) -> list[tuple[str, str]]:
        payload = message.payload if isinstance(message.payload, bytes) else str(message.payload).encode()
        self.last = f"{message.topic.value}: {len(payload):,} bytes {payload[:60]!r}"
        return super()._receive(message)


@dataclass
class Loss:
    """What a table published that the league does not hold, and what the league holds that it did not publish."""

    published: int
    missing: list[str]
    foreign: list[str]


class Life:
    """One life of the club: :class:`WatchedClub` on a league on disk, on a loop in a thread of its own, and a
    heartbeat on that loop (a loop that stops beating is frozen: something blocks it)."""

    def __init__(self, broker: MqttConfig, path: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.league = League(path)
        self.club = WatchedClub(broker, self.league)
        self.task: asyncio.Task[None] | None = None
        self.beat = time.monotonic()
        self.failed = ""  # why the club's task stopped
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="soak-club", daemon=True)
        self.thread.start()
        if not self._ready.wait(20):
            raise RuntimeError("the club did not subscribe within 20 s")

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        with contextlib.suppress(BaseException):
            self.loop.run_until_complete(self._main())

    async def _main(self) -> None:
        async def beat() -> None:
            while True:
                self.beat = time.monotonic()
                await asyncio.sleep(0.2)

        self.task = asyncio.ensure_future(self.club.run())
        beating = asyncio.ensure_future(beat())
        await self.club.connected.wait()
        self._ready.set()
        try:
            await self.task
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # the club's task died: the league counts nothing more
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.failed = (
                f"the club's task stopped on {type(exc).__name__}: {exc} (at {Path(where.filename).name}:"
                f"{where.lineno}), reading {self.club.last}"
            )
        finally:
            beating.cancel()

    def trouble(self) -> str:
        """Why this life is over ("" while it runs)."""
        if self.failed:
            return self.failed
        if time.monotonic() - self.beat > FROZEN_S:
            return f"the club's loop froze (no turn for {time.monotonic() - self.beat:.0f} s), reading {self.club.last}"
        return ""

    def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.league.close()


class ClubSoak:
    """The broker, the club and the hostile client of one soak; :meth:`table` names each game's table."""

    def __init__(self, seed: int, folder: Path | None = None) -> None:
        self.rng = random.Random(seed * 104_729 + 5)
        self.folder = folder or Path(tempfile.mkdtemp(prefix="soak-club-"))
        self.broker = Broker(self.folder)
        self.tried: Counter[str] = Counter()  # the hostile client's tries, by kind
        self.inputs: Counter[str] = Counter()  # the payloads it published, by kind
        self.said: Counter[str] = Counter()  # the club's log lines, by level
        self.aimed: Counter[str] = Counter()  # the flood's payloads, by whose topics they went to
        self.troubles: Counter[str] = Counter()  # why the club stopped or froze, each time
        self._games = 0  # the intruder's last game number
        self._took_club = 0  # takeovers with the club's client id during the current game
        self.violations: list[str] = []
        self.refused = 0  # bad logins the broker refused
        self.published = self.lost = self.finished = self.counted = self.restarts = 0
        self.tables: list[str] = []
        self.current = ""
        self.life: Life | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the club's health is checked by the soak and by the hostile client

    # ---- the run --------------------------------------------------------------------------------------------

    def __enter__(self) -> ClubSoak:
        self.broker.add("club", INTRUDER)
        self.broker.start()
        os.mkfifo(self.folder / "deck.fifo")
        self._said = _Counting(self.said, self.folder / "club.log")
        club_log = logging.getLogger("companion.club")
        club_log.addHandler(self._said)
        club_log.propagate = False  # its lines go to its file: the soak's output is the report
        self.life = Life(self._broker(), self.folder / "club.db")
        self._hostile = threading.Thread(target=self._hostile_client, name="soak-hostile", daemon=True)
        self._hostile.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._hostile.join(30)
        self._healthy("at the end of the soak")
        for trouble, times in self.troubles.items():
            self.violations.append(f"{trouble} ({times} {'times' if times > 1 else 'time'})")
        if self.life is not None:
            self.life.stop()
        club_log = logging.getLogger("companion.club")
        club_log.removeHandler(self._said)
        club_log.propagate = True
        self._said.close()
        self.broker.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _broker(self) -> MqttConfig:
        password = self.broker.passwords["club"]
        return MqttConfig("127.0.0.1", self.broker.port, "", username="club", password=password)

    def _healthy(self, when: str) -> bool:
        """The club's task runs and its loop turns. If not, a violation, and the club is started again (as
        systemd restarts a service whose process ends): what the broker kept for its session is not lost."""
        with self._lock:
            trouble = self.life.trouble() if self.life is not None else ""
            if not trouble:
                return True
            self.troubles[trouble] += 1
            assert self.life is not None
            self.life.stop()  # a frozen loop's thread stays blocked; the broker drops its connection
            self.restarts += 1
            self.life = Life(self._broker(), self.folder / "club.db")
            return False

    # ---- the tables -----------------------------------------------------------------------------------------

    def table(self, game: int) -> str:
        """The ``[mqtt]`` section of game ``game``'s table (a login of its own on the broker)."""
        self.current = name = f"mesa-{game + 1}"
        self._took_club = 0
        self.broker.add(name)
        self.tables.append(name)
        return (
            f'[mqtt]\nurl = "mqtt://127.0.0.1:{self.broker.port}"\ntable = "{name}"\nusername = "{name}"\n'
            f'password = "{self.broker.passwords[name]}"\n'
        )

    def caught_up(self, journal: Path, over: bool, wait: float = CAUGHT_UP_S) -> None:
        """The game is played (``over``: to its end) and the service still runs: wait until the club holds every
        event of the journal, then check that it lost none, holds nothing forged, and counted the game once."""
        table = self.current
        end = time.monotonic() + wait
        while True:
            self._healthy(f"{table}'s game")
            loss = self.loss(journal, table)
            if not loss.missing or time.monotonic() > end:
                break
            time.sleep(0.1)
        self.published += loss.published
        self.lost += len(loss.missing)
        if loss.missing:
            self.violations.append(
                f"{table}: {len(loss.missing)} of the {loss.published} events it published never reached the club "
                f"({', '.join(loss.missing[:8])}{'...' if len(loss.missing) > 8 else ''}); the hostile client "
                f"connected with the club's client id {self._took_club} times during the game"
            )
        if loss.foreign:
            self.violations.append(f"{table}: the league holds events the table never published: {loss.foreign[:8]}")
        counted = self._results(table)
        self.finished += over
        self.counted += len(counted)
        if len(counted) != over:
            ended = "played to its end" if over else "cut before its end"
            self.violations.append(
                f"{table}: its game was {ended}, and the club counted {len(counted)} games ({self._rebuilt(table)}; "
                f"{self._journaled(journal)})"
            )

    def _rebuilt(self, table: str) -> str:
        """How far the club rebuilt the table's game (its league's view, for a violation's message)."""
        game = self.life.league._games.get((table, 1)) if self.life is not None else None
        if game is None:
            return "the league has not rebuilt it"
        after = game.end.get("after") if game.end is not None else None
        return f"rebuilt to entry {game.applied}, its end after {after}, damage {game.damage!r}"

    @staticmethod
    def _journaled(journal: Path) -> str:
        reader = Journal.read_only(journal)
        try:
            last = reader.last_game()
        finally:
            reader.close()
        return "no game in the journal" if last is None else f"the journal: {last.entries} entries, {last.outcome}"

    def loss(self, journal: Path, table: str) -> Loss:
        """The events of ``journal`` the league holds not (the service holds the journal open: read it read-only)."""
        reader = Journal.read_only(journal)
        try:
            ids = [event["id"] for _, event in pending(reader, Cursor())]
        finally:
            reader.close()
        query = "SELECT game || ':' || CASE seq WHEN -1 THEN 'end' ELSE seq END FROM events WHERE tbl = ?"
        held = set(self._league(query, table))
        return Loss(len(ids), [i for i in ids if i not in held], sorted(held - set(ids)))

    def _results(self, table: str) -> dict[int, int]:
        """The league's results of ``table``'s games: rows (sides) per game."""
        rows = self._league("SELECT game, COUNT(*) FROM results WHERE tbl = ? GROUP BY game", table)
        return dict(rows)

    def _league(self, query: str, *args: Any) -> list[Any]:
        db = sqlite3.connect(f"file:{self.folder / 'club.db'}?mode=ro", uri=True, timeout=10)
        try:
            rows = db.execute(query, args).fetchall()
        finally:
            db.close()
        return [row[0] if len(row) == 1 else tuple(row) for row in rows]

    # ---- the hostile client ---------------------------------------------------------------------------------

    def _hostile_client(self) -> None:
        """One hostile try every 0.2 to 1 s until the soak ends (a try that fails midway is counted as tried)."""
        while not self._stop.wait(self.rng.uniform(0.2, 1.0)):
            if not self.current:
                continue
            self._healthy(f"{self.current}'s game")
            kind = self.rng.choice(ACTIONS)
            self.tried[kind] += 1
            with contextlib.suppress(OSError):  # the broker closed the connection on it, as it may on a hostile one
                getattr(self, "_" + kind.replace(" ", "_"))()

    def _login(self, client_id: str | None = None, clean: bool = True) -> Raw:
        raw = Raw(self.broker.port)
        try:
            raw.connect(client_id or f"hostile-{self.rng.randrange(10**6)}", INTRUDER, self.broker.passwords[INTRUDER])
        except OSError:
            raw.close()
            raise
        return raw

    def _takeover(self) -> None:
        victim = self.rng.choice((CLIENT_ID, f"companion-{self.current}"))
        self.inputs[f"client id {'of the club' if victim == CLIENT_ID else 'of the table'}"] += 1
        self._took_club += victim == CLIENT_ID
        raw = self._login(victim)
        time.sleep(self.rng.uniform(0.2, 1.5))
        raw.disconnect()

    def _flood(self) -> None:
        """A start of a game of the intruder's, then malformed payloads; the first flood of a run sends every kind
        to the intruder's events (which the club reads), so that a short soak tries each on the club."""
        raw = self._login()
        try:
            self._games += 10
            flood = payloads(self.folder / "deck.fifo", self._games)
            raw.publish(f"companion/{INTRUDER}/events", json.dumps(_event(self._games, 0, "start", settings=START)))
            kinds = [k for k in flood if k != "oversize"]
            chosen = self.rng.sample(kinds, self.rng.randint(3, 8)) + (["oversize"] if self.rng.random() < 0.3 else [])
            for kind in list(flood) if self._games == 10 else chosen:
                self.inputs[kind] += 1
                who = INTRUDER if self._games == 10 else self.rng.choice((self.current, INTRUDER))
                self.aimed["table" if who == self.current else "intruder"] += 1
                topic = "events" if self._games == 10 else self.rng.choice(("events", "status"))
                raw.publish(f"companion/{who}/{topic}", flood[kind])
        finally:
            raw.disconnect()

    def _forged(self) -> None:
        raw = self._login()
        try:
            topic = f"companion/{self.current}/events"
            forged = (
                _event(1, 999, "action", text="pass", t=1.0, wall=0.0),
                _event(1, "end", "end", outcome={"termination": "won", "winner": "seat 3"}, after=10**6),
                _event(2, 0, "start", settings=START, wall=0.0),
            )
            for event in forged:
                self.inputs["forged event"] += 1
                raw.publish(topic, json.dumps(event).encode())
        finally:
            raw.disconnect()

    def _subscribe_and_drop(self) -> None:
        raw = self._login(clean=self.rng.random() < 0.5)
        raw.subscribe("companion/#")
        time.sleep(self.rng.uniform(0.0, 0.3))
        self.inputs["subscription dropped"] += 1
        raw.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset, no goodbye
        raw.close()

    def _silent(self) -> None:
        held = []
        try:
            for _ in range(self.rng.randint(5, 20)):
                held.append(socket.create_connection(("127.0.0.1", self.broker.port), timeout=2))
                self.inputs["connection without CONNECT"] += 1
            time.sleep(self.rng.uniform(0.5, 3.0))
        finally:
            for sock in held:
                sock.close()

    def _no_login(self) -> None:
        wrong = self.rng.choice(((None, None), (INTRUDER, "guess"), ("club", "guess"), (self.current, "")))
        self.inputs["bad login"] += 1
        raw = Raw(self.broker.port)
        try:
            raw.connect(f"hostile-{self.rng.randrange(10**6)}", *wrong)
        except Refused:
            self.refused += 1
            return
        finally:
            raw.close()
        self.violations.append(f"the broker let in a bad login: username {wrong[0]!r}, password {wrong[1]!r}")

    # ---- the report -----------------------------------------------------------------------------------------

    def report(self) -> Iterator[str]:
        yield (
            f"club: {len(self.tables)} tables, {self.published:,} events published, lost entries: {self.lost} "
            f"(goal 0); finished games {self.finished}, counted {self.counted} (goal: each once)"
        )
        yield (
            f"hostile client: {sum(self.tried.values())} tries ("
            + ", ".join(f"{kind} {self.tried[kind]}" for kind in ACTIONS)
            + f"); bad logins refused {self.refused} of {self.inputs['bad login']}; flood payloads on the table's "
            f"topics (which the ACL refuses) {self.aimed['table']}, on the intruder's own {self.aimed['intruder']}"
        )
        yield (
            f"hostile inputs tried: {sum(self.inputs.values()):,} ("
            + ", ".join(f"{kind} {n}" for kind, n in sorted(self.inputs.items()))
            + ")"
        )
        yield (
            f"the club: logged {self.said['WARNING']} warnings and {self.said['ERROR']} errors; "
            f"stopped or froze and was started again {self.restarts} times (goal 0); violations {len(self.violations)}"
        )


class _Counting(logging.FileHandler):
    """The club's log into a file, each line counted by its level."""

    def __init__(self, counts: Counter[str], path: Path) -> None:
        super().__init__(path)
        self.counts = counts

    def emit(self, record: logging.LogRecord) -> None:
        self.counts[record.levelname] += 1
        super().emit(record)
