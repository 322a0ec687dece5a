"""The simulated bench: every reader by its SPI address, and the modeled clock they all share."""

from __future__ import annotations

from dataclasses import dataclass

from companion.sim.chip import Mfrc522

# What one SPI transaction costs the host besides its bytes on the bus: the call into the SPI layer, the system
# call or the driver's set-up, chip select. A Python ``spidev`` ``xfer2`` of a few bytes takes about 25 us on a
# Raspberry Pi 4 and 60 us on a Pi Zero 2 W. The Pico's is measured on MicroPython's real rp2 port in an emulated
# RP2040 calibrated to a 125 MHz Pico (``python -m bench hub --emulator``): the driver's 2-byte register read
# through ``machine_transfer`` takes 210 to 230 us besides its bytes. The driver's work between its transactions
# is not charged apart: an empty zone's poll, whose bytes are made once (RC522.wupa), adds little to it, a new
# tag's scan (CRC_A, parsing, six frames) about 0.4 ms a transaction. 270 us a transaction, the two's middle, keeps
# the model's scans within x 1.4 of the port's either way; the bench checks that the model counts the port's
# transactions and stays within x 1.6 of its times (docs/NFC.md, "Per-call cost and figures").
CALL_COST_S = {"pi4": 25e-6, "zero2w": 60e-6, "pico": 270e-6}
# The hub's RP2040 clocks the transactions of an exchange in one call of native code (firmware/spi_rp2.py): the
# call, with the driver's Python around it, and then each transaction in it, besides its bytes. Measured on the
# calibrated port as the rest (python -m bench hub --emulator fits them).
NATIVE_SEQUENCE_S = (250e-6, 5e-6)
PI_PLATFORMS = ("pi4", "zero2w")


@dataclass
class Clock:
    """Modeled hardware time: advanced by SPI bytes at the bus speed and by each transaction's host cost (the
    ``spidev`` face costs ``spidev_call_s`` a call, the ``machine`` face ``machine_call_s``); RF and timer events
    are read against it. ``transactions`` counts chip-select periods."""

    now_s: float = 0.0
    spi_bytes: int = 0
    transactions: int = 0
    spidev_call_s: float = CALL_COST_S["pi4"]
    machine_call_s: float = CALL_COST_S["pico"]

    def platform(self, name: str) -> None:
        """Charge the ``spidev`` face what a call costs on a Pi (``pi4``, ``zero2w``), or the ``machine`` face
        what it costs on the hub (``pico``)."""
        if name not in CALL_COST_S:
            raise ValueError(f"platform {name!r}: use one of {', '.join(CALL_COST_S)}")
        if name in PI_PLATFORMS:
            self.spidev_call_s = CALL_COST_S[name]
        else:
            self.machine_call_s = CALL_COST_S[name]

    def reset(self) -> None:
        self.now_s = 0.0
        self.spi_bytes = 0
        self.transactions = 0
        self.spidev_call_s = CALL_COST_S["pi4"]
        self.machine_call_s = CALL_COST_S["pico"]


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

    def clock_bytes(self, chip: Mfrc522, mosi: bytes, speed_hz: int, call_s: float) -> bytes:
        """Shift ``mosi`` through a selected chip at ``speed_hz`` after ``call_s`` of host time, advancing the
        modeled clock by both: the chip sees the bytes once the host has paid for the call."""
        if speed_hz <= 0:
            raise ValueError(f"SPI speed {speed_hz} Hz: set max_speed_hz (the MFRC522 takes up to 10 MHz)")
        duration = 8 * len(mosi) / speed_hz
        selected_at = self.clock.now_s + call_s
        self.clock.now_s = selected_at + duration
        self.clock.spi_bytes += len(mosi)
        self.clock.transactions += 1
        chip.transactions += 1
        chip.spi_bytes += len(mosi)
        if chip.starting(selected_at):
            chip.ignored += 1
            return bytes(len(mosi))  # the oscillator is not up: the chip hears nothing, MISO stays low
        return bytes(chip.clock(byte) for byte in mosi)

    def reset(self) -> None:
        for chip in self.readers.values():
            chip.field.clear()
        self.readers.clear()
        self.missing.clear()
        self.clock.reset()


WORLD = World()
