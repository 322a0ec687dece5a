"""Runs in the MicroPython VM and in CPython alike (``bench/nfc.py`` starts both): microseconds per call of
``machine_transfer`` over stand-in pins and SPI, and per loop that sets a pin high then low. Prints both."""

# ruff: noqa: UP031
import time
try:
    ticks, diff = time.ticks_us, time.ticks_diff
except AttributeError:
    ticks, diff = (lambda: int(time.perf_counter() * 1e6)), (lambda a, b: a - b)


class Pin:
    def __init__(self):
        self.level = 1

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v


class SPI:
    def write_readinto(self, w, r):
        pass


def machine_transfer(spi, cs):
    cs.value(1)

    def transfer(data):
        buf = bytearray(len(data))
        cs.value(0)
        try:
            spi.write_readinto(data, buf)
        finally:
            cs.value(1)
        return bytes(buf)

    return transfer


def toggle_loop(pin, n):
    for _ in range(n):
        pin.value(1)
        pin.value(0)


N = 20000
t = machine_transfer(SPI(), Pin())
frame = bytes((0x88,)) * 6
best_t = best_l = 1e9
for _ in range(5):
    a = ticks()
    for _ in range(N):
        t(frame)
    best_t = min(best_t, diff(ticks(), a) / N)
    a = ticks()
    toggle_loop(Pin(), N)
    best_l = min(best_l, diff(ticks(), a) / N)
print("%.3f %.3f" % (best_t, best_l))
