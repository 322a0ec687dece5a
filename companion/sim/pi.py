"""The Pi's own modules for drivers that import them at load time, off a Pi: ``spidev`` (the simulator) and a
stand-in ``RPi.GPIO`` that only keeps the pin states a driver sets (the MFRC522 reset line).

``with pi_modules(): import mfrc522`` loads the public package over them; ``sys.modules`` is restored after,
so the package is imported afresh the next time.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager

from companion.sim import spidev

_FORGET = ("mfrc522", "mfrc522.MFRC522", "mfrc522.SimpleMFRC522")


def rpi_gpio() -> types.ModuleType:
    """A fresh ``RPi.GPIO`` with the calls drivers make; ``levels`` keeps the pin states they set."""
    gpio = types.ModuleType("RPi.GPIO")
    mode: list[int | None] = [None]
    levels: dict[int, int] = {}

    def setmode(value: int) -> None:
        mode[0] = value

    def output(pin: int, value: int) -> None:
        levels[pin] = value

    vars(gpio).update(
        BOARD=10,
        BCM=11,
        OUT=0,
        IN=1,
        getmode=lambda: mode[0],
        setmode=setmode,
        setup=lambda pin, direction, **options: levels.setdefault(pin, 0),
        output=output,
        cleanup=lambda *pins: levels.clear(),
        levels=levels,
    )
    return gpio


@contextmanager
def pi_modules() -> Iterator[dict[str, types.ModuleType]]:
    gpio = rpi_gpio()
    rpi = types.ModuleType("RPi")
    vars(rpi)["GPIO"] = gpio
    fakes = {"RPi": rpi, "RPi.GPIO": gpio, "spidev": spidev}
    saved = {name: sys.modules.get(name) for name in (*fakes, *_FORGET)}
    for name in _FORGET:
        sys.modules.pop(name, None)
    sys.modules.update(fakes)
    try:
        yield fakes
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
