"""The hub's firmware on MicroPython's real rp2 port, in an emulated RP2040 (rp2040js, firmware/emulator/run.mjs).

The UF2 and the boot ROM are third-party binaries kept beside the project (``../shared/firmware/rp2/``, see its
README), or wherever ``COMPANION_RP2_UF2`` and ``COMPANION_RP2_BOOTROM`` point (micropython.org's UF2 for
RPI_PICO, v1.23 or later, and the RP2040 B1 boot ROM). The firmware's files go on MicroPython's filesystem as a
littlefs image built here; the emulator's USB serial port is the master side of a pty, and the host opens the
other side with pyserial as it opens a real Pico's ``/dev/ttyACM0``. ``Readers`` attaches the chip simulator's
MFRC522s to the emulated SPI0, one per chip select of firmware/hub_config.py.
"""

from __future__ import annotations

import os
import pty
import shutil
import signal
import struct
import subprocess
import threading
import tty
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

import littlefs

from companion.hub.simulated import FIRMWARE, firmware_build
from companion.sim.chip import Mfrc522

ROOT = FIRMWARE.parent
EMULATOR = ROOT / "firmware/emulator"
SHARED = ROOT.parent / "shared/firmware/rp2"
UF2 = "micropython-rp2-RPI_PICO-v1.29.0-preview.uf2"
BOOTROM = "rp2040-bootrom-B1.bin"

# MicroPython's filesystem on RPI_PICO: the last MICROPY_HW_FLASH_STORAGE_BYTES = 1408 KiB of its 2 MiB flash
# (ports/rp2/mpconfigport.h, rp2_flash.c), in 4 KiB erase blocks; ports/rp2/modules/_boot.py mounts it as
# VfsLfs2(bdev, progsize=256), whose read size is 32 and lookahead 32 (extmod/vfs_lfsx.c).
FS_BLOCK = 4096
FS_BLOCKS = 1408 * 1024 // FS_BLOCK
# firmware/hub_config.py's pins: the maintenance jumper's (held high from outside, see run.mjs on pull-ups), the
# readers' chip selects on SPI0 and their shared reset, the WS2812 chain's data
MAINTENANCE_PIN = 22
CHIP_SELECTS = (0, 1, 2, 3, 4, 5, 6, 7)
READER_RESET = 8
LED_DATA = 9
_MESSAGE = struct.Struct("<ccd")  # run.mjs's SPI messages: letter, byte, emulated time in ns


class Readers:
    """The MFRC522 readers on the emulated SPI0: companion/sim/chip.py's model, one per chip select, answering
    the emulator's SPI bytes over two pipes. Their modeled clock is the emulated chip's (``now_s``)."""

    def __init__(self) -> None:
        self.now_s = 0.0
        self.chips = {pin: Mfrc522(lambda: self.now_s) for pin in CHIP_SELECTS}
        self.lock = threading.Lock()  # the test lays tags while the bridge clocks bytes
        self._selected: Mfrc522 | None = None
        self._ignored = False  # a transaction that came before the selected chip's oscillator was up
        self._thread: threading.Thread | None = None
        self._planned: list[tuple[float, Callable[[], None]]] = []
        self.transactions = 0  # chip-select periods on SPI0
        self.spi_bytes = 0

    def at(self, when_s: float, change: Callable[[], None]) -> None:
        """Make ``change`` (a tag laid or lifted, under the lock) once the emulated clock reaches ``when_s``: it
        comes between two of SPI0's messages, so what the firmware reads after ``when_s`` sees it."""
        with self.lock:
            self._planned.append((when_s, change))
            self._planned.sort(key=lambda plan: plan[0])

    def serve(self, requests: int, answers: int) -> None:
        self._thread = threading.Thread(target=self._serve, args=(requests, answers), daemon=True)
        self._thread.start()

    def _serve(self, requests: int, answers: int) -> None:
        with os.fdopen(requests, "rb", buffering=0) as inbox, os.fdopen(answers, "wb", buffering=0) as outbox:
            while True:
                message = _read_exactly(inbox, _MESSAGE.size)
                if message is None:
                    return  # the emulator has stopped
                letter, value, nanos = _MESSAGE.unpack(message)
                with self.lock:
                    self.now_s = nanos / 1e9
                    while self._planned and self._planned[0][0] <= self.now_s:
                        self._planned.pop(0)[1]()
                    miso = self._handle(letter, value[0])
                if letter == b"B":
                    outbox.write(bytes((miso,)))

    def _handle(self, letter: bytes, value: int) -> int:
        if letter == b"S":
            self.transactions += 1
            self._selected = self.chips.get(value)
            if self._selected is not None:
                self._ignored = self._selected.starting(self.now_s)
                self._selected.select()
        elif letter == b"U":
            self._selected = None
        elif letter == b"R":
            for chip in self.chips.values():
                chip.power_on()
        elif letter == b"B":
            self.spi_bytes += 1
            if self._selected is not None and not self._ignored:
                return self._selected.clock(value)
        return 0x00


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def binaries() -> tuple[Path, Path]:
    """The UF2 and the boot ROM; ``FileNotFoundError`` says where they are looked for."""
    uf2 = Path(os.environ.get("COMPANION_RP2_UF2", SHARED / UF2))
    bootrom = Path(os.environ.get("COMPANION_RP2_BOOTROM", SHARED / BOOTROM))
    for path, variable in ((uf2, "COMPANION_RP2_UF2"), (bootrom, "COMPANION_RP2_BOOTROM")):
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: put ../shared/firmware/rp2/ by the project or set {variable}")
    if shutil.which("node") is None or not (EMULATOR / "node_modules/rp2040js").is_dir():
        raise FileNotFoundError("the RP2040 emulator is not installed: run `make firmware-emulator` (Node.js 20, npm)")
    return uf2, bootrom


def board_files(tmp_path: Path, patch: Callable[[str, str], str] | None = None) -> dict[str, bytes]:
    """The files `make firmware-deploy` copies to the board: the build's .mpy modules, main.py, hub_config.py.

    ``patch(name, source)`` changes a file's source first (the module is then put on the board as source).
    """
    build = firmware_build()
    out = tmp_path / "board"
    files = {}
    for path in build.build(out):
        files[path.name] = path.read_bytes()
    if patch is not None:
        for name, source in {**build.COMPILED, **build.SOURCE}.items():
            text = source.read_text()
            changed = patch(name, text)
            if changed != text:
                files.pop(name.replace(".py", ".mpy"), None)
                files[name] = changed.encode()
    return files


def filesystem(files: Mapping[str, bytes]) -> bytes:
    """A littlefs image of ``files`` as MicroPython's rp2 port mounts it at ``/``."""
    fs = littlefs.LittleFS(block_size=FS_BLOCK, block_count=FS_BLOCKS, read_size=32, prog_size=256, lookahead_size=32)
    for name, data in files.items():
        with fs.open(name, "wb") as f:
            f.write(data)
    return bytes(fs.context.buffer)


class EmulatedHub:
    """An emulated Pico running ``files``; ``path`` is its USB serial port's tty, for pyserial."""

    def __init__(
        self,
        tmp_path: Path,
        files: Mapping[str, bytes],
        readers: Readers | None = None,
        *,
        jumper: bool = False,
        cpu_scale: float = 1.0,
        usb_times: bool = False,
    ) -> None:
        self.tmp_path = tmp_path
        self.files = files
        self.readers = readers
        self.jumper = jumper  # the maintenance jumper fitted: its pin held to ground
        self.cpu_scale = cpu_scale  # emulated time per instruction, times its cycles at 125 MHz (run.mjs)
        self.usb_times = usb_times  # each USB packet the device sends, with its emulated time, in the log
        self.log = tmp_path / "emulator.log"
        self.path = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._fds: tuple[int, int] | None = None

    def start(self) -> None:
        uf2, bootrom = binaries()
        image = self.tmp_path / "littlefs.img"
        image.write_bytes(filesystem(self.files))
        master, slave = pty.openpty()
        tty.setraw(slave)  # no echo, no newline translation before the host's pyserial sets the port up
        tty.setraw(master)
        self._fds = (master, slave)
        self.path = os.ttyname(slave)
        args = ["node", str(EMULATOR / "run.mjs"), "--bootrom", str(bootrom), "--uf2", str(uf2), "--fs", str(image)]
        args += ["--pin-low" if self.jumper else "--pin-high", str(MAINTENANCE_PIN), "--leds", str(LED_DATA)]
        args += ["--cpu-scale", str(self.cpu_scale)] + (["--usb-times"] if self.usb_times else [])
        pipes: tuple[int, ...] = ()
        if self.readers is not None:
            requests, to_host = os.pipe()
            from_host, answers = os.pipe()
            pipes = (to_host, from_host)
            args += ["--spi0", f"{to_host},{from_host}", "--reset", str(READER_RESET)]
            for pin in CHIP_SELECTS:
                args += ["--select", str(pin)]
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(args, stdin=master, stdout=master, stderr=log, pass_fds=pipes)
        if self.readers is not None:
            for fd in pipes:
                os.close(fd)
            self.readers.serve(requests, answers)

    def stop(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def line_state(self, dtr: bool) -> None:
        """The host closes the port (DTR and RTS dropped) or opens it again, as its serial driver tells the Pico."""
        assert self._process is not None
        self._process.send_signal(signal.SIGUSR2 if dtr else signal.SIGUSR1)

    def led_frames(self) -> list[list[tuple[int, int, int]]]:
        """Every frame the WS2812 chain got so far, decoded from its data pin by run.mjs: per LED, (R, G, B)."""
        frames = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("emulator: leds "):
                grb = bytes.fromhex(line.removeprefix("emulator: leds "))
                frames.append([(grb[i + 1], grb[i], grb[i + 2]) for i in range(0, len(grb) - 2, 3)])
        return frames

    def usb_packets(self) -> list[tuple[float, int]]:
        """With ``usb_times``: each packet the device sent on USB so far, its emulated time (s) and its bytes."""
        packets = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("emulator: usb "):
                nanos, size = line.removeprefix("emulator: usb ").split()
                packets.append((float(nanos) / 1e9, int(size)))
        return packets

    def diagnostics(self) -> str:
        """What the emulator wrote to stderr, for a failing test's message."""
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def __enter__(self) -> EmulatedHub:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
