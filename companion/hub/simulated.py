"""A reader hub without the hardware: the firmware itself, in CPython, on the chip simulator, behind a pty.

The firmware's board files (``firmware/build.py`` lays them out) run unchanged on MicroPython's ``machine``,
``neopixel`` and ``micropython`` as faked in ``firmware/sim``, whose SPI bus and chip selects reach the
register-level MFRC522s of ``companion.sim`` (zone ``i`` is the reader at bus 0, device ``i``). The USB cable is a
pty: the host opens ``path`` (a symlink to the pty, as udev makes ``/dev/companion-hub``) with pyserial.

The firmware runs in a process of its own, as the Pico is a computer of its own: in a thread, its busy scan loop
and the host would take turns at CPython's lock, and a host waiting for its turn looks like a slow link. The
parent drives it through ``SimulatedHub``: cards on and off (``put``, ``take``), the cable out and back in
(``unplug``, ``plug``: the pty goes away and a new one comes under the same path), and ``status()``. Readers
taken away with ``companion.sim.unplug`` in the parent before ``start()`` are dead in the hub's simulator too.

What the host sends reaches the firmware through MicroPython's USB receive path (``firmware/sim/usb_cdc.py``):
0x03 is Ctrl-C while the firmware has not turned that off. The child's working directory is the board's flash
(the firmware's files, and the flag of maintenance mode); ``machine.reset()`` boots the board again, the pty
going away and coming back as USB does.

Needs the repository (the firmware is not part of the installed package).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import multiprocessing
import os
import pty
import sys
import tempfile
import time
import tty
import types
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import companion.sim

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
FIRMWARE_MODULES = (
    "machine",
    "neopixel",
    "micropython",
    "usb_cdc",
    "protocol",
    "nfc_errors",
    "rc522",
    "scanner",
    "hub_app",
    "hub_config",
)
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
    """The firmware's USB serial port as a pty's master side; bytes written while unplugged are lost, as on USB.

    What the host writes goes through ``cdc`` (``usb_cdc.CdcInput``, MicroPython's receive path) before the
    firmware reads it."""

    def __init__(self, cdc: Any) -> None:
        self.cdc = cdc
        self.fd: int | None = None
        self.slave: int | None = None
        self.sent = 0  # bytes to the host
        self.received = 0  # bytes from the host
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
        data = b""
        if self.fd is not None:
            with contextlib.suppress(OSError):  # nothing to read (EAGAIN), or nobody at the other end (EIO)
                data = os.read(self.fd, 4096)
        self.received += len(data)
        self.cdc.receive(data)
        return bytes(self.cdc.read())

    def write(self, data: bytes) -> None:
        if self.fd is None:
            self.dropped += len(data)
            return
        try:
            os.write(self.fd, data)
            self.sent += len(data)
        except OSError:
            self.dropped += len(data)


@dataclass(frozen=True)
class Report:
    """A zone change as the firmware sent it, with the time (``time.perf_counter``, the same in every process)."""

    t: float
    event: int
    zone: int
    uids: tuple[bytes, ...]


@dataclass(frozen=True)
class HubStatus:
    zones: list[tuple[bytes, ...]]  # the cards the firmware sees on each zone
    leds: list[tuple[int, int]]  # (colour, mode) codes of each zone's LED
    reports: list[Report]  # every ZONE frame sent, replays included
    scans: int  # full scans of every zone since boot
    modeled_s: float  # the simulator's clock: hardware time spent on the SPI bus and the readers
    sent: int  # bytes to the host
    received: int  # bytes from the host
    dropped: int  # bytes sent while unplugged
    mode: str  # "hub", or "maintenance" (the REPL: nothing scans, no watchdog)
    boots: int
    watchdogs: int  # machine.WDT started since the last boot
    interrupts: int  # Ctrl-Cs (0x03 while the interrupt char was on) that reached the firmware


class _Board:
    """The child process's side: the firmware, its port, the simulated table, and the commands from the parent."""

    def __init__(self, path: Path, zones: int | None, config: dict[str, Any], hub_config: Path | None) -> None:
        board = load_firmware()
        os.chdir(board)  # the board's flash
        if hub_config is not None:  # flashed with this file (make firmware-deploy HUB_CONFIG=...)
            (board / "hub_config.py").write_bytes(hub_config.read_bytes())
        self.machine = machine = importlib.import_module("machine")
        self.hub_app = importlib.import_module("hub_app")
        defaults = importlib.import_module("hub_config")
        settings = {name: getattr(defaults, name) for name in dir(defaults) if name.isupper()}
        if zones is not None:
            settings.update(ZONES=zones, CHIP_SELECTS=tuple(settings["CHIP_SELECTS"])[:zones])
        settings.update(config)
        self.cfg = types.SimpleNamespace(**settings)
        spi = companion.sim.machine_spi(0, self.cfg.SPI_BAUDRATE)
        machine.attach(spi, {gpio: companion.sim.machine_pin(0, z) for z, gpio in enumerate(self.cfg.CHIP_SELECTS)})
        self.path = path
        self.port = PtyPort(importlib.import_module("usb_cdc").CdcInput())
        self.tags: dict[bytes, Any] = {}
        self.reports: list[Report] = []
        self.scans = 0
        self.boots = 0
        self.hub: Any = None
        self._firmware_send: Any = None

    def plug(self) -> None:
        tty_path = self.port.open()
        tmp = self.path.with_name(self.path.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(tty_path)
        tmp.replace(self.path)

    def unplug(self) -> None:
        self.path.unlink(missing_ok=True)
        self.port.close()

    def put(self, zone: int, kind: str, uid: bytes) -> None:
        tag = self.tags.setdefault(uid, getattr(companion.sim, kind)(uid))
        companion.sim.field(0, zone).add(tag)

    def take(self, zone: int, uid: bytes) -> float:
        companion.sim.field(0, zone).remove(self.tags[uid])
        return time.perf_counter()

    def edge(self, uid: bytes, polls: int) -> None:
        self.tags[uid].answer_one_in(polls)

    def memory(self, uid: bytes) -> bytes:
        return bytes(self.tags[uid].memory)

    def interference(self, zone: int, frames: int) -> None:
        companion.sim.field(0, zone).noise(frames)

    def noise(self, data: bytes) -> None:
        self.port.write(data)

    def status(self) -> HubStatus:
        hub = self.hub
        return HubStatus(
            zones=list(hub.scanner.zones) if hub else [],
            leds=list(hub.leds.state) if hub else [],
            reports=list(self.reports),
            scans=self.scans + (hub.scans if hub else 0),
            modeled_s=companion.sim.clock.now_s,
            sent=self.port.sent,
            received=self.port.received,
            dropped=self.port.dropped,
            mode="hub" if hub else "maintenance",
            boots=self.boots,
            watchdogs=len(self.machine.watchdogs),
            interrupts=self.port.cdc.interrupts,
        )

    def _send(self, message: Any) -> None:
        if message.TYPE == 0x02:
            self.reports.append(Report(time.perf_counter(), message.event, message.zone, tuple(message.uids)))
        elif message.TYPE == 0x04:
            self.scans += message.scans
        self._firmware_send(message)

    def boot(self) -> asyncio.Task[None] | None:
        """Power up: what main.py does, on the pty; the running hub, or ``None`` in maintenance mode."""
        self.boots += 1
        del self.machine.watchdogs[:]
        self.plug()
        self.hub = self.hub_app.boot(self.cfg, self.port)
        if self.hub is None:
            return None
        self._firmware_send = self.hub.send
        self.hub.send = self._send
        return asyncio.create_task(self.hub.run())

    async def run(self, conn: Connection) -> None:
        stopped = asyncio.Event()

        def command() -> None:
            try:
                name, args = conn.recv()
            except EOFError:  # the parent went away
                name, args = "stop", ()
            if name == "stop":
                loop.remove_reader(conn.fileno())
                stopped.set()
                return
            conn.send(getattr(self, name)(*args))

        loop = asyncio.get_running_loop()
        loop.add_reader(conn.fileno(), command)
        runner = self.boot()
        conn.send("ready")
        stop = asyncio.create_task(stopped.wait())
        while runner is not None:
            await asyncio.wait((runner, stop), return_when=asyncio.FIRST_COMPLETED)
            if not runner.done():
                break
            if not isinstance(runner.exception(), self.machine.Reset):
                raise RuntimeError("the simulated hub's firmware stopped") from runner.exception()
            self.unplug()  # machine.reset(): off USB, and up again
            runner = self.boot()
        await stop
        if runner is not None:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        self.unplug()


def _child(
    conn: Connection,
    path: Path,
    zones: int | None,
    config: dict[str, Any],
    hub_config: Path | None,
    unplugged: list[tuple[int, int]],
) -> None:
    for bus, device in unplugged:
        companion.sim.unplug(bus, device)
    board = _Board(path, zones, config, hub_config)
    asyncio.run(board.run(conn))


class SimulatedHub:
    """The hub firmware with ``zones`` simulated readers; ``config`` overrides settings of ``hub_config.py``.

    ``hub_config`` is the file the board is flashed with instead of the firmware's own (a layout's, from
    ``hardware/layouts/``): its ``CHIP_SELECTS`` say how many readers there are, unless ``zones`` is given."""

    def __init__(self, path: Path, zones: int | None = None, hub_config: Path | None = None, **config: Any) -> None:
        self.path = path
        self.zones = zones
        self.config = config
        self.hub_config = hub_config
        self._conn: Connection | None = None
        self._process: Any = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a parent that may have threads
        self._conn, child = context.Pipe()
        # Readers taken away on this process's simulator before the start (companion.sim.unplug) are dead there too.
        unplugged = [key for key, chip in companion.sim.world.WORLD.readers.items() if chip.unplugged]
        self._process = context.Process(
            target=_child,
            args=(child, self.path, self.zones, self.config, self.hub_config, unplugged),
            name="simulated-hub",
            daemon=True,
        )
        self._process.start()
        child.close()
        if not self._conn.poll(30) or self._conn.recv() != "ready":
            self.stop()
            raise RuntimeError("the simulated hub did not start within 30 s")

    def _call(self, name: str, *args: Any) -> Any:
        assert self._conn is not None, "start() the simulated hub first"
        self._conn.send((name, args))
        return self._conn.recv()

    def put(self, zone: int, uid: bytes, kind: str = "Ntag213") -> None:
        """Lay a tag (a ``companion.sim`` tag class name) on ``zone``."""
        self._call("put", zone, kind, uid)

    def take(self, zone: int, uid: bytes) -> float:
        """Lift the tag off ``zone``; returns when (``time.perf_counter``, the same in every process)."""
        lifted: float = self._call("take", zone, uid)
        return lifted

    def edge(self, uid: bytes, polls: int) -> None:
        """The tag (laid already) at the edge of its antenna's range: it answers one poll in ``polls``."""
        self._call("edge", uid, polls)

    def memory(self, uid: bytes) -> bytes:
        """Every byte of the tag's memory (page 0 first), as the hub left it."""
        data: bytes = self._call("memory", uid)
        return data

    def interference(self, zone: int, frames: int = 1) -> None:
        """The next ``frames`` receive windows of ``zone``'s reader get a burst of interference (a damaged frame)."""
        self._call("interference", zone, frames)

    def noise(self, data: bytes) -> None:
        """Bytes on the cable that are no frame of the firmware's (line noise, a stray print at boot)."""
        self._call("noise", data)

    def unplug(self) -> None:
        """The cable pulled: the pty goes away, and what the firmware sends meanwhile is lost."""
        self._call("unplug")

    def plug(self) -> None:
        """The cable put back: a new pty under ``path``."""
        self._call("plug")

    def status(self) -> HubStatus:
        result: HubStatus = self._call("status")
        return result

    def stop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):  # the child may be gone already
                self._conn.send(("stop", ()))
            self._conn.close()
            self._conn = None
        if self._process is not None:
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
            self._process = None
        self.path.unlink(missing_ok=True)
