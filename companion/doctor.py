"""``companion doctor``: is this Pi ready to run the table? Each check says what is wrong and the exact fix.

Every check is a function that returns a :class:`Check`. Whatever they touch goes through a :class:`System`: the
filesystem root the device nodes, ``config.txt``, ``/etc/passwd`` and ``/etc/group`` are looked up under, and the
factories that open an SPI device, an I2C bus and the hub's serial link. Tests pass a temporary root, the
simulated readers of :mod:`companion.sim` and fake buses; the defaults reach the real hardware::

    for check in diagnose(Path("/etc/companion/config.toml"), System()):
        print(check.ok, check.name, check.detail, check.fix)

What is checked, in order: the config and the pin map (and that they agree on the zones); SPI, I2C and GPIO
switched on, their device nodes there, I2C at 400 kHz; the pin factory (lgpio on a Pi) and why; the service user
allowed to open the nodes; each reader's VersionReg; the display answering at its address; the hub answering its
handshake.
"""

from __future__ import annotations

import errno
import grp
import os
import pwd
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import serial

from companion.config import DEFAULT_PATH, Config, ConfigError, load_config
from companion.decks import DeckError, load_deck
from companion.hardware import (
    DEFAULT_PINMAP,
    INSTALLED_PINMAP,
    PinMap,
    PinMapError,
    ReaderPins,
    load_pinmap,
    pinmap_path,
)
from companion.hub.backend import UDEV_PORT as HUB_PORT
from companion.hub.backend import find_hub
from companion.hub.session import HubInfo, HubOffline, HubOnline, HubSession
from companion.journal import health as journal_health
from companion.nfc.rc522 import KNOWN_VERSIONS, RC522, spidev_transfer
from companion.pins import PinFactoryError, choose, make_factory
from companion.ui.display import display_words, i2c_write_s
from companion.ui.display import parse_options as parse_display_options

__all__ = [
    "CONFIG",
    "SERVICE_USER",
    "Account",
    "AccountFileError",
    "Check",
    "HubUnavailable",
    "System",
    "boot_config",
    "check_access",
    "check_config",
    "check_display",
    "check_gpio",
    "check_hub",
    "check_i2c",
    "check_i2c_speed",
    "check_pinmap",
    "check_pins",
    "check_reader",
    "check_spi",
    "diagnose",
    "serial_handshake",
]

CONFIG = "config"  # the name of the config's check: when it fails nothing else can be checked
SERVICE_USER = "companion"  # systemd/companion.service runs the daemon as this user
UNIT = Path("etc/systemd/system/companion.service")  # where systemd/install.sh puts the unit
SPI_HZ = 1_000_000  # slow enough for long jumper wires: a version read must not fail where the daemon would work
HANDSHAKE_S = 2.0  # the session gives up after 1 s without HELLO; this only bounds a port that never reads
# The group each kind of device node belongs to on Raspberry Pi OS (its udev rules), which the unit also grants.
NODE_GROUPS = {"spidev": "spi", "i2c-": "i2c", "gpiochip": "gpio", "tty": "dialout", "companion-hub": "dialout"}
# MFRC522 wiring on the Pi's header, for the fix of a reader that does not answer (hardware/README.md).
_CE_PINS = {(0, 0): 24, (0, 1): 26, (1, 0): 12, (1, 1): 11, (1, 2): 36}
_SPI_PINS = {0: "SCK pin 23, MOSI pin 19, MISO pin 21", 1: "SCK pin 40, MOSI pin 38, MISO pin 35"}
_VERSION_NAMES = {0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0"}


@dataclass(frozen=True)
class Check:
    """One finding: ``fix`` is the exact thing to do when ``ok`` is false (empty when it passed)."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


class HubUnavailable(OSError):
    """The hub's port opened but the handshake failed; the message says why and what to do."""


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


def serial_handshake(path: str, zones: Sequence[str]) -> HubInfo:
    """SYNC and HELLO with the hub on ``path`` through the daemon's own session; its ``HubInfo``, or
    :class:`HubUnavailable` with the session's reason."""
    session = HubSession(zones)
    try:
        # exclusive: a daemon that holds the port is told apart from a hub that does not answer.
        port = serial.Serial(path, timeout=0.05, write_timeout=0.5, exclusive=True)
    except (serial.SerialException, OSError) as exc:
        raise HubUnavailable(f"cannot open {path} ({exc})") from None
    with port:
        port.reset_input_buffer()  # bytes from before the SYNC belong to no session of ours
        start = time.monotonic()
        session.open(start)
        while time.monotonic() - start < HANDSHAKE_S:
            if session.outbox:
                port.write(bytes(session.outbox))
                session.outbox.clear()
            now = time.monotonic()
            for event in session.receive(port.read(port.in_waiting or 1), now) + session.poll(now):
                if isinstance(event, HubOnline):
                    return event.info
                if isinstance(event, HubOffline):
                    raise HubUnavailable(event.reason)
    raise HubUnavailable(f"no HELLO from {path} within {HANDSHAKE_S:g} s")


@dataclass(frozen=True)
class Account:
    """The service user: its uid and every group id it has (primary and supplementary)."""

    name: str
    uid: int
    gids: frozenset[int]


@dataclass
class System:
    """Where the checks look and how they reach the hardware; the defaults are this Pi's."""

    root: Path = Path("/")
    user: str = SERVICE_USER
    spi_device: Callable[[], SpiDevice] = _spidev  # a closed SpiDev; the check opens it
    i2c_bus: Callable[[int], I2CBus] = _smbus  # opens /dev/i2c-<port>
    hub_handshake: Callable[[str, Sequence[str]], HubInfo] = serial_handshake

    def path(self, absolute: str | Path) -> Path:
        """``absolute`` under the root: ``/dev/spidev0.0`` is ``<root>/dev/spidev0.0``."""
        return self.root / Path(absolute).relative_to("/")

    def shown(self, path: Path) -> str:
        """A path under the root as it is named on the Pi, for messages."""
        return "/" + str(path.relative_to(self.root))

    def account(self) -> Account | None:
        """The service user, from the system's user database at ``/``, or the root's ``etc/passwd``.

        :class:`AccountFileError` when the root's ``etc/passwd`` or ``etc/group`` has a line it cannot read."""
        if self.root == Path("/"):
            try:
                entry = pwd.getpwnam(self.user)
            except KeyError:
                return None
            supplementary = {g.gr_gid for g in grp.getgrall() if self.user in g.gr_mem}
            return Account(self.user, entry.pw_uid, frozenset({entry.pw_gid} | supplementary))
        users = self._colon_file("/etc/passwd", fields=7)
        if self.user not in users:
            return None
        _, uid, gid = users[self.user][:3]
        groups = self._colon_file("/etc/group", fields=4)
        members = {int(f[1]) for f in groups.values() if self.user in f[2].split(",")}
        return Account(self.user, int(uid), frozenset({int(gid)} | members))

    def group_names(self) -> dict[int, str]:
        if self.root == Path("/"):
            return {g.gr_gid: g.gr_name for g in grp.getgrall()}
        return {int(f[1]): name for name, f in self._colon_file("/etc/group", fields=4).items()}

    def _colon_file(self, name: str, *, fields: int) -> dict[str, list[str]]:
        """``/etc/passwd`` (7 fields) or ``/etc/group`` (4) under the root: name -> the fields after it (x, id,
        ...). A missing file is empty; a line without its fields or with an id that is not a number is an
        :class:`AccountFileError` naming the file and the line (the Pi's own tools would skip that entry)."""
        path = self.path(name)
        try:
            text = path.read_bytes()[:MAX_ACCOUNT_FILE].decode("utf-8")
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError as exc:
            raise AccountFileError(f"{name} is not UTF-8 text (byte {exc.start})") from None
        entries: dict[str, list[str]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.startswith(("#", "+", "-")):  # blank, comment, NIS compat entries
                continue
            parts = line.split(":")
            numbers = parts[2:4] if fields == 7 else parts[2:3]
            if len(parts) != fields or not all(part.isdigit() for part in numbers):
                raise AccountFileError(
                    f"{name} line {number} is malformed ({line[:60]!r}): it needs {fields} fields separated by ':' "
                    "with numeric ids"
                )
            entries.setdefault(parts[0], parts[1:])
        return entries


class AccountFileError(ValueError):
    """``/etc/passwd`` or ``/etc/group`` under doctor's root cannot be read; the message names the line."""


MAX_ACCOUNT_FILE = 4 << 20  # a Pi's user and group files are a few kB: anything larger is read no further


# -- config ------------------------------------------------------------------------------------------------


def check_config(path: Path) -> tuple[Check, Config]:
    """The daemon's config: it loads, and its deck loads. The config given back for the checks that follow is,
    when it fails, what could be read of it (a wrong value at its default), or the defaults when there is no file:
    an SD card's interfaces and users are worth checking before its config is right."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        if not path.exists():
            fix = f"sudo install -D -m 0644 systemd/config.toml {path} (sudo make install does it), then edit it"
        else:
            fix = f"edit {path}: correct the keys the message names (systemd/config.toml lists every key)"
        fallback = exc.config or Config(source=f"{path} (missing: the defaults)")
        what = "what could be read of it" if exc.config else "the defaults"
        return Check(CONFIG, False, f"{exc}\n  (the checks below use {what})", fix), fallback
    game = config.game
    try:
        deck = load_deck(game.deck_name)
    except DeckError as exc:
        return Check(CONFIG, False, str(exc), f'fix the deck file, or set game.deck = "" in {path}'), config
    zones = ", ".join(f"{zone} ({role})" for zone, role in config.zones.items())
    detail = (
        f"{path}: {game.name}, {game.players} players, deck {game.deck_name} ({len(deck)} cards), "
        f"zones {zones}, readers {config.backend}"
    )
    return Check(CONFIG, True, detail), config


def check_pinmap(config: Config, system: System) -> tuple[Check, PinMap | None]:
    """The pin map the service reads (:func:`~companion.hardware.pinmap_path`, under the root) loads, and has a
    reader (or a hub zone) for every zone of the config."""
    edit = f"set pins.map in {config.source}" if not config.pinmap else f"edit pins.map in {config.source}"
    path = pinmap_path(config.pinmap, system.root)
    try:
        pinmap = load_pinmap(path)
    except PinMapError as exc:
        return Check("pin map", False, str(exc), f"correct the key the message names, or {edit}"), None
    if config.backend in ("spi", "mfrc522"):
        have = [zone for zone, pins in pinmap.zones.items() if pins.reader is not None]
        where = "zones with a reader"
    elif config.backend == "hub":
        have = list(pinmap.hub.zones) if pinmap.hub is not None else []
        where = "hub zones"
    else:
        have = list(config.zones)  # simulated readers exist for any zone
        where = "zones"
    missing = [zone for zone in config.zones if zone not in have]
    if missing:
        detail = (
            f"{pinmap.source}: the config's zone {missing[0]} is not among the pin map's {where} "
            f"({', '.join(have) or 'none'})"
        )
        fix = f"rename the zone in [zones] of {config.source} to one of the pin map's, or add it to {pinmap.source}"
        return Check("pin map", False, detail, fix), None
    oled = pinmap.oled
    detail = f"{pinmap.source}: {where}: {', '.join(have)}; OLED {oled.get('display', 'ssd1306')}"
    if path == DEFAULT_PINMAP:
        detail += f" (the one shipped with companion: no {INSTALLED_PINMAP}, sudo make install puts it there to edit)"
    return Check("pin map", True, detail), pinmap


# -- interfaces --------------------------------------------------------------------------------------------


def boot_config(system: System) -> tuple[Path | None, dict[str, str], set[str]]:
    """``config.txt`` (Bookworm's ``/boot/firmware`` first), its ``dtparam`` values (the last one set wins) and
    its ``dtoverlay`` names. Conditional sections (``[pi4]``) are read as if they applied: doctor runs on the Pi
    whose sections they are, and a line that only applies elsewhere is rare on a table's Pi."""
    for candidate in ("/boot/firmware/config.txt", "/boot/config.txt"):
        path = system.path(candidate)
        if path.is_file():
            break
    else:
        return None, {}, set()
    params: dict[str, str] = {}
    overlays: set[str] = set()
    for raw in path.read_text("utf-8", errors="replace").splitlines():
        line = raw.split("#", 1)[0].strip()
        key, _, value = line.partition("=")
        if key == "dtparam":
            for item in value.split(","):
                name, _, setting = item.partition("=")
                params["i2c_arm" if name.strip() == "i2c" else name.strip()] = setting.strip() or "on"
        elif key == "dtoverlay":
            overlays.add(value.split(",")[0].strip())
    return path, params, overlays


def _interface(system: System, name: str, nodes: Sequence[str], param: str, raspi_config: str) -> Check:
    """An interface is on when its device nodes exist; otherwise ``config.txt`` tells a missing line from a Pi
    that has not rebooted since the line was added."""
    found = [node for node in nodes if system.path(node).exists()]
    config, params, _ = boot_config(system)
    where = system.shown(config) if config else "/boot/firmware/config.txt"
    line = f"dtparam={param}=on"
    if len(found) == len(nodes):
        said = f"{line} in {where}; " if params.get(param) == "on" else ""
        return Check(name, True, f"{said}{' '.join(nodes)}")
    missing = _missing([node for node in nodes if node not in found])
    if params.get(param) == "on":
        return Check(name, False, f"{line} is in {where} but {missing} missing", "sudo reboot")
    state = f"{where} has dtparam={param}={params[param]}" if param in params else f"{line} is not in {where}"
    if config is None:
        state = "no /boot/firmware/config.txt nor /boot/config.txt (is this Raspberry Pi OS?)"
    return Check(
        name,
        False,
        f"{state}; {missing} missing",
        f"sudo raspi-config nonint {raspi_config} 0 (or add {line} to {where}), then sudo reboot",
    )


def _missing(nodes: Sequence[str]) -> str:
    return f"{' '.join(nodes)} {'is' if len(nodes) == 1 else 'are'}"


def spi_nodes(pinmap: PinMap, zones: Sequence[str]) -> list[str]:
    readers = [pinmap.zones[zone].reader for zone in zones if zone in pinmap.zones]
    return [f"/dev/spidev{r.spi_port}.{r.spi_device}" for r in readers if r is not None]


def check_spi(system: System, pinmap: PinMap, zones: Sequence[str]) -> Check:
    """SPI0 on (and SPI1 with enough chip selects when a reader is on it); the readers' device nodes there."""
    nodes = spi_nodes(pinmap, zones)
    readers = [pinmap.zones[zone].reader for zone in zones]
    spi1 = [r.spi_device for r in readers if r is not None and r.spi_port == 1]
    if spi1:
        config, _, overlays = boot_config(system)
        chip_selects = max(spi1) + 1
        have = [int(o[5]) for o in overlays if o in ("spi1-1cs", "spi1-2cs", "spi1-3cs")]
        spi1_missing = [n for n in nodes if n.startswith("/dev/spidev1.") and not system.path(n).exists()]
        if spi1_missing and max(have, default=0) < chip_selects:
            where = system.shown(config) if config else "/boot/firmware/config.txt"
            return Check(
                "SPI",
                False,
                f"a reader is on SPI1 CE{max(spi1)} but {where} has no dtoverlay=spi1-{chip_selects}cs; "
                f"{_missing(spi1_missing)} missing",
                f"add dtoverlay=spi1-{chip_selects}cs to {where}, then sudo reboot",
            )
    return _interface(system, "SPI", nodes, "spi", "do_spi")


def check_i2c(system: System, port: int) -> Check:
    return _interface(system, "I2C", [f"/dev/i2c-{port}"], "i2c_arm", "do_i2c")


I2C_HZ = 400_000  # the rate hardware/README.md sets: a full frame holds the bus 23 ms, against 92 ms at 100 kHz
DEFAULT_I2C_HZ = 100_000  # i2c_arm_baudrate's default (Raspberry Pi firmware, boot/overlays/README)


def check_i2c_speed(system: System, port: int) -> Check:
    """The OLED's bus runs at 400 kHz: the rate the kernel runs it at (the device tree's clock-frequency, under
    /sys), else the one config.txt will give it at the next boot."""
    if port != 1:  # only I2C1 (i2c_arm) is set by dtparam; another bus is the maker's own choice
        return Check("I2C speed", True, f"/dev/i2c-{port}: its rate is set by its own overlay, not checked")
    config, params, _ = boot_config(system)
    where = system.shown(config) if config else "/boot/firmware/config.txt"
    line = f"dtparam=i2c_arm_baudrate={I2C_HZ}"
    try:
        configured = int(params.get("i2c_arm_baudrate", DEFAULT_I2C_HZ))
    except ValueError:
        return Check(
            "I2C speed",
            False,
            f"{where} has i2c_arm_baudrate={params['i2c_arm_baudrate']}, not a number",
            f"write {line} in {where}, then sudo reboot",
        )
    running = _running_i2c_hz(system, port)
    hz = configured if running is None else running
    frame_ms = i2c_write_s(1024, hz) * 1e3
    said = f"I2C{port} runs at {hz // 1000} kHz ({'the kernel says' if running is not None else where}): a full frame "
    said += f"holds the bus {frame_ms:.0f} ms"
    if hz >= I2C_HZ:
        return Check("I2C speed", True, said)
    if configured >= I2C_HZ:
        return Check(
            "I2C speed", False, f"{said}; {where} sets {configured // 1000} kHz from the next boot", "sudo reboot"
        )
    return Check(
        "I2C speed",
        False,
        f"{said} (the screen lags a change by that much)",
        f"add {line} to {where} (or to its dtparam=i2c_arm=on line: dtparam=i2c_arm=on,i2c_arm_baudrate={I2C_HZ}), "
        "then sudo reboot",
    )


def _running_i2c_hz(system: System, port: int) -> int | None:
    """The bus's clock-frequency from its device-tree node (a 32-bit big-endian number), or None off a Pi."""
    try:
        raw = system.path(f"/sys/class/i2c-adapter/i2c-{port}/of_node/clock-frequency").read_bytes()
    except OSError:
        return None
    return int.from_bytes(raw[:4], "big") if len(raw) >= 4 else None


def check_gpio(system: System) -> Check:
    """gpiozero drives the LEDs and reads the buttons through ``/dev/gpiochip*`` (lgpio on the Pi 5)."""
    chips = sorted(system.path("/dev").glob("gpiochip*"))
    if not chips:
        return Check(
            "GPIO",
            False,
            "no /dev/gpiochip*: no GPIO controller here (this is not a Raspberry Pi's kernel?)",
            "run companion doctor on the table's Pi, under Raspberry Pi OS (its kernel makes /dev/gpiochip0)",
        )
    return Check("GPIO", True, " ".join(system.shown(chip) for chip in chips))


def check_pins(system: System, backend: str) -> Check:
    """The pin factory the daemon will use (:mod:`companion.pins`) and why; on this Pi (root ``/``) it is started,
    and the installed unit must give lgpio a writable working directory."""
    choice = choose(backend, system.root)
    detail = f"{choice.name}: {choice.reason}"
    if choice.name != "lgpio":
        return Check("pins", True, detail)
    unit = _unit_settings(system)
    if unit and not unit.get("WorkingDirectory"):
        return Check(
            "pins",
            False,
            f"{detail}; the installed unit has no WorkingDirectory=, and lgpio cannot make its notification pipe "
            "in / (read-only under ProtectSystem=strict)",
            "sudo make install (its unit sets WorkingDirectory=/var/lib/companion), then sudo systemctl restart "
            "companion",
        )
    if system.root != Path("/"):
        return Check("pins", True, detail)
    try:
        factory = make_factory(choice)
    except PinFactoryError as exc:
        return Check("pins", False, f"{detail}; {exc.problem}", exc.fix)
    chip = factory.chip
    factory.close()
    return Check("pins", True, f"{detail}; it opens /dev/gpiochip{chip}")


# -- permissions -------------------------------------------------------------------------------------------


def _unit_settings(system: System) -> dict[str, str]:
    """The installed unit's settings (the last assignment of each key), empty when no unit is installed."""
    try:
        text = system.path("/").joinpath(UNIT).read_text("utf-8", errors="replace")
    except OSError:
        return {}
    settings: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition("=")
        if key == "SupplementaryGroups" and value.strip():  # these add up; an empty assignment resets
            value = f"{settings.get(key, '')} {value}".strip()
        settings[key] = value.strip()
    return settings


def unit_groups(system: System) -> set[str]:
    """The groups the installed unit's ``SupplementaryGroups=`` gives the daemon even when the user lacks them."""
    return set(_unit_settings(system).get("SupplementaryGroups", "").split())


def _expected_group(node: str) -> str:
    name = node.rsplit("/", 1)[-1]
    return next((group for prefix, group in NODE_GROUPS.items() if name.startswith(prefix)), "")


def check_access(system: System, nodes: Sequence[str]) -> Check:
    """The service user can read and write each node, by owner, group (its own or the unit's) or other bits."""
    user = system.user
    try:
        account = system.account()
        names = system.group_names()
    except AccountFileError as exc:
        return Check(
            f"user {user}",
            False,
            str(exc),
            "correct that line (sudo vipw for /etc/passwd, sudo vigr for /etc/group), or remove it",
        )
    if account is None:
        return Check(
            f"user {user}",
            False,
            f"no user {user}: the service runs as {user}",
            f"sudo useradd --system --home-dir /var/lib/companion --shell /usr/sbin/nologin {user} "
            "(sudo make install does it)",
        )
    granted = unit_groups(system)
    gids = set(account.gids) | {gid for gid, name in names.items() if name in granted}
    if granted - set(names.values()):
        missing = sorted(granted - set(names.values()))
        return Check(
            f"user {user}",
            False,
            f"the unit's SupplementaryGroups names group {missing[0]}, which does not exist: systemd will not start "
            "the service (status 216/GROUP)",
            f"sudo groupadd --system {missing[0]}",
        )
    lacking: dict[str, str] = {}  # group -> the node it would open
    problems: list[tuple[str, str]] = []
    for node in nodes:
        path = system.path(node)
        try:
            info = path.stat()
        except FileNotFoundError:
            continue  # its own check says it is missing
        if _can_open(account.uid, gids, info):
            continue
        group = names.get(info.st_gid, str(info.st_gid))
        if info.st_mode & 0o060 == 0o060 and info.st_gid != 0:
            lacking.setdefault(group, node)
        else:
            expected = _expected_group(node) or "a group of its own"
            mode = stat.filemode(info.st_mode)
            problems.append(
                (
                    f"{node} is {mode} group {group}: only root can open it",
                    f"sudo chgrp {expected} {node} && sudo chmod g+rw {node}; to keep it after a reboot, the udev "
                    f"rules of Raspberry Pi OS (raspberrypi-sys-mods) give it to group {expected}",
                )
            )
    if lacking:
        detail = f"{user} is not in group " + ", ".join(f"{g} (for {n})" for g, n in lacking.items())
        problems.insert(0, (detail, f"sudo usermod -aG {','.join(lacking)} {user}, then sudo systemctl restart {user}"))
    if problems:
        return Check(f"user {user}", False, "; ".join(p[0] for p in problems), "; ".join(p[1] for p in problems))
    shown = ", ".join(nodes) if nodes else "no device nodes needed"
    return Check(f"user {user}", True, f"can open {shown}")


def _can_open(uid: int, gids: set[int], info: os.stat_result) -> bool:
    mode = info.st_mode
    return (
        uid == 0
        or (info.st_uid == uid and mode & 0o600 == 0o600)
        or (info.st_gid in gids and mode & 0o060 == 0o060)
        or mode & 0o006 == 0o006
    )


# -- devices -----------------------------------------------------------------------------------------------


def check_reader(system: System, zone: str, pins: ReaderPins) -> Check:
    """The reader's VersionReg, read without a reset: a running daemon's reader is left as it was."""
    name = f"reader {zone}"
    where = f"SPI{pins.spi_port} CE{pins.spi_device}"
    node = f"/dev/spidev{pins.spi_port}.{pins.spi_device}"
    if not system.path(node).exists():
        return Check(name, False, f"{where}: {node} is missing", "switch SPI on: see the SPI check above")
    try:
        device = system.spi_device()
        device.open(pins.spi_port, pins.spi_device)
    except PermissionError:
        return Check(name, False, f"{where}: not allowed to open {node}", "run it as root: sudo companion doctor")
    except (OSError, ImportError) as exc:
        return Check(name, False, f"{where}: cannot open {node} ({exc})", "sudo apt install python3-spidev")
    try:
        device.max_speed_hz = SPI_HZ
        device.mode = 0
        version = RC522(spidev_transfer(device)).version()
    except OSError as exc:
        return Check(name, False, f"{where}: the SPI transfer failed ({exc})", "sudo reboot, then run doctor again")
    finally:
        device.close()
    if version in KNOWN_VERSIONS:
        chip = _VERSION_NAMES.get(version, "a compatible clone")
        return Check(name, True, f"{where} ({node}): VersionReg 0x{version:02X}, {chip}")
    if version in (0x00, 0xFF):
        reading = f"VersionReg reads 0x{version:02X}: no chip answers"
    else:
        reading = f"VersionReg reads 0x{version:02X}: something answers, but not an MFRC522"
    ce = _CE_PINS.get((pins.spi_port, pins.spi_device))
    fix = (
        f"check {zone}'s reader: 3.3 V and GND, SDA to CE{pins.spi_device}"
        + (f" (pin {ce})" if ce else "")
        + f", {_SPI_PINS.get(pins.spi_port, 'SCK, MOSI, MISO')}, RST to GPIO{pins.reset} (held low, the chip "
        "sleeps: the daemon drives it high)"
    )
    return Check(name, False, f"{where} ({node}): {reading}", fix)


def display_options(config: Config, pinmap: PinMap) -> list[str]:
    """The display's luma options: the config's, else the pin map's OLED."""
    return display_words(config.display or pinmap.oled)


def check_display(system: System, options: Sequence[str]) -> Check:
    """Something acknowledges the display's I2C address (what ``i2cdetect`` shows)."""
    try:
        args = parse_display_options(options)
    except ValueError as exc:
        return Check("display", False, str(exc), "correct display.options in the config, or [oled] in the pin map")
    if args.interface != "i2c":
        return Check("display", True, f"{args.display} on {args.interface}: doctor checks I2C displays only")
    address = int(str(args.i2c_address), 0)
    port = int(args.i2c_port)
    node = f"/dev/i2c-{port}"
    at = f"{args.display} at 0x{address:02X} on {node}"
    if not system.path(node).exists():
        return Check("display", False, f"{at}: {node} is missing", "switch I2C on: see the I2C check above")
    try:
        bus = system.i2c_bus(port)
    except PermissionError:
        return Check("display", False, f"{at}: not allowed to open {node}", "run it as root: sudo companion doctor")
    except OSError as exc:
        return Check("display", False, f"{at}: cannot open {node} ({exc})", "sudo reboot, then run doctor again")
    try:
        bus.read_byte(address)
    except OSError as exc:
        if exc.errno in (errno.EREMOTEIO, errno.ENXIO):
            return Check(
                "display",
                False,
                f"{at}: nothing answers at 0x{address:02X}",
                f"check the OLED's wiring (SDA pin 3, SCL pin 5, VCC 3.3 V, GND); i2cdetect -y {port} shows the "
                f'address it has: if 3d, set i2c_address = "0x3D" in [oled] of the pin map',
            )
        return Check(
            "display",
            False,
            f"{at}: the bus fails ({exc})",
            "SDA or SCL is shorted or held low: unplug the OLED, check its wiring, then sudo reboot",
        )
    finally:
        bus.close()
    return Check("display", True, f"{at} answers")


def hub_port(config: Config, system: System) -> str:
    """The configured port; for "auto", the udev rule's name, else (on this Pi) a Pico found by its USB ids as
    the daemon finds it."""
    if config.hub_port != "auto":
        return config.hub_port
    if system.root != Path("/"):
        return HUB_PORT
    return find_hub("auto") or HUB_PORT


def check_hub(system: System, port: str, zones: Sequence[str]) -> Check:
    """The hub's port is a character device, and the hub answers SYNC with a HELLO that fits our zones."""
    path = system.path(port)
    try:
        info = path.stat()  # follows the udev symlink to the tty
    except FileNotFoundError:
        return Check(
            "hub",
            False,
            f"no {port}: the hub is not plugged in, or not named",
            "plug the hub in by USB; if it is, sudo make install puts the udev rule that names it "
            "/dev/companion-hub, or set readers.hub_port to its port (ls /dev/ttyACM*)",
        )
    if not stat.S_ISCHR(info.st_mode):
        return Check(
            "hub",
            False,
            f"{port} is not a serial port (a {stat.filemode(info.st_mode)[0]!r} file, not a character device)",
            f"set readers.hub_port to the hub's port (ls /dev/ttyACM*), or remove the file {port}",
        )
    try:
        hello = system.hub_handshake(str(path), zones)
    except OSError as exc:
        return Check("hub", False, f"{port}: {exc}", _hub_fix(str(exc), len(zones)))
    down = [f"{zone} (error {code})" for zone, code in zip(hello.zones, hello.health, strict=False) if code]
    detail = f"{port}: firmware {hello.firmware}, protocol {hello.protocol}, zones {', '.join(hello.zones)}"
    if down:
        return Check(
            "hub",
            False,
            f"{detail}; the readers of {', '.join(down)} did not answer at the hub's start",
            "check the wiring of those readers to the Pico (hardware/README.md), then unplug the hub and plug it in",
        )
    return Check("hub", True, detail)


def _hub_fix(reason: str, zones: int) -> str:
    """What to do about a failed handshake, from the session's reason (or the port's error)."""
    if "lock" in reason or "busy" in reason:
        return (
            "the daemon holds the port: sudo systemctl stop companion, run doctor, then sudo systemctl start companion"
        )
    if "cannot open" in reason:
        return "unplug the hub and plug it in; if the error says permission, see the user check above"
    if "scans" in reason and "zones" in reason:
        return (
            f"set ZONES = {zones} in the hub's hub_config.py (mpremote edit :hub_config.py), or make [hub] zones agree"
        )
    if "configuration is wrong" in reason:
        return "correct the hub's hub_config.py as the message says (mpremote edit :hub_config.py)"
    return "flash the hub with this companion's firmware (make firmware-deploy), then unplug it and plug it in"


# -- all of them -------------------------------------------------------------------------------------------


def diagnose(config_path: Path | None, system: System) -> Iterator[Check]:
    """Every check, in order. ``config_path`` None: the default config under the root. A failed config does not
    end the run (the rest is checked with what could be read of it, or the defaults); a failed pin map does: the
    readers and nodes to check come from it."""
    check, config = check_config(config_path or system.path(DEFAULT_PATH))
    yield check
    check, pinmap = check_pinmap(config, system)
    yield check
    if pinmap is None:
        return
    zones = list(config.zones)
    nodes: list[str] = []
    options = display_options(config, pinmap)
    try:
        display = parse_display_options(options)
    except ValueError:
        display = None  # check_display says what is wrong with them
    if config.backend in ("spi", "mfrc522"):
        yield check_spi(system, pinmap, zones)
        nodes += spi_nodes(pinmap, zones)
    if display is not None and display.interface == "i2c":
        yield check_i2c(system, int(display.i2c_port))
        yield check_i2c_speed(system, int(display.i2c_port))
        nodes.append(f"/dev/i2c-{display.i2c_port}")
    yield check_gpio(system)
    yield check_pins(system, config.backend)
    nodes += [system.shown(chip) for chip in sorted(system.path("/dev").glob("gpiochip*"))]
    if config.backend == "hub":
        nodes.append(hub_port(config, system))
    yield check_access(system, nodes)
    if config.backend in ("spi", "mfrc522"):
        for zone in zones:
            pins = pinmap.zones[zone].reader
            assert pins is not None  # check_pinmap refused a zone without a reader
            yield check_reader(system, zone, pins)
    elif config.backend == "hub":
        assert pinmap.hub is not None  # check_pinmap refused a hub config without a [hub] table
        yield check_hub(system, hub_port(config, system), pinmap.hub.zones)
    else:
        yield Check("readers", True, "backend sim: the readers are simulated, nothing to check")
    yield check_display(system, options)
    yield Check("journal", *journal_health(system.path(config.journal)))
