"""The suite's fixtures, written once for every folder.

* ``bench``: the simulated bench (:mod:`companion.sim`: readers, tags, the Pico's pins) is emptied before and
  after every test, whichever part of it the test touches.
* ``mock_factory``: gpiozero's mock pins, as the service takes them off a Pi (a Pi 4's header, PWM pins for the
  dimming LEDs), installed as gpiozero's default for the test and reset afterwards, as in gpiozero's own tests.
* ``spidev``: ``import spidev`` gives the simulated SPI bus, as it gives the Pi's on a Pi.
* ``disk``: the SQLite connections the code opens during the test, taken at :func:`sqlite3.connect`, so a test
  can make SQLite's own "database or disk is full" happen or watch the statements the journal runs.
* ``until`` and ``running``: the daemon on the test's event loop, and waiting there for what it does.
* ``service``: ``companion run`` as a process of its own, as systemd or a person starts it.
* ``broker``: Debian's mosquitto (``make test`` installs it) on a free loopback port, its config and its
  persistence in the test's temporary folder (never the system's service), stopped after the test; ``board``:
  the room's subscriber on it (``async with board.watching():``), as the club's would be.

Every test runs in the C locale, with only the package's catalogues (``untranslated_environment``);
``dropped_catalogue`` adds one, as a translator tries a new language (``COMPANION_LOCALES``).
Hypothesis runs without a deadline: a busy CI machine must not fail a property.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import types
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, settings

import companion.sim as sim
from companion import i18n
from companion.nfc.backends import SimBackend
from companion.pins import MOCK_REVISION

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("default")


@pytest.fixture(autouse=True)
def untranslated_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The command line speaks the environment's language: every test starts in the C locale (English), whatever
    the locale of the machine that runs it, with only the package's catalogues, and leaves the command line's
    language (which ``companion.cli.main`` sets for the process) as it found it."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "COMPANION_LOCALES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    i18n.set_language(i18n.SOURCE_LANGUAGE)
    yield
    i18n.set_language(i18n.SOURCE_LANGUAGE)


@pytest.fixture
def dropped_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], Path]:
    """Drops a catalogue (``lang``, the text of its ``.po`` file) where ``COMPANION_LOCALES`` points: the only file
    of a new language, as docs/TRANSLATING.md has a translator try one."""
    folder = tmp_path / "dropped-locale"
    monkeypatch.setenv("COMPANION_LOCALES", str(folder))

    def drop(lang: str, text: str) -> Path:
        path = folder / lang / "LC_MESSAGES" / "companion.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return path

    return drop


@pytest.fixture(autouse=True)
def bench() -> Iterator[types.ModuleType]:
    sim.reset()
    yield sim
    sim.reset()


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    Device.pin_factory = factory = MockFactory(revision=MOCK_REVISION, pin_class=MockPWMPin)
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def spidev(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    return sim.spidev


class Disk:
    """The disk under the SQLite files the code opens: :meth:`fill` makes every further write fail with SQLite's
    own "database or disk is full" (``max_page_count``, with the free room in the last pages used up), and
    :meth:`free` gives room again. ``connections`` are the connections the code opened, oldest first."""

    FILLER = -1  # the entries of no game, and the games started at no time: what takes up the free room

    def __init__(self) -> None:
        self.connections: list[sqlite3.Connection] = []

    def open(self) -> list[sqlite3.Connection]:
        """The connections the code has not closed."""
        return [db for db in self.connections if _is_open(db)]

    def fill(self, room_pages: int = 0) -> None:
        """No more room on the disk; ``room_pages`` pages of SQLite's are left free."""
        for db in self.open():
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")
            seq = 0
            for size in (4096, 512, 64, 8, 1):  # whatever a row of this size still fits in, in both tables
                with contextlib.suppress(sqlite3.OperationalError):
                    while True:
                        seq += 1
                        db.execute(
                            "INSERT INTO entries (game, seq, t, kind, text) VALUES (?, ?, 0, 'action', ?)",
                            (self.FILLER, seq, "x" * size),
                        )
                with contextlib.suppress(sqlite3.OperationalError):
                    while True:  # the games' pages too: a game's outcome or a new game's row finds no room
                        db.execute("INSERT INTO games (started, settings) VALUES (?, ?)", (self.FILLER, "x" * size))
            db.execute(f"PRAGMA max_page_count = {pages + room_pages}")

    def free(self) -> None:
        for db in self.open():
            db.execute("DELETE FROM entries WHERE game = ?", (self.FILLER,))
            db.execute("DELETE FROM games WHERE started = ?", (self.FILLER,))
            db.execute("PRAGMA max_page_count = 1000000000")


def _is_open(db: sqlite3.Connection) -> bool:
    try:
        db.total_changes  # noqa: B018 (raises on a closed connection)
    except sqlite3.ProgrammingError:
        return False
    return True


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    disk = Disk()
    connect = sqlite3.connect

    def connect_and_keep(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        disk.connections.append(db)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect_and_keep)
    return disk


async def _until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.002)


@pytest.fixture
def until() -> Callable[..., Any]:
    """``await until(condition, timeout=10.0)``: let the event loop run until ``condition()`` holds."""
    return _until


@contextlib.asynccontextmanager
async def _running(daemon: Any) -> AsyncIterator[Any]:
    started = asyncio.Event()
    daemon.on_started = lambda _: started.set()
    stop = asyncio.Event()
    service = asyncio.create_task(daemon.run(stop))
    up = asyncio.create_task(started.wait())
    await asyncio.wait({service, up}, return_when=asyncio.FIRST_COMPLETED)
    if service.done():  # it could not start: its StartError is the test's failure
        up.cancel()
        service.result()
        raise AssertionError("the daemon stopped before it started")
    try:
        yield daemon
    finally:
        stop.set()
        status = await service
    assert status == 0, f"the daemon exited {status}"


@pytest.fixture
def running() -> Callable[[Any], contextlib.AbstractAsyncContextManager[Any]]:
    """``async with running(daemon):`` the daemon's ``run()`` on the test's loop, entered once every part has
    started (its ``on_started``), stopped on leaving, and its exit status checked."""
    return _running


@pytest.fixture
def hand(bench: types.ModuleType) -> SimBackend:
    """A player's hand over the simulated readers: ``hand.put(card, zone)`` lays the card's tag on the zone's
    reader, ``hand.take(card)`` lifts it. Zones ``z1`` to ``z8`` are the readers of SPI bus 0 in order, as the
    sim back-end numbers the zones of the config."""
    return SimBackend([f"z{n}" for n in range(1, 9)])


class Broker:
    """Debian's mosquitto on a loopback port, with its config, log and persistence in ``folder``.

    :meth:`kill` is the outage (SIGKILL: no goodbye to the clients, as when the broker's machine loses power);
    :meth:`start` brings it back on the same port with what it had saved. It saves after every change
    (``autosave_on_changes``), so a persistent subscriber's session outlives the kill.
    """

    def __init__(self, folder: Path, security: str = "allow_anonymous true\n") -> None:
        self.folder, self.security = folder, security  # who may connect, publish and read
        self.port = _free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        program = shutil.which("mosquitto", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
        assert program is not None, "mosquitto is missing: make test installs it (.ci/debian mosquitto)"
        config = self.folder / "mosquitto.conf"
        config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            f"{self.security}"
            f"persistence true\npersistence_location {self.folder}/\n"
            "autosave_interval 1\nautosave_on_changes true\n"
            f"log_dest file {self.folder / 'mosquitto.log'}\nlog_type all\n"
            "user root\n"  # as root it would switch to the user mosquitto, who may not write the test's folder
        )
        with (self.folder / "stderr").open("ab") as stderr:  # its warning about root, before the log is open
            self.process = subprocess.Popen([program, "-c", str(config)], stdin=subprocess.DEVNULL, stderr=stderr)
        end = time.monotonic() + 10
        while True:
            assert self.process.poll() is None, f"mosquitto exited {self.process.returncode}: {self.log()}"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            assert time.monotonic() < end, f"mosquitto is not listening on {self.port}: {self.log()}"
            time.sleep(0.02)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else "(no log)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Broker(folder)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class Board:
    """The room's subscriber, as the club's would be: a persistent session (the broker queues what it misses while
    it is away), every table's events, states and status."""

    def __init__(self, broker: Broker, username: str | None = None, password: str | None = None) -> None:
        self.broker, self.username, self.password = broker, username, password
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, dict[str, Any]] = {}
        self.status: dict[str, str] = {}

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[Board]:
        subscribed = asyncio.Event()
        task = asyncio.create_task(self._run(subscribed))
        await asyncio.wait_for(subscribed.wait(), 10)
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    self.broker.port,
                    identifier="board",
                    clean_session=False,
                    username=self.username,
                    password=self.password,
                ) as client:
                    for topic in ("events", "state", "status"):
                        await client.subscribe(f"companion/+/{topic}", qos=1)
                    subscribed.set()
                    async for message in client.messages:
                        assert isinstance(message.payload, bytes)
                        table, topic = message.topic.value.split("/")[1:]
                        text = message.payload.decode()
                        if topic == "events":
                            self.events.append(json.loads(text))
                        elif topic == "state":
                            self.state[table] = json.loads(text)
                        else:
                            self.status[table] = text
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    def ids(self) -> list[str]:
        return [event["id"] for event in self.events]


@pytest.fixture
def board(broker: Broker) -> Board:
    return Board(broker)


COMPANION = Path(sys.executable).parent / "companion"  # the installed command, as the README and the unit run it


@pytest.fixture
def service() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``service(config, *args, env={...}, cwd=..., stdout=..., stderr=...)``: ``companion run --config CONFIG ARGS``
    started with the test's environment and ``env`` on top (None takes a variable out); its output comes as
    text, stderr in stdout unless told otherwise. One still running after the test is stopped with SIGKILL."""
    started: list[subprocess.Popen[str]] = []

    def start(
        config: Path,
        *args: str | Path,
        env: dict[str, str | None] | None = None,
        cwd: Path | None = None,
        stdout: int = subprocess.PIPE,
        stderr: int = subprocess.STDOUT,
    ) -> subprocess.Popen[str]:
        environment = {**os.environ, **(env or {})}
        process = subprocess.Popen(
            [COMPANION, "run", "--config", str(config), *map(str, args)],
            cwd=cwd,
            env={name: value for name, value in environment.items() if value is not None},
            stdout=stdout,
            stderr=stderr,
            text=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate()
