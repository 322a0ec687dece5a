"""The journal: every committed action, in SQLite, before the table shows it as done.

One row a game (its settings as JSON) and one row an entry: ``action`` (a transcript line, ``play 6O``),
``undo`` (the last action taken back) or ``zone`` (a 6º SET zone registered to its master card). Each append is
its own transaction in WAL mode with ``synchronous=FULL``: once ``append`` returns, the entry survives a power
cut. Replaying a game's entries through the rules engine rebuilds it exactly.

When the disk is full or read-only, ``append`` raises :class:`JournalError` and keeps the entry in a backlog;
the next append that succeeds writes the backlog first, so nothing the players confirmed is lost once the
disk has room again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Entry", "GameRecord", "Journal", "JournalError"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    settings TEXT NOT NULL,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'zone')),
    text TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
"""


DURABLE = ("action", "undo")  # the entries a power cut must never lose


class JournalError(OSError):
    """The journal cannot be written (disk full, read-only, missing folder); the message says what to do."""


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str  # action | undo | zone
    text: str
    t: float


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: int
    started: float
    settings: dict[str, Any]
    outcome: dict[str, Any] | None
    entries: int


class Journal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._backlog: list[tuple[int, Entry]] = []
        self._seq: dict[int, int] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise JournalError(_advice(self.path, exc)) from exc

    def close(self) -> None:
        self._db.close()

    def new_game(self, settings: Mapping[str, Any], t: float) -> int:
        with self._write():
            cursor = self._db.execute(
                "INSERT INTO games (started, settings) VALUES (?, ?)", (t, json.dumps(dict(settings)))
            )
        game_id = cursor.lastrowid
        assert game_id is not None
        self._seq[game_id] = 0
        return game_id

    def append(self, game_id: int, entry: Entry) -> None:
        """Write ``entry`` (after any backlog) in one transaction; on failure keep it and raise JournalError.

        Game actions and undos wait for the disk (``synchronous=FULL``). A zone registration alone does not: after
        a power cut the players would only lay that master card again, and the next action's sync writes it too.
        """
        self._backlog.append((game_id, entry))
        durable = any(pending.kind in DURABLE for _, pending in self._backlog)
        with self._write():
            if not durable:
                self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._commit_backlog()
            finally:
                if not durable:
                    self._db.execute("PRAGMA synchronous=FULL")
        self._backlog.clear()

    def _commit_backlog(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for game, pending in self._backlog:
                seq = self._next_seq(game)
                self._db.execute(
                    "INSERT INTO entries (game, seq, t, kind, text) VALUES (?, ?, ?, ?, ?)",
                    (game, seq, pending.t, pending.kind, pending.text),
                )
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite rolls back by itself on a full disk
                self._db.execute("ROLLBACK")
            self._seq.clear()  # the sequence numbers handed out above were not written
            raise

    @property
    def backlog(self) -> int:
        """Entries confirmed at the table but not yet on disk."""
        return len(self._backlog)

    def finish(self, game_id: int, outcome: Mapping[str, Any]) -> None:
        with self._write():
            self._db.execute("UPDATE games SET outcome = ? WHERE id = ?", (json.dumps(dict(outcome)), game_id))

    def games(self) -> list[GameRecord]:
        rows = self._db.execute(
            "SELECT id, started, settings, outcome, (SELECT COUNT(*) FROM entries WHERE game = games.id) "
            "FROM games ORDER BY id"
        ).fetchall()
        return [
            GameRecord(r[0], r[1], json.loads(r[2]), None if r[3] is None else json.loads(r[3]), r[4]) for r in rows
        ]

    def game(self, game_id: int) -> GameRecord | None:
        return next((g for g in self.games() if g.id == game_id), None)

    def last_game(self) -> GameRecord | None:
        games = self.games()
        return games[-1] if games else None

    def entries(self, game_id: int) -> list[Entry]:
        rows = self._db.execute("SELECT kind, text, t FROM entries WHERE game = ? ORDER BY seq", (game_id,))
        return [Entry(kind, text, t) for kind, text, t in rows]

    def integrity(self) -> str:
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def _next_seq(self, game_id: int) -> int:
        if game_id not in self._seq:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game = ?", (game_id,)).fetchone()
            self._seq[game_id] = row[0]
        self._seq[game_id] += 1
        return self._seq[game_id]

    def _write(self) -> _Guard:
        return _Guard(self.path)


class _Guard:
    """Turns SQLite's write failures into a JournalError that says what to do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, sqlite3.Error | OSError) and not isinstance(exc, JournalError):
            raise JournalError(_advice(self.path, exc)) from exc


def _advice(path: Path, exc: BaseException) -> str:
    text = str(exc)
    if "full" in text:
        return f"journal {path}: the disk is full ({text}); free some space: the game goes on in memory meanwhile"
    if "readonly" in text or "read-only" in text:
        return (
            f"journal {path}: the disk is read-only ({text}); remount it read-write or set journal to a writable path"
        )
    return f"journal {path}: cannot write ({text}); check the path and its permissions"
