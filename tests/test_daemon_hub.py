"""The service with the reader hub: the real firmware on simulated readers behind a pty, the daemon's hub back-end
on the other end. A card on a hub zone becomes a pending play, its LED command reaches the hub, CONFIRM commits
it, and a pulled cable is said on the screen and the status LED until the hub is back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

import companion.sim
from companion.config import Config, parse_config
from companion.daemon import Daemon
from companion.hardware import load_pinmap
from companion.hub.protocol import COLOURS, MODES
from companion.hub.simulated import SimulatedHub
from companion.journal import Journal
from companion.nfc.registry import Registry
from companion.ui.display import FakeI2CBus, make_device
from companion.view import MessageKind, StatusLight

MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
UID = bytes.fromhex("04C0FFEE000001")


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


def hub_config(tmp_path: Path, port: str) -> Config:
    """6º SET with its 8 zones on the hub at ``tmp_path / port``, each zone heading its master card's line."""
    zones = "".join(f'z{i} = "{master}"\n' for i, master in enumerate(MASTERS, start=1))
    return parse_config(
        f'[game]\nname = "sexto-set"\n[zones]\n{zones}'
        f'[readers]\nbackend = "hub"\nhub_port = "{tmp_path / port}"\n'
        f'registry = "{tmp_path / "registry.toml"}"\n[journal]\npath = "{tmp_path / "journal.db"}"\n',
        "test",
    )


def test_a_game_through_the_hub(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "registry.toml", deck="squadratik")
    registry.bind(UID, "N01")  # 1R|2R: links on master card 1 red
    registry.save()
    config = hub_config(tmp_path, "companion-hub")
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8)
    hub.start()
    factory = MockFactory(revision="c03111", pin_class=MockPWMPin)
    daemon = Daemon(config, pin_factory=factory, display=make_device([], bus=FakeI2CBus()))
    confirm = factory.pin(load_pinmap().buttons["confirm"])

    async def play() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        await until(lambda: daemon.table is not None and daemon._hub is not None)
        table = daemon.table
        assert table is not None
        hub.put(0, UID)
        await until(lambda: table.referee.pending is not None)
        await until(lambda: hub.status().leds[0] == (COLOURS.index("green"), MODES.index("steady")))
        confirm.drive_low()
        await asyncio.sleep(0.1)
        confirm.drive_high()
        await until(lambda: [e.text for e in table.journal.entries(table.game_id)] == ["play M1R N01"])
        await until(lambda: hub.status().leds[0] == (COLOURS.index("off"), MODES.index("steady")))
        hub.unplug()
        await until(lambda: not table.referee.hub_online, timeout=5)
        view = table.referee.view()
        assert view.status is StatusLight.HUB_LOST
        assert view.message is not None and view.message.kind is MessageKind.HUB_LOST
        hub.plug()
        await until(lambda: table.referee.hub_online, timeout=15)
        assert table.referee.view().status is StatusLight.READY
        stop.set()
        assert await task == 0

    try:
        asyncio.run(play())
    finally:
        hub.stop()
    journal = Journal(tmp_path / "journal.db")
    assert [e.text for e in journal.entries(1)] == ["play M1R N01"]


def test_a_hub_that_is_not_there_at_start_is_said(tmp_path: Path) -> None:
    config = hub_config(tmp_path, "no-hub")
    factory = MockFactory(revision="c03111", pin_class=MockPWMPin)
    daemon = Daemon(config, pin_factory=factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        await until(lambda: daemon.table is not None and not daemon.table.referee.hub_online, timeout=5)
        view = daemon.table.referee.view()  # type: ignore[union-attr]
        assert view.status is StatusLight.HUB_LOST and view.message is not None
        assert view.message.kind is MessageKind.HUB_LOST
        stop.set()
        await task

    asyncio.run(play())


def test_a_dead_reader_on_the_hub_is_said_like_one_on_the_pi(tmp_path: Path) -> None:
    config = hub_config(tmp_path, "companion-hub")
    companion.sim.reset()
    companion.sim.unplug(0, 2)  # zone z3's reader
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8)
    hub.start()
    daemon = Daemon(config, pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin))

    async def play() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        await until(lambda: daemon.table is not None and "z3" in daemon.table.referee.readers_down)
        view = daemon.table.referee.view()  # type: ignore[union-attr]
        assert view.status is StatusLight.ERROR and view.message is not None
        assert view.message.kind is MessageKind.READER_DOWN and "z3" in view.message.title
        stop.set()
        await task

    try:
        asyncio.run(play())
    finally:
        hub.stop()
        companion.sim.reset()


def test_a_card_lifted_from_a_hub_zone_is_gone_at_the_hubs_report(tmp_path: Path) -> None:
    """The hub debounces lifts in its scans and reports them settled: the daemon takes the report as the lift,
    without waiting for snapshots (here there are none after the first, so only the report can say it)."""
    registry = Registry.load(tmp_path / "registry.toml", deck="squadratik")
    registry.bind(UID, "N01")
    registry.save()
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8, SNAPSHOT_MS=600_000)
    hub.start()
    daemon = Daemon(hub_config(tmp_path, "companion-hub"), pin_factory=MockFactory(revision="c03111"))

    async def play() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        await until(lambda: daemon.table is not None and daemon.table.referee.hub_online)
        table = daemon.table
        assert table is not None
        hub.put(0, UID)
        await until(lambda: table.tracker.cards_on("z1") == ["N01"])
        hub.take(0, UID)
        await until(lambda: table.tracker.cards_on("z1") == [], timeout=5)
        stop.set()
        await task

    try:
        asyncio.run(play())
    finally:
        hub.stop()
