"""The journal: appends survive reopening, a full disk keeps entries in a backlog, bad paths say what to do."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from companion.journal import Cursor, Entry, Journal, JournalError

if TYPE_CHECKING:
    from disks import Disk


def test_entries_and_settings_survive_reopening(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": "seises", "players": 4}, t=1.0)
    journal.append(game, Entry("action", "play 6O", 2.0))
    journal.append(game, Entry("undo", "", 3.0))
    journal.close()
    again = Journal(tmp_path / "journal.db")
    record = again.last_game()
    assert record is not None and record.settings == {"game": "seises", "players": 4} and record.entries == 2
    assert again.entries(game) == [Entry("action", "play 6O", 2.0), Entry("undo", "", 3.0)]
    again.append(game, Entry("action", "play 7O", 4.0))  # sequence numbers go on from what is on disk
    assert [e.text for e in again.entries(game)] == ["play 6O", "", "play 7O"]
    assert again.integrity() == "ok"


def test_the_journal_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    assert journal.durability() == ("wal", "full")
    journal.close()
    reader = sqlite3.connect(tmp_path / "journal.db")  # another program: WAL is the file's own mode
    assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    reader.close()


def test_only_zone_registrations_skip_the_disk_sync_and_full_sync_comes_back(tmp_path: Path, disk: Disk) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": "sexto-set"}, t=0.0)
    syncs: list[int] = []
    (db,) = disk.open()
    db.set_trace_callback(lambda sql: syncs.append(sql.count("synchronous=NORMAL")))
    journal.append(game, Entry("zone", "z1 M1R", 1.0))
    assert sum(syncs) == 1
    journal.append(game, Entry("action", "play M1R N01", 2.0))
    assert sum(syncs) == 1, "a game action always waits for the disk"
    assert journal.durability() == ("wal", "full")
    assert [e.kind for e in Journal(tmp_path / "journal.db").entries(game)] == ["zone", "action"]


def test_a_full_disk_keeps_entries_in_a_backlog_and_writes_them_once_there_is_room(tmp_path: Path, disk: Disk) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": "seises"}, t=0.0)
    disk.fill()
    big = "x" * 20000
    with pytest.raises(JournalError, match="disk is full"):
        journal.append(game, Entry("action", big, 1.0))
    with pytest.raises(JournalError):
        journal.append(game, Entry("action", "play 6O", 2.0))
    assert journal.backlog == 2
    disk.free()
    journal.append(game, Entry("action", "play 7O", 3.0))
    assert journal.backlog == 0
    assert [e.text for e in journal.entries(game)] == [big, "play 6O", "play 7O"]


def test_an_unwritable_path_says_what_to_do(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(JournalError, match="check the path"):
        Journal(blocker / "journal.db")


def test_a_corrupt_file_is_reported_not_crashed_on(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError):
        Journal(path)


def test_games_are_listed_with_their_outcome(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    first = journal.new_game({"game": "seises"}, t=0.0)
    journal.finish(first, {"winner": 2})
    journal.new_game({"game": "sexto-set"}, t=5.0)
    games = journal.games()
    assert [(g.settings["game"], g.outcome) for g in games] == [("seises", {"winner": 2}), ("sexto-set", None)]
    assert journal.is_open


def test_entries_after_a_number_come_numbered_in_order_with_their_wall_clock_time(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db", wall_clock=lambda: 1_800_000_000.0)
    game = journal.new_game({"game": "g"}, t=0.0)
    for text in ("play 6O", "play 7O", "play 5O"):
        journal.append(game, Entry("action", text, 1.0))
    after = journal.entries_after(game, 1)
    assert [(n.game, n.seq, n.entry.text, n.wall) for n in after] == [
        (game, 2, "play 7O", 1_800_000_000.0),
        (game, 3, "play 5O", 1_800_000_000.0),
    ]
    assert journal.entries_after(game, 3) == []


def test_a_cursor_is_kept_by_name_across_reopening_and_leaves_the_entries_synced_in_full(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    assert journal.cursor("mqtt") == Cursor()
    journal.move_cursor("mqtt", Cursor(3, 7, True))
    journal.move_cursor("other", Cursor(1, 1))
    assert journal.durability() == ("wal", "full")
    journal.close()
    reopened = Journal(tmp_path / "journal.db")
    assert reopened.cursor("mqtt") == Cursor(3, 7, True)
    assert reopened.cursor("other") == Cursor(1, 1)


def test_a_journal_from_before_cursors_gets_their_table_on_open(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    journal.new_game({"game": "g"}, t=0.0)
    journal.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE cursors")
    assert Journal(path).cursor("mqtt") == Cursor()


def test_a_reopen_entry_takes_the_game_s_outcome_back_in_the_same_write(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": "seises", "players": 4}, t=0.0)
    journal.append(game, Entry("action", "play 6O", 1.0))
    journal.finish(game, {"termination": "goal", "winner": 1})
    journal.append_later(game, Entry("undo", "", 2.0))
    journal.append_later(game, Entry("reopen", '{"termination": "goal", "winner": 1}', 2.0))
    journal.flush()
    journal.close()
    again = Journal(tmp_path / "journal.db")
    record = again.game(game)
    assert record is not None and record.outcome is None and record.entries == 3
    assert [e.kind for e in again.entries(game)] == ["action", "undo", "reopen"]


def test_a_journal_whose_entries_took_no_reopen_is_migrated_keeping_them(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with sqlite3.connect(path) as db:  # version 1: the entries' CHECK names three kinds
        db.executescript(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL NOT NULL, settings TEXT NOT NULL, "
            "outcome TEXT, wall REAL);"
            "CREATE TABLE entries (game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, "
            "t REAL NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'zone')), text TEXT NOT NULL, "
            "wall REAL, PRIMARY KEY (game, seq));"
            'INSERT INTO games VALUES (1, 0, \'{"game": "seises"}\', \'{"winner": 1}\', 5.0);'
            "INSERT INTO entries VALUES (1, 1, 1.0, 'action', 'play 6O', 6.0);"
            "PRAGMA user_version = 1;"
        )
    journal = Journal(path, wall_clock=lambda: 7.0)
    assert journal.entries(1) == [Entry("action", "play 6O", 1.0)]
    journal.append(1, Entry("reopen", "{}", 2.0))
    record = journal.game(1)
    assert record is not None and record.outcome is None and record.wall == 5.0
    assert [n.wall for n in journal.entries_after(1, 0)] == [6.0, 7.0]
    assert journal.integrity() == "ok"


def test_a_full_or_read_only_disk_is_told_by_the_errors_kind_not_its_words(tmp_path: Path) -> None:
    """SQLite's error name and the system's errno say what happened, whatever language the words are in."""
    from companion.journal import _error

    path = tmp_path / "journal.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as readonly:
        reader.execute("INSERT INTO t VALUES (1)")
    reader.close()
    told = {
        "readonly": _error(path, readonly.value),
        "erofs": _error(path, OSError(errno.EROFS, "Sistema de ficheros de solo lectura")),
        "enospc": _error(path, OSError(errno.ENOSPC, "No queda espacio en el dispositivo")),
    }
    assert "the disk is read-only" in str(told["readonly"]) and "the disk is read-only" in str(told["erofs"])
    assert told["enospc"].disk_full and "the disk is full" in str(told["enospc"])
