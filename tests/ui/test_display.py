"""The screen sends its frames from a thread of its own: a frame on the I2C bus (92 ms at 100 kHz) never holds a
scan or a press, and a newer frame replaces one not yet sent. The bus here is the fake SSD1306 whose data writes
can be held, as a slow bus holds them, until the test lets them go: no timing, only order."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.config import parse_config
from companion.daemon import Daemon
from companion.hardware import load_pinmap
from companion.nfc.backends import SimBackend
from companion.sim.oled import FakeI2CBus
from companion.ui.display import DIM, Screen, i2c_write_s, make_device
from companion.ui.screens import render
from companion.view import Message, MessageKind, TableView, ZoneLight

PINS = load_pinmap()


class HeldBus(FakeI2CBus):
    """A FakeI2CBus whose frame data waits while ``gate`` is shut; ``waiting`` is set while a write waits."""

    def __init__(self) -> None:
        super().__init__(hz=100_000)
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()

    def write_i2c_block_data(self, address: int, register: int, data: Sequence[int]) -> None:
        if register == 0x40 and not self.gate.is_set():
            self.waiting.set()
            if not self.gate.wait(timeout=3):  # a loop stuck on this very write would never let go: fail, not hang
                self.gate.set()
            self.waiting.clear()
        super().write_i2c_block_data(address, register, data)


def same(bus: FakeI2CBus, view: TableView) -> bool:
    return bus.last_image().convert("1").tobytes() == render(view).convert("1").tobytes()


def view(title: str) -> TableView:
    return TableView(message=Message(MessageKind.INFO, title, ""))


def wait(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.002)


def test_a_newer_frame_replaces_one_not_yet_sent() -> None:
    bus = HeldBus()
    screen = Screen(make_device([], bus=bus), background=True)
    bus.gate.clear()
    screen.show(view("uno"), now=0.0)
    assert bus.waiting.wait(timeout=5)  # "uno" is on the bus, held
    frames = bus.frames
    for title in ("dos", "tres", "cuatro"):
        screen.show(view(title), now=0.0)
    assert not screen.idle
    bus.gate.set()
    wait(lambda: screen.idle)
    assert bus.frames == frames + 2  # "uno", then only the newest: "dos" and "tres" were replaced unsent
    assert same(bus, view("cuatro"))
    screen.close()


def test_close_sends_what_is_waiting_and_dimming_goes_through_the_sender() -> None:
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus), dim_after_s=1.0, background=True)
    screen.show(view("uno"), now=0.0)
    screen.tick(now=2.0)
    screen.show(view("parado"), now=2.0)  # wakes it again: bright, then the frame
    screen.close()
    assert same(bus, view("parado")) and bus.contrast == 0xCF
    dim = Screen(make_device([], bus=bus), dim_after_s=1.0, background=True)
    dim.tick(now=5.0)
    dim.close()
    assert bus.contrast == DIM


def test_the_bus_costs_nine_clocks_a_byte_at_its_speed() -> None:
    slow, fast = FakeI2CBus(hz=100_000), FakeI2CBus(hz=400_000)
    for bus in (slow, fast):
        Screen(make_device([], bus=bus)).show(view("uno"), now=0.0)
    # luma's init commands, then the frame: 1,024 bytes in 32 writes of 32, each with its address and control byte
    frame = 32 * i2c_write_s(32, 100_000)
    assert frame == pytest.approx(0.0986, abs=1e-4)
    assert slow.bus_s > frame and slow.bus_s == pytest.approx(4 * fast.bus_s)
    assert i2c_write_s(1024, 100_000) == pytest.approx(0.0924, abs=1e-4)  # luma's one message on the Pi


def test_a_scan_and_a_press_never_wait_for_the_panel(
    tmp_path: Path,
    mock_factory: MockFactory,
    running: Callable[[Daemon], AbstractAsyncContextManager[Daemon]],
    until: Callable[..., Awaitable[None]],
    hand: SimBackend,
) -> None:
    """A card laid, CONFIRM, then a wrong card laid, all while the first frame is held on the bus: the LEDs and
    the commit follow at once; the panel catches up with the newest view when the bus lets go."""
    bus = HeldBus()
    text = (
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
    )
    daemon = Daemon(parse_config(text, "test"), pin_factory=mock_factory, display=make_device([], bus=bus))
    red, green = mock_factory.pin(PINS.zones["z1"].red), mock_factory.pin(PINS.zones["z1"].green)
    confirm = mock_factory.pin(PINS.buttons["confirm"])

    async def play() -> None:
        async with running(daemon):
            table, screen = daemon.table, daemon.screen
            assert table is not None and screen is not None
            await until(lambda: screen.idle)
            bus.gate.clear()
            hand.put("6O", "z1")
            await until(lambda: green.state == 1)  # pending: steady green
            await until(bus.waiting.is_set)  # and that view's frame is on the bus, held
            confirm.drive_low()
            await asyncio.sleep(0.08)
            confirm.drive_high()
            await until(lambda: len(table.referee.game.actions) == 1 and green.state == 0)
            hand.take("6O")
            hand.put("1C", "z1")
            await until(lambda: table.referee.view().zone_lights.get("z1") is ZoneLight.ILLEGAL and red.state == 1)
            assert bus.waiting.is_set()  # all of it while the first frame was still held on the bus
            bus.gate.set()
            await until(lambda: screen.idle)
            assert same(bus, table.referee.view())

    asyncio.run(play())
