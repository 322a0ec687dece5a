"""Runs in the MicroPython VM and in CPython alike (``bench/nfc.py`` starts both): microseconds per call of the
driver's ``machine_transfer`` over stand-in pins and SPI, and per loop that sets a pin high then low. Prints
both."""

# MicroPython has no str.format mini-language everywhere:
# ruff: noqa: UP031

import time

try:
    from rc522 import machine_transfer  # type: ignore[import-not-found]  # in the VM: the firmware's copy
except ImportError:
    from companion.nfc.rc522 import machine_transfer

_ticks_us = getattr(time, "ticks_us", None)


def now_us() -> float:
    return float(_ticks_us()) if _ticks_us is not None else time.perf_counter() * 1e6


class Pin:
    def __init__(self) -> None:
        self.level = 1

    def value(self, level: int) -> None:
        self.level = level

    def on(self) -> None:
        self.level = 1

    def off(self) -> None:
        self.level = 0


class SPI:
    def write_readinto(self, out: bytes, into: bytearray) -> None:
        pass


def per_call_us(calls: int = 20000) -> tuple[float, float]:
    transfer = machine_transfer(SPI(), Pin())
    pin = Pin()
    frame = bytes((0x88,)) * 6
    best_transfer = best_loop = 1e9
    for _ in range(5):
        start = now_us()
        for _ in range(calls):
            transfer(frame)
        best_transfer = min(best_transfer, (now_us() - start) / calls)
        start = now_us()
        for _ in range(calls):
            pin.value(1)
            pin.value(0)
        best_loop = min(best_loop, (now_us() - start) / calls)
    return best_transfer, best_loop


print("%.3f %.3f" % per_call_us())
