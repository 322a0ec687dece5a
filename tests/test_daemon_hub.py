"""The service with the reader hub: the real firmware on simulated readers behind a pty, the daemon's hub back-end
on the other end. A card on a hub zone becomes a pending play, its LED command reaches the hub, CONFIRM commits
it, and a pulled cable is said on the screen and the status LED until the hub is back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from gpiozero.pins.mock import MockFactory

import companion.sim
from companion.config import Config, parse_config
from companion.daemon import Daemon
from companion.hardware import load_pinmap
from companion.hub.protocol import COLOURS, MODES
from companion.hub.simulated import SimulatedHub
from companion.journal import Journal
from companion.nfc.registry import Registry
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device
from companion.view import MessageKind, StatusLight

MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
UID = bytes.fromhex("04C0FFEE000001")


Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]
Until = Callable[..., Awaitable[None]]


def hub_config(tmp_path: Path, port: str) -> Config:
    """6º SET with its 8 zones on the hub at ``tmp_path / port``, each zone heading its master card's line."""
    zones = "".join(f'z{i} = "{master}"\n' for i, master in enumerate(MASTERS, start=1))
    return parse_config(
        f'[game]\nname = "sexto-set"\n[zones]\n{zones}'
        f'[readers]\nbackend = "hub"\nhub_port = "{tmp_path / port}"\n'
        f'registry = "{tmp_path / "registry.toml"}"\n[journal]\npath = "{tmp_path / "journal.db"}"\n',
        "test",
    )


def test_a_game_through_the_hub(tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until) -> None:
    registry = Registry.load(tmp_path / "registry.toml", deck="squadratik")
    registry.bind(UID, "N01")  # 1R|2R: links on master card 1 red
    registry.save()
    config = hub_config(tmp_path, "companion-hub")
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8)
    hub.start()
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))
    confirm = mock_factory.pin(load_pinmap().buttons["confirm"])

    async def play() -> None:
        async with running(daemon):
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

    try:
        asyncio.run(play())
    finally:
        hub.stop()
    journal = Journal(tmp_path / "journal.db")
    assert [e.text for e in journal.entries(1)] == ["play M1R N01"]


def test_a_hub_that_is_not_there_at_start_is_said(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until
) -> None:
    config = hub_config(tmp_path, "no-hub")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with running(daemon):
            referee = daemon.table.referee  # type: ignore[union-attr]
            await until(lambda: not referee.hub_online, timeout=5)
            view = referee.view()
            assert view.status is StatusLight.HUB_LOST and view.message is not None
            assert view.message.kind is MessageKind.HUB_LOST

    asyncio.run(play())


def test_a_dead_reader_on_the_hub_is_said_like_one_on_the_pi(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until
) -> None:
    config = hub_config(tmp_path, "companion-hub")
    companion.sim.unplug(0, 2)  # zone z3's reader
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8)
    hub.start()
    daemon = Daemon(config, pin_factory=mock_factory)

    async def play() -> None:
        async with running(daemon):
            referee = daemon.table.referee  # type: ignore[union-attr]
            await until(lambda: "z3" in referee.readers_down)
            view = referee.view()
            assert view.status is StatusLight.ERROR and view.message is not None
            assert view.message.kind is MessageKind.READER_DOWN and "z3" in view.message.title

    try:
        asyncio.run(play())
    finally:
        hub.stop()


def test_a_card_lifted_from_a_hub_zone_is_gone_at_the_hubs_report(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until
) -> None:
    """The hub debounces lifts in its scans and reports them settled: the daemon takes the report as the lift,
    without waiting for snapshots (here there are none after the first, so only the report can say it)."""
    registry = Registry.load(tmp_path / "registry.toml", deck="squadratik")
    registry.bind(UID, "N01")
    registry.save()
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8, SNAPSHOT_MS=600_000)
    hub.start()
    daemon = Daemon(hub_config(tmp_path, "companion-hub"), pin_factory=mock_factory)

    async def play() -> None:
        async with running(daemon):
            table = daemon.table
            assert table is not None
            await until(lambda: table.referee.hub_online)
            hub.put(0, UID)
            await until(lambda: table.tracker.cards_on("z1") == ["N01"])
            hub.take(0, UID)
            await until(lambda: table.tracker.cards_on("z1") == [], timeout=5)

    try:
        asyncio.run(play())
    finally:
        hub.stop()
