"""Doctor's checks of the Pi's own system: SPI and I2C switched on in ``config.txt`` and their device nodes there,
the GPIO chips, the pin factory the daemon will use (lgpio on a Pi) and why, and the service user allowed to open
every device node the table needs. Each returns a :class:`~companion.doctor.checks.Check` with the exact fix."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from companion.doctor.accounts import AccountFileError, account, group_names
from companion.doctor.checks import Check, System
from companion.doctor.sandbox import PROC_OPTIONS, hidden_in_sandbox
from companion.i18n import N_, _, language
from companion.pins import PinFactoryError, ReaderChoice, choose, make_factory

__all__ = [
    "NODE_GROUPS",
    "UNIT",
    "boot_config",
    "check_access",
    "check_gpio",
    "check_i2c",
    "check_pins",
    "interface_check",
    "nodes_are",
    "unit_groups",
]

UNIT = Path("etc/systemd/system/companion.service")  # where systemd/install.sh puts the unit
# The group each kind of device node belongs to on Raspberry Pi OS (its udev rules), which the unit also grants.
PINS = N_("pins")  # the pin factory's check
NODE_GROUPS = {
    "spidev": "spi",
    "i2c-": "i2c",
    "gpiochip": "gpio",
    "tty": "dialout",
    "companion-hub": "dialout",
    "controlC": "audio",  # /dev/snd/*: the voice's sound card
    "pcmC": "audio",
}


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
        key, _equals, value = line.partition("=")
        if key == "dtparam":
            for item in value.split(","):
                name, _equals, setting = item.partition("=")
                params["i2c_arm" if name.strip() == "i2c" else name.strip()] = setting.strip() or "on"
        elif key == "dtoverlay":
            overlays.add(value.split(",")[0].strip())
    return path, params, overlays


def interface_check(system: System, name: str, nodes: Sequence[str], param: str, raspi_config: str) -> Check:
    """An interface is on when its device nodes exist; otherwise ``config.txt`` tells a missing line from a Pi
    that has not rebooted since the line was added."""
    found = [node for node in nodes if system.path(node).exists()]
    config, params, _overlays = boot_config(system)
    where = system.shown(config) if config else "/boot/firmware/config.txt"
    line = f"dtparam={param}=on"
    if len(found) == len(nodes):
        said = _("{line} in {where}; ").format(line=line, where=where) if params.get(param) == "on" else ""
        return Check(name, True, f"{said}{' '.join(nodes)}")
    missing = nodes_are([node for node in nodes if node not in found])
    if params.get(param) == "on":
        return Check(
            name,
            False,
            _("{line} is in {where} but {missing}").format(line=line, where=where, missing=missing),
            "sudo reboot",
        )
    if config is None:
        state = _("no /boot/firmware/config.txt nor /boot/config.txt (is this Raspberry Pi OS?)")
    elif param in params:
        state = _("{where} has dtparam={param}={value}").format(where=where, param=param, value=params[param])
    else:
        state = _("{line} is not in {where}").format(line=line, where=where)
    return Check(
        name,
        False,
        f"{state}; {missing}",
        _("sudo raspi-config nonint {command} 0 (or add {line} to {where}), then sudo reboot").format(
            command=raspi_config, line=line, where=where
        ),
    )


def nodes_are(nodes: Sequence[str]) -> str:
    """``/dev/a is missing``, ``/dev/a /dev/b are missing``."""
    said = _("{nodes} is missing") if len(nodes) == 1 else _("{nodes} are missing")
    return said.format(nodes=" ".join(nodes))


def check_i2c(system: System, port: int) -> Check:
    return interface_check(system, "I2C", [f"/dev/i2c-{port}"], "i2c_arm", "do_i2c")


def check_gpio(system: System) -> Check:
    """gpiozero drives the LEDs and reads the buttons through ``/dev/gpiochip*`` (lgpio on the Pi 5)."""
    chips = sorted(system.path("/dev").glob("gpiochip*"))
    if not chips:
        return Check(
            "GPIO",
            False,
            _("no /dev/gpiochip*: no GPIO controller here (this is not a Raspberry Pi's kernel?)"),
            _("run companion doctor on the table's Pi, under Raspberry Pi OS (its kernel makes /dev/gpiochip0)"),
        )
    return Check("GPIO", True, " ".join(system.shown(chip) for chip in chips))


def check_pins(system: System, readers: ReaderChoice) -> Check:
    """The pin factory the daemon will use (:mod:`companion.pins`) and why; on this Pi (root ``/``) it is started,
    and the installed unit must give lgpio a writable working directory."""
    choice = choose(readers, system.root)
    detail = f"{choice.name}: {choice.reason.text(language())}"
    if choice.name != "lgpio":
        return Check(_(PINS), True, detail)
    unit = _unit_settings(system)
    if unit and not unit.get("WorkingDirectory"):
        return Check(
            _(PINS),
            False,
            detail
            + _(
                "; the installed unit has no WorkingDirectory=, and lgpio cannot make its notification pipe in / "
                "(read-only under ProtectSystem=strict)"
            ),
            _(
                "sudo make install (its unit sets WorkingDirectory=/var/lib/companion), then sudo systemctl restart "
                "companion"
            ),
        )
    if unit:
        detail, problem = _sandbox(unit, detail)
        if problem is not None:
            return problem
    if system.root != Path("/"):
        return Check(_(PINS), True, detail)
    try:
        factory = make_factory(choice)
    except PinFactoryError as exc:
        return Check(_(PINS), False, f"{detail}; {exc.problem}", exc.fix)
    chip = factory.chip
    factory.close()
    return Check(_(PINS), True, detail + _("; it opens /dev/gpiochip{chip}").format(chip=chip))


def _sandbox(unit: dict[str, str], detail: str) -> tuple[str, Check | None]:
    """The pins as the service sees them: the board files looked up in a /proc mounted as the installed unit's
    (:mod:`companion.doctor.sandbox`); the detail said, or the failed check."""
    hidden = hidden_in_sandbox(unit)
    if hidden is None:
        return detail + _("; the service's /proc was not tried (run companion doctor as root to try it)"), None
    if not hidden:
        return detail + _("; the service's /proc shows what gpiozero reads of the board"), None
    settings = " ".join(f"{key}={unit[key]}" for key in PROC_OPTIONS if key in unit)
    said = _(
        "; the installed unit's /proc ({settings}) hides {files}: gpiozero and RPi.GPIO read them for every LED and "
        "button, so the service cannot use a pin"
    )
    fix = _(
        "remove ProcSubset= from /{unit} (sudo make install puts the current unit), then sudo systemctl "
        "daemon-reload && sudo systemctl restart companion"
    )
    return detail, Check(
        _(PINS), False, detail + said.format(settings=settings, files=" ".join(hidden)), fix.format(unit=UNIT)
    )


# -- permissions -------------------------------------------------------------------------------------------


def _unit_settings(system: System) -> dict[str, str]:
    """The installed unit's settings (the last assignment of each key), empty when no unit is installed."""
    try:
        text = system.path("/").joinpath(UNIT).read_text("utf-8", errors="replace")
    except OSError:
        return {}
    settings: dict[str, str] = {}
    for line in text.splitlines():
        key, _equals, value = line.strip().partition("=")
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
    name = _("user {user}").format(user=user)
    try:
        user_account = account(system)
        names = group_names(system)
    except AccountFileError as exc:
        return Check(
            name,
            False,
            str(exc),
            _("correct that line (sudo vipw for /etc/passwd, sudo vigr for /etc/group), or remove it"),
        )
    if user_account is None:
        return Check(
            name,
            False,
            _("no user {user}: the service runs as {user}").format(user=user),
            _(
                "sudo useradd --system --home-dir /var/lib/companion --shell /usr/sbin/nologin {user} "
                "(sudo make install does it)"
            ).format(user=user),
        )
    granted = unit_groups(system)
    gids = set(user_account.gids) | {gid for gid, name in names.items() if name in granted}
    if granted - set(names.values()):
        missing = sorted(granted - set(names.values()))
        return Check(
            name,
            False,
            _(
                "the unit's SupplementaryGroups names group {group}, which does not exist: systemd will not start "
                "the service (status 216/GROUP)"
            ).format(group=missing[0]),
            f"sudo groupadd --system {missing[0]}",
        )
    lacking: dict[str, str] = {}  # group -> the node it would open
    problems: list[tuple[str, str]] = []
    for node in nodes:
        path = system.path(node)
        try:
            info = system.stat(path)
        except FileNotFoundError:
            continue  # its own check says it is missing
        if _can_open(user_account.uid, gids, info):
            continue
        group = names.get(info.st_gid, str(info.st_gid))
        if info.st_mode & 0o060 == 0o060 and info.st_gid != 0:
            lacking.setdefault(group, node)
        else:
            expected = _expected_group(node) or _("a group of its own")
            mode = stat.filemode(info.st_mode)
            problems.append(
                (
                    _("{node} is {mode} group {group}: only root can open it").format(
                        node=node, mode=mode, group=group
                    ),
                    _(
                        "sudo chgrp {expected} {node} && sudo chmod g+rw {node}; to keep it after a reboot, the udev "
                        "rules of Raspberry Pi OS (raspberrypi-sys-mods) give it to group {expected}"
                    ).format(expected=expected, node=node),
                )
            )
    if lacking:
        groups = ", ".join(_("{group} (for {node})").format(group=g, node=n) for g, n in lacking.items())
        detail = _("{user} is not in group {groups}").format(user=user, groups=groups)
        fix = _("sudo usermod -aG {groups} {user}, then sudo systemctl restart {user}")
        problems.insert(0, (detail, fix.format(groups=",".join(lacking), user=user)))
    if problems:
        return Check(name, False, "; ".join(p[0] for p in problems), "; ".join(p[1] for p in problems))
    shown = ", ".join(nodes) if nodes else _("no device nodes needed")
    return Check(name, True, _("can open {nodes}").format(nodes=shown))


def _can_open(uid: int, gids: set[int], info: os.stat_result) -> bool:
    mode = info.st_mode
    return (
        uid == 0
        or (info.st_uid == uid and mode & 0o600 == 0o600)
        or (info.st_gid in gids and mode & 0o060 == 0o060)
        or mode & 0o006 == 0o006
    )
