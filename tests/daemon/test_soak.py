"""The chaos soak, short and with fixed seeds. In process: one game of each with faults injected at random, and
not one of the table's promises broken (bench/soak.py says which). Against the service: ``companion run`` in a
process of its own, SIGKILLed at random moments of a whole 6º SET game and started again, its hub on a pty
unplugged and fed garbage (bench/soak_service.py). ``python -m bench soak [--service] --minutes 30`` is the long
run; a violation names its seed and step and the command that plays the same choices again."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def soak(*options: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "bench", "soak", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    return run.stdout


def injected(out: str) -> dict[str, int]:
    line = out.split("faults injected: ")[1].split("\n")[0]
    return {kind: int(n) for kind, n in re.findall(r"([a-z -]+?) (\d+)(?:,|;|$)", line)}


@pytest.mark.slow
def test_a_short_soak_injects_every_fault_and_breaks_no_promise() -> None:
    out = soak("--minutes", "0", "--seed", "3")
    assert "games completed: 2 (seed 3)" in out
    assert "invariant violations: 0 (goal 0)" in out
    faults = injected(out)
    assert len(faults) == 10 and all(n > 0 for n in faults.values()), faults
    failed = re.search(r"read-only: a journal write failed \(and waited in memory\) during (\d+) of", out)
    assert failed is not None and int(failed.group(1)) > 0, out


SERVICE_SEED = 1


@pytest.mark.slow
def test_a_short_soak_of_the_service_kills_it_unplugs_its_hub_and_breaks_no_promise() -> None:
    out = soak("--service", "--minutes", "0", "--seed", str(SERVICE_SEED))
    assert "games: 1 (1 completed)" in out and f"(seed {SERVICE_SEED})" in out, out
    assert "invariant violations: 0 (goal 0)" in out, out
    kills, restarts, unplugs, garbage = map(
        int, re.findall(r"kills (\d+), restarts (\d+), unplugs (\d+), garbage bytes (\d+)", out)[0]
    )
    assert kills >= 3 and restarts == kills and unplugs >= 1 and garbage > 0, out
    faults = injected(out)
    assert len(faults) == 8 and all(n > 0 for n in faults.values()), faults
