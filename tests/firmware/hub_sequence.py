"""Runs on the emulated Pico as its ``main.py`` (``test_rp2040.py``): firmware/spi_rp2.py's native ``sequence``
beside the driver's ``in_turn`` (a Python call a transaction), the same script on the same reader.

The script flushes the MFRC522's FIFO, writes 20 bytes into it in one transaction and reads its level and the 20
bytes back in another: longer than the RP2040's 8-byte SPI FIFOs either way. After each run it prints what the
answers were (``native HEX``, ``in turn HEX``) and waits for the host's line, in which the host counts the
transactions the readers saw. ``ready`` comes before the first, ``done`` at the end. MicroPython only.
"""

# MicroPython has no str.format mini-language everywhere:
# ruff: noqa: UP031

import sys

import hub_config  # type: ignore[import-not-found]  # the board's
from hub_app import native_sequence, zone_readers  # type: ignore[import-not-found]
from rc522 import in_turn, script  # type: ignore[import-not-found]

_FIFO_DATA = 0x09
_FIFO_LEVEL = 0x0A
DATA = bytes(range(0xA0, 0xB4))
STEPS = script(
    bytes((_FIFO_LEVEL << 1, 0x80)),  # FlushBuffer
    bytes((_FIFO_DATA << 1,)) + DATA,
    bytes((0x80 | _FIFO_LEVEL << 1,)) + bytes((0x80 | _FIFO_DATA << 1,)) * len(DATA) + b"\x00",
)
ANSWERED = 2 + (1 + len(DATA)) + (2 + len(DATA))  # the three transactions' bytes


def ask(what: str) -> None:
    print(what)
    sys.stdin.readline()


def main() -> None:
    reader = zone_readers(hub_config)[0]
    reader.init()
    native = native_sequence(hub_config.SPI_ID, hub_config.CHIP_SELECTS[0])
    if native is None:
        print("no native sequence on this board")
        return
    ask("ready")
    for name, sequence in (("native", native), ("in turn", in_turn(reader._transfer))):
        out = bytearray(ANSWERED)
        sequence(STEPS, out)
        ask("%s %s" % (name, bytes(out[:ANSWERED]).hex()))
    print("done")


main()
