"""Runs on the hub's Pico as its ``main.py`` (``bench/hub_emulator.py`` puts it on the emulated Pico, beside the
firmware's own modules): the firmware's readers and scanner, and the pin on/off loop of the published Pico
figure, timed with the chip's microsecond timer.

It reads a count from the host's first line, then prints ``figure NAME MICROSECONDS`` lines, and ``lay`` when it
wants an NTAG213 laid on zone 0's reader (``lift`` when it wants it gone), waiting each time for the host's line.
Around one run of each scan it prints ``count NAME`` and ``counted NAME`` and waits for the host's line: the host
counts the SPI transactions between the two. ``done`` ends it. MicroPython only: there is no ``machine`` elsewhere.
"""

# MicroPython has no str.format mini-language everywhere:
# ruff: noqa: UP031

import sys
import time

import hub_config  # type: ignore[import-not-found]  # the board's
import machine  # type: ignore[import-not-found]
from hub_app import native_sequence, zone_readers  # type: ignore[import-not-found]
from rc522 import script  # type: ignore[import-not-found]
from scanner import Scanner  # type: ignore[import-not-found]

LOOP_PIN = 10  # free on the hub (firmware/hub_config.py)
TRIES = 3  # the best of these many runs of each timing
ticks_us = time.ticks_us  # type: ignore[attr-defined]  # MicroPython's
ticks_diff = time.ticks_diff  # type: ignore[attr-defined]


def figure(name: str, micros: float) -> None:
    print("figure %s %.1f" % (name, micros))


def ask(what: str) -> None:
    print(what)
    sys.stdin.readline()


def pin_loop_us(count: int) -> float:
    """The published loop: a pin set high then low, ``count`` times (as ``bench/pico_call.py`` times it)."""
    pin = machine.Pin(LOOP_PIN, machine.Pin.OUT)
    best = 1 << 30
    for _ in range(TRIES):
        start = ticks_us()
        for _ in range(count):
            pin.value(1)
            pin.value(0)
        best = min(best, ticks_diff(ticks_us(), start))
    return best / count


def counted(name: str, action: object) -> None:
    """One run of ``action`` between two pauses, in which the host reads its count of SPI transactions."""
    ask("count " + name)
    action()  # type: ignore[operator]
    ask("counted " + name)


def best_us(action: object, count: int) -> float:
    best = 1 << 30
    for _ in range(TRIES):
        start = ticks_us()
        for _ in range(count):
            action()  # type: ignore[operator]
        best = min(best, ticks_diff(ticks_us(), start))
    return best / count


def main() -> None:
    count = int(sys.stdin.readline())
    figure("loop", pin_loop_us(count * 50))
    readers = zone_readers(hub_config)
    scanner = Scanner(readers, hub_config.LIFT_SCANS)
    scanner.start()
    first = readers[0]
    figure("register", best_us(first.version, count * 10))
    # The same read as one exchange in native code (firmware/spi_rp2.py), as the scans' exchanges go
    run = native_sequence(hub_config.SPI_ID, hub_config.CHIP_SELECTS[0])
    steps, out = script(bytes((0x80 | 0x37 << 1, 0))), bytearray(2)

    def exchange() -> None:
        run(steps, out)

    figure("exchange", best_us(exchange, count * 10))
    first.scan()
    counted("empty", first.scan)
    figure("empty", best_us(first.scan, count))

    def every_zone() -> None:
        for zone in range(len(readers)):
            scanner.scan_zone(zone)

    every_zone()  # every reader scanned once (armed), as in the rounds timed below
    counted("round", every_zone)
    figure("round", best_us(every_zone, count))
    ask("lay")
    counted("new", first.scan)
    ask("lift")
    first.scan()
    new = 1 << 30
    for _ in range(count):
        ask("lay")
        start = ticks_us()
        first.scan()
        new = min(new, ticks_diff(ticks_us(), start))
        ask("lift")
        first.scan()  # the lone tag is forgotten after a poll without it
    figure("new", new)
    print("done")


main()
