"""The chaos soak, short and with a fixed seed: one game of each with faults injected at random, and not one of
the table's promises broken (bench/soak.py says which; ``python -m bench soak --minutes 30`` is the long run)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
def test_a_short_soak_injects_every_fault_and_breaks_no_promise() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench", "soak", "--minutes", "0", "--seed", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert "games completed: 2 (seed 3)" in out
    assert "invariant violations: 0 (goal 0)" in out
    injected = dict(re.findall(r"([a-z -]+?) (\d+)(?:,|;)", out.split("faults injected: ")[1].split("\n")[0]))
    assert len(injected) == 10 and all(int(n) > 0 for n in injected.values()), injected
    failed = re.search(r"read-only: a journal write failed \(and waited in memory\) during (\d+) of", out)
    assert failed is not None and int(failed.group(1)) > 0, out
