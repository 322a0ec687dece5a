"""Readers and tags on the simulated bench, reset around every test."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator

import pytest

import companion.sim as sim
from companion.nfc.rc522 import RC522, spidev_transfer

SPI_HZ = 4_000_000


@pytest.fixture(autouse=True)
def bench() -> Iterator[None]:
    sim.reset()
    yield
    sim.reset()


def open_reader(bus: int = 0, device: int = 0, **options: float) -> RC522:
    dev = sim.spidev.SpiDev()
    dev.open(bus, device)
    dev.max_speed_hz = SPI_HZ
    reader = RC522(spidev_transfer(dev), **options)  # type: ignore[arg-type]
    reader.init()
    return reader


@pytest.fixture
def reader() -> RC522:
    return open_reader()


@pytest.fixture
def reader_at() -> Callable[..., RC522]:
    """``reader_at(bus, device, **options)``: another initialised reader on the bench."""
    return open_reader


@pytest.fixture
def fake_pi(monkeypatch: pytest.MonkeyPatch) -> Callable[[], types.ModuleType]:
    """Make ``import mfrc522`` work off a Pi: ``spidev`` is the simulator, ``RPi.GPIO`` a do-nothing stand-in
    for the reset pin. ``sys.modules`` is restored after the test."""

    def install() -> types.ModuleType:
        gpio = types.ModuleType("RPi.GPIO")
        mode: list[int | None] = [None]
        gpio.BOARD, gpio.BCM, gpio.OUT = 10, 11, 0  # type: ignore[attr-defined]
        gpio.getmode = lambda: mode[0]  # type: ignore[attr-defined]
        gpio.setmode = lambda m: mode.__setitem__(0, m)  # type: ignore[attr-defined]
        gpio.setup = gpio.output = gpio.cleanup = lambda *args, **kwargs: None  # type: ignore[attr-defined]
        rpi = types.ModuleType("RPi")
        rpi.GPIO = gpio  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "RPi", rpi)
        monkeypatch.setitem(sys.modules, "RPi.GPIO", gpio)
        monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
        for name in ("mfrc522", "mfrc522.MFRC522", "mfrc522.SimpleMFRC522"):
            # Recorded, then removed, so that the package imports afresh over the fakes and is forgotten after.
            monkeypatch.setitem(sys.modules, name, None)
            del sys.modules[name]
        import mfrc522

        return mfrc522

    return install
