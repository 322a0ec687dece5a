"""Recorded games (tests/games): each replays through ``companion play`` to its expected final state, and still
shows the behaviour it was recorded for."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.games import new_game
from companion.rules import IllegalPlay
from companion.rules.transcript import UNDO, parse_line

GAMES = Path(__file__).parents[1] / "games"
sys.path.insert(0, str(GAMES))
import record  # noqa: E402

WANTED = {name: wanted for name, _, _, wanted in record.SEISES + record.SEXTO}
TRANSCRIPTS = sorted(GAMES.glob("*.txt"))


def arguments(transcript: Path) -> list[str]:
    header = transcript.read_text("utf-8").splitlines()[0]
    assert header.startswith("# "), f"{transcript.name}: the first line gives the companion play arguments"
    return shlex.split(header[2:])


def test_at_least_ten_recorded_games_of_each() -> None:
    names = [t.stem for t in TRANSCRIPTS]
    assert sum(n.startswith("seises-") for n in names) >= 10
    assert sum(n.startswith("sexto-set-") for n in names) >= 10
    assert set(names) == set(WANTED)


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda p: p.stem)
def test_a_recorded_game_replays_to_its_expected_state(transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = arguments(transcript)
    status = main(["play", *args, "--json", str(transcript)])
    out = capsys.readouterr().out.splitlines()
    assert status == (1 if "--keep-going" in args else 0), out[-2:]  # refused lines end with status 1
    expected = json.loads(transcript.with_suffix(".json").read_text("utf-8"))
    assert json.loads(out[-1]) == expected


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda p: p.stem)
def test_a_recorded_game_shows_what_it_was_recorded_for(transcript: Path) -> None:
    args = arguments(transcript)
    game = new_game(*record.setup(args))
    history: record.History = []
    for line in transcript.read_text("utf-8").splitlines():
        action = parse_line(line)
        if action is None:
            continue
        before = game.snapshot()
        if action == UNDO:
            game.pop()
            history.append((UNDO, before, game.snapshot()))
            continue
        try:
            game.push(action)
        except IllegalPlay:
            history.append((action, before, None))
            continue
        history.append((action, before, game.snapshot()))
    assert WANTED[transcript.stem](history)
