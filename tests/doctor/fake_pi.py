"""A Raspberry Pi in a folder: ``/boot/firmware/config.txt``, device nodes with Raspberry Pi OS's groups and
modes, ``/etc/passwd`` and ``/etc/group`` with the service user, and a config. Readers are the chip simulator's;
the I2C buses are :class:`I2CBench`.

A node is a plain file under the root; what udev makes of it on a Pi (a character device or a file, owned by root,
its group, its mode) is what the Pi's ``stat`` says of it (:meth:`Pi.stat`, doctor's ``System.stat``), so no test
needs root's ``mknod`` or ``chown``, and the checks read the same fields they read on a Pi.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import companion.sim as sim
from companion.doctor.checks import System

# Raspberry Pi OS's gids for the groups its udev rules give the device nodes.
GIDS = {"dialout": 20, "gpio": 997, "i2c": 998, "spi": 999, "companion": 1001}
COMPANION_UID = 1001
NODES = {  # node -> its group, as udev leaves them on Raspberry Pi OS (all 0660)
    "dev/spidev0.0": "spi",
    "dev/spidev0.1": "spi",
    "dev/i2c-1": "i2c",
    "dev/gpiochip0": "gpio",
    "dev/gpiochip4": "gpio",
}
BOOT = (
    "dtparam=audio=on\n# dtparam=spi=on\n[all]\ndtparam=i2c_arm=on,i2c_arm_baudrate=400000\n"
    "dtparam=spi=on  # the readers\n"
)


@dataclass
class I2CBench:
    """I2C buses by port, with the addresses that acknowledge on each. ``read_byte`` elsewhere fails as the Pi's
    i2c driver does when no device answers (EREMOTEIO); ``fault`` makes every read fail with that errno instead
    (a bus held low times out)."""

    devices: dict[int, set[int]]
    fault: int | None = None
    opened: list[int] = field(default_factory=list)
    closed: int = 0

    def __call__(self, port: int) -> I2CBench.Bus:
        if port not in self.devices:
            raise FileNotFoundError(errno.ENOENT, f"No such file or directory: '/dev/i2c-{port}'")
        self.opened.append(port)
        return I2CBench.Bus(self, port)

    @dataclass
    class Bus:
        bench: I2CBench
        port: int

        def read_byte(self, address: int) -> int:
            if self.bench.fault is not None:
                raise OSError(self.bench.fault, os.strerror(self.bench.fault))
            if address not in self.bench.devices[self.port]:
                raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
            return 0x43  # an SSD1306's status byte: display on, ready

        def close(self) -> None:
            self.bench.closed += 1


@dataclass(frozen=True)
class Node:
    """What udev made of a node: its type and mode bits (``st_mode``) and its group; root owns it."""

    mode: int
    gid: int


@dataclass
class Pi:
    root: Path
    config: Path
    i2c: I2CBench
    nodes: dict[Path, Node] = field(default_factory=dict)

    def system(self) -> System:
        return System(root=self.root, spi_device=sim.spidev.SpiDev, i2c_bus=self.i2c, stat=self.stat)

    def stat(self, path: Path) -> os.stat_result:
        """The path's own stat (``FileNotFoundError`` once it is gone), with the node's type, owner, group and
        mode as :meth:`node` made it; a path that is no node (a symlink to a pty) is what it is."""
        info = path.stat()
        node = self.nodes.get(path.resolve())
        if node is None:
            return info
        fields = list(info)
        fields[stat.ST_MODE], fields[stat.ST_UID], fields[stat.ST_GID] = node.mode, 0, node.gid
        return os.stat_result(fields)

    def write_config(self, text: str) -> None:
        self.config.write_text(text, "utf-8")

    def boot(self, text: str) -> None:
        (self.root / "boot/firmware/config.txt").write_text(text, "utf-8")

    def node(self, name: str, group: str, mode: int = 0o660, *, char: bool = False) -> Path:
        """A node owned by root and ``group`` with ``mode``: a character device (as a tty is) or a plain file."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        self.nodes[path.resolve()] = Node((stat.S_IFCHR if char else stat.S_IFREG) | mode, GIDS[group])
        return path

    def groups(self, members: dict[str, str]) -> None:
        """``/etc/group`` with each group's members (``{"spi": "companion"}``); groups not named have none."""
        lines = [f"{name}:x:{gid}:{members.get(name, '')}" for name, gid in GIDS.items()]
        (self.root / "etc/group").write_text("root:x:0:\n" + "\n".join(lines) + "\n", "utf-8")
