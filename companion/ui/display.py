"""The OLED as the daemon drives it: a luma device built from luma's own options, redrawn only on a change.

On the table the device is an SSD1306 on I2C bus 1 at 0x3C (luma's defaults); any luma display works through
luma's command-line options (``--display sh1106``, ``--interface spi``...). In tests and the demo the real
ssd1306 driver talks to a :class:`FakeI2CBus`, which decodes the bytes it receives back into the picture a real
panel would show::

    >>> bus = FakeI2CBus()
    >>> screen = Screen(make_device([], bus=bus))
    >>> screen.show(TableView(), now=0.0), screen.show(TableView(), now=1.0)
    (True, False)
    >>> bus.frames
    2
"""

from __future__ import annotations

import argparse
import errno
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import luma.core.error
import luma.core.framebuffer
import luma.oled.device
from luma.core import cmdline
from luma.core.interface.serial import i2c
from luma.core.render import canvas
from PIL import Image

from companion.ui.screens import HEIGHT, WIDTH, draw_table
from companion.view import TableView

__all__ = [
    "CONTROLLERS",
    "FakeI2CBus",
    "Screen",
    "display_words",
    "draw_frame",
    "frame_to_text",
    "i2c_write_s",
    "make_device",
    "parse_options",
]

log = logging.getLogger(__name__)

BRIGHT, DIM = 0xCF, 0x08  # 0xCF is luma's own start-up contrast for the ssd1306
CLOSE_S = 2.0  # what close waits for the last frames: one full frame takes 0.1 s even at 100 kHz


class Screen:
    """The scoreboard on a luma device: draws a :class:`TableView` when it changes, dims when idle.

    ``dim_after_s`` seconds after the last change or :meth:`wake`, :meth:`tick` lowers the contrast; the next
    change or wake restores it. Time always comes in as an argument (the daemon's monotonic clock).

    With ``background``, a thread of the screen's own owns the device and sends the frames (the daemon's way: a
    full frame holds the I2C bus 92 ms at 100 kHz, 23 ms at 400 kHz, and a scan or a press must not wait for
    it). :meth:`show` then only hands the view over; a newer frame replaces one not yet sent, so the panel is
    never more than one frame behind. Without it (the demo and the tests, on a simulated clock) every call draws
    at once. :meth:`close` sends what is still waiting, then stops the thread.
    """

    def __init__(self, device: Any, *, dim_after_s: float = 120.0, background: bool = False) -> None:
        if device.width < WIDTH or device.height < HEIGHT:
            raise ValueError(
                f"the screens need a display of at least {WIDTH}x{HEIGHT} pixels, this one is "
                f"{device.width}x{device.height}: pick a larger display (luma option --width/--height)"
            )
        self.device = device
        self.dim_after_s = dim_after_s
        self._shown: TableView | None = None
        self._last_event = 0.0
        self._dimmed = False
        self._painter = _Painter(device) if background else None

    def show(self, view: TableView, now: float) -> bool:
        """Draw ``view`` unless it is the one on the screen; return whether a frame was sent (or, in the
        background, handed to the sender).

        The table calls it after every event, so it also wakes the screen, even when nothing on it changed.
        """
        self.wake(now)
        if view == self._shown:
            return False
        self._shown = view
        if self._painter is not None:
            self._painter.frame(view)
        else:
            draw_frame(self.device, view)
        return True

    def wake(self, now: float) -> None:
        """Something happened at the table: full brightness, and the idle time starts again."""
        self._last_event = now
        if self._dimmed:
            self._contrast(BRIGHT)
            self._dimmed = False

    def tick(self, now: float) -> None:
        """Dim the screen once it has been idle for ``dim_after_s`` seconds."""
        if not self._dimmed and now - self._last_event >= self.dim_after_s:
            self._contrast(DIM)
            self._dimmed = True

    @property
    def dimmed(self) -> bool:
        return self._dimmed

    @property
    def idle(self) -> bool:
        """Nothing waits to be sent and nothing is being sent: the panel shows the last view given."""
        return self._painter is None or self._painter.idle

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()

    def _contrast(self, level: int) -> None:
        if self._painter is not None:
            self._painter.contrast(level)
        else:
            self.device.contrast(level)


def draw_frame(device: Any, view: TableView) -> None:
    """One frame of ``view`` through the driver to the panel."""
    with canvas(device) as draw:
        draw_table(draw, view)


class _Painter:
    """The thread that owns the device in the background: at most one frame and one contrast waiting, the
    newest of each; the contrast goes first (a wake brightens the panel before the frame that woke it)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self._work = threading.Condition()
        self._frame: TableView | None = None
        self._contrast: int | None = None
        self._busy = False
        self._closing = False
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="screen", daemon=True)
        self._thread.start()

    def frame(self, view: TableView) -> None:
        with self._work:
            self._frame = view  # a frame not yet sent is replaced: only the newest matters
            self._work.notify()

    def contrast(self, level: int) -> None:
        with self._work:
            self._contrast = level
            self._work.notify()

    @property
    def idle(self) -> bool:
        with self._work:
            return not self._busy and self._frame is None and self._contrast is None

    def close(self) -> None:
        with self._work:
            self._closing = True
            self._work.notify()
        self._thread.join(timeout=CLOSE_S)

    def _run(self) -> None:
        while True:
            with self._work:
                while self._frame is None and self._contrast is None and not self._closing:
                    self._work.wait()
                frame, contrast = self._frame, self._contrast
                self._frame = self._contrast = None
                if frame is None and contrast is None:  # closing, and everything was sent
                    return
                self._busy = True
            try:
                if contrast is not None:
                    self.device.contrast(contrast)
                if frame is not None:
                    draw_frame(self.device, frame)
                self._failed = False
            except (OSError, luma.core.error.Error) as exc:  # the panel came loose: the table goes on without it
                if not self._failed:
                    log.error("the display stopped answering (%s); the table goes on, the next frame tries again", exc)
                self._failed = True
            finally:
                with self._work:
                    self._busy = False


def make_device(options: Sequence[str] | Mapping[str, object] = (), *, bus: Any = None) -> Any:
    """A luma device from luma's own display options, as a list (``["--display", "sh1106"]``) or a mapping
    (``{"display": "sh1106", "i2c_address": "0x3D"}``); no options give an SSD1306 on I2C bus 1 at 0x3C.

    ``bus`` replaces the I2C bus (any object with ``write_i2c_block_data``, e.g. :class:`FakeI2CBus`) for an
    OLED on the ``i2c`` interface; without it luma opens the real bus.
    """
    args = parse_options(options)
    if bus is None:
        return cmdline.create_device(args)
    oled_displays = cmdline.get_display_types().get("oled", [])
    if args.interface != "i2c" or args.display not in oled_displays:
        raise ValueError(
            f"a replacement bus fits an OLED on the i2c interface, not {args.display} on {args.interface}: "
            "drop the bus or the options"
        )
    modelled = getattr(bus, "controller", args.display)
    if modelled != args.display:
        raise ValueError(
            f"the bus models an {modelled} but the display options say {args.display}: "
            f"use FakeI2CBus(controller={args.display!r}) or --display {modelled}"
        )
    # luma's create_device always opens the real bus; this is its OLED branch with our bus passed in.
    framebuffer = getattr(luma.core.framebuffer, args.framebuffer)(num_segments=args.num_segments, debug=args.debug)
    device_class = getattr(luma.oled.device, args.display)
    serial = i2c(bus=bus, address=args.i2c_address)
    return device_class(serial_interface=serial, **dict(vars(args), framebuffer=framebuffer))


def display_words(options: Sequence[str] | Mapping[str, object]) -> list[str]:
    """Display options as luma's command line takes them; a mapping (the pin map's ``[oled]`` table) names each
    option by its key::

        >>> display_words({"display": "sh1106", "i2c_address": "0x3D"})
        ['--display', 'sh1106', '--i2c-address', '0x3D']
    """
    if not isinstance(options, Mapping):
        return list(options)
    words: list[str] = []
    for key, value in options.items():
        words += [f"--{key.replace('_', '-')}", str(value)]
    return words


def parse_options(options: Sequence[str] | Mapping[str, object]) -> argparse.Namespace:
    words = display_words(options)
    parser = cmdline.create_parser(
        "companion display",
        parser=argparse.ArgumentParser(prog="display", exit_on_error=False, add_help=False),
        autocomplete=False,
    )
    # luma's own default is the first display it knows, which is the ssd1305 since luma.oled 3.15.
    parser.set_defaults(display="ssd1306")
    try:
        args: argparse.Namespace
        args, unknown = parser.parse_known_args(words)
    except argparse.ArgumentError as exc:
        raise ValueError(f"display options {words}: {exc}; see luma's --help for the choices") from None
    if unknown:
        raise ValueError(
            f"display options {words}: luma has no option {unknown[0]!r}; use luma.core.cmdline's options, "
            "e.g. --display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C"
        )
    return args


# Each controller's commands and how many argument bytes follow each; every other byte of its command table
# takes none. A byte outside the table raises, so a driver that starts sending something new is noticed.
_SSD1306_ARGUMENTS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0x8D: 1, 0xDA: 1, 0xD9: 1, 0xDB: 1}
_SSD1306_SINGLE = {0xAE, 0xAF, 0xA0, 0xA1, 0xC0, 0xC8, 0xA4, 0xA5, 0xA6, 0xA7, 0x2E} | set(range(0x40, 0x80))
# SH1106 (Sino Wealth SH1106 datasheet, "Commands" table): column address in two nibbles (0x00-0x0F low,
# 0x10-0x1F high), page address 0xB0-0xB7, and no addressing modes: the column pointer moves along one page only.
_SH1106_ARGUMENTS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
_SH1106_SINGLE = (set(range(0x00, 0x20)) | set(range(0x30, 0x34)) | set(range(0x40, 0x80)) | set(range(0xB0, 0xB8))) | {
    0xA0,
    0xA1,
    0xA4,
    0xA5,
    0xA6,
    0xA7,
    0xAE,
    0xAF,
    0xC0,
    0xC8,
    0xE0,
    0xE3,
    0xEE,
}
# luma's sh1106 start-up sequence keeps two SSD1306 commands the SH1106 lacks: 0x20 (memory mode) and 0x8D
# (charge pump). The model lets them pass as bytes without meaning; the bytes after them are read as commands
# of their own (0x10, 0x14: the column's high nibble), which every page of a frame sets again.
_SH1106_FOREIGN = {0x20, 0x8D}
# The SH1106's RAM is 132 columns wide; a 128-pixel panel shows columns 2 to 129. luma's sh1106.display() starts
# every page at column 2 (rm-hull/luma.oled, luma/oled/device/__init__.py: `self.command(set_page_address,
# 0x02, 0x10)`, the 2 made the `page_address_offset` argument in later versions).
_SH1106_RAM_COLUMNS, _SH1106_FIRST_SHOWN = 132, 2
_CONTROL_COMMAND, _CONTROL_DATA = 0x00, 0x40
# The controllers FakeI2CBus models, by luma's display name. luma's ssd1309 class is its ssd1306 class (no code
# of its own: `class ssd1309(ssd1306)`), so it sends the SSD1306's bytes, whose addressing commands the SSD1309
# keeps (0x20 memory mode, 0x21 column window, 0x22 page window).
CONTROLLERS = ("ssd1306", "ssd1309", "sh1106")


def i2c_write_s(data_bytes: int, hz: int) -> float:
    """Seconds one I2C write of ``data_bytes`` after the control byte holds the bus at ``hz``: every byte, the
    address and the control byte included, is 8 clocks and an acknowledge clock, plus a START and a STOP
    (NXP UM10204, the I2C-bus specification, 3.1.5-3.1.6). A full SSD1306 frame as luma sends it on the Pi
    (one 1,024-byte message through smbus2's i2c_rdwr) is 92.4 ms at 100 kHz, 23.1 ms at 400 kHz."""
    return (9 * (2 + data_bytes) + 2) / hz


class FakeI2CBus:
    """An I2C bus with an OLED controller at ``address``: the panel's memory, filled by the driver's real bytes.

    ``controller`` is luma's name for the chip (:data:`CONTROLLERS`): the SSD1306 of the 0.96" panels, the
    SSD1309 of the 2.42" ones, the SH1106 of the 1.3" ones. It models what the picture depends on: contrast,
    display on/off, and the chip's addressing. The SSD1306 and SSD1309 write horizontally inside the column and
    page window set by the driver, and a frame is complete each time the write pointer wraps past the end of the
    window. The SH1106 writes along one page from the column set by the driver, into a RAM 132 columns wide of
    which the panel shows columns 2 to 129; a frame is complete when a panel's width of bytes has been written
    to the last page. ``frames`` counts complete frames and :meth:`last_image` decodes the last one. A write to another
    address fails as on a real bus (``OSError`` EREMOTEIO), and a command the model does not know raises
    ``ValueError``.

    Every write costs the bus time :func:`i2c_write_s` gives at ``hz`` (the Pi's default is 100 kHz; the table's
    config.txt sets 400 kHz): ``bus_s`` adds it up, and with ``realtime`` the write also takes that long, as the
    Pi's blocking ioctl does (the GIL is let go meanwhile). ``in_frame`` is true while a frame is half sent.
    (luma sends a replacement bus's data in 32-byte writes, each with its own address and control byte: a full
    frame costs 98 ms at 100 kHz here, against 92 ms in the one message luma sends on the Pi.)
    """

    def __init__(
        self,
        address: int = 0x3C,
        width: int = WIDTH,
        height: int = HEIGHT,
        *,
        controller: str = "ssd1306",
        hz: int = 400_000,
        realtime: bool = False,
    ) -> None:
        if controller not in CONTROLLERS:
            raise ValueError(f"FakeI2CBus models {', '.join(CONTROLLERS)}, not {controller!r}")
        self.address = address
        self.controller = controller
        self.hz, self.realtime = hz, realtime
        self.bus_s = 0.0
        self.width, self.height = width, height
        self._paged = controller == "sh1106"
        self._ram_width = _SH1106_RAM_COLUMNS if self._paged else width
        self._first_shown = _SH1106_FIRST_SHOWN if self._paged else 0
        self.ram = bytearray(self._ram_width * height // 8)
        self.frames = 0
        self.contrast = 0x80 if self._paged else 0x7F  # the chip's reset value
        self.display_on = False
        self._columns = (0, width - 1)
        self._pages = (0, height // 8 - 1)
        self._column, self._page = 0, 0
        self._last_frame: bytes | None = None
        self._partial = False  # data of a frame not yet complete has been written
        self._run = 0  # SH1106: bytes written since the page or column was last set; a page's width ends a frame

    def write_i2c_block_data(self, address: int, register: int, data: Sequence[int]) -> None:
        cost = i2c_write_s(len(data), self.hz)
        self.bus_s += cost
        if self.realtime:
            time.sleep(cost)
        if address != self.address:
            raise OSError(errno.EREMOTEIO, f"no device answers at 0x{address:02X}")
        if register == _CONTROL_DATA:
            for byte in data:
                self._write_ram(byte)
        elif register == _CONTROL_COMMAND:
            self._commands(list(data))
        else:
            raise ValueError(f"OLED control byte 0x{register:02X} is neither command (0x00) nor data (0x40)")

    def _commands(self, data: list[int]) -> None:
        arguments_of, single = (
            (_SH1106_ARGUMENTS, _SH1106_SINGLE | _SH1106_FOREIGN)
            if self._paged
            else (_SSD1306_ARGUMENTS, _SSD1306_SINGLE)
        )
        name = self.controller.upper()
        while data:
            command = data.pop(0)
            count = arguments_of.get(command, 0)
            if command not in arguments_of and command not in single:
                raise ValueError(f"{name} command 0x{command:02X} is not modelled by FakeI2CBus")
            if len(data) < count:
                raise ValueError(f"{name} command 0x{command:02X} needs {count} argument bytes")
            arguments, data = data[:count], data[count:]
            if command == 0x81:
                self.contrast = arguments[0]
            elif command in (0xAE, 0xAF):
                self.display_on = command == 0xAF
            elif self._paged:
                self._sh1106_address(command)
            elif command == 0x20 and arguments[0] != 0x00:
                raise ValueError("FakeI2CBus models horizontal addressing (memory mode 0x00) only")
            elif command == 0x21:
                self._columns = (arguments[0], arguments[1])
                self._column = arguments[0]
            elif command == 0x22:
                self._pages = (arguments[0], arguments[1])
                self._page = arguments[0]

    def _sh1106_address(self, command: int) -> None:
        self._run = 0
        if command < 0x10:
            self._column = self._column & 0xF0 | command
        elif command < 0x20:
            self._column = (command & 0x0F) << 4 | self._column & 0x0F
        elif 0xB0 <= command < 0xB8:
            self._page = command & 0x07

    @property
    def in_frame(self) -> bool:
        return self._partial

    def _write_ram(self, byte: int) -> None:
        self._partial = True
        if self._paged:
            self.ram[self._page * self._ram_width + self._column] = byte
            self._column = min(self._column + 1, self._ram_width - 1)  # it stops at the page's end: no wrap
            self._run += 1
            if self._page == self.height // 8 - 1 and self._run == self.width:
                self._frame_done()
            return
        self.ram[self._page * self.width + self._column] = byte
        if self._column < self._columns[1]:
            self._column += 1
            return
        self._column = self._columns[0]
        if self._page < self._pages[1]:
            self._page += 1
            return
        self._page = self._pages[0]
        self._frame_done()

    def _frame_done(self) -> None:
        self._partial = False
        self.frames += 1
        self._last_frame = bytes(self.ram)

    def last_image(self) -> Image.Image:
        """The picture of the last complete frame, white on black, as the panel shows it."""
        if self._last_frame is None:
            raise LookupError("no complete frame has been sent to the display yet")
        image = Image.new("1", (self.width, self.height))
        pixels = image.load()
        assert pixels is not None
        for page in range(self.height // 8):
            for x in range(self.width):
                byte = self._last_frame[page * self._ram_width + self._first_shown + x]
                for bit in range(8):
                    if byte >> bit & 1:
                        pixels[x, page * 8 + bit] = 1
        return image


# Unicode quadrant blocks indexed by (top-left, top-right, bottom-left, bottom-right) bits.
_QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"


def frame_to_text(image: Image.Image) -> str:
    """A 1-bit picture for a terminal: each character shows 2x2 pixels (128x64 becomes 64x32)."""
    width, height = image.size
    pixels = image.convert("1").load()
    assert pixels is not None

    def lit(x: int, y: int) -> int:
        return 1 if x < width and y < height and pixels[x, y] else 0

    rows = []
    for y in range(0, height, 2):
        rows.append(
            "".join(
                _QUADRANTS[lit(x, y) | lit(x + 1, y) << 1 | lit(x, y + 1) << 2 | lit(x + 1, y + 1) << 3]
                for x in range(0, width, 2)
            )
        )
    return "\n".join(rows)
