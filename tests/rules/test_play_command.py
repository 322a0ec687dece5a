"""``companion play``: verdicts in words, exit statuses, --keep-going, --json, and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        import io
        import sys

        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
        try:
            status = main(["play", *args, "-"])
        finally:
            sys.stdin = old
    else:
        status = main(["play", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_each_line_gets_its_verdict_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--lang", "en", stdin="# a comment\n\nplay 6O\nplay 7O  # seat 2\npay\n")
    assert status == 0
    assert out.splitlines() == [
        "3: seat 1 plays the 6 of coins",
        "4: seat 2 plays the 7 of coins",
        "5: seat 3 pays one chip",
    ]


def test_an_illegal_line_stops_with_status_1_and_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--json", stdin="play 6O\nplay 9O\nplay 7O\n")
    lines = out.splitlines()
    assert status == 1
    assert lines[1] == "2: asiento 2 juega 9O — no: 9O: no es de spanish-40. Retírala; revisa la baraja o el registro."
    assert json.loads(lines[-1])["rows"]["O"] == [6, 6]  # the run stopped: 7O was never played


def test_keep_going_skips_illegal_lines_and_still_ends_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--keep-going", "--json", stdin="play 6O\nplay 4O\nplay 7O\n")
    assert status == 1
    assert json.loads(out.splitlines()[-1])["rows"]["O"] == [6, 7]


def test_undo_takes_back_the_last_action(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--json", stdin="play 6O\npay\nundo\nplay 5O\n")
    state = json.loads(out.splitlines()[-1])
    assert status == 0
    assert (state["pot"], state["rows"]["O"], state["turn"]) == (0, [5, 6], 3)


def test_nothing_to_undo_is_an_illegal_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "sexto-set", "--lang", "en", stdin="undo\n")
    assert status == 1 and "nothing to undo" in out


def test_sexto_set_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "sexto-set", "--json", "--keep-going", stdin="play M1R N01\npass\n")
    state = json.loads(out.splitlines()[-1])
    assert status == 1
    assert out.splitlines()[1] == (
        "2: pareja B pasa: no puede enlazar — no: Podéis enlazar. Cartas sin colocar que no enlazan: 6; tenéis 8."
    )
    for key in (
        "game",
        "turn",
        "draw_pile",
        "lines",
        "open_ends",
        "masters",
        "masters_won",
        "held",
        "result",
        "sets_won",
        "match_masters",
    ):
        assert key in state
    assert state["lines"]["M1R"] == [{"card": "N01", "pair": "A"}]
    assert (state["result"], state["held"], state["turn"]) == (None, {"A": 8, "B": 8}, "B")


def test_a_refused_pay_and_a_round_of_pays_are_said(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--lang", "en", "--json", stdin="play 6O\npay\npay\npay\npay\n")
    assert status == 0
    assert out.splitlines()[4] == "5: seat 1 pays one chip; renege!: every seat paid while playable cards are in hands"
    assert json.loads(out.splitlines()[-1])["reneges"] == []


def test_seises_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "seises", "--players", "5", "--json", stdin="play 6O\n")
    state = json.loads(out.splitlines()[-1])
    for key in ("game", "players", "hand", "mano", "turn", "pot", "reserve", "scores", "hand_sizes", "rows"):
        assert key in state
    assert (state["players"], state["hand_sizes"]) == (5, [7, 8, 8, 8, 8])


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["seises", "--players", "6"], "", "2, 4, 5 or 8 players"),
        (["seises", "--deck", "nope.toml"], "", "no such deck"),
        (["seises", "--option", "renege_penalty"], "", "KEY=VALUE"),
        (["seises", "--option", "renege_penalty=chip"], "", "flag or points"),
        (["sexto-set"], "jump M1R\n", "line 1: not an action: 'jump M1R'"),
        (["seises"], "play M1R N01\n", "write play <card>, pay or undo"),
    ],
)
def test_usage_and_file_errors_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], args: list[str], stdin: str, message: str
) -> None:
    status, _, err = run(capsys, *args, stdin=stdin)
    assert status == 2
    assert message in err


def test_a_missing_transcript_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "seises", str(tmp_path / "missing.txt"))
    assert status == 2 and "missing.txt" in err


def test_a_user_deck_file_is_used(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    cards = "".join(
        f'[[cards]]\nid = "{rank}{suit}"\nkind = "spanish"\nsuit = "{suit}"\nrank = {rank}\n'
        for suit in "OCEB"
        for rank in (5, 6, 7)
    )
    deck.write_text(f'name = "tiny"\n{cards}')
    status, out, err = run(capsys, "seises", "--deck", str(deck), "--players", "4", "--json", stdin="play 6O\n")
    assert status == 0, err
    assert json.loads(out.splitlines()[-1])["hand_sizes"] == [2, 3, 3, 3]
