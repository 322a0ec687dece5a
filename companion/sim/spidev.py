"""A drop-in for the ``spidev`` module whose devices are simulated MFRC522 readers.

``sys.modules["spidev"] = companion.sim.spidev`` before a driver imports ``spidev``; then
``SpiDev().open(bus, device)`` reaches the reader ``companion.sim.field(bus, device)`` belongs to.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

from companion.sim.chip import Mfrc522
from companion.sim.world import WORLD

__all__ = ["SpiDev"]


class SpiDev:
    """The ``spidev.SpiDev`` interface over a simulated reader: one transfer is one chip-select period."""

    def __init__(self, bus: int | None = None, device: int | None = None) -> None:
        self.mode = 0
        self.bits_per_word = 8
        self.max_speed_hz = 500_000
        self.cshigh = False
        self.lsbfirst = False
        self.no_cs = False
        self.threewire = False
        self.loop = False
        self._chip: Mfrc522 | None = None
        self.spi_bytes = 0
        if bus is not None:
            self.open(bus, 0 if device is None else device)

    def open(self, bus: int, device: int) -> None:
        if bus < 0 or device < 0 or (bus, device) in WORLD.missing:
            # As py-spidev (spidev_module.c, SpiDev_open): PyErr_SetFromErrno after open() fails, so the message
            # names neither the bus nor the device.
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
        self._chip = WORLD.reader(bus, device)

    def close(self) -> None:
        self._chip = None

    def fileno(self) -> int:
        return -1 if self._chip is None else 3

    def _transfer(self, values: Sequence[int], speed_hz: int = 0) -> list[int]:
        if self._chip is None:
            raise OSError("SpiDev is not open: call open(bus, device) first")
        data = bytes(values)
        speed = speed_hz or self.max_speed_hz
        self._chip.select()
        miso = WORLD.clock_bytes(self._chip, data, speed, WORLD.clock.spidev_call_s)
        self.spi_bytes += len(data)
        return list(miso)

    def xfer(self, values: Sequence[int], speed_hz: int = 0, delay_usec: int = 0, bits_per_word: int = 0) -> list[int]:
        return self._transfer(values, speed_hz)

    def xfer2(self, values: Sequence[int], speed_hz: int = 0, delay_usec: int = 0, bits_per_word: int = 0) -> list[int]:
        return self._transfer(values, speed_hz)

    def xfer3(self, values: Sequence[int], speed_hz: int = 0, delay_usec: int = 0, bits_per_word: int = 0) -> list[int]:
        return self._transfer(values, speed_hz)

    def writebytes(self, values: Sequence[int]) -> None:
        self._transfer(values)

    def writebytes2(self, values: Sequence[int]) -> None:
        self._transfer(values)

    def readbytes(self, length: int) -> list[int]:
        return self._transfer(bytes(length))
