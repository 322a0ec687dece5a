"""MicroPython's ``neopixel`` off the board: keeps what was last written to the chain."""


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.buffer = [(0, 0, 0)] * n
        self.shown = list(self.buffer)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, index, value):
        self.buffer[index] = tuple(value)

    def __getitem__(self, index):
        return self.buffer[index]

    def write(self):
        self.shown = list(self.buffer)
        self.writes += 1
