"""What the tests of the systemd units (systemd/*.service) share: systemd's own checks of a unit, and its settings
as systemd reads them.

A plain module, importable from every test folder because pyproject.toml's pytest ``pythonpath`` names tests/
(never a conftest: with the whole suite collected, the module name ``conftest`` is whichever folder's conftest was
imported first).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from companion.doctor import sandbox

SYSTEMD = Path(__file__).resolve().parents[1] / "systemd"


def analyze(*args: str) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze ARGS``, its exit status and output."""
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is needed (Debian package systemd)"
    return subprocess.run([tool, *args], capture_output=True, text=True, check=False)


def runnable_copy(unit: Path, folder: Path) -> Path:
    """``unit`` copied into ``folder`` with its ExecStart naming an executable of this machine: systemd-analyze
    checks that the program a unit starts exists."""
    path = folder / unit.name
    path.write_text(unit.read_text().replace("/opt/companion/venv/bin/companion", sys.executable))
    return path


def verify_problems(unit: Path, folder: Path) -> str:
    """What ``systemd-analyze verify`` says against ``unit`` (nothing when it verifies)."""
    result = analyze("verify", str(runnable_copy(unit, folder)))
    problems = [line for line in (result.stdout + result.stderr).splitlines() if unit.name in line]
    return "" if result.returncode == 0 and not problems else result.stdout + result.stderr


def exposure(unit: Path, folder: Path) -> float:
    """``systemd-analyze security``'s overall exposure level of ``unit`` (0 is locked down, 10 is exposed)."""
    result = analyze("security", "--offline=yes", str(runnable_copy(unit, folder)))
    match = re.search(rf"Overall exposure level for {re.escape(unit.name)}: ([0-9.]+)", result.stdout)
    assert match, result.stdout + result.stderr
    return float(match.group(1))


def unit_settings(text: str) -> dict[str, list[str]]:
    """Each setting of a unit with its values in order: a setting given on several lines has them all."""
    settings: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def recording_systemctl(folder: Path, running: bool) -> tuple[Path, Path]:
    """A ``systemctl`` for the installer (its ``SYSTEMCTL``) that writes each call's arguments to a log, and says
    the service is running (``--quiet is-active``) or not: the program and its log, in ``folder``."""
    log = folder / "systemctl.log"
    program = folder / "systemctl"
    program.write_text(
        f'#!/bin/sh\necho "$*" >> {log}\n'
        f'if [ "$1" = --quiet ] && [ "$2" = is-active ]; then exit {0 if running else 3}; fi\nexit 0\n'
    )
    program.chmod(0o755)
    return program, log


def proc_options(settings: dict[str, list[str]]) -> list[str]:
    """The proc mount options systemd gives a unit of these settings (companion.doctor.sandbox says why)."""
    return sandbox.proc_options({key: values[-1] for key, values in settings.items()})


def run_in_units_proc(settings: dict[str, list[str]], argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run in mount and PID namespaces of its own whose /proc is mounted as the unit's is (root only:
    CI runs as root)."""
    options = ",".join(proc_options(settings)) or "defaults"
    mount = f'mount -t proc -o {options} proc /proc && exec "$@"'
    command = ["unshare", "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c", mount, "sh", *argv]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
