"""The club's unit verifies, is hardened to an exposure of 2.0 or less, reaches the local networks only, hands the
club its password as a credential, and is installed (never enabled) by the installer."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
UNIT = ROOT / "systemd" / "companion-club.service"
TABLE_UNIT = ROOT / "systemd" / "companion.service"


def analyze(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is needed (Debian package systemd)"
    return subprocess.run([tool, *args], capture_output=True, text=True, check=False)


def settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def installed_unit(tmp_path: Path) -> Path:
    """The unit with its ExecStart naming an executable of this machine, as systemd-analyze wants."""
    path = tmp_path / "companion-club.service"
    path.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/companion", sys.executable))
    return path


def test_the_club_unit_verifies(tmp_path: Path) -> None:
    result = analyze("verify", str(installed_unit(tmp_path)))
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "companion-club.service" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


def test_the_club_unit_is_hardened_to_an_exposure_of_2_or_less(tmp_path: Path) -> None:
    result = analyze("security", "--offline=yes", str(installed_unit(tmp_path)))
    match = re.search(r"Overall exposure level for companion-club.service: ([0-9.]+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.0


def test_the_club_reaches_what_the_table_reaches_and_reads_its_password_as_a_credential() -> None:
    club, table = settings(UNIT.read_text()), settings(TABLE_UNIT.read_text())
    for key in ("RestrictAddressFamilies", "IPAddressDeny", "IPAddressAllow"):
        assert club[key] == table[key], key
    (start,) = club["ExecStart"]
    assert start.split()[1] == "club" and "--password-file ${CREDENTIALS_DIRECTORY}/mqtt-password" in start
    assert club["LoadCredential"] == ["mqtt-password:/etc/companion/club-password"]
    assert "--password" not in start.replace("--password-file", "")
    assert club["Type"] == ["notify"] and club["DynamicUser"] == ["yes"]
    assert "--db /var/lib/companion-club/" in start and club["StateDirectory"] == ["companion-club"]


def test_the_installer_installs_the_club_unit_and_leaves_it_off(tmp_path: Path) -> None:
    log = tmp_path / "systemctl.log"
    recorder = tmp_path / "systemctl"
    recorder.write_text(f'#!/bin/sh\necho "$@" >> {log}\n[ "$1" != "--quiet" ]\n')
    recorder.chmod(0o755)
    env = {**os.environ, "DESTDIR": str(tmp_path), "SKIP_VENV": "1", "PREFIX": "/srv/referee"}
    subprocess.run([str(ROOT / "systemd" / "install.sh")], env={**env, "SYSTEMCTL": str(recorder)}, check=True)
    unit = (tmp_path / "etc" / "systemd" / "system" / "companion-club.service").read_text()
    assert unit == UNIT.read_text().replace("/opt/companion/", "/srv/referee/")
    assert not [line for line in log.read_text().splitlines() if "companion-club" in line]
