"""MicroPython's ``machine.SPI`` and a chip-select ``machine.Pin``, over simulated MFRC522 readers.

The hub firmware's scan loop runs in CPython against these: ``SPI(bus)`` is one SPI bus, ``Pin(bus, device)``
the chip-select line of the reader at that address (active low, as wired on the boards). A transfer reaches
the reader whose chip select is low; the chip sees one transaction from the falling to the rising edge.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.nfc.rc522 import transactions
from companion.sim.chip import Mfrc522
from companion.sim.world import NATIVE_SEQUENCE_S, WORLD

__all__ = ["SPI", "Pin", "sequence"]

_SELECTED: dict[int, set[int]] = {}


class Pin:
    """A chip-select output: ``value(0)`` selects the reader at ``(bus, device)``."""

    OUT = 1
    IN = 0

    def __init__(self, bus: int, device: int, mode: int = 1, value: int = 1) -> None:
        self.bus = bus
        self.device = device
        self._value = 1
        self.value(value)

    def init(self, mode: int = 1, value: int | None = None) -> None:
        if value is not None:
            self.value(value)

    def value(self, value: int | None = None) -> int:
        if value is None:
            return self._value
        level = 1 if value else 0
        selected = _SELECTED.setdefault(self.bus, set())
        if level == 0 and self._value == 1:
            selected.add(self.device)
            WORLD.reader(self.bus, self.device).select()
        elif level == 1:
            selected.discard(self.device)
        self._value = level
        return level

    def __call__(self, value: int | None = None) -> int:
        return self.value(value)

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)


class SPI:
    """``machine.SPI(bus, baudrate=...)``: bytes go to the reader whose chip select is low."""

    def __init__(self, bus: int = 0, baudrate: int = 4_000_000, **settings: object) -> None:
        self.bus = bus
        self.baudrate = baudrate

    def init(self, baudrate: int | None = None, **settings: object) -> None:
        if baudrate is not None:
            self.baudrate = baudrate

    def deinit(self) -> None:
        pass

    def _chip(self) -> Mfrc522 | None:
        selected = _SELECTED.get(self.bus, set())
        if len(selected) > 1:
            raise OSError(f"SPI bus {self.bus}: chip selects {sorted(selected)} are all low at once")
        return WORLD.reader(self.bus, next(iter(selected))) if selected else None

    def _shift(self, mosi: bytes, call_s: float | None = None) -> bytes:
        """``mosi`` through the selected chip, after ``call_s`` of the host's time (a Python call by default)."""
        cost = WORLD.clock.machine_call_s if call_s is None else call_s
        chip = self._chip()
        if chip is None:
            WORLD.clock.now_s += cost + 8 * len(mosi) / self.baudrate
            return bytes(len(mosi))  # nobody selected: MISO floats low
        return WORLD.clock_bytes(chip, mosi, self.baudrate, cost)

    def write_readinto(self, write_buf: bytes | bytearray | memoryview, read_buf: bytearray | memoryview) -> None:
        read_buf[:] = self._shift(bytes(write_buf))

    def write(self, buf: bytes | bytearray | memoryview) -> None:
        self._shift(bytes(buf))

    def read(self, nbytes: int, write: int = 0) -> bytes:
        return self._shift(bytes((write,)) * nbytes)

    def readinto(self, buf: bytearray | memoryview, write: int = 0) -> None:
        buf[:] = self._shift(bytes((write,)) * len(buf))


def reset() -> None:
    _SELECTED.clear()


def sequence(spi: SPI, cs: Pin) -> Callable[[bytes, bytearray], None]:
    """The hub's native ``sequence`` (firmware/spi_rp2.py) on the model: a script's transactions (``rc522.script``)
    each in its own chip-select period, their answers one after the other in ``out``; the call costs the host
    ``NATIVE_SEQUENCE_S[0]`` and each transaction in it ``NATIVE_SEQUENCE_S[1]`` besides its bytes."""
    call_s, each_s = NATIVE_SEQUENCE_S

    def run(steps: bytes, out: bytearray) -> None:
        at = 0
        for n, data in enumerate(transactions(steps)):
            cs.value(0)
            try:
                answer = spi._shift(data, each_s if n else call_s)
            finally:
                cs.value(1)
            out[at : at + len(data)] = answer
            at += len(data)

    return run
