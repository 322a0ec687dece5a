"""Readers on the simulated bench, and the public ``mfrc522`` package off a Pi."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator

import pytest

import companion.sim as sim
from companion.nfc.backends import SPI_HZ
from companion.nfc.rc522 import RC522, spidev_transfer
from companion.sim.pi import pi_modules


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
def fake_pi() -> Iterator[Callable[[], types.ModuleType]]:
    """Make ``import mfrc522`` work off a Pi (``spidev`` is the simulator, ``RPi.GPIO`` a stand-in for the reset
    pin); ``sys.modules`` is restored after the test."""
    with pi_modules():

        def load() -> types.ModuleType:
            import mfrc522

            return mfrc522

        yield load
