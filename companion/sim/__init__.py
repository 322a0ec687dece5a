"""Simulated NFC hardware: MFRC522 readers on SPI buses and ISO/IEC 14443-3 type A tags in their fields.

Point any MFRC522 driver at it the same way, unchanged:

* ``companion.sim.spidev`` is a drop-in for the ``spidev`` module. ``sys.modules["spidev"] = companion.sim.spidev``
  (tests only), then ``spidev.SpiDev().open(bus, device)`` talks to the simulated reader at that address; every
  address has a reader until ``unplug(bus, device)`` takes it away (it then reads as all zeros);
  ``no_device(bus, device)`` removes the device node itself (``open`` fails as spidev's does).
* ``companion.sim.machine`` is MicroPython's ``machine.SPI`` and a chip-select ``machine.Pin`` for the hub
  firmware: ``machine_spi(bus)`` and ``machine_pin(bus, device)``; drive the pin low around each transaction
  (``companion.nfc.rc522.machine_transfer(spi, pin)`` does). Firmware written for ``machine`` runs in CPython with
  ``sys.modules["machine"] = companion.sim.machine``, its ``Pin(bus, device)`` standing for the chip-select pin.
* ``companion.sim.pi.pi_modules()`` (a context manager) also puts a stand-in ``RPi.GPIO`` in place, for drivers
  such as the public ``mfrc522`` package that import it at load time; ``sys.modules`` is restored after.
* ``field(bus, device)`` is that reader's RF field: ``add(tag)``, ``remove(tag)``, ``clear()`` and ``noise(n)``
  (the next n receive windows get a burst of interference).
* Tags: ``Ntag213(uid)`` (7-byte UID, 45 pages; ``memory``, ``page(n)``), ``MifareClassic1K(uid)`` (4-byte UID,
  transport keys) and ``Tag(uid, atqa=..., sak=...)`` for any 4-, 7- or 10-byte UID; ``uid`` is bytes or hex text.
  Each tag's ``state`` is IDLE, READY, ACTIVE or HALT. Faults on demand: ``tag.drop_next(n)`` (answers lost),
  ``tag.garble_next(n, crc_only=False)`` (a flipped bit), ``tag.answer_one_in(n)`` (edge of range).
* ``clock`` is the modeled time every reader shares: ``clock.now_s``, ``clock.spi_bytes``,
  ``clock.transactions``. SPI bytes cost ``8 / max_speed_hz`` seconds, and each transaction first costs the host
  its call: ``clock.platform("pi4" | "zero2w")`` for the ``spidev`` face (25 or 60 us, Pi 4 by default),
  ``clock.platform("pico")`` for the ``machine`` face (270 us, measured: docs/NFC.md);
  ``machine_sequence(bus, device)`` is the hub's native ``sequence`` (firmware/spi_rp2.py), each script a call
  (250 us) and 5 us a transaction in it.
  Frames, tag answers and the chip's timer run against the same clock, so a figure taken from it is hardware time,
  whatever machine runs
  the simulation; ``wait(seconds)`` lets time pass with nobody on the bus. ``reader(bus, device)`` is the chip
  itself (``spi_bytes``, ``transactions``, ``ignored``, ``regs``, ``power_on()``) for tests that look inside:
  after ``power_on()``, a hard reset or soft power-down it ignores SPI until its oscillator runs (chip.py says
  why).
* ``companion.sim.oled.FakeI2CBus`` is the OLED's I2C bus, for luma's drivers: it decodes the bytes they send back
  into the picture the panel would show (imported on its own: it loads Pillow, which the readers' simulation
  does not need).
* ``reset()`` empties the whole bench: readers, fields, clock. Call it between tests.

Example::

    import sys, companion.sim as sim
    sys.modules["spidev"] = sim.spidev
    sim.field(0, 0).add(sim.Ntag213("04A1B2C3D4E5F6"))
    from companion.nfc.rc522 import RC522, spidev_transfer
    dev = sim.spidev.SpiDev(); dev.open(0, 0); dev.max_speed_hz = 4_000_000
    reader = RC522(spidev_transfer(dev)); reader.init()
    reader.scan()   # [b'\\x04\\xa1\\xb2\\xc3\\xd4\\xe5\\xf6']
"""

from __future__ import annotations

from collections.abc import Callable

from companion.sim import machine, spidev
from companion.sim.chip import Mfrc522
from companion.sim.rf import Field
from companion.sim.tags import Iso14443aTag as Tag
from companion.sim.tags import MifareClassic1K, Ntag213, State
from companion.sim.world import WORLD, Clock

__all__ = [
    "Clock",
    "Field",
    "Mfrc522",
    "MifareClassic1K",
    "Ntag213",
    "State",
    "Tag",
    "clock",
    "field",
    "machine",
    "machine_pin",
    "machine_spi",
    "no_device",
    "reader",
    "reset",
    "spidev",
    "unplug",
    "wait",
]

clock: Clock = WORLD.clock


def reader(bus: int, device: int) -> Mfrc522:
    """The simulated MFRC522 at ``(bus, device)``."""
    return WORLD.reader(bus, device)


def field(bus: int, device: int) -> Field:
    """The RF field of the reader at ``(bus, device)``: put tags in it and take them out."""
    return WORLD.reader(bus, device).field


def unplug(bus: int, device: int) -> None:
    """No chip answers at ``(bus, device)`` any more: a loose wire, a dead board."""
    WORLD.reader(bus, device).unplugged = True


def no_device(bus: int, device: int) -> None:
    """The kernel has no ``/dev/spidev{bus}.{device}`` (SPI not enabled, no overlay for that chip select):
    opening it fails as spidev does, with ``FileNotFoundError``."""
    WORLD.missing.add((bus, device))


def machine_spi(bus: int = 0, baudrate: int = 4_000_000) -> machine.SPI:
    return machine.SPI(bus, baudrate=baudrate)


def machine_pin(bus: int, device: int) -> machine.Pin:
    return machine.Pin(bus, device)


def machine_sequence(bus: int, device: int, baudrate: int = 4_000_000) -> Callable[[bytes, bytearray], None]:
    """The hub's native ``sequence`` (firmware/spi_rp2.py) for the reader at ``(bus, device)``, on the model."""
    return machine.sequence(machine.SPI(bus, baudrate=baudrate), machine.Pin(bus, device))


def wait(seconds: float) -> None:
    """Let modeled time pass with nobody on the bus: frames on air end, tags hear them, timers fire."""
    WORLD.clock.now_s += seconds
    for chip in WORLD.readers.values():
        chip.catch_up()


def reset() -> None:
    WORLD.reset()
    machine.reset()
