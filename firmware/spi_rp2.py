"""SPI transactions in native code on an RP2040: the hub's readers' ``sequence`` (``companion/nfc/rc522.py``).

On the Pico every Python step of a transaction costs more than its bytes on the bus: ``machine_transfer``'s
chip select, ``write_readinto`` and release take about 210 us calibrated for a 2-byte register read whose bytes
take 16 us at 1 MHz (docs/NFC.md, "Per-call cost and figures"). ``sequence`` clocks several transactions, each in
its own chip-select period, in one call of viper code that drives the SPI block and the chip select's pin through
their registers, as the pico-sdk's ``spi_write_read_blocking`` does (``hardware_spi/spi.c``): the transactions of a
poll cost one call, not six.

Viper is compiled for the board's processor (firmware/build.py: ``-march=armv6m``, the Cortex-M0+): only the
RP2040 runs this file. The same transactions, one call each, are ``rc522.in_turn`` everywhere else.
"""

# ptr8 and ptr32 are the viper emitter's own names, known to its stubs (typings/), not to ruff; MicroPython has no
# collections.abc:
# ruff: noqa: F821, UP035

import array

import micropython
from micropython import const

try:  # noqa: SIM105 (MicroPython has no contextlib; only mypy needs these)
    from typing import Any, Callable
except ImportError:
    pass

# RP2040 datasheet: 2.2.2 (address map), 4.4.4 (the PL022 SPI's registers), 2.3.1.7 (SIO's GPIO registers). The
# SIO's GPIO_OUT_SET is 0xD0000014 and GPIO_OUT_CLR the next word, spelled in _clock (a const is a small int).
_SPI_BASE = (0x4003C000, 0x40040000)  # SPI0, SPI1
_SSPDR = const(0x08)  # data: a write goes to the transmit FIFO, a read comes from the receive FIFO
_SSPSR = const(0x0C)  # status: TNF (bit 1) transmit FIFO not full, RNE (bit 2) receive FIFO not empty, BSY (bit 4)
_FIFO_DEPTH = const(8)  # both FIFOs: never more bytes in flight, or the receive FIFO overruns and a byte is lost


@micropython.viper
def _clock(script: ptr8, length: int, out: ptr8, chip: ptr32) -> int:
    """The transactions of ``script`` (``length`` bytes: each one's size in two bytes, little end first, then its
    bytes), each in a chip-select period of its own, their answers one after the other in ``out``; returns their
    length. ``chip``: the chip select's pin bit and the SPI block's base address."""
    cs = chip[0]
    status = ptr32(chip[1] + _SSPSR)
    data = ptr32(chip[1] + _SSPDR)
    sio = ptr32(0xD0000014)
    at = 0
    i = 0
    while i < length:
        size = script[i] | script[i + 1] << 8
        i += 2
        sio[1] = cs  # chip select low
        sent = 0
        got = 0
        while got < size:
            if sent < size and sent - got < _FIFO_DEPTH and status[0] & 2:
                data[0] = script[i + sent]
                sent += 1
            if status[0] & 4:
                out[at + got] = data[0]
                got += 1
        while status[0] & 0x10:  # the last bit shifted out before the chip select rises
            pass
        sio[0] = cs  # chip select high
        at += size
        i += size
    return at


def sequence(spi_id: int, cs: int) -> "Callable[[bytes, bytearray], None]":
    """``sequence(script, out)`` for the reader whose chip select is GPIO ``cs`` on SPI ``spi_id``, set up by
    ``machine.SPI`` and ``machine.Pin`` (hub_app.zone_readers)."""
    # The pin's bit and the block's address in one array, which viper reads as words: both are past a small int
    chip: Any = array.array("I", (1 << cs, _SPI_BASE[spi_id]))

    def run(script: Any, out: Any) -> None:  # buffers, which viper takes as ptr8
        _clock(script, len(script), out, chip)

    return run
