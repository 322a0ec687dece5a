"""The suite's folders can be run together, as docs/TESTING.md tells a developer to (``pytest tests/nfc
tests/readers``): naming folders on the command line collects them another way than the whole suite does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_folder_named_on_the_command_line_collects_without_errors() -> None:
    folders = sorted(
        str(path.relative_to(ROOT)) for path in (ROOT / "tests").iterdir() if (path / "conftest.py").exists()
    )
    assert len(folders) >= 3, "folders with a conftest of their own, the ones that clashed"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *folders],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "error" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
