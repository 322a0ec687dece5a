"""Whole games through the table with the simulated hardware: the demo's robots lay cards on simulated readers
and press mock buttons; the LED pins, the screen frames and the journal are checked against the game."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from PIL import Image

from companion.cli import main
from companion.demo import PI_4, Demo
from companion.hardware import load_pinmap
from companion.journal import Journal
from companion.rules import Play
from companion.ui.screens import render


def run_demo(game: str, seed: int, tmp_path: Path, frames: Path | None = None) -> tuple[Demo, list[str], MockFactory]:
    lines: list[str] = []
    factory = MockFactory(revision=PI_4, pin_class=MockPWMPin)
    demo = Demo(
        game=game, seed=seed, out=lines.append, journal_path=tmp_path / "journal.db", factory=factory, frames=frames
    )
    assert demo.run() == 0
    return demo, lines, factory


def lit(factory: MockFactory, gpio: int) -> int:
    """How many times the LED on ``gpio`` was switched on (the pin's recorded history)."""
    states = [state.state for state in factory.pin(gpio).states]
    return sum(1 for before, after in itertools.pairwise(states) if not before and after)


def test_a_whole_seises_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo, lines, factory = run_demo("seises", 2, tmp_path)
    game = demo.referee.game
    assert game.outcome() is not None, "the game was played to 50 points"
    plays = sum(isinstance(action, Play) for action in game.actions)
    pins = load_pinmap().zones["z1"]
    # every play lit the zone green once while it waited for CONFIRM; the one play undone was laid twice
    assert lit(factory, pins.green) == plays + 1
    assert lit(factory, pins.red) >= 1, "the illegal attempt lit the zone red"
    assert lit(factory, load_pinmap().status_led) == 1, "the status LED came on once, steady: ready all game"
    # the last frame the real ssd1306 driver sent is the final view, pixel for pixel
    assert demo.bus.last_image().tobytes() == render(demo.referee.view()).convert("1").tobytes()
    assert any("Renuncio" in line or "gana la mano" in line for line in lines)
    # the journal holds every committed action and the undo, and replays to the same game
    journal = Journal(tmp_path / "journal.db")
    entries = journal.entries(demo.table.game_id)
    assert [e.kind for e in entries].count("undo") == 1
    assert len(entries) == len(game.actions) + 2  # the undone play and its undo
    assert journal.integrity() == "ok"
    record = journal.game(demo.table.game_id)
    assert record is not None and record.outcome == {"termination": "goal", "winner": game.outcome().winner}  # type: ignore[union-attr]
    journal.close()
    export = [
        "export",
        str(demo.table.game_id),
        "--journal",
        str(tmp_path / "journal.db"),
        "--out",
        str(tmp_path / "t.txt"),
    ]
    assert main(export) == 0
    header = (tmp_path / "t.txt").read_text().splitlines()[0][2:].split()
    capsys.readouterr()
    assert main(["play", *header, "--json", str(tmp_path / "t.txt")]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {**game.snapshot(), "refused": []}


def test_a_sexto_set_match_is_the_same_for_the_same_seed(tmp_path: Path) -> None:
    first, lines, _ = run_demo("sexto-set", 5, tmp_path / "a", frames=tmp_path / "frames")
    _, lines_again, _ = run_demo("sexto-set", 5, tmp_path / "b")
    assert lines[1:] == lines_again[1:]  # the first line names the journal's path
    game = first.referee.game
    assert max(game.sets_won.values()) == 2 or game.set_number > 5
    assert first.counts["led commands"] >= 2 * sum(isinstance(a, Play) for a in game.actions)
    assert "Listo: empieza la pareja A" in "\n".join(lines)
    pngs = sorted((tmp_path / "frames").glob("sexto-set-*.png"))
    assert len(pngs) == first.counts["frames"], "--frames writes every frame the display was sent"
    with Image.open(pngs[-1]) as last:
        assert last.convert("1").tobytes() == render(first.referee.view()).convert("1").tobytes()


def test_frames_or_a_journal_that_cannot_be_written_are_said_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert main(["demo", "--game", "seises", "--frames", str(tmp_path / "file" / "frames")]) == 2
    assert "--frames" in capsys.readouterr().err
    (tmp_path / "j.db").write_bytes(b"not a journal" * 500)
    assert main(["demo", "--game", "seises", "--journal", str(tmp_path / "j.db")]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err and "check the path" not in err
