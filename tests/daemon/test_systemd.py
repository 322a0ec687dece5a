"""The service unit verifies, is hardened to an exposure of 2.0 or less, and the installer is safe to run twice."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
UNIT = ROOT / "systemd" / "companion.service"


def analyze(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is needed (Debian package systemd)"
    return subprocess.run([tool, *args], capture_output=True, text=True, check=False)


def unit_with_existing_command(tmp_path: Path) -> Path:
    """The unit as installed, with ExecStart pointing at an executable that exists on this machine."""
    text = UNIT.read_text().replace("/opt/companion/venv/bin/companion", sys.executable)
    path = tmp_path / "companion.service"
    path.write_text(text)
    return path


def test_the_unit_verifies(tmp_path: Path) -> None:
    result = analyze("verify", str(unit_with_existing_command(tmp_path)))
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "companion.service" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


def test_the_unit_is_hardened_to_an_exposure_of_2_or_less(tmp_path: Path) -> None:
    result = analyze("security", "--offline=yes", str(unit_with_existing_command(tmp_path)))
    match = re.search(r"Overall exposure level for companion.service: ([0-9.]+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.0


def test_the_unit_runs_as_its_own_user_with_the_device_groups_it_needs() -> None:
    text = UNIT.read_text()
    assert "User=companion" in text and "Restart=always" in text and "StateDirectory=companion" in text
    groups = re.search(r"SupplementaryGroups=(.*)", text)
    assert groups and set(groups.group(1).split()) == {"gpio", "spi", "i2c", "dialout"}


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
