"""The OLED as the daemon drives it: a luma device built from luma's own options, redrawn only on a change.

On the table the device is an SSD1306 on I2C bus 1 at 0x3C (luma's defaults); any luma display works through
luma's command-line options (``--display sh1106``, ``--interface spi``...). In tests and the demo the real
ssd1306 driver talks to the simulated bus of :mod:`companion.sim.oled`, which decodes the bytes it receives back
into the picture a real panel would show::

    >>> from companion.sim.oled import FakeI2CBus
    >>> bus = FakeI2CBus()
    >>> screen = Screen(make_device([], bus=bus))
    >>> screen.show(TableView(), now=0.0), screen.show(TableView(), now=1.0)
    (True, False)
    >>> bus.frames
    2
"""

from __future__ import annotations

import argparse
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import luma.core.error
import luma.core.framebuffer
import luma.oled.device
from luma.core import cmdline
from luma.core.interface.serial import i2c
from luma.core.render import canvas
from PIL import Image

from companion.ui.screens import HEIGHT, PAGE_S, WIDTH, draw_table, pages
from companion.view import TableView

__all__ = [
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
        self._page, self._pages, self._shown_at = 0, 1, 0.0  # the page shown of how many, and when the view came
        self._last_event = 0.0
        self._dimmed = False
        self._watchers: list[Callable[[Image.Image], None]] = []
        self._painter = _Painter(device, self._sent) if background else None

    def watch(self, watcher: Callable[[Image.Image], None]) -> None:
        """Hand ``watcher`` each frame once the driver has sent it: the very picture the panel shows (the table's
        page mirrors it). It is called from the thread that sends (the screen's own, in the background), so it
        must only hand the frame on::

            >>> from companion.sim.oled import FakeI2CBus
            >>> bus, seen = FakeI2CBus(), []
            >>> screen = Screen(make_device([], bus=bus))
            >>> screen.watch(seen.append)
            >>> screen.show(TableView(), now=0.0), len(seen), seen[0].tobytes() == bus.last_image().tobytes()
            (True, 1, True)
        """
        self._watchers.append(watcher)

    def _sent(self, image: Image.Image) -> None:
        for watcher in self._watchers:
            try:
                watcher(image)
            except Exception:  # a watcher's failure must not stop the panel
                log.exception("a watcher of the screen's frames failed")

    def show(self, view: TableView, now: float) -> bool:
        """Draw ``view`` unless it is the one on the screen; return whether a frame was sent (or, in the
        background, handed to the sender).

        The table calls it after every event, so it also wakes the screen, even when nothing on it changed.
        """
        self.wake(now)
        if view == self._shown:
            return False
        self._shown, self._page, self._shown_at = view, 0, now
        self._pages = pages(view)  # counted once a view, not at every tick
        self._send(view, 0)
        return True

    def _send(self, view: TableView, page: int) -> None:
        if self._painter is not None:
            self._painter.frame(view, page)
        else:
            self._sent(draw_frame(self.device, view, page))

    def wake(self, now: float) -> None:
        """Something happened at the table: full brightness, and the idle time starts again."""
        self._last_event = now
        if self._dimmed:
            self._contrast(BRIGHT)
            self._dimmed = False

    def tick(self, now: float) -> None:
        """Turn the page of a message on the footer every :data:`~companion.ui.screens.PAGE_S` seconds (round and
        round, so every line of it is read: :func:`~companion.ui.screens.footer_lines`), and dim the screen once
        it has been idle for ``dim_after_s`` seconds."""
        if self._shown is not None and self._pages > 1:
            page = int((now - self._shown_at) / PAGE_S) % self._pages
            if page != self._page:
                self._page = page
                self._send(self._shown, page)
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


def draw_frame(device: Any, view: TableView, page: int = 0) -> Image.Image:
    """One frame of ``view`` (its page ``page``) through the driver to the panel; the picture sent."""
    frame = canvas(device)
    with frame as draw:
        draw_table(draw, view, page)
    image: Image.Image = frame.image
    return image


class _Painter:
    """The thread that owns the device in the background: at most one frame and one contrast waiting, the
    newest of each; the contrast goes first (a wake brightens the panel before the frame that woke it)."""

    def __init__(self, device: Any, sent: Callable[[Image.Image], None]) -> None:
        self.device = device
        self._sent = sent
        self._work = threading.Condition()
        self._frame: tuple[TableView, int] | None = None
        self._contrast: int | None = None
        self._busy = False
        self._closing = False
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="screen", daemon=True)
        self._thread.start()

    def frame(self, view: TableView, page: int = 0) -> None:
        with self._work:
            self._frame = (view, page)  # a frame not yet sent is replaced: only the newest matters
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
                    self._sent(draw_frame(self.device, *frame))
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

    ``bus`` replaces the I2C bus (any object with ``write_i2c_block_data``, e.g.
    :class:`companion.sim.oled.FakeI2CBus`) for an OLED on the ``i2c`` interface; without it luma opens the real
    bus.
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


def i2c_write_s(data_bytes: int, hz: int) -> float:
    """Seconds one I2C write of ``data_bytes`` after the control byte holds the bus at ``hz``: every byte, the
    address and the control byte included, is 8 clocks and an acknowledge clock, plus a START and a STOP
    (NXP UM10204, the I2C-bus specification, 3.1.5-3.1.6). A full SSD1306 frame as luma sends it on the Pi
    (one 1,024-byte message through smbus2's i2c_rdwr) is 92.4 ms at 100 kHz, 23.1 ms at 400 kHz."""
    return (9 * (2 + data_bytes) + 2) / hz


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
