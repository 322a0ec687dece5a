"""`companion run` on a PC, as the README tells: simulated readers, gpiozero's mock pins chosen by the service
itself (no GPIOZERO_PIN_FACTORY), the screen drawn as PNG frames, stopped cleanly by SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

Service = Callable[..., subprocess.Popen[str]]

ROOT = Path(__file__).resolve().parents[2]


def test_the_service_runs_on_a_pc_and_draws_png_frames(tmp_path: Path, service: Service) -> None:
    # the README's command, run in tmp_path; the service chooses its pins itself
    process = service(ROOT / "systemd/sim.toml", cwd=tmp_path, env={"GPIOZERO_PIN_FACTORY": None})
    screen = tmp_path / "companion-sim/screen"
    try:
        end = time.monotonic() + 20
        while not list(screen.glob("*.png")):
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < end, "no frame written"
            time.sleep(0.1)
        time.sleep(1)  # it runs on for a moment: the table is refereeing, not stuck at start
        assert process.poll() is None
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=15)
    assert process.returncode == 0, out
    assert "mock pins" in out and "stopped: Companion stopped" in out  # English, whatever the table speaks
    assert "Traceback" not in out and "ERROR" not in out, out
    frames = sorted(screen.glob("*.png"))
    assert not list(screen.glob("*.part")), "every frame written whole"
    with Image.open(frames[0]) as first, Image.open(frames[-1]) as last:
        assert first.size == (128, 64), "the pin map's OLED's size"
        assert first.getbbox() is not None, "the scoreboard is drawn, not a blank frame"
        assert last.tobytes() != first.tobytes(), "the last frame is the stopped screen"


def test_frames_given_on_the_command_line(tmp_path: Path, service: Service) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
    )
    process = service(config, "--frames", tmp_path / "frames")
    try:
        end = time.monotonic() + 20
        while not list((tmp_path / "frames").glob("*.png")):
            assert process.poll() is None and time.monotonic() < end
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=15)
    assert process.returncode == 0 and "PNG frames in" in out, out
