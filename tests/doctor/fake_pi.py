"""A Raspberry Pi in a folder: ``/boot/firmware/config.txt``, device nodes with Raspberry Pi OS's groups and
modes, ``/etc/passwd`` and ``/etc/group`` with the service user, ``/proc/asound/cards`` and a config. Readers are
the chip simulator's; the I2C buses are :class:`I2CBench`; aplay is :class:`Aplay`.

A node is a plain file under the root; what udev makes of it on a Pi (a character device or a file, owned by root,
its group, its mode) is what the Pi's ``stat`` says of it (:meth:`Pi.stat`, doctor's ``System.stat``), so no test
needs root's ``mknod`` or ``chown``, and the checks read the same fields they read on a Pi.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import subprocess
import wave
from dataclasses import dataclass, field
from pathlib import Path

import companion.sim as sim
from companion.doctor.checks import System

# Raspberry Pi OS's gids for the groups its udev rules give the device nodes.
GIDS = {"dialout": 20, "audio": 29, "gpio": 997, "i2c": 998, "spi": 999, "companion": 1001}
COMPANION_UID = 1001
NODES = {  # node -> its group, as udev leaves them on Raspberry Pi OS (all 0660)
    "dev/spidev0.0": "spi",
    "dev/spidev0.1": "spi",
    "dev/i2c-1": "i2c",
    "dev/gpiochip0": "gpio",
    "dev/gpiochip4": "gpio",
    "dev/snd/controlC0": "audio",
    "dev/snd/pcmC0D0p": "audio",
    "dev/snd/controlC1": "audio",
    "dev/snd/pcmC1D0p": "audio",
}
# /proc/asound/cards of a Pi 4 under Raspberry Pi OS Bookworm: the headphone jack and the two HDMI outputs, as the
# kernel writes it (sound/core/init.c, snd_card_info_read: "%2i [%-15s]: %s - %s", then the long name).
CARDS = (
    " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
    "                      bcm2835 Headphones\n"
    " 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n"
    "                      vc4-hdmi-0\n"
    " 2 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1\n"
    "                      vc4-hdmi-1\n"
)
# A MAX98357A on the I2S pins with dtoverlay=max98357a: ASoC names the card after the overlay's card name
# (max98357a-overlay.dts: simple-audio-card,name = "MAX98357A"; sound/soc/soc-core.c, soc_setup_card_name, uses it for
# the id and the driver when the card gives no driver name).
MAX98357A = " 0 [MAX98357A      ]: MAX98357A - MAX98357A\n                      MAX98357A\n"
NO_CARDS = "--- no soundcards ---\n"
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
    _aplay: Aplay | None = None

    def system(self) -> System:
        return System(root=self.root, spi_device=sim.spidev.SpiDev, i2c_bus=self.i2c, stat=self.stat, play=self.aplay)

    @property
    def aplay(self) -> Aplay:
        if self._aplay is None:
            self._aplay = Aplay(self.root / "proc/asound/cards")
        return self._aplay

    def sound_cards(self, text: str) -> None:
        (self.root / "proc/asound").mkdir(parents=True, exist_ok=True)
        (self.root / "proc/asound/cards").write_text(text, "utf-8")

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


@dataclass
class Aplay:
    """aplay as the doctor's ``System.play`` runs it (``aplay -q -D DEVICE -``, the WAV on its input): its exit
    status and its words, from alsa-utils aplay/aplay.c and alsa-lib, for the cards in ``cards`` (the Pi's
    ``/proc/asound/cards``, read when it plays, as ALSA opens the card then).

    What bites on a Pi: a ``hw:`` PCM takes the card's own formats only, and the I2S block plays stereo only
    (sound/soc/bcm/bcm2835-i2s.c, bcm2835_i2s_dai: ``channels_min = 2``), while espeak-ng speaks mono: aplay
    says "Channels count non available" (aplay.c, set_params); ``plughw:`` converts. A card another program holds
    (``busy``) is "audio open error: Device or resource busy"; a card that is not there, or a PCM no config
    defines, "audio open error: No such file or directory" after alsa-lib's "Unknown PCM"."""

    cards: Path
    busy: bool = False
    played: list[tuple[str, bytes]] = field(default_factory=list)

    def __call__(self, wav: bytes, device: str) -> subprocess.CompletedProcess[bytes]:
        from companion.doctor.sound import card_of, parse_cards

        argv = ["aplay", "-q", "-D", device, "-"]
        cards = parse_cards(self.cards.read_text("utf-8")) if self.cards.exists() else []
        ref = card_of(device)
        card = None if ref is None else next((c for c in cards if (ref or "0") in (str(c.index), c.id)), None)
        if card is None:
            said = f"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM {device}\n"
            return self._failed(argv, said + "aplay: main:831: audio open error: No such file or directory")
        if self.busy:
            return self._failed(argv, "aplay: main:831: audio open error: Device or resource busy")
        with wave.open(io.BytesIO(wav)) as read:
            channels = read.getnchannels()
        if device.startswith("hw:") and card.id == "MAX98357A" and channels != 2:
            return self._failed(argv, "aplay: set_params:1343: Channels count non available")
        self.played.append((device, wav))
        return subprocess.CompletedProcess(argv, 0, b"", b"")

    @staticmethod
    def _failed(argv: list[str], said: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.CompletedProcess(argv, 1, b"", (said + "\n").encode())
