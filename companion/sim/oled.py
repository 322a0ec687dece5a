"""The OLED on a simulated I2C bus: :class:`FakeI2CBus` takes the bytes the real luma driver sends and decodes
them back into the picture the panel would show.

Tests, the demo and the virtual table hand it to :func:`companion.ui.display.make_device` in place of the Pi's
I2C bus, so everything above the bus (luma's ssd1306, sh1106 or ssd1309 class, the screen's sending thread) is
the real code::

    >>> from companion.ui.display import Screen, make_device
    >>> from companion.view import TableView
    >>> bus = FakeI2CBus()
    >>> screen = Screen(make_device([], bus=bus))
    >>> screen.show(TableView(), now=0.0), screen.show(TableView(), now=1.0)
    (True, False)
    >>> bus.frames, bus.last_image().size  # the driver's blank frame at start-up, then the view's
    (2, (128, 64))
"""

from __future__ import annotations

import errno
import time
from collections.abc import Sequence

from PIL import Image

from companion.ui.display import i2c_write_s
from companion.ui.screens import HEIGHT, WIDTH

__all__ = ["CONTROLLERS", "FakeI2CBus"]

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
