"""The benchmarks clean up after themselves: a bench run left its brokers', clubs' and services' folders in /tmp."""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_bench_leaves_no_folder_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))  # bench/ sits beside the package, as `python -m bench` finds it
    club, daemon = importlib.import_module("bench.club"), importlib.import_module("bench.daemon")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where mkdtemp makes its folders
    with club.mosquitto() as url:
        assert url.startswith("mqtt://127.0.0.1:")
    timed = daemon.scan_to_led_in_service(hz=400_000, changes=4)
    assert timed, "the service set the LED"
    assert list(tmp_path.iterdir()) == []
