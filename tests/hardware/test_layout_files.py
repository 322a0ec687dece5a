"""Every table layout's own files are a table the service starts with: its config.toml's keys, naming its
pinmap.toml, pass ``companion run --check`` (the Pi-alone layout's zones wired by the pin map's [zones], a hub
layout's by its [hub]); each layout's journey (tests/journey) walks the rest on simulated hardware."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.hardware import HARDWARE_DIR, load_layouts

LAYOUTS = load_layouts()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_each_layouts_files_pass_run_check(name: str, tmp_path: Path) -> None:
    folder = HARDWARE_DIR / "layouts" / name
    config = tmp_path / "config.toml"
    config.write_text(
        (folder / "config.toml").read_text("utf-8")
        + f'\n[pins]\nmap = "{folder / "pinmap.toml"}"\n[journal]\npath = "{tmp_path / "journal.db"}"\n',
        "utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "companion", "--lang", "en", "run", "--config", str(config), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    layout = LAYOUTS[name]
    said = done.stdout.split(": ok: ", 1)[1]
    assert said.startswith(f"{layout.game}, {layout.players} players")
    assert f"zones {', '.join(layout.zones)}, readers {'hub' if layout.on_hub else 'spi'}" in said
