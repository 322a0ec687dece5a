"""What a doctor check finds (:class:`Check`) and where it looks (:class:`System`).

Every check is a function that returns a :class:`Check`. Whatever it touches goes through a :class:`System`: the
filesystem root the device nodes, ``config.txt``, ``/proc/asound/cards``, ``/etc/passwd`` and ``/etc/group`` are
looked up under, what a node is (its ``stat``: type, owner, group, mode), the factories that open an SPI device, an
I2C bus and the hub's serial link, the speech synthesiser (espeak-ng) and the player of its sound (aplay). Tests pass
a temporary root, the nodes' stat as udev leaves them on a Pi (no root needed to make them), the simulated readers
of :mod:`companion.sim`, fake buses and a player that answers as aplay does; the defaults reach the real hardware. The
checks themselves live beside what they check: the Pi's system in :mod:`companion.doctor.pi`, each reader kind's in
its module of :mod:`companion.readers`, the OLED's in :mod:`companion.ui.display_checks`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from companion.hub.session import HubInfo

__all__ = ["SERVICE_USER", "Check", "I2CBus", "SpiDevice", "System"]

SERVICE_USER = "companion"  # systemd/companion.service runs the daemon as this user


@dataclass(frozen=True)
class Check:
    """One finding: ``fix`` is the exact thing to do when ``ok`` is false (empty when it passed)."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


class SpiDevice(Protocol):
    max_speed_hz: int
    mode: int

    def open(self, bus: int, device: int) -> None: ...

    def xfer2(self, values: Sequence[int]) -> list[int]: ...

    def close(self) -> None: ...


class I2CBus(Protocol):
    def read_byte(self, address: int) -> int: ...

    def close(self) -> None: ...


def _spidev() -> SpiDevice:
    import spidev  # late: only a Pi has it, and the tests pass the simulator's in its place

    device: SpiDevice = spidev.SpiDev()
    return device


def _smbus(port: int) -> I2CBus:
    import smbus2

    bus: I2CBus = smbus2.SMBus(port)
    return bus


def _hub_hello(path: str, zones: Sequence[str]) -> HubInfo:
    from companion.hub.backend import hello  # late: pyserial is needed only where a hub is checked

    return hello(path, zones)


def _aplay(wav: bytes, device: str) -> subprocess.CompletedProcess[bytes]:
    """Play ``wav`` through the ALSA PCM ``device`` as the table's voice does (aplay, of alsa-utils); its exit
    status and its words. FileNotFoundError when aplay is not installed."""
    return subprocess.run(
        ["aplay", "-q", "-D", device, "-"], input=wav, capture_output=True, check=False, timeout=PLAY_TIMEOUT_S
    )


PLAY_TIMEOUT_S = 60  # a test phrase is a few seconds; a player that hangs on a stuck card is stopped


def _stat(path: Path) -> os.stat_result:
    return path.stat()  # follows a symlink (udev's /dev/companion-hub) to the node


@dataclass
class System:
    """Where the checks look and how they reach the hardware; the defaults are this Pi's."""

    root: Path = Path("/")
    user: str = SERVICE_USER
    spi_device: Callable[[], SpiDevice] = _spidev  # a closed SpiDev; the check opens it
    i2c_bus: Callable[[int], I2CBus] = _smbus  # opens /dev/i2c-<port>
    hub_handshake: Callable[[str, Sequence[str]], HubInfo] = _hub_hello  # the daemon's own connection, once
    stat: Callable[[Path], os.stat_result] = _stat  # a path under the root: its type, owner, group and mode
    espeak_ng: tuple[str, ...] = ("espeak-ng",)  # the synthesiser's command (a test adds --path=<its data>)
    play: Callable[[bytes, str], subprocess.CompletedProcess[bytes]] = _aplay  # a WAV through an ALSA PCM

    def path(self, absolute: str | Path) -> Path:
        """``absolute`` under the root: ``/dev/spidev0.0`` is ``<root>/dev/spidev0.0``."""
        return self.root / Path(absolute).relative_to("/")

    def shown(self, path: Path) -> str:
        """A path under the root as it is named on the Pi, for messages."""
        return "/" + str(path.relative_to(self.root))
