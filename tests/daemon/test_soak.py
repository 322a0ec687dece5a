"""The chaos soak, short and with fixed seeds. In process: one game of each with faults injected at random, and
not one of the table's promises broken (bench/soak.py says which). Against the service: ``companion run`` in a
process of its own, SIGKILLed at random moments of a whole 6º SET game and started again, its hub on a pty
unplugged and fed garbage (bench/soak_service.py), its table publishing to a club on mosquitto beside a hostile
client (bench/soak_club.py). ``python -m bench soak [--service] --minutes 30`` is the long
run; a violation names its seed and step and the command that plays the same choices again."""

from __future__ import annotations

import functools
import importlib.util
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.club.feed import pending
from companion.club.standings import League
from companion.journal import Cursor, Entry, Journal

ROOT = Path(__file__).parents[2]


def bench_module(name: str) -> Any:
    """``bench/NAME.py`` (the benchmarks sit beside the package, not in it; they import each other as ``bench.*``,
    as ``python -m bench`` run from the project's root finds them)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location(f"bench.{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def soak(*options: str) -> str:
    run = soak_run(*options)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    return run.stdout


@functools.cache
def soak_run(*options: str) -> subprocess.CompletedProcess[str]:
    """One run of ``python -m bench soak OPTIONS`` (the tests of a run's parts read the same run)."""
    return subprocess.run(
        [sys.executable, "-m", "bench", "soak", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


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


def service_soak() -> str:
    """One whole game of the service soak."""
    return soak("--service", "--minutes", "0", "--seed", str(SERVICE_SEED))


@pytest.mark.slow
def test_a_short_soak_of_the_service_kills_it_unplugs_its_hub_and_breaks_no_promise() -> None:
    out = service_soak()
    assert "games: 1 (1 completed)" in out and f"(seed {SERVICE_SEED})" in out, out
    assert "invariant violations: 0 (goal 0)" in out, out
    kills, restarts, unplugs, garbage = map(
        int, re.findall(r"kills (\d+), restarts (\d+), unplugs (\d+), garbage bytes (\d+)", out)[0]
    )
    assert kills >= 3 and restarts == kills and unplugs >= 1 and garbage > 0, out
    faults = injected(out)
    assert len(faults) == 8 and all(n > 0 for n in faults.values()), faults
    page = out.split("page faults: ")[1].split(";")[0]  # bench/soak_web.py: the hostile machine beside the table
    attacks = {kind.strip(): int(n) for kind, n in re.findall(r"([A-Za-z -]+?) (\d+)(?:,|$)", page)}
    assert len(attacks) == 7 and all(n > 0 for n in attacks.values()), attacks


def test_the_service_soak_sees_a_confirmed_action_lost_or_doubled(tmp_path: Path) -> None:
    """The soak's own check can fail: the journal must replay to the players' game, no action short, none over."""
    bench = bench_module("soak_service")
    Violation = bench.Violation
    soak = bench.ServiceSoak(seed=1, minutes=0)
    soak.folder, soak.players = tmp_path, bench.Players("seises", random.Random(1))
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game(soak.players.config.settings(), 0.0)
    action, _, _ = soak.players.choose()
    soak.players.done(action)
    with pytest.raises(Violation, match="after the play: the journal replays to another game than the players'"):
        soak._check_journal("after the play")  # confirmed to the players, not on disk
    journal.append(game, Entry("action", str(action), 1.0))
    soak._check_journal("after the play")
    journal.append(game, Entry("action", str(action), 2.0))
    with pytest.raises(Violation, match="the journal does not replay"):  # the same card twice
        soak._check_journal("after the play")
    journal.close()


def test_the_club_soak_sees_an_event_lost_forged_or_a_game_not_counted(tmp_path: Path) -> None:
    """The club's check can fail: every event of the table's journal must be in the league, none it did not
    publish, and a game played to its end counted once."""
    club_soak = bench_module("soak_club")
    players = bench_module("soak_service").Players("seises", random.Random(1))
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game(players.config.settings(), 0.0)
    for t in range(1, 5):
        action, _, _ = players.choose()
        players.done(action)
        journal.append(game, Entry("action", str(action), float(t)))
    events = [event for _, event in pending(journal, Cursor())]
    league = League(tmp_path / "club.db")
    for event in events:
        if event["id"] != "1:3":  # planted: one entry never reaches the club
            league.receive("mesa-1", json.dumps(event))
    league.commit()
    soak = club_soak.ClubSoak(seed=1, folder=tmp_path)
    soak.current = "mesa-1"
    soak.caught_up(tmp_path / "journal.db", over=False, wait=0.2)
    assert soak.lost == 1 and soak.published == len(events) == 5, soak.violations
    assert soak.violations == [
        "mesa-1: 1 of the 5 events it published never reached the club (1:3); the hostile client connected with "
        "the club's client id 0 times during the game"
    ]
    forged = {**events[-1], "id": "1:99"}
    league.receive("mesa-1", json.dumps(events[3]))
    league.receive("mesa-1", json.dumps(forged))
    league.commit()
    soak.violations.clear()
    soak.caught_up(tmp_path / "journal.db", over=True, wait=0.2)
    assert soak.violations == [
        "mesa-1: the league holds events the table never published: ['1:99']",
        "mesa-1: its game was played to its end, and the club counted 0 games (the league has not rebuilt it; the "
        "journal: 4 entries, None)",
    ]
    journal.finish(game, {"termination": "won", "winner": "seat 1"})
    (end,) = [event for _, event in pending(journal, Cursor(1, 4))]
    league.receive("mesa-1", json.dumps(end))
    league.commit()
    soak.violations.clear()
    soak.caught_up(tmp_path / "journal.db", over=True, wait=0.2)
    assert soak.violations == ["mesa-1: the league holds events the table never published: ['1:99']"]
    assert soak.lost == 1 and soak.finished == 2 and soak.counted == 1  # over the three checks
    journal.close()
    league.close()


@pytest.mark.slow
def test_a_short_soak_of_the_service_publishes_every_entry_to_a_club_beside_a_hostile_client() -> None:
    out = service_soak()
    club = re.search(
        r"club: 1 tables, (\d+) events published, lost entries: (\d+) \(goal 0\); "
        r"finished games (\d+), counted (\d+)",
        out,
    )
    assert club is not None and int(club[1]) > 80 and club[2] == "0" and club[3] == club[4] == "1", out
    tries = re.search(r"hostile client: \d+ tries \((.*?)\); bad logins refused (\d+) of (\d+)", out)
    assert tries is not None and tries[2] == tries[3] != "0", out
    kinds = {kind: int(n) for kind, n in re.findall(r"([a-z ]+?) (\d+)(?:, |$)", tries[1])}
    assert set(kinds) == set(bench_module("soak_club").ACTIONS) and all(kinds.values()), kinds
    inputs = out.split("hostile inputs tried: ")[1].split("\n")[0]
    for kind in ("deep nesting", "integer past 64 bits", "oversize", "forged event", "client id of the club"):
        assert re.search(rf"{kind} [1-9]", inputs), inputs
    assert "stopped or froze and was started again 0 times (goal 0)" in out, out
