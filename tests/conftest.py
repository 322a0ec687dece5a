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
import os
import sqlite3
import subprocess
import sys
import time
import types
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from brokers import Board, Broker
from disks import Disk
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, settings

import companion.sim as sim
from companion import i18n
from companion.nfc.backends import SimBackend
from companion.pins import MOCK_REVISION

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("default")


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Only test files are collected in tests/: --doctest-modules would also import each folder's conftest.py as a
    module named ``conftest`` (the name another folder's already has, so ``pytest tests/nfc tests/readers`` failed
    with "import file mismatch"), and the shared helper modules, which hold no examples."""
    if collection_path.suffix == ".py" and not collection_path.name.startswith("test_"):
        return True
    return None


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
