"""Whole games through the table with the simulated hardware: the demo's robots lay cards on simulated readers
and press mock buttons; the LED pins, the screen frames and the journal are checked against the game."""

from __future__ import annotations

import itertools
import json
import re
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from PIL import Image

from companion.cli import main
from companion.club.feed import pending
from companion.club.standings import League
from companion.demo import Demo
from companion.games import ending
from companion.hardware import load_pinmap
from companion.journal import Cursor, Journal
from companion.rules import Play
from companion.ui.display import frame_to_text
from companion.ui.screens import render
from companion.view import MessageKind


def run_demo(
    game: str,
    seed: int,
    tmp_path: Path,
    frames: Path | None = None,
    verbose: bool = True,
    factory: MockFactory | None = None,
) -> tuple[Demo, list[str]]:
    """The demo's game, its printed lines; its pins are ``factory``'s when given (else the demo's own)."""
    lines: list[str] = []
    demo = Demo(
        game=game,
        seed=seed,
        out=lines.append,
        journal_path=tmp_path / "journal.db",
        factory=factory,
        frames=frames,
        verbose=verbose,
    )
    assert demo.run() == 0
    return demo, lines


def lit(factory: MockFactory, gpio: int) -> int:
    """How many times the LED on ``gpio`` was switched on (the pin's recorded history)."""
    states = [state.state for state in factory.pin(gpio).states]
    return sum(1 for before, after in itertools.pairwise(states) if not before and after)


@pytest.mark.slow
def test_a_whole_seises_game(tmp_path: Path, capsys: pytest.CaptureFixture[str], mock_factory: MockFactory) -> None:
    demo, lines = run_demo("seises", 2, tmp_path, factory=mock_factory)
    game = demo.referee.game
    assert game.outcome() is not None, "the game was played to 50 points"
    plays = sum(isinstance(action, Play) for action in game.actions)
    pins = load_pinmap().zones["z1"]
    # every play lit the zone green once while it waited for CONFIRM; the one play undone was laid twice
    assert lit(mock_factory, pins.green) == plays + 1
    assert lit(mock_factory, pins.red) >= 1, "the illegal attempt lit the zone red"
    # --verbose prints every LED change: each time the pin lit green is a line
    assert sum("z1 LED: green" in line for line in lines) == lit(mock_factory, pins.green)
    assert sum("z1 LED: red" in line for line in lines) == lit(mock_factory, pins.red)
    # the final screen is drawn once, at the end
    assert "\n".join(lines).count(frame_to_text(demo.bus.last_image())) == 1
    assert lit(mock_factory, load_pinmap().status_led) == 1, "the status LED came on once, steady: ready all game"
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


@pytest.mark.slow
def test_a_sexto_set_match_is_the_same_for_the_same_seed(tmp_path: Path) -> None:
    first, lines = run_demo("sexto-set", 5, tmp_path / "a", frames=tmp_path / "frames")
    _, lines_again = run_demo("sexto-set", 5, tmp_path / "b")
    assert lines[2:] == lines_again[2:]  # the second line names the journal's path
    game = first.referee.game
    assert game.outcome() is not None and game.set_number == 3, "the match of 3 sets was played to its end"
    assert first.counts["led commands"] >= 2 * sum(isinstance(a, Play) for a in game.actions)
    assert "Listo: empieza la pareja A" in "\n".join(lines)
    pngs = sorted((tmp_path / "frames").glob("sexto-set-*.png"))
    assert len(pngs) == first.counts["frames"], "--frames writes every frame the display was sent"
    with Image.open(pngs[-1]) as last:
        assert last.convert("1").tobytes() == render(first.referee.view()).convert("1").tobytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "rule"),
    [(1, "sets"), (6, "master_cards")],  # 1: pair B wins 2 sets to 1 with 10 master cards to 12; 6: sets 1-1
)
def test_a_sexto_set_demo_ends_its_match_and_all_name_the_same_winner_by_the_same_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, rule: str
) -> None:
    demo, lines = run_demo("sexto-set", seed, tmp_path, verbose=False)
    game, kind = demo.referee.game, demo.referee.kind
    end = ending(game)
    assert end is not None and end.rule == rule and game.set_number == 3, "the match of 3 sets ended"
    verdict = kind.verdict(game, end).text("es")  # "pareja B, sets 2-1": the winner, the rule, its figures
    # the demo's standings: the winner first, and the result
    standings = lines.index("Clasificación:")
    assert lines[standings + 3].split()[0] == end.winner
    assert f"Resultado: {verdict}" in lines[standings:]
    # the OLED's last screen: the match's end, naming its winner by the rule, as the driver sent it
    view = demo.referee.view()
    assert view.message is not None and view.message.kind is MessageKind.END_OF_GAME
    assert view.message.title == f"Gana la pareja {end.winner}"
    assert view.message.todo.startswith(verdict[:1].upper() + verdict[1:])
    assert demo.bus.last_image().tobytes() == render(view).convert("1").tobytes()
    # the journal closed the match with its result, as a Seises game at 50
    journal = Journal(tmp_path / "journal.db")
    record = journal.game(demo.table.game_id)
    assert record is not None and record.outcome == {"termination": rule, "winner": end.winner}
    # history
    capsys.readouterr()
    assert main(["history", "--journal", str(tmp_path / "journal.db"), "--lang", "es"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(f"  gana {verdict}")
    # the club's board and standings, fed the events the table publishes
    league = League(":memory:")
    for _, event in pending(journal, Cursor()):
        league.receive("t1", json.dumps(event))
    league.commit()
    journal.close()
    [table] = league.tables()
    assert (table.over, table.turn, table.result) == (True, None, verdict)
    assert [side.player for side in table.sides if side.won] == [f"t1 pareja {end.winner}"]
    won = {row.player: row.won for row in league.standings() if row.game == "sexto-set"}
    assert won == {"t1 pareja A": int(end.winner == "A"), "t1 pareja B": int(end.winner == "B")}
    assert "\nsexto-set,t1 pareja " in league.csv(), "the CSV has the match's lines"


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


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--gif", "{tmp}/file/demo.gif", "--gif {tmp}/file/demo.gif: cannot write it (Not a directory)"),
        ("--gif", "{tmp}", "--gif {tmp}: cannot write it (Is a directory)"),
        ("--mqtt", "mqtt://127.0.0.1:{port}", "--mqtt mqtt://127.0.0.1:{port}: Connection refused; is the broker"),
    ],
)
def test_an_output_that_cannot_take_the_game_is_said_before_the_game_is_played(
    option: str, value: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GIF the demo cannot write, or a broker that does not answer, was said after a whole game for nothing."""
    (tmp_path / "file").write_text("not a folder")
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    fields = {"tmp": tmp_path, "port": port}
    argv = ["demo", "--game", "seises", "--lang", "en", option, value.format(**fields)]
    assert main([*argv, "--table", "t1"] if option == "--mqtt" else argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("companion demo: " + said.format(**fields)), err


def screens_printed(lines: list[str]) -> int:
    """How many OLED pictures the output holds: each is 32 lines of 64 block characters (two pixel rows a line)."""
    drawn = sum(len(line) == 64 and set(line) <= set(" ▀▄█▌▐▖▗▘▙▚▛▜▝▞▟") for line in lines)
    assert drawn % 32 == 0
    return drawn // 32


@pytest.mark.slow
def test_the_default_demo_tells_the_story_in_the_systems_language_and_leaves_nothing_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "es_ES.UTF-8")  # a Spanish system: without --lang the demo speaks Spanish
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    gif = tmp_path / "demo.gif"
    assert main(["demo", "--gif", str(gif)]) == 0
    lines = capsys.readouterr().out.splitlines()
    text = "\n".join(lines)
    assert len(lines) <= 150, f"{len(lines)} lines: the story, not every event"
    assert re.search(r"Asiento \d pone \S", text), "a play names its seat"
    assert re.search(r"Pareja [AB] pone carta", text), "a 6º SET play names its pair"
    assert re.search(r"pone .* en z\d: LED rojo intermitente, pantalla «.+»; la retira", text), "the illegal attempt"
    assert text.count("DESHACER largo: Deshecho:") == 2, "one undo in each game"
    assert re.search(r"Asiento \d gana la mano: \+\d+", text), "a hand won, with its pot"
    assert re.search(r"Pareja [AB] gana el set", text)
    assert re.search(r"Clasificación:\n  Asiento +Puntos\n  -+  -+\n(  Asiento \d +\d+\n){4}", text + "\n")
    assert re.search(r"Clasificación:\n  Pareja +Sets +Maestras\n  -+  -+  -+\n(  [AB] +\d+ +\d+\n){2}", text)
    assert screens_printed(lines) == 2, "one final screen for each game"
    assert "LED: green" not in text and "CONFIRM" not in text and "Outcome(" not in text
    assert not list((tmp_path / "tmp").iterdir()), "the temporary folder (registry, journal) is removed"
    with Image.open(gif) as picture:
        assert picture.format == "GIF" and picture.n_frames > 100
        assert picture.size == (256, 128)


@pytest.mark.slow
def test_the_demo_speaks_english_and_keeps_its_folder_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["demo", "--game", "sexto-set", "--lang", "en", "--keep"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"Pair [AB] lays card .* on z\d", text)
    assert "LED blinking red, screen “" in text and "long UNDO: Undone:" in text
    assert re.search(r"Pair [AB] wins the set", text) and "Standings:" in text
    assert "Pareja" not in text and "Clasificación" not in text
    (kept,) = tmp_path.glob("companion-demo-*")
    assert f"journal: {kept / 'journal.db'}" in text and (kept / "journal.db").exists()


FRENCH_DEMO = """
msgid ""
msgstr ""
"Language: fr\\n"
"X-Language-Name: Français\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "companion demo: {game}, seed {seed}"
msgstr "démo companion : {game}, graine {seed}"

msgid "{who} lays {card} on {zone}: LED {colour}, screen “{title}”; takes it back"
msgstr "{who} pose {card} sur {zone} : LED {colour}, écran « {title} » ; la reprend"

msgid "blinking red"
msgstr "rouge clignotant"

msgid "Standings"
msgstr "Classement"

msgid "{game}: {actions} actions confirmed, {rows} journal rows, {noise} noisy reads, {s} s of table time"
msgstr "{game} : {actions} actions confirmées, {rows} lignes au journal, {noise} lectures bruitées, {s} s de table"
"""


@pytest.mark.slow
def test_a_dropped_catalogue_tells_the_demos_story_in_its_language(
    tmp_path: Path, dropped_catalogue: Callable[[str, str], Path]
) -> None:
    dropped_catalogue("fr", FRENCH_DEMO)
    lines: list[str] = []
    assert Demo(game="sexto-set", seed=1, out=lines.append, language="fr").run() == 0
    text = "\n".join(lines)
    assert lines[0] == "démo companion : sexto-set, graine 1"
    assert re.search(r"Pair [AB] pose card .* sur z\d : LED rouge clignotant, écran « .+ » ; la reprend", text)
    assert "\nClassement:\n" in text
    assert re.search(r"sexto-set : \d+ actions confirmées, \d+ lignes au journal", text)
    assert re.search(r"Pair [AB] lays card .* on z\d", text), "what the catalogue lacks is said in English"
    assert "Clasificación" not in text and "pone" not in text


def test_the_demos_help_and_errors_speak_the_command_lines_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--help", "--lang", "es"])
    assert "la misma semilla juega la misma partida" in " ".join(capsys.readouterr().out.split())
    assert main(["demo", "--hold", "--lang", "es"]) == 2
    assert capsys.readouterr().err == "companion demo: --hold, --speed y --seat van con --web HOST:PUERTO\n"
    assert main(["demo", "--web", "127.0.0.1:0", "--speed", "0", "--lang", "es"]) == 2
    assert "--speed 0: da un número mayor que 0 (2 juega el doble de rápido)" in capsys.readouterr().err
