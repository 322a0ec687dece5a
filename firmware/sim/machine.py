"""MicroPython's ``machine`` for the hub firmware off the board: in CPython, and in the MicroPython VM under Node.

The pins and the SPI bus are real objects that check what the firmware asks of them (a GPIO the Pico does not
have raises ``ValueError`` as on the board); what they drive is attached by the harness with ``attach()``: an
SPI target with ``write_readinto`` and, per chip-select GPIO, a pin target with ``value`` (in CPython the
register-level simulator's ``companion.sim.machine_spi`` and ``machine_pin``; in the VM a recorded transcript).
"""

_GPIOS = tuple(range(30))  # GP0-GP29 exist on the chip; the header has fewer, which hub_config checks
_targets = {}
_spi_target = None
_held = {}  # GPIO -> the level something outside drives on it
pins = {}  # GPIO -> the Pin made for it, for tests to look at
watchdogs = []
resets = []


class Reset(BaseException):
    """``reset()`` off the board: the board would start again from main.py; the harness catches this."""


def attach(spi_target, pin_targets):
    """Route SPI transfers to ``spi_target`` and each chip-select GPIO in ``pin_targets`` to its target."""
    global _spi_target
    _spi_target = spi_target
    _targets.clear()
    _targets.update(pin_targets)
    _held.clear()
    pins.clear()
    del watchdogs[:]
    del resets[:]


def hold(gpio, level):
    """Something outside drives ``gpio`` to ``level`` (a jumper to ground: 0); ``None`` lets it go."""
    if level is None:
        _held.pop(gpio, None)
    else:
        _held[gpio] = level


def reset():
    resets.append(len(watchdogs))
    raise Reset()


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if id not in _GPIOS:
            raise ValueError("invalid pin")
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 0
        self._target = _targets.get(id)
        pins[id] = self
        if value is not None:
            self.value(value)

    def value(self, value=None):
        if value is None:
            if self.mode == Pin.IN:  # what is held on it, else what its pull makes of a floating line
                return _held.get(self.id, 1 if self.pull == Pin.PULL_UP else 0)
            return self.level
        self.level = 1 if value else 0
        if self._target is not None:
            self._target.value(self.level)
        return self.level

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class SPI:
    def __init__(self, id, baudrate=1000000, sck=None, mosi=None, miso=None, **settings):
        if id not in (0, 1):
            raise ValueError("bad SPI ID")
        self.id = id
        self.baudrate = baudrate
        if _spi_target is not None and hasattr(_spi_target, "init"):
            _spi_target.init(baudrate=baudrate)  # the bus runs at the speed the firmware asks for, as on the Pico

    def write_readinto(self, write_buf, read_buf):
        if _spi_target is None:
            read_buf[:] = bytes(len(write_buf))  # nothing wired: MISO reads low
        else:
            _spi_target.write_readinto(write_buf, read_buf)


class WDT:
    """The hardware watchdog: counts its feeds so that a test can see the scan loop keeps it fed."""

    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("timeout exceeds 8388 ms on RP2040")
        self.timeout = timeout
        self.feeds = 0
        watchdogs.append(self)

    def feed(self):
        self.feeds += 1
