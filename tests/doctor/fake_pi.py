"""A Raspberry Pi in a folder: ``/boot/firmware/config.txt``, device nodes with Raspberry Pi OS's groups and
modes, ``/etc/passwd`` and ``/etc/group`` with the service user, and a config. Readers are the chip simulator's;
the I2C buses are :class:`I2CBench`.

The nodes are made as root does it on a Pi (``chown`` to the node's group; the hub's port a real character
device from ``mknod``): CI runs the suite as root.
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


@dataclass
class Pi:
    root: Path
    config: Path
    i2c: I2CBench

    def system(self) -> System:
        return System(root=self.root, spi_device=sim.spidev.SpiDev, i2c_bus=self.i2c)

    def write_config(self, text: str) -> None:
        self.config.write_text(text, "utf-8")

    def boot(self, text: str) -> None:
        (self.root / "boot/firmware/config.txt").write_text(text, "utf-8")

    def node(self, name: str, group: str, mode: int = 0o660, *, char: bool = False) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if char:
            # A tty's numbers (ttyACM0 is 166, 0): the check looks at the type, not at which device.
            os.mknod(path, mode | stat.S_IFCHR, os.makedev(166, 0))
        else:
            path.touch()
        os.chown(path, 0, GIDS[group])
        path.chmod(mode)
        return path

    def groups(self, members: dict[str, str]) -> None:
        """``/etc/group`` with each group's members (``{"spi": "companion"}``); groups not named have none."""
        lines = [f"{name}:x:{gid}:{members.get(name, '')}" for name, gid in GIDS.items()]
        (self.root / "etc/group").write_text("root:x:0:\n" + "\n".join(lines) + "\n", "utf-8")
