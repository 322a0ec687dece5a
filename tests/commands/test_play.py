"""``companion play``: verdicts in words, exit statuses, --keep-going, --json, and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """``companion play ARGS``, in Spanish unless ``--lang`` says otherwise (the tests run in the C locale)."""
    if "--lang" not in args:
        args = ("--lang", "es", *args)
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
    assert lines[1] == (
        "2: asiento 2 juega 9O — no: La carta «9O» no es de spanish-40. Retírala; revisa la baraja o el registro."
    )
    assert json.loads(lines[-1])["rows"]["O"] == [6, 6]  # the run stopped: 7O was never played


def test_keep_going_skips_illegal_lines_and_still_ends_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", "--keep-going", "--json", stdin="play 6O\nplay 4O\nplay 7O\n")
    assert status == 1
    state = json.loads(out.splitlines()[-1])
    assert state["rows"]["O"] == [6, 7]
    assert state["refused"] == [{"line": 2, "action": "play 4O", "reason": "not_next_in_row"}]


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
    assert state["refused"] == [{"line": 2, "action": "pass", "reason": "holds_a_linking_card"}]


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
        (
            ["seises", "--lang", "en", "--players", "6"],
            "",
            "2, 4, 5 or 8 players, so that every hand gets the same number of cards (the rule sheet recommends 4 to 8)",
        ),
        (["seises", "--players", "6"], "", "lo juegan 2, 4, 5 o 8 jugadores"),
        (["seises", "--lang", "en", "--deck", "nope.toml"], "", "nope.toml: no such deck. Give a built-in deck"),
        (["seises", "--deck", "nope.toml"], "", "nope.toml: no existe esa baraja. Da una baraja incluida"),
        (["seises", "--lang", "en", "--option", "renege_penalty"], "", "--option takes KEY=VALUE"),
        (["seises", "--option", "renege_penalty"], "", "--option se escribe CLAVE=VALOR"),
        (["seises", "--lang", "en", "--option", "renege_penalty=chip"], "", "takes flag or points, not 'chip'"),
        (["seises", "--option", "renege_penalty=chip"], "", "admite flag o points, no 'chip'"),
        (["seises", "--option", "renege_points=0"], "", "admite un número entero de 1 a 50"),
        (["sexto-set", "--lang", "en"], "jump M1R\n", "line 1: not an action: 'jump M1R'"),
        (["sexto-set"], "jump M1R\n", "línea 1: no es una acción: 'jump M1R'"),
        (["seises", "--lang", "en"], "play\n", "(write play <card>, pay or undo)"),
        (["sexto-set", "--players", "4"], "", "--players es solo para los que lo admiten"),
        (["sexto-set", "--lang", "en", "--players", "4"], "", "--players is only for a game that has one"),
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
    assert status == 2 and err.strip().endswith("missing.txt: no existe el fichero")
    status, _, err = run(capsys, "seises", "--lang", "en", str(tmp_path / "missing.txt"))
    assert status == 2 and err.strip().endswith("missing.txt: no such file")


def test_a_malformed_line_with_json_still_prints_the_state_of_the_lines_before_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "seises", "--json", stdin="play 6O\nplay 7O\nplya 5O\nplay 5O\n")
    assert status == 2 and "línea 3" in err
    assert out.splitlines()[:2] == ["1: asiento 1 juega 6 de oros", "2: asiento 2 juega 7 de oros"]
    assert json.loads(out.splitlines()[-1])["rows"]["O"] == [6, 7]


def test_pass_in_seises_and_a_line_are_refused_by_the_engine_as_docs_rules_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "seises", "--lang", "en", "--keep-going", stdin="play 6O\npass\nplay M1R 7O\n")
    assert status == 1  # an illegal line (wrong_action), not a usage error
    assert out.splitlines()[1] == (
        "2: seat 2 passes: cannot link — refused: Seises has no “pass”. Play a card or pay one chip."
    )
    assert "Seises has no “play M1R 7O”" in out.splitlines()[2]
    status, out, _ = run(capsys, "sexto-set", "--lang", "en", stdin="pay\n")
    assert status == 1 and "6º SET has no “pay”" in out


def test_an_unknown_card_is_named_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "sexto-set", "--lang", "en", stdin="play M1R n01\n")
    assert status == 1
    assert "Card “n01” is not in squadratik" in out


def test_an_undo_says_what_it_took_back_as_the_game_says_it(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "seises", stdin="play 6O\npay\nundo\nundo\n")
    assert status == 0
    assert out.splitlines()[2:] == ["3: deshecho: el pago de una ficha", "4: deshecho: 6 de oros"]


def test_after_a_set_the_pair_that_leads_the_next_one_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    transcript = Path(__file__).parents[1] / "games" / "sexto-set-match-of-three.txt"
    status, out, _ = run(capsys, "sexto-set", "--lang", "en", "--json", str(transcript))
    assert status == 0
    ended = [line for line in out.splitlines() if "wins the set" in line or "drawn set" in line]
    assert len(ended) == 3
    assert ended[0].endswith("; pair B leads the next one") and ended[1].endswith("; pair A leads the next one")
    assert sum(": set 2 begins" in line or "; set 2 begins" in line for line in out.splitlines()) == 1
    state = json.loads(out.splitlines()[-1])
    assert sum(state["match_masters"].values()) > 8
    assert state["match"]["over"] and state["turn"] is None, "three sets: the match is over, nobody's turn"
    assert ended[2].endswith(f"; the match is over: pair {state['match']['winner']}, sets 2-1")


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


@pytest.mark.parametrize(
    ("args", "lang", "note"),
    [
        (("--players", "2"), "en", "the rule sheet recommends 4 to 8 players; 2 can play, with equal hands"),
        (
            ("--players", "3", "--deck", "spanish-48"),
            "es",
            "el reglamento recomienda de 4 a 8 jugadores; pueden jugar 3, con manos iguales",
        ),
    ],
)
def test_two_or_three_seises_players_are_told_what_the_sheet_recommends(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], lang: str, note: str
) -> None:
    status, out, err = run(capsys, "seises", *args, "--lang", lang, stdin="play 6O\n")
    assert status == 0 and len(out.splitlines()) == 1  # a note beside the verdicts, not a refusal
    assert err.splitlines() == [f"companion play: {note}"]
    status, _, err = run(capsys, "seises", "--players", "4", stdin="play 6O\n")
    assert status == 0 and err == ""
