"""The ``companion`` command itself: its version, and a reader that leaves the pipe early."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COMPANION = Path(sys.executable).parent / "companion"  # .venv/bin/companion, as the README runs it


def companion(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([COMPANION, *args], cwd=ROOT, timeout=60, check=False, **kwargs)


def test_version() -> None:
    done = companion("--version", capture_output=True)
    assert done.returncode == 0
    assert done.stdout.decode() == f"companion {version('companion')}\n"


def test_a_pipe_closed_by_its_reader_ends_quietly() -> None:
    """`companion play ... | head`: the reader is gone before the game's lines are written."""
    read, write = os.pipe()
    os.close(read)  # every write now fails with EPIPE, as after head has read its lines and left
    try:
        done = companion("play", "seises", "companion/games/seises.txt", stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.stderr.decode() == "", "no BrokenPipeError traceback"
    assert done.returncode == 141  # what a shell reports for a program SIGPIPE ended
