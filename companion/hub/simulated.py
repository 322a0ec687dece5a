"""A reader hub without the hardware: the firmware itself, in CPython, on the chip simulator, behind a pty.

The firmware's board files (``firmware/build.py`` lays them out) run unchanged on MicroPython's ``machine``,
``neopixel`` and ``micropython`` as faked in ``firmware/sim``, whose SPI bus and chip selects reach the
register-level MFRC522s of ``companion.sim`` (zone ``i`` is the reader at bus 0, device ``i``). The USB cable is a
pty: the host opens ``path`` (a symlink to the pty, as udev makes ``/dev/companion-hub``) with pyserial.
``unplug()`` takes the pty away and ``plug()`` brings a new one under the same path, as a cable pulled and put
back does. The firmware runs in a thread of its own with its own asyncio loop; cards go on and off through
``put()`` and ``take()``, which hand the change to that thread.

Needs the repository (the firmware is not part of the installed package). It puts the firmware's module names
(``machine``, ``protocol``, ``hub_app``, ...) in ``sys.modules`` (``unload_firmware()`` takes them out).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import os
import pty
import sys
import tempfile
import threading
import time
import tty
import types
from pathlib import Path
from typing import Any

import companion.sim

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


FIRMWARE_MODULES = ("machine", "neopixel", "micropython", "protocol", "rc522", "scanner", "hub_app", "hub_config")
_board: tempfile.TemporaryDirectory[str] | None = None


def firmware_build() -> Any:
    """``firmware/build.py`` as a module."""
    spec = importlib.util.spec_from_file_location("firmware_build", FIRMWARE / "build.py")
    if spec is None or spec.loader is None or not FIRMWARE.is_dir():
        raise FileNotFoundError(f"{FIRMWARE}: the simulated hub runs the repository's firmware; run from a checkout")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_firmware() -> Path:
    """Lay out the firmware's board files as source and put them, and the fakes, first on ``sys.path``."""
    global _board
    if _board is None:
        _board = tempfile.TemporaryDirectory(prefix="hub-board-")
        firmware_build().build(Path(_board.name), compiled=False)
        sys.path[:0] = [_board.name, str(FIRMWARE / "sim")]
    return Path(_board.name)


def unload_firmware() -> None:
    """Take the firmware's modules and paths away again."""
    global _board
    if _board is not None:
        sys.path[:] = [p for p in sys.path if p not in (_board.name, str(FIRMWARE / "sim"))]
        _board.cleanup()
        _board = None
    for name in FIRMWARE_MODULES:
        sys.modules.pop(name, None)


class PtyPort:
    """The firmware's USB serial port as a pty's master side; bytes written while unplugged are lost, as on USB."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.slave: int | None = None
        self.sent = 0
        self.dropped = 0

    def open(self) -> str:
        self.fd, self.slave = pty.openpty()
        tty.setraw(self.slave)  # no echo, no newline translation before the host's pyserial sets the port up
        os.set_blocking(self.fd, False)
        return os.ttyname(self.slave)

    def close(self) -> None:
        for fd in (self.fd, self.slave):
            if fd is not None:
                os.close(fd)
        self.fd = self.slave = None

    def read(self) -> bytes:
        if self.fd is None:
            return b""
        try:
            return os.read(self.fd, 4096)
        except OSError:  # nothing to read (EAGAIN), or nobody at the other end (EIO)
            return b""

    def write(self, data: bytes) -> None:
        if self.fd is None:
            self.dropped += len(data)
            return
        try:
            os.write(self.fd, data)
            self.sent += len(data)
        except OSError:
            self.dropped += len(data)


class SimulatedHub:
    """The hub firmware with ``zones`` simulated readers; ``config`` overrides settings of ``hub_config.py``."""

    def __init__(self, path: Path, zones: int = 8, **config: Any) -> None:
        self.path = path
        self.zones = zones
        self.config = config
        self.port = PtyPort()
        self.hub: Any = None
        self.sent: list[tuple[float, Any]] = []  # (perf_counter, message) of every message the firmware sent
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.error: BaseException | None = None

    # -- the firmware --------------------------------------------------------------------------------------

    def start(self) -> None:
        load_firmware()
        machine = importlib.import_module("machine")
        hub_app = importlib.import_module("hub_app")
        defaults = importlib.import_module("hub_config")
        settings = {name: getattr(defaults, name) for name in dir(defaults) if name.isupper()}
        settings.update(ZONES=self.zones, CHIP_SELECTS=tuple(settings["CHIP_SELECTS"])[: self.zones])
        settings.update(self.config)
        cfg = types.SimpleNamespace(**settings)
        spi = companion.sim.machine_spi(0, cfg.SPI_BAUDRATE)
        machine.attach(spi, {gpio: companion.sim.machine_pin(0, zone) for zone, gpio in enumerate(cfg.CHIP_SELECTS)})
        self._plug()
        self._thread = threading.Thread(target=self._run, args=(hub_app, cfg), name="simulated-hub", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the simulated hub did not start within 10 s")
        if self.error is not None:
            raise RuntimeError("the simulated hub failed to start") from self.error

    def _run(self, hub_app: Any, cfg: Any) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self.hub = hub_app.build(cfg, self.port)
            send = self.hub.send

            def timed_send(message: Any) -> None:
                self.sent.append((time.perf_counter(), message))
                send(message)

            self.hub.send = timed_send
            self._ready.set()
            await self.hub.run()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # the test that owns the hub reads it
            self.error = exc
            self._ready.set()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._cancel_all)
            self._thread.join(5)
        self.port.close()
        self.path.unlink(missing_ok=True)

    @staticmethod
    def _cancel_all() -> None:
        for task in asyncio.all_tasks():
            task.cancel()

    def call(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` in the firmware's thread, between two of its steps, and return its result.

        The simulator and the port belong to that thread: a pty closed under a write in progress could have its
        descriptor number reused by the host's next open.
        """
        assert self._loop is not None

        async def step() -> Any:
            return function(*args)

        return asyncio.run_coroutine_threadsafe(step(), self._loop).result(10)

    # -- the table and the cable ---------------------------------------------------------------------------

    def put(self, zone: int, tag: Any) -> None:
        self.call(companion.sim.field(0, zone).add, tag)

    def take(self, zone: int, tag: Any) -> None:
        self.call(companion.sim.field(0, zone).remove, tag)

    def _plug(self) -> None:
        tty_path = self.port.open()
        tmp = self.path.with_name(self.path.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(tty_path)
        tmp.replace(self.path)

    def plug(self) -> None:
        """A cable put in: a new pty under ``path``."""
        self.call(self._plug)

    def unplug(self) -> None:
        """The cable pulled: the pty goes away, and what the firmware sends meanwhile is lost."""

        def pull() -> None:
            self.path.unlink(missing_ok=True)
            self.port.close()

        self.call(pull)
