"""The service unit verifies, is hardened to an exposure of 1.5 or less, lets the page and the club's publisher
reach the local network and nothing else, and the installer is safe to run twice."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp
from systemd_units import (
    SYSTEMD,
    exposure,
    proc_options,
    recording_systemctl,
    run_in_units_proc,
    unit_settings,
    verify_problems,
)

if TYPE_CHECKING:
    from brokers import Board, Broker

ROOT = Path(__file__).parents[2]
UNIT = SYSTEMD / "companion.service"


def test_the_unit_verifies(tmp_path: Path) -> None:
    assert not verify_problems(UNIT, tmp_path)


def test_the_unit_is_hardened_to_an_exposure_of_1_5_or_less(tmp_path: Path) -> None:
    assert exposure(UNIT, tmp_path) <= 1.5


# systemd.resource-control(5), "IPAddressAllow=, IPAddressDeny=", table 1: the symbolic names a list may hold.
IP_NAMES = {
    "any": ("0.0.0.0/0", "::/0"),
    "localhost": ("127.0.0.0/8", "::1/128"),
    "link-local": ("169.254.0.0/16", "fe80::/64"),
    "multicast": ("224.0.0.0/4", "ff00::/8"),
}


def networks(values: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """An IP address list as systemd reads it: entries combine, an empty assignment resets the list."""
    listed: list[str] = []
    for value in values:
        listed = [*listed, *value.split()] if value else []
    return [ipaddress.ip_network(net) for entry in listed for net in IP_NAMES.get(entry, (entry,))]


def reachable(settings: dict[str, list[str]], address: str) -> bool:
    """Whether the unit lets the service exchange packets with ``address``: an allowed address passes, then a
    denied one is dropped, then anything passes (systemd.resource-control(5))."""
    ip = ipaddress.ip_address(address)
    if any(ip in net for net in networks(settings.get("IPAddressAllow", []))):
        return True
    return not any(ip in net for net in networks(settings.get("IPAddressDeny", [])))


def test_the_unit_reaches_this_machine_and_the_local_networks_only() -> None:
    settings = unit_settings(UNIT.read_text())
    assert settings["IPAddressDeny"] == ["any"]
    for local in ("127.0.0.1", "::1", "169.254.7.1", "fe80::1", "10.1.2.3", "172.20.0.5", "192.168.1.20", "fd12::1"):
        assert reachable(settings, local), f"{local}: a phone or a broker on the room's network is cut off"
    for far in ("8.8.8.8", "100.64.0.1", "172.32.0.1", "2001:db8::1", "224.0.0.251"):
        assert not reachable(settings, far), f"{far}: beyond the local networks"


SOCKETS_SEEN = """
import os, sys

_seen = open(os.environ["SOCKETS_SEEN"], "a", buffering=1)


def _note(event, args):
    if event == "socket.__new__":
        _seen.write(f"family {int(args[1])}\\n")
    elif event in ("socket.bind", "socket.connect") and isinstance(args[1], tuple):
        _seen.write(f"{event} {args[1][0] or '0.0.0.0'}\\n")


sys.addaudithook(_note)
"""


def test_the_unit_lets_the_page_and_the_club_publisher_open_their_sockets(
    tmp_path: Path, service: Callable[..., subprocess.Popen[str]], broker: Broker, board: Board
) -> None:
    """The service serves its page (on IPv6 here) and publishes to the club's broker (IPv4), and every socket it
    opens, and every address it binds or connects to, is one the unit allows: Python's audit events name them
    (sitecustomize, imported at start-up, listens), as the sandbox would see them."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SOCKETS_SEEN)
    seen = tmp_path / "sockets"
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "config.toml"
    config.write_text(
        (ROOT / "systemd" / "sim.toml").read_text().replace('listen = "127.0.0.1:0"', f'listen = "[::1]:{port}"')
        + f'\n[mqtt]\nurl = "{broker.url}"\ntable = "mesa-1"\n'
    )
    process = service(config, cwd=tmp_path, env={"PYTHONPATH": str(site), "SOCKETS_SEEN": str(seen)})

    async def served_and_published() -> None:
        async with board.watching(), aiohttp.ClientSession() as session:
            end = time.monotonic() + 30
            while board.status.get("mesa-1") != "online" or not await answers(session, f"http://[::1]:{port}/"):
                assert process.poll() is None, process.communicate()[0]
                assert time.monotonic() < end, "the service neither served nor published"
                await asyncio.sleep(0.05)

    try:
        asyncio.run(served_and_published())
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    assert process.returncode == 0, out
    lines = seen.read_text().splitlines()
    families = {socket.AddressFamily(int(line.split()[1])).name for line in lines if line.startswith("family ")}
    bound = {line.split()[1] for line in lines if line.startswith("socket.bind ")}
    connected = {line.split()[1] for line in lines if line.startswith("socket.connect ")}
    assert {"AF_INET", "AF_INET6"} <= families and "::1" in bound and "127.0.0.1" in connected
    settings = unit_settings(UNIT.read_text())
    assert settings.get("PrivateNetwork", ["no"]) == ["no"], "a network of its own would hide the page"
    assert families <= set(" ".join(settings["RestrictAddressFamilies"]).split())
    # A socket bound to every address of the machine (paho binds its own end so) takes packets from where the
    # list allows; each address bound to or connected to by name must be allowed.
    named = (bound | connected) - {"0.0.0.0", "::"}
    assert all(reachable(settings, address) for address in named), named


async def answers(session: aiohttp.ClientSession, url: str) -> bool:
    try:
        async with session.get(url) as response:
            return response.status == 200
    except aiohttp.ClientConnectionError:
        return False


def test_the_unit_runs_as_its_own_user_with_the_device_groups_it_needs() -> None:
    text = UNIT.read_text()
    assert "User=companion" in text and "Restart=always" in text and "StateDirectory=companion" in text
    groups = re.search(r"SupplementaryGroups=(.*)", text)
    assert groups and set(groups.group(1).split()) == {"gpio", "spi", "i2c", "dialout", "audio"}


def test_the_installer_makes_every_group_the_unit_names_and_puts_the_user_in_them() -> None:
    """systemd refuses to start a unit whose SupplementaryGroups= names a group that does not exist (status
    216/GROUP): the installer makes each one (a Pi OS Lite without a desktop may lack one) and adds the user, so that
    doctor, run as companion, opens the same nodes the service does."""
    unit = set(unit_settings(UNIT.read_text())["SupplementaryGroups"][-1].split())
    script = (ROOT / "systemd" / "install.sh").read_text()
    loop = re.search(r"for group in ([a-z0-9 ]+); do[^\n]*\n(.*?)\n    done", script, re.S)
    assert loop, "the installer's loop over the groups"
    assert set(loop.group(1).split()) == unit
    assert 'groupadd --system "$group"' in loop.group(2) and 'usermod --append --groups "$group" companion' in (
        loop.group(2)
    )


def test_the_installer_is_safe_to_run_twice_and_keeps_an_edited_config(tmp_path: Path) -> None:
    env = {**os.environ, "DESTDIR": str(tmp_path), "SKIP_VENV": "1"}
    script = str(ROOT / "systemd" / "install.sh")
    subprocess.run([script], env=env, check=True, capture_output=True)
    config = tmp_path / "etc" / "companion" / "config.toml"
    assert config.read_text() == (ROOT / "systemd" / "config.toml").read_text()
    config.write_text(config.read_text() + "\n# edited by the owner\n")
    second = subprocess.run([script], env=env, check=True, capture_output=True, text=True)
    assert "keeping /etc/companion/config.toml" in second.stdout
    assert config.read_text().endswith("# edited by the owner\n")
    assert (tmp_path / "etc" / "systemd" / "system" / "companion.service").read_text() == UNIT.read_text()
    assert os.readlink(tmp_path / "usr" / "local" / "bin" / "companion") == "/opt/companion/venv/bin/companion"


def test_under_another_prefix_the_unit_and_the_link_name_the_program_there(tmp_path: Path) -> None:
    env = {**os.environ, "DESTDIR": str(tmp_path), "SKIP_VENV": "1", "PREFIX": "/srv/referee"}
    subprocess.run([str(ROOT / "systemd" / "install.sh")], env=env, check=True, capture_output=True)
    unit = (tmp_path / "etc" / "systemd" / "system" / "companion.service").read_text()
    assert "ExecStart=/srv/referee/venv/bin/companion run --config /etc/companion/config.toml\n" in unit
    assert "Documentation=file:///srv/referee/README.md\n" in unit and "/opt/" not in unit
    assert unit == UNIT.read_text().replace("/opt/companion/", "/srv/referee/")
    assert os.readlink(tmp_path / "usr" / "local" / "bin" / "companion") == "/srv/referee/venv/bin/companion"
    assert (tmp_path / "srv" / "referee" / "README.md").is_file()


# A python3 that records what the installer asks of it: `-m venv DIR` makes DIR/bin/python (itself), pip says what
# it installs, and with NO_WHEEL there is no lgpio wheel for it (Python 3.13 has none on PyPI).
FAKE_PYTHON = """#!/bin/bash
echo "$*" >> "$CALLS"
case "$*" in
    "--version") echo "Python 3.13.1" ;;
    "-m venv "*) mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
    *"--only-binary=lgpio"*)
        if [[ -n "${NO_WHEEL:-}" ]]; then echo "ERROR: No matching distribution found for lgpio"; exit 1; fi ;;&
    "-m pip install"*) echo "Successfully installed companion-0.1.0 lgpio-0.2.2.0" ;;
esac
"""


def install_with_fake_python(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    python = tmp_path / "python3"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    calls = tmp_path / "calls"
    environ = {**os.environ, "DESTDIR": str(tmp_path / "root"), "PYTHON": str(python), "CALLS": str(calls), **env}
    done = subprocess.run(
        [str(ROOT / "systemd" / "install.sh")], env=environ, capture_output=True, text=True, check=False
    )
    return done, calls.read_text().splitlines()


def test_the_installer_says_what_it_does_and_pip_is_not_silenced(tmp_path: Path) -> None:
    done, calls = install_with_fake_python(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "making the virtual environment /opt/companion/venv (Python 3.13.1)" in done.stdout
    assert "installing companion and its libraries into /opt/companion/venv (pip lists each)" in done.stdout
    assert "Successfully installed companion-0.1.0 lgpio-0.2.2.0" in done.stdout  # pip's own lines reach the user
    pips = [call for call in calls if call.startswith("-m pip install")]
    assert pips == [f"-m pip install --upgrade --progress-bar off --only-binary=lgpio {ROOT}"]  # no --quiet


def test_without_an_lgpio_wheel_the_installer_names_what_building_it_needs(tmp_path: Path) -> None:
    done, _ = install_with_fake_python(tmp_path, NO_WHEEL="1")
    # Under DESTDIR (another root) it does not run apt-get: it says what to install and stops.
    assert done.returncode == 1
    assert "no lgpio wheel for Python 3.13.1" in done.stdout and "building lgpio from source" in done.stdout
    assert "install these first (then run me again): swig gcc python3-dev liblgpio-dev" in done.stdout


def test_no_document_tells_to_apt_install_lgpio() -> None:
    """lgpio is a pip dependency installed into the service's own environment; an apt package would be invisible
    to it. The README, the hardware guide and the installer agree."""
    texts = [path.read_text("utf-8") for path in (ROOT / "README.md", ROOT / "hardware" / "README.md")]
    assert not any(re.search(r"apt(-get)? install[^\n`]*lgpio", text) for text in texts)
    assert "puts\n   lgpio in companion's own environment, so nothing needs installing by apt" in texts[1]
    assert '"lgpio>=0.2.2' in (ROOT / "pyproject.toml").read_text()


# The names drivers register their character devices under, as /proc/devices lists them: systemd's
# DeviceAllow=char-NAME matches these, never a /dev name (systemd.resource-control(5), "DeviceAllow=").
PROC_DEVICES = {
    "spi": 'drivers/spi/spidev.c: register_chrdev(SPIDEV_MAJOR, "spi", &spidev_fops) (the nodes are spidevB.C)',
    "i2c": 'drivers/i2c/i2c-dev.c: register_chrdev_region(MKDEV(I2C_MAJOR, 0), I2C_MINORS, "i2c")',
    "gpiochip": 'drivers/gpio/gpiolib.h: GPIOCHIP_NAME "gpiochip"; gpiolib.c: alloc_chrdev_region(.., GPIOCHIP_NAME)',
    "ttyACM": 'drivers/usb/class/cdc-acm.c: acm_tty_driver->name = "ttyACM"; drivers/tty/tty_io.c: '
    "tty_register_driver registers the region under driver->name",
    "alsa": 'sound/core/sound.c: alsa_sound_init: register_chrdev(major, "alsa", &snd_fops) (every /dev/snd/ node: '
    "controlC0, pcmC0D0p, timer, seq)",
}
# The device nodes the daemon opens, and the /proc/devices name of the driver behind each.
NODE_DRIVERS = {
    "/dev/spidev0.0": "spi",
    "/dev/i2c-1": "i2c",
    "/dev/gpiochip0": "gpiochip",
    "/dev/ttyACM0": "ttyACM",
    "/dev/snd/pcmC0D0p": "alsa",  # the voice: espeak-ng's samples played by aplay (alsa-lib opens the card's
    "/dev/snd/controlC0": "alsa",  # control node too, for its mixer and its card's name)
}
# Device nodes a unit may name by path: RPi.GPIO's register window (the mfrc522 back-end's package uses it).
NODE_PATHS = {"/dev/gpiomem"}


def test_every_device_allow_names_a_device_linux_has() -> None:
    allowed = [value.split()[0] for value in unit_settings(UNIT.read_text())["DeviceAllow"]]
    for name in allowed:
        if name.startswith("char-"):
            assert name.removeprefix("char-") in PROC_DEVICES, f"{name}: no driver registers that name"
        else:
            assert name in NODE_PATHS, f"{name}: not a device node the daemon opens"
    for node, driver in NODE_DRIVERS.items():
        assert f"char-{driver}" in allowed, f"{node} ({driver} in /proc/devices) is not allowed"
    assert "DevicePolicy=closed" in UNIT.read_text()


def installer(tmp_path: Path, running: bool) -> tuple[dict[str, str], Path]:
    """The installer's environment into ``tmp_path/root``, with a systemctl that records its calls and says the
    service is running (or not)."""
    fake, log = recording_systemctl(tmp_path, running)
    env = {**os.environ, "DESTDIR": str(tmp_path / "root"), "SKIP_VENV": "1", "SYSTEMCTL": str(fake)}
    return env, log


def test_an_upgrade_keeps_the_owners_modes_and_restarts_the_running_service(tmp_path: Path) -> None:
    script = str(ROOT / "systemd" / "install.sh")
    env, log = installer(tmp_path, running=False)
    subprocess.run([script], env=env, check=True, capture_output=True)
    assert log.read_text().splitlines() == [
        "daemon-reload",
        "enable companion.service",
        "--quiet is-active companion.service",
        "start companion.service",
    ]
    etc = tmp_path / "root" / "etc" / "companion"
    assert (etc / "pinmap.toml").read_text() == (ROOT / "hardware" / "pinmap.toml").read_text()
    etc.chmod(0o750)
    (etc / "config.toml").chmod(0o640)
    (etc / "pinmap.toml").write_text((etc / "pinmap.toml").read_text() + "\n# rewired\n")
    log.unlink()
    env, log = installer(tmp_path, running=True)
    second = subprocess.run([script], env=env, check=True, capture_output=True, text=True)
    assert stat.S_IMODE(etc.stat().st_mode) == 0o750
    assert stat.S_IMODE((etc / "config.toml").stat().st_mode) == 0o640
    assert (etc / "pinmap.toml").read_text().endswith("# rewired\n") and (etc / "pinmap.toml.new").exists()
    assert "restart companion.service" in log.read_text().splitlines()
    assert "restarting companion" in second.stdout


def test_the_working_directory_is_the_writable_state_directory() -> None:
    """lgpio makes its notification pipe in the working directory; under ProtectSystem=strict only the state
    directory is writable (tests/test_pins.py shows lgpio failing in a read-only one)."""
    settings = unit_settings(UNIT.read_text())
    assert settings["ProtectSystem"] == ["strict"]
    assert settings["WorkingDirectory"] == [f"/var/lib/{state}" for state in settings["StateDirectory"]]


# What gpiozero reads for every LED() and Button() on a Pi (gpiozero/pins/local.py, get_pi_revision; RPi.GPIO,
# the mfrc522 back-end's package, reads the same two files): a missing /proc/cpuinfo raises FileNotFoundError where
# this machine, not a Pi, gets gpiozero's PinUnknownPi.
BOARD_LOOKUP = """
from gpiozero.exc import PinUnknownPi
from gpiozero.pins.local import get_pi_revision
from companion.pins import board_revision
try:
    get_pi_revision()
except PinUnknownPi:
    print("gpiozero: not a Pi")
print("companion:", hex(board_revision()))
with open("/proc/cpuinfo") as cpuinfo:
    print("cpuinfo:", len(cpuinfo.read()) > 0)
"""


def test_the_pins_are_looked_up_in_the_units_own_proc() -> None:
    """ProcSubset=pid hides /proc/cpuinfo and /proc/device-tree: on a Pi every gpiozero device then fails and the
    service restarts every 2 s while doctor, run from a shell, is green. The board lookup runs here in a /proc
    mounted with the unit's options, so a setting that hides what it reads fails."""
    settings = unit_settings(UNIT.read_text())
    assert "hidepid=invisible" in proc_options(settings)  # the sandbox is still there: only the subset is gone
    result = run_in_units_proc(settings, [sys.executable, "-c", BOARD_LOOKUP])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["gpiozero: not a Pi", "companion: 0xc03111", "cpuinfo: True"]


def test_the_units_proc_is_mounted_as_systemd_mounts_it() -> None:
    """The mount the test above runs in hides what subset=pid hides (the negative control of that test)."""
    hidden = run_in_units_proc({"ProcSubset": ["pid"]}, ["cat", "/proc/cpuinfo"])
    assert hidden.returncode != 0 and "No such file" in hidden.stderr


def test_the_unit_waits_for_no_device_unit_that_never_appears() -> None:
    """udev tags for systemd only the devices whose rules say TAG+="systemd" (and a few kinds: block, net, tty);
    spidev, i2c-dev and gpiochip nodes are not, so ``Wants=dev-spidev0.0.device`` was a job that timed out at every
    boot (systemd.device(5))."""
    settings = unit_settings(UNIT.read_text())
    dependencies = [
        unit
        for key in ("Wants", "Requires", "After", "BindsTo")
        for value in settings.get(key, [])
        for unit in value.split()
    ]
    assert dependencies and not [unit for unit in dependencies if unit.endswith(".device")]


def test_the_units_task_limit_leaves_the_running_service_room(
    tmp_path: Path, service: Callable[..., subprocess.Popen[str]], broker: Broker, board: Board
) -> None:
    """TasksMax= bounds a leak of threads; the service itself, with every part that starts threads (the screen,
    the mock pins, the page, the club's publisher, the resolver's pool), stays under half of it."""
    settings = unit_settings(UNIT.read_text())
    assert settings["PrivateMounts"] == ["yes"]
    limit = int(settings["TasksMax"][-1])
    config = tmp_path / "config.toml"
    config.write_text(
        (ROOT / "systemd" / "sim.toml").read_text() + f'\n[mqtt]\nurl = "{broker.url}"\ntable = "mesa-1"\n'
    )
    process = service(config, cwd=tmp_path)

    async def published() -> None:
        async with board.watching():
            end = time.monotonic() + 30
            while board.status.get("mesa-1") != "online":
                assert process.poll() is None, process.communicate()[0]
                assert time.monotonic() < end, "the service did not publish"
                await asyncio.sleep(0.05)

    try:
        asyncio.run(published())
        tasks = len(os.listdir(f"/proc/{process.pid}/task"))
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    assert process.returncode == 0, out
    assert 2 <= tasks <= limit // 2, f"{tasks} threads against TasksMax={limit}"


def test_the_installed_config_is_kept_from_other_users(tmp_path: Path) -> None:
    """The config may hold the club's broker password: installed 0640 (root:companion on the Pi, so the service
    reads it through its group and cannot rewrite it); an older world-readable one is kept, with the fix said."""
    script = str(ROOT / "systemd" / "install.sh")
    env, _log = installer(tmp_path, running=False)
    subprocess.run([script], env=env, check=True, capture_output=True)
    etc = tmp_path / "root" / "etc" / "companion"
    assert stat.S_IMODE((etc / "config.toml").stat().st_mode) == 0o640
    assert stat.S_IMODE((etc / "pinmap.toml").stat().st_mode) == 0o644  # the wiring holds no secret
    (etc / "config.toml").chmod(0o644)  # as an older installer left it
    second = subprocess.run([script], env=env, check=True, capture_output=True, text=True)
    assert stat.S_IMODE((etc / "config.toml").stat().st_mode) == 0o644  # the owner's file, kept as it is
    assert stat.S_IMODE((etc / "config.toml.new").stat().st_mode) == 0o640
    assert (
        "/etc/companion/config.toml is readable by every user, and may hold the broker's password: "
        "sudo chmod 0640 /etc/companion/config.toml && sudo chgrp companion /etc/companion/config.toml"
    ) in second.stdout
    (etc / "config.toml").chmod(0o640)
    third = subprocess.run([script], env=env, check=True, capture_output=True, text=True)
    assert "readable by every user" not in third.stdout


# A python3 whose pip fails as the real one does off Raspberry Pi OS Bookworm, and an apt-get as Debian's. pip's words
# are its own (pip/_internal: DistributionNotFound's "No matching distribution found for ...", operations/build/
# wheel.py's "Failed building wheel for %s", exceptions' InstallWheelBuildError; setuptools/_distutils/spawn.py's
# "command {!r} failed: {}"; urllib3's "connection broken by" when offline); apt-get's, those of Debian 12's
# `apt-get install --simulate liblgpio-dev`: "E: Unable to locate package liblgpio-dev", exit status 100.
# NO_LGPIO_WHEEL: Python 3.13 (lgpio has no wheel for it); NO_COMPILER: spidev and RPi.GPIO have no aarch64 wheel
# and there is no gcc (until apt-get installs it); OFFLINE: no network.
FAILING_PYTHON = """#!/bin/bash
echo "$*" >> "$CALLS"
case "$*" in
    "--version") echo "Python 3.13.5" ;;
    "-m venv "*) mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
    "-m pip install"*)
        if [[ -n "${OFFLINE:-}" ]]; then
            echo "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after \\
connection broken by 'NewConnectionError(': Failed to establish a new connection: [Errno -3] Temporary failure in \\
name resolution')': /simple/lgpio/"
            echo "ERROR: Could not find a version that satisfies the requirement lgpio>=0.2.2 (from versions: none)" >&2
            echo "ERROR: No matching distribution found for lgpio>=0.2.2" >&2
            exit 1
        fi
        if [[ -n "${NO_LGPIO_WHEEL:-}" && "$*" == *--only-binary=lgpio* ]]; then
            echo "ERROR: Could not find a version that satisfies the requirement lgpio>=0.2.2 (from companion)" \\
                "(from versions: none)" >&2
            echo "ERROR: No matching distribution found for lgpio>=0.2.2" >&2
            exit 1
        fi
        if [[ -n "${NO_COMPILER:-}" && ! -e "$INSTALLED/gcc" ]]; then
            echo "  Building wheel for spidev (pyproject.toml): finished with status 'error'"
            echo "      error: command 'aarch64-linux-gnu-gcc' failed: No such file or directory" >&2
            echo "  ERROR: Failed building wheel for spidev" >&2
            echo "  ERROR: Failed building wheel for RPi.GPIO" >&2
            echo "ERROR: Failed to build installable wheels for some pyproject.toml based projects" \\
                "(spidev, RPi.GPIO)" >&2
            exit 1
        fi
        echo "Successfully installed companion-0.1.0 spidev-3.7 RPi.GPIO-0.7.1" ;;
esac
"""

DEBIAN_APT_GET = """#!/bin/bash
echo "$*" >> "$APT_CALLS"
[[ "$1" == install ]] || exit 0
for package in "${@:2}"; do
    if [[ "$package" == liblgpio-dev ]]; then echo "E: Unable to locate package liblgpio-dev" >&2; exit 100; fi
done
for package in "${@:2}"; do [[ "$package" == --* ]] || touch "$INSTALLED/$package"; done
"""


def install_off_bookworm(
    tmp_path: Path, apt: bool = True, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str], list[str]]:
    """The installer with the failing python3 and, with ``apt``, Debian's apt-get; what it printed, pip's calls and
    apt-get's."""
    (tmp_path / "installed").mkdir()
    for name, text in (("python3", FAILING_PYTHON), ("apt-get", DEBIAN_APT_GET)):
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(0o755)
    calls, apt_calls = tmp_path / "calls", tmp_path / "apt-calls"
    calls.touch(), apt_calls.touch()
    environ = {
        **os.environ,
        "DESTDIR": str(tmp_path / "root"),
        "PYTHON": str(tmp_path / "python3"),
        "CALLS": str(calls),
        "APT_CALLS": str(apt_calls),
        "INSTALLED": str(tmp_path / "installed"),
        **({"APT_GET": str(tmp_path / "apt-get")} if apt else {}),
        **env,
    }
    done = subprocess.run(
        [str(ROOT / "systemd" / "install.sh")], env=environ, capture_output=True, text=True, check=False
    )
    pips = [call for call in calls.read_text().splitlines() if call.startswith("-m pip install")]
    return done, pips, apt_calls.read_text().splitlines()


def test_packages_pip_must_build_get_the_build_tools_and_are_named(tmp_path: Path) -> None:
    """spidev and RPi.GPIO have no aarch64 wheels: pip builds them and fails without gcc. The installer names them and
    what building needs (not "no lgpio wheel"), installs gcc and python3-dev, and runs pip again."""
    done, pips, apt_calls = install_off_bookworm(tmp_path, NO_COMPILER="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no wheel of RPi.GPIO spidev for Python 3.13.5 on" in done.stdout
    assert "they need a C compiler and Python's headers (gcc, python3-dev)" in done.stdout
    assert "lgpio" not in done.stdout.split("pip lists each)", 1)[1].split("Successfully installed")[0]
    assert apt_calls == ["update", "install --yes --no-install-recommends gcc python3-dev"]
    assert len(pips) == 2 and all("--only-binary=lgpio" in pip for pip in pips)
    assert "Successfully installed companion-0.1.0" in done.stdout


def test_without_apt_the_build_tools_are_named_and_the_install_stops(tmp_path: Path) -> None:
    done, pips, apt_calls = install_off_bookworm(tmp_path, apt=False, NO_COMPILER="1")
    assert done.returncode == 1 and apt_calls == [] and len(pips) == 1
    assert "install these first (then run me again): gcc python3-dev" in done.stdout


def test_no_lgpio_wheel_on_debian_names_the_missing_liblgpio_and_the_fix(tmp_path: Path) -> None:
    """Python 3.13 (Debian Trixie) has no lgpio wheel, and Debian's apt has no liblgpio-dev (exit status 100): the
    installer says so and what to do, instead of stopping on apt-get's own error."""
    done, pips, apt_calls = install_off_bookworm(tmp_path, NO_LGPIO_WHEEL="1")
    assert done.returncode == 1
    assert "no lgpio wheel for Python 3.13.5 on" in done.stdout
    assert apt_calls == ["update", "install --yes --no-install-recommends swig gcc python3-dev liblgpio-dev"]
    assert "E: Unable to locate package liblgpio-dev" in done.stdout  # apt-get's own words reach the user
    assert "this system's apt has no liblgpio-dev" in done.stdout
    assert "github.com/joan2937/lg" in done.stdout and "sudo make install PYTHON=python3.12" in done.stdout
    assert len(pips) == 1


def test_a_network_failure_is_not_called_a_missing_wheel(tmp_path: Path) -> None:
    done, pips, apt_calls = install_off_bookworm(tmp_path, OFFLINE="1")
    assert done.returncode == 1 and apt_calls == [] and len(pips) == 1
    assert "pip could not reach the package index" in done.stdout and "no lgpio wheel" not in done.stdout
