"""The ``micropython`` module off the board, for CPython (the MicroPython VM has its own)."""

interrupt_char = [3]


def const(value):
    return value


def kbd_intr(char):
    interrupt_char[0] = char
