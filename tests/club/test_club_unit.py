"""The club's unit verifies, is hardened to an exposure of 2.0 or less, reaches the local networks only, hands the
club its password as a credential, and is installed (never enabled) by the installer."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from systemd_units import SYSTEMD, exposure, recording_systemctl, unit_settings, verify_problems

ROOT = Path(__file__).parents[2]
UNIT = SYSTEMD / "companion-club.service"
TABLE_UNIT = SYSTEMD / "companion.service"


def test_the_club_unit_verifies(tmp_path: Path) -> None:
    assert not verify_problems(UNIT, tmp_path)


def test_the_club_unit_is_hardened_to_an_exposure_of_2_or_less(tmp_path: Path) -> None:
    assert exposure(UNIT, tmp_path) <= 2.0


def test_the_club_reaches_what_the_table_reaches_and_reads_its_password_as_a_credential() -> None:
    club, table = unit_settings(UNIT.read_text()), unit_settings(TABLE_UNIT.read_text())
    for key in ("RestrictAddressFamilies", "IPAddressDeny", "IPAddressAllow"):
        assert club[key] == table[key], key
    (start,) = club["ExecStart"]
    assert start.split()[1] == "club" and "--password-file ${CREDENTIALS_DIRECTORY}/mqtt-password" in start
    assert club["LoadCredential"] == ["mqtt-password:/etc/companion/club-password"]
    assert "--password" not in start.replace("--password-file", "")
    assert club["Type"] == ["notify"] and club["DynamicUser"] == ["yes"]
    assert "--db /var/lib/companion-club/" in start and club["StateDirectory"] == ["companion-club"]


def test_the_installer_installs_the_club_unit_and_leaves_it_off(tmp_path: Path) -> None:
    recorder, log = recording_systemctl(tmp_path, running=False)
    env = {**os.environ, "DESTDIR": str(tmp_path), "SKIP_VENV": "1", "PREFIX": "/srv/referee"}
    subprocess.run([str(ROOT / "systemd" / "install.sh")], env={**env, "SYSTEMCTL": str(recorder)}, check=True)
    unit = (tmp_path / "etc" / "systemd" / "system" / "companion-club.service").read_text()
    assert unit == UNIT.read_text().replace("/opt/companion/", "/srv/referee/")
    assert not [line for line in log.read_text().splitlines() if "companion-club" in line]
