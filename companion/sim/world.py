"""The simulated bench: every reader by its SPI address, and the modeled clock they all share."""

from __future__ import annotations

from dataclasses import dataclass

from companion.sim.chip import Mfrc522


@dataclass
class Clock:
    """Modeled hardware time: advanced by SPI bytes at the bus speed; RF and timer events are read against it."""

    now_s: float = 0.0
    spi_bytes: int = 0

    def reset(self) -> None:
        self.now_s = 0.0
        self.spi_bytes = 0


class World:
    def __init__(self) -> None:
        self.clock = Clock()
        self.readers: dict[tuple[int, int], Mfrc522] = {}
        self.missing: set[tuple[int, int]] = set()  # no /dev/spidevB.D: SPI off, or no overlay for that CE

    def reader(self, bus: int, device: int) -> Mfrc522:
        """The reader wired to ``bus`` with chip select ``device``; a fresh one (field off) the first time."""
        key = (bus, device)
        if key not in self.readers:
            self.readers[key] = Mfrc522(lambda: self.clock.now_s)
        return self.readers[key]

    def clock_bytes(self, chip: Mfrc522, mosi: bytes, speed_hz: int) -> bytes:
        """Shift ``mosi`` through a selected chip at ``speed_hz``, advancing the modeled clock."""
        if speed_hz <= 0:
            raise ValueError(f"SPI speed {speed_hz} Hz: set max_speed_hz (the MFRC522 takes up to 10 MHz)")
        duration = 8 * len(mosi) / speed_hz
        self.clock.now_s += duration
        self.clock.spi_bytes += len(mosi)
        chip.spi_bytes += len(mosi)
        chip.spi_time_s += duration
        return bytes(chip.clock(byte) for byte in mosi)

    def reset(self) -> None:
        for chip in self.readers.values():
            chip.field.clear()
        self.readers.clear()
        self.missing.clear()
        self.clock.reset()


WORLD = World()
