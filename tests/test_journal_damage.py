"""Nothing lost when the journal goes wrong: a table of damaged journals, each brought up by the table (the
damaged game closed, its rows kept, a new game started and said), listed by ``history`` and exported by
``export`` without a traceback and without changing the file; old journals are migrated to wall-clock times."""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands.history import run_export, run_history
from companion.config import GameConfig
from companion.events import CardArrived
from companion.journal import Cursor, Entry, Journal, JournalDamaged, JournalError, health
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.table import Table
from companion.view import MessageKind

SEISES = {"game": "seises", "players": 4, "deck": "spanish-40", "options": {}, "language": "es"}


def journal_with(path: Path, entries: list[tuple[str, str]], settings: object = SEISES) -> None:
    """A journal holding one unfinished game with ``entries`` (kind, text); ``settings`` as given."""
    journal = Journal(path)
    game = journal.new_game(SEISES, 1.0)
    for kind, text in entries:
        journal.append(game, Entry(kind, text, 2.0))
    journal.close()
    if settings is not SEISES:
        db = sqlite3.connect(path)  # another program writes the row
        db.execute("UPDATE games SET settings = ?", (settings,))
        db.commit()
        db.close()


def sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


# Damage within one game: the file is a sound journal, but the game in it cannot be rebuilt.
GAME_DAMAGE: dict[str, Callable[[Path], None]] = {
    "settings not JSON": lambda p: journal_with(p, [("action", "play 6O")], settings="{seises"),
    "settings without a game": lambda p: journal_with(p, [], settings='{"players": 4}'),
    "settings a list": lambda p: journal_with(p, [], settings="[1, 2]"),
    "settings of no known game": lambda p: journal_with(p, [], settings='{"game": "poker"}'),
    "settings with players as text": lambda p: journal_with(p, [], settings='{"game": "seises", "players": "x"}'),
    "an entry that is not an action": lambda p: journal_with(p, [("action", "hello world")]),
    "an empty action": lambda p: journal_with(p, [("action", "")]),
    "an illegal action": lambda p: journal_with(p, [("action", "play 6O"), ("action", "play 1B")]),
    "an undo too far": lambda p: journal_with(p, [("action", "play 6O"), ("undo", ""), ("undo", "")]),
    "an empty zone row": lambda p: journal_with(p, [("zone", "")]),
    "an entry's time as text": lambda p: (
        journal_with(p, [("action", "play 6O")]),
        sql(p, "UPDATE entries SET t = 'noon'"),
    ),
    "an entry's text as bytes": lambda p: (
        journal_with(p, [("action", "play 6O")]),
        sql(p, "UPDATE entries SET text = X'00ff'"),
    ),
}


def table_on(path: Path) -> Table:
    referee = Referee(GameConfig(confirm_turns=False), {"z1": "table"})
    return Table(referee, TableTracker(Registry.load(path.with_name("registry.toml"))), Journal(path))


@pytest.mark.parametrize("damage", list(GAME_DAMAGE))
def test_a_damaged_game_is_closed_with_its_rows_kept_and_a_new_one_starts(damage: str, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    GAME_DAMAGE[damage](path)
    rows_before = sqlite3.connect(path).execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    table = table_on(path)
    table.start(10.0)  # comes up: no exception
    view = table.referee.view()
    assert view.message is not None and view.message.kind is MessageKind.DISK_FULL
    assert view.message.title == "Partida 1 ilegible"
    assert table.game_id == 2
    table.status(CardArrived("z1", "6O"), 11.0)  # the new game plays and records
    assert [e.text for e in table.journal.entries(2)] == ["play 6O"]
    db = sqlite3.connect(path)
    outcome = db.execute("SELECT outcome FROM games WHERE id = 1").fetchone()[0]
    assert json.loads(outcome)["termination"] == "damaged"
    assert db.execute("SELECT COUNT(*) FROM entries WHERE game = 1").fetchone()[0] == rows_before, "rows kept"


def test_a_sound_game_is_still_resumed(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal_with(path, [("action", "play 6O"), ("action", "play 7O")])
    table = table_on(path)
    table.start(10.0)
    assert table.game_id == 1 and len(table.referee.game.actions) == 2


# Damage to the file itself: the service sets it aside; history and export say so.
FILE_DAMAGE: dict[str, Callable[[Path], None]] = {
    "a corrupt header": lambda p: p.write_bytes(b"SQLite format 2\x00" + b"\x07" * 8000),
    "another program's tables": lambda p: sql(p, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('x')"),
    "entries with the wrong columns": lambda p: sql(
        p,
        "CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL, settings TEXT, outcome TEXT)",
        "CREATE TABLE entries (game INTEGER, line TEXT)",
    ),
    "a corrupted page": lambda p: corrupt_a_page(p),
}


def corrupt_a_page(path: Path) -> None:
    journal = Journal(path)
    game = journal.new_game(SEISES, 1.0)
    for n in range(300):
        journal.append(game, Entry("action", f"play {n}", 2.0))
    journal.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page : 3 * page + 200] = b"\xa5" * 200  # an interior page of the entries' b-tree
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", list(FILE_DAMAGE))
def test_a_damaged_file_is_set_aside_kept_and_a_new_journal_started(damage: str, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    FILE_DAMAGE[damage](path)
    original = path.read_bytes()
    journal = Journal(path, connect=False)
    with pytest.raises(JournalDamaged) as refused:
        journal.connect()
    assert "check the path" not in str(refused.value), "a damaged file is not a permissions problem"
    aside = journal.set_aside()
    assert aside.read_bytes() == original and aside.name.startswith("journal.db.damaged-")
    journal.connect()
    assert journal.games() == [] and journal.integrity() == "ok"
    ok, said, fix = health(path)
    assert not ok and aside.name in said and "then delete it" in fix


ALL_DAMAGE = {**GAME_DAMAGE, **FILE_DAMAGE}


@pytest.mark.parametrize("damage", list(ALL_DAMAGE))
def test_history_and_export_report_damaged_rows_go_on_and_change_nothing(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.db"
    ALL_DAMAGE[damage](path)
    before = path.read_bytes()
    status = main(["history", "--journal", str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    if damage in FILE_DAMAGE:  # the file cannot be listed: said, with the file's name
        assert status in (1, 2) and str(path) in out.err
    else:
        assert status == 0
    if damage in ("settings not JSON", "settings without a game", "settings a list"):
        assert "damaged: settings" in out.out
    status = main(["export", "1", "--journal", str(path)])
    out = capsys.readouterr()
    assert status in (0, 1, 2) and "Traceback" not in out.err
    if "text as bytes" in damage or "time as text" in damage:
        assert status == 1 and "skipped" in out.err and "# skipped" in out.out
    assert path.read_bytes() == before, "the file is untouched"


def test_history_on_another_programs_database_adds_no_table_nor_wal(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    sql(path, "CREATE TABLE notes (body TEXT)")
    assert main(["history", "--journal", str(path)]) == 2
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_export_refuses_to_write_onto_the_journal_or_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j.db"
    journal_with(path, [("action", "play 6O")])
    original = path.read_bytes()
    for force in ([], ["--force"]):
        assert main(["export", "1", "--journal", str(path), "--out", str(path), *force]) == 2
        assert "is the journal itself" in capsys.readouterr().err
    assert path.read_bytes() == original
    out = tmp_path / "game.txt"
    out.write_text("keep me")
    assert main(["export", "1", "--journal", str(path), "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["export", "1", "--journal", str(path), "--out", str(out), "--force"]) == 0
    assert out.read_text().splitlines()[-1] == "play 6O"


def test_an_old_journal_is_migrated_to_wall_clock_times_and_history_shows_dates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.db"
    sql(  # the schema before wall-clock times, with a game in it
        path,
        "CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL NOT NULL, settings TEXT NOT NULL, outcome TEXT)",
        "CREATE TABLE entries (game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, t REAL NOT NULL, "
        "kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'zone')), text TEXT NOT NULL, PRIMARY KEY (game, seq))",
        f"INSERT INTO games (started, settings) VALUES (1851, '{json.dumps(SEISES)}')",
        "INSERT INTO entries VALUES (1, 1, 1852, 'action', 'play 6O')",
    )
    assert main(["history", "--journal", str(path)]) == 0  # read-only: the old schema is read as it is
    assert "t=1851s after boot" in capsys.readouterr().out
    noon = time.mktime((2026, 11, 30, 12, 0, 0, 0, 0, -1))
    journal = Journal(path, wall_clock=lambda: noon)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2  # migrated on open
    journal.append(1, Entry("action", "play 7O", 1900.0))
    game = journal.new_game(SEISES, 2000.0)
    journal.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT wall FROM entries ORDER BY seq").fetchall() == [(None,), (noon,)]
    assert main(["history", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "t=1851s after boot" in lines[0] and f"{game:4d}  2026-11-30 12:00" in lines[1]
    assert main(["export", str(game), "--journal", str(path)]) == 0
    assert "started 2026-11-30 12:00" in capsys.readouterr().out


def test_a_journal_that_cannot_be_opened_keeps_entries_and_writes_them_once_it_can(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the journal's folder should be")
    journal = Journal(blocker / "journal.db", connect=False)
    with pytest.raises(JournalError, match="check the path"):
        journal.new_game(SEISES, 1.0)
    referee = Referee(GameConfig(confirm_turns=False), {"z1": "table"})
    table = Table(referee, TableTracker(Registry.load(tmp_path / "registry.toml")), journal)
    table.start(1.0)
    view = referee.view()
    assert view.message is not None and view.message.title == "La mesa no graba"
    table.status(CardArrived("z1", "6O"), 2.0)
    table.retry_journal(3.0)
    assert not referee.journal_ok, "still not recording: never pretend"
    blocker.unlink()
    blocker.mkdir()
    table.retry_journal(4.0)
    assert referee.journal_ok and referee.view().message is None
    assert [e.text for e in Journal(blocker / "journal.db").entries(table.game_id)] == ["play 6O"]


GAMES = Path(__file__).parent / "games"


def test_history_shows_each_games_score_and_winner_replayed_from_its_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    for name, settings, outcome in (
        ("seises-won-at-exactly-50", SEISES, {"termination": "goal", "winner": 2}),
        ("sexto-set-all-placed", {"game": "sexto-set", "deck": "squadratik", "options": {}}, None),
        ("sexto-set-all-placed", {"game": "sexto-set", "deck": "squadratik", "options": {}}, {"termination": "x"}),
    ):
        game = journal.new_game(settings, 1.0)
        for line in (GAMES / f"{name}.txt").read_text().splitlines():
            if line and not line.startswith("#"):
                journal.append(game, Entry("undo" if line == "undo" else "action", line, 2.0))
        if outcome is not None:
            journal.finish(game, outcome)
    broken = journal.new_game(SEISES, 1.0)
    journal.append(broken, Entry("action", "play 1O", 2.0))  # not the 6 of oros: the replay refuses it
    journal.close()
    assert main(["history", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("points 1:22 2:50 3:22 4:43  won by seat 2, 50 points")
    assert lines[1].endswith("sets A 1 B 0, master cards A 4 B 3  in play")
    assert lines[2].endswith("sets A 1 B 0, master cards A 4 B 3  won by pair A, sets 1-0")  # as it stood
    assert "damaged:" in lines[3]
    assert main(["history", "--journal", str(path), "--lang", "es"]) == 0  # the same, in the command's language
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("entradas  puntos 1:22 2:50 3:22 4:43  gana asiento 2, 50 puntos")
    assert lines[1].endswith("sets A 1 B 0, cartas maestras A 4 B 3  en juego")
    assert lines[2].endswith("sets A 1 B 0, cartas maestras A 4 B 3  gana pareja A, sets 1-0")
    assert "dañada:" in lines[3]


def test_play_reads_the_settings_export_writes_on_the_first_line_and_refuses_a_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    game = journal.new_game({**SEISES, "players": 2}, 1.0)
    for line in (GAMES / "seises-2-players.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            journal.append(game, Entry("undo" if line == "undo" else "action", line, 2.0))
    journal.close()
    out = tmp_path / "game.txt"
    assert main(["export", str(game), "--journal", str(path), "--out", str(out)]) == 0
    assert out.read_text().startswith("# seises --players 2")
    capsys.readouterr()
    assert main(["play", "seises", str(out), "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    expected = json.loads((GAMES / "seises-2-players.json").read_text())
    assert final["players"] == 2 and final["scores"] == expected["scores"] and final["hand"] == expected["hand"]
    assert main(["play", "seises", str(out), "--players", "4"]) == 2
    err = capsys.readouterr().err
    assert "--players 4" in err and "first line" in err  # the C locale: English


# One byte of the first page damaged (the file's header and the schema's page): the table either reads what was
# written or takes the file for damaged; never a traceback, never a write error that leaves it "not recording".
# Before the journal's own checks, 215 of the schema page's 3,996 bytes set to their complement raised
# UnicodeDecodeError (SQLite's message about the schema, undecodable) and 172 were taken for a write error.
PAGE = 4096


def a_played_journal(path: Path) -> bytes:
    """A journal as the table leaves it after two games (one finished), checkpointed into the main file."""
    journal = Journal(path, wall_clock=lambda: 1_800_000_000.0)
    for won in (True, False):
        game = journal.new_game(SEISES, 1.0)
        for n in range(20):
            journal.append(game, Entry("action", f"play {n}", 2.0 + n))
        journal.append(game, Entry("undo", "", 30.0))
        if won:
            journal.finish(game, {"termination": "goal", "winner": 1})
    journal.move_cursor("mqtt", Cursor(1, 3))
    journal.close()
    return path.read_bytes()


def what_it_holds(journal: Journal) -> tuple[object, ...]:
    games = journal.games()
    return games, [journal.entries(g.id) for g in games], journal.cursor("mqtt")


def check_damage(
    folder: Path,
    sound: bytes,
    held: tuple[object, ...],
    offset: int,
    value: int,
    capsys: pytest.CaptureFixture[str] | None,
) -> str:
    """Damage byte ``offset`` of ``sound`` to ``value``; what history and export (given ``capsys``) and the table
    make of it: "damaged" (set aside, a new journal) or "harmless" (it reads what was written, and writes)."""
    path = folder / f"damaged-{offset}-{value}" / "journal.db"
    path.parent.mkdir()
    damaged = bytearray(sound)
    damaged[offset] = value
    path.write_bytes(bytes(damaged))
    where = f"byte {offset} set to {value:#04x}"
    asked = argparse.Namespace(journal=path, game_id=2, out=None, force=False)
    for command in (run_history, run_export) if capsys is not None else ():  # main()'s, without its parser
        assert command(asked) in (0, 1, 2), f"{where}: {command.__name__}"
        said = capsys.readouterr()
        assert "Traceback" not in said.err, f"{where}: {command.__name__}: {said.err}"
    assert path.read_bytes() == damaged, f"{where}: read, never changed"
    journal = Journal(path, connect=False)
    try:
        journal.connect()
    except JournalDamaged:
        aside = journal.set_aside()
        assert aside.read_bytes() == damaged, f"{where}: kept as it was"
        journal.connect()
        assert journal.games() == [], f"{where}: a new journal"
        journal.close()
        return "damaged"
    assert what_it_holds(journal) == held, f"{where}: opened, so it reads what was written"
    journal.append(2, Entry("action", "play 20", 40.0))
    assert journal.integrity() == "ok", where
    journal.close()
    return "harmless"


def damage_the_first_page(folder: Path, capsys: pytest.CaptureFixture[str], every: int, asked: int = 1) -> Counter[str]:
    """One byte in ``every`` of a played journal's first page, each set to a value drawn at random; history and
    export are asked about one damage in ``asked``."""
    sound = a_played_journal(folder / "sound.db")
    reader = Journal.read_only(folder / "sound.db")
    held = what_it_holds(reader)
    reader.close()
    rng = random.Random(22)
    return Counter(
        check_damage(
            folder,
            sound,
            held,
            offset,
            rng.choice([v for v in range(256) if v != sound[offset]]),
            capsys if n % asked == 0 else None,
        )
        for n, offset in enumerate(range(rng.randrange(every), PAGE, every))
    )


def test_one_damaged_byte_in_the_first_page_is_damage_or_harmless(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = damage_the_first_page(tmp_path, capsys, every=32)
    assert seen["damaged"] > 12 and seen["harmless"] > 12, seen  # the header's and the schema's bytes; free space


@pytest.mark.slow
def test_every_byte_of_the_first_page_damaged_is_damage_or_harmless(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = damage_the_first_page(tmp_path, capsys, every=1, asked=16)
    assert seen["damaged"] > 400 and seen["harmless"] > 400, seen
