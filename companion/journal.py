"""The journal: every committed action, in SQLite, before the table shows it as done.

One row a game (its settings as JSON, and its outcome once it has ended) and one row an entry: ``action`` (a
transcript line, ``play 6O``), ``undo`` (the last action taken back), ``reopen`` (that undo took back the action
that ended the game: the game is in play again, its outcome, the entry's text, withdrawn) or ``zone`` (a 6º SET
zone registered to its master card). Each append is its own transaction in WAL mode with ``synchronous=FULL``:
once ``append`` returns, the entry survives a power cut; a ``reopen`` clears the game's outcome in the same
transaction, so the journal never holds a reopened game as ended. Replaying a game's entries through the rules
engine rebuilds it exactly.

A cursor (:class:`Cursor`, one a reader by name, in the ``cursors`` table) keeps how far a reader of the journal
has got, so one that sends the entries elsewhere (the club's publisher) goes on after an outage or a power cut
where it stopped, in order. It is written without waiting for the disk: after a power cut it may be a little
behind, and what it had passed goes out again, with the same ids.

When the disk is full or read-only, ``append`` raises :class:`JournalError` and keeps the entry in a backlog;
the next append that succeeds writes the backlog first, so nothing the players confirmed is lost once the
disk has room again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import json
import os
import shlex
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

from companion.i18n import N_, Said, _, language, ngettext

__all__ = [
    "Cursor",
    "Entry",
    "GameRecord",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalInUse",
    "Lock",
    "Numbered",
    "Unwritten",
    "health",
    "keep_unwritten",
    "kept_unwritten",
]

KINDS = ("action", "undo", "reopen", "zone")  # the kinds of entry
ENTRIES = f"""
CREATE TABLE IF NOT EXISTS entries (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ({", ".join(f"'{kind}'" for kind in KINDS)})),
    text TEXT NOT NULL,
    wall REAL,
    PRIMARY KEY (game, seq)
);
"""
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    settings TEXT NOT NULL,
    outcome TEXT,
    wall REAL
);
{ENTRIES}
CREATE TABLE IF NOT EXISTS cursors (
    name TEXT PRIMARY KEY,
    game INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    ended INTEGER NOT NULL
);
"""
# What the journal reads; ``wall`` (the wall-clock time, schema version 1) is added to older journals on open, and
# the entries of a journal older than version 2 are copied into a table that takes every kind (``reopen``).
COLUMNS = {"games": ("id", "started", "settings", "outcome"), "entries": ("game", "seq", "t", "kind", "text")}
VERSION = 2

DURABLE = ("action", "undo", "reopen")  # the entries a power cut must never lose
SYNC_LEVELS = ("off", "normal", "full", "extra")  # PRAGMA synchronous's numbers, by name


class JournalError(OSError):
    """The journal cannot be written (disk full, read-only, missing folder); the message says what to do, in
    English by ``str()`` (the service's log) and in any language by :meth:`text`."""

    def __init__(self, said: Said, *, disk_full: bool = False) -> None:
        super().__init__(str(said))
        self.said, self.disk_full = said, disk_full

    def text(self, lang: str) -> str:
        return self.said.text(lang)


class JournalDamaged(JournalError):
    """The file is not a journal this table can read (a corrupt page or header, another program's tables)."""


class JournalInUse(JournalError):
    """Another process writes the journal (another service, a second ``companion run``): its lock is taken."""


class Lock:
    """The advisory lock (``flock``) on ``<journal>.lock`` that a process writing the journal holds while it is
    open, with the holder's process id and command line in the file, so that the one refused can say who it is.

    Two services on one journal would each resume its last game and interleave their plays in it. The lock is
    the process's: journals of one process at one path share it (a test's, the soak's table dropped and another
    started), and the last of them to close lets it go; the kernel lets it go when the process ends, however.
    """

    _held: ClassVar[dict[str, Lock]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, key: str, fd: int) -> None:
        self.key, self.fd, self.users = key, fd, 1

    @classmethod
    def take(cls, journal: Path) -> Lock:
        """The lock of ``journal``; JournalInUse, naming the holder, if another process holds it."""
        path = journal.with_name(journal.name + ".lock")
        key = os.path.realpath(path)
        with cls._guard:
            held = cls._held.get(key)
            if held is not None:
                held.users += 1
                return held
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError:
                if not path.exists():
                    raise
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)  # a read-only disk: lockable, said later
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "?"
                os.close(fd)
                said = N_(
                    "journal {path}: in use by another process ({holder}); stop it, or give this one another path"
                )
                raise JournalInUse(Said(said, path=journal, holder=holder)) from None
            with contextlib.suppress(OSError):  # read-only: the holder is not written, the lock holds all the same
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()}: {shlex.join(sys.argv)}\n".encode(), 0)
            lock = cls._held[key] = cls(key, fd)
            return lock

    def release(self) -> None:
        with self._guard:
            self.users -= 1
            if self.users == 0:
                del self._held[self.key]
                os.close(self.fd)  # the lock goes with the descriptor; the file stays, naming the last holder


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str  # one of KINDS
    text: str
    t: float


@dataclass(frozen=True, slots=True)
class Numbered:
    """An entry with its place in the journal: its game, its number there (from 1) and its wall-clock time."""

    game: int
    seq: int
    entry: Entry
    wall: float | None


@dataclass(frozen=True, slots=True)
class Cursor:
    """How far a reader of the journal has got: entry ``seq`` of game ``game`` (0: only its start), and whether
    it has passed the game's end. The start of the journal is ``Cursor()``."""

    game: int = 0
    seq: int = 0
    ended: bool = False


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: int
    started: float  # seconds since boot, the table's clock
    settings: dict[str, Any]
    outcome: dict[str, Any] | None
    entries: int
    wall: float | None = None  # the wall-clock time it started (None in journals older than schema version 1)
    damage: str = ""  # why its settings or outcome cannot be read; empty when they can


class Journal:
    """The journal at ``path``, opened for writing; ``connect=False`` leaves it closed until :meth:`connect`.

    A closed journal refuses writes with a JournalError (keeping each entry in the backlog) and retries opening
    the file on each of them, so the table goes on refereeing, says it is not recording, and writes everything
    once the file can be opened.
    """

    def __init__(self, path: str | Path, *, connect: bool = True, wall_clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.wall_clock = wall_clock
        self._backlog: list[tuple[int, Entry, float]] = []
        self._seq: dict[int, int] = {}
        self._db: sqlite3.Connection | None = None
        self._lock: Lock | None = None  # held while open for writing
        self._wall = True  # the tables have the wall column (a read-only old journal has not)
        if connect:
            self.connect()

    @classmethod
    def read_only(cls, path: str | Path) -> Journal:
        """The journal at ``path`` for reading only (SQLite ``mode=ro``): nothing in the file is changed."""
        journal = cls(path, connect=False)
        uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro"
        try:
            journal._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            journal._check()
            journal._wall = journal._check_tables() == set()
        except JournalError:
            journal.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            journal.close()
            raise _error(journal.path, exc) from exc
        return journal

    @property
    def is_open(self) -> bool:
        return self._db is not None

    @property
    def on_disk(self) -> bool:
        """A file, not SQLite's ``:memory:`` (a doctest's): it has a header to check and a lock to take."""
        return str(self.path) != ":memory:"

    def durability(self) -> tuple[str, str]:
        """SQLite's journal mode and sync level on the open file: ``("wal", "full")`` between writes."""
        with self._read():
            db = self._connection()
            mode = str(db.execute("PRAGMA journal_mode").fetchone()[0])
            level = int(db.execute("PRAGMA synchronous").fetchone()[0])
        return mode, SYNC_LEVELS[level]

    def connect(self) -> None:
        """Open the file for writing (made if missing, migrated if older); JournalDamaged if it is not a journal,
        JournalInUse if another process writes it (:class:`Lock`, held from here until :meth:`close`)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._lock is None and self.on_disk:
                self._lock = Lock.take(self.path)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except JournalError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise _error(self.path, exc) from exc
        self._db = db
        try:
            self._check()
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            self._migrate()
        except JournalError:
            self._disconnect()
            raise
        except (sqlite3.Error, OSError) as exc:
            self._disconnect()
            raise _error(self.path, exc) from exc

    def _check(self) -> None:
        """Read the file before anything is written to it: JournalDamaged if SQLite's quick check, the tables' shape
        or the games' rows say it is not a sound journal. Whatever fails here but the disk itself (a file that
        cannot be opened or read, a full or read-only disk: :func:`_disk_fault`) is damage: a schema whose bytes
        are no longer UTF-8 fails in Python's own decoding, not as SQLite's corrupt."""
        db = self._connection()
        try:
            header = b""
            if self.on_disk:
                with self.path.open("rb") as file:
                    header = file.read(100)
            sqlite = header.startswith(b"SQLite format 3\x00") and len(header) == 100
            if sqlite and not {header[18], header[19]} <= {1, 2}:  # past 2: SQLite would take it for read-only
                said = N_("journal {path}: damaged (its header's file format is {write}, {read}, not 1 or 2)")
                raise JournalDamaged(Said(said, path=self.path, write=header[18], read=header[19]))
            check = str(db.execute("PRAGMA quick_check").fetchone()[0])
            if check != "ok":
                raise JournalDamaged(Said(N_("journal {path}: damaged ({error})"), path=self.path, error=check))
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables:
                self._check_tables()  # another program's file, or not ours: refused before anything is written
                db.execute("SELECT * FROM games").fetchall()  # every game's row reads, as the table's start does
        except (sqlite3.Error, ValueError) as exc:
            raise _damaged(self.path, exc) from exc

    def _migrate(self) -> None:
        """Make the tables, or bring an older journal's up to the current schema (adding the wall column, and
        taking every kind of entry)."""
        db = self._connection()
        db.executescript(SCHEMA)
        lacking = self._check_tables()
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if lacking or version < VERSION:
            db.execute("BEGIN IMMEDIATE")
            for table in sorted(lacking):
                db.execute(f"ALTER TABLE {table} ADD COLUMN wall REAL")
            if version < 2:
                _take_every_kind(db)
            db.execute(f"PRAGMA user_version = {VERSION}")
            db.execute("COMMIT")

    def _check_tables(self) -> set[str]:
        """The tables that lack the wall column; JournalDamaged if a table or a column the journal reads is missing."""
        db = self._connection()
        lacking = set()
        for table, needed in COLUMNS.items():
            have = _columns(db, table)
            if not have:
                said = N_("journal {path}: not a companion journal (it has no table {table})")
                raise JournalDamaged(Said(said, path=self.path, table=repr(table)))
            missing = [column for column in needed if column not in have]
            if missing:
                said = N_("journal {path}: not a companion journal (table {table} has no column {column})")
                raise JournalDamaged(Said(said, path=self.path, table=repr(table), column=repr(missing[0])))
            if "wall" not in have:
                lacking.add(table)
        for table, shape in _shape().items():  # a declaration changed by a byte: a lost primary key, a new name
            for name, column in _columns(db, table).items():
                if shape.get(name) != column:
                    said = N_("journal {path}: damaged (table {table} declares {column}, not a column of a journal)")
                    raise JournalDamaged(Said(said, path=self.path, table=repr(table), column=repr(column)))
        return lacking

    def set_aside(self) -> Path:
        """Move a damaged journal (and its WAL files) to ``<name>.damaged-<date>``: kept, never deleted. The lock
        stays held: no other process starts a journal at the path meanwhile."""
        self._disconnect()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.wall_clock()))
        target = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        for suffix in ("-wal", "-shm", ""):  # the main file last: a crash midway leaves it where it was
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                companion.rename(target.with_name(target.name + suffix))
        return target

    def close(self) -> None:
        self._disconnect()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _disconnect(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.connect()
        assert self._db is not None
        return self._db

    def new_game(self, settings: Mapping[str, Any], t: float) -> int:
        wall = self.wall_clock()
        with self._write():
            cursor = self._connection().execute(
                "INSERT INTO games (started, settings, wall) VALUES (?, ?, ?)", (t, json.dumps(dict(settings)), wall)
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
        self.append_later(game_id, entry)
        self.flush()

    def append_later(self, game_id: int, entry: Entry) -> None:
        """Put ``entry`` in the backlog, stamped with the wall-clock time: the next :meth:`flush` writes it."""
        self._backlog.append((game_id, entry, self.wall_clock()))

    def flush(self) -> None:
        """Write the backlog (opening the file if it is not open yet); JournalError if it still cannot."""
        if not self._backlog:
            return
        durable = any(pending.kind in DURABLE for _game, pending, _time in self._backlog)
        with self._write():
            db = self._connection()
            if not durable:
                db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._commit_backlog(db)
            finally:
                if not durable:
                    db.execute("PRAGMA synchronous=FULL")
        self._backlog.clear()

    def _commit_backlog(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            for game, pending, wall in self._backlog:
                seq = self._next_seq(game)
                db.execute(
                    "INSERT INTO entries (game, seq, t, kind, text, wall) VALUES (?, ?, ?, ?, ?, ?)",
                    (game, seq, pending.t, pending.kind, pending.text, wall),
                )
                if pending.kind == "reopen":
                    db.execute("UPDATE games SET outcome = NULL WHERE id = ?", (game,))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLite rolls back by itself on a full disk
                db.execute("ROLLBACK")
            self._seq.clear()  # the sequence numbers handed out above were not written
            raise

    @property
    def backlog(self) -> int:
        """Entries confirmed at the table but not yet on disk."""
        return len(self._backlog)

    def pending(self) -> list[tuple[int, Entry]]:
        """The backlog's entries, each with its game, in the order they wait to be written."""
        return [(game, entry) for game, entry, _wall in self._backlog]

    def set_settings(self, game_id: int, settings: Mapping[str, Any]) -> None:
        """Replace the game's settings (its seats were renamed): resuming it rebuilds it with these."""
        with self._write():
            self._connection().execute(
                "UPDATE games SET settings = ? WHERE id = ?", (json.dumps(dict(settings)), game_id)
            )

    def finish(self, game_id: int, outcome: Mapping[str, Any]) -> None:
        """The game has ended so (a ``reopen`` entry takes it back)."""
        with self._write():
            self._connection().execute(
                "UPDATE games SET outcome = ? WHERE id = ?", (json.dumps(dict(outcome)), game_id)
            )

    def games(self, since: int = 0) -> list[GameRecord]:
        """Every game (from the game numbered ``since`` on), oldest first; one whose settings or outcome cannot be
        read says so in ``damage``."""
        if self._db is None:
            return []
        wall = "wall" if self._wall else "NULL"
        with self._read():
            rows = self._db.execute(
                f"SELECT id, started, settings, outcome, {wall}, "
                "(SELECT COUNT(*) FROM entries WHERE game = games.id) FROM games WHERE id >= ? ORDER BY id",
                (since,),
            ).fetchall()
        return [_record(*row) for row in rows]

    def game(self, game_id: int) -> GameRecord | None:
        return next((g for g in self.games() if g.id == game_id), None)

    def last_game(self) -> GameRecord | None:
        games = self.games()
        return games[-1] if games else None

    def entries(self, game_id: int) -> list[Entry]:
        """The game's entries in order; JournalDamaged at the first row that cannot be read as one."""
        found, damaged = self.readable_entries(game_id)
        if damaged:
            raise JournalDamaged(damaged[0])
        return found

    def readable_entries(self, game_id: int) -> tuple[list[Entry], list[Said]]:
        """The game's entries that can be read, in order, and what is wrong with each row that cannot."""
        found: list[Entry] = []
        damaged: list[Said] = []
        if self._db is None:
            return found, damaged
        with self._read():
            rows = self._db.execute("SELECT seq, kind, text, t FROM entries WHERE game = ? ORDER BY seq", (game_id,))
            for seq, kind, text, t in rows:
                if isinstance(text, str) and isinstance(t, int | float) and kind in KINDS:
                    found.append(Entry(kind, text, float(t)))
                else:
                    said = N_("journal {path}: game {game}, entry {entry}: unreadable ({row})")
                    damaged.append(
                        Said(said, path=self.path, game=game_id, entry=seq, row=f"{kind!r} {text!r} at {t!r}")
                    )
        return found, damaged

    def entries_after(self, game_id: int, seq: int, limit: int | None = None) -> list[Numbered]:
        """The game's readable entries numbered above ``seq``, in order, of its next ``limit`` rows (None: all of
        them; an unreadable row is left out)."""
        if self._db is None:
            return []
        wall = "wall" if self._wall else "NULL"
        with self._read():
            rows = self._db.execute(
                f"SELECT seq, kind, text, t, {wall} FROM entries WHERE game = ? AND seq > ? ORDER BY seq LIMIT ?",
                (game_id, seq, -1 if limit is None else limit),  # SQLite: a negative LIMIT is none
            ).fetchall()
        return [
            Numbered(game_id, number, Entry(kind, text, float(t)), float(w) if isinstance(w, int | float) else None)
            for number, kind, text, t, w in rows
            if isinstance(text, str) and isinstance(t, int | float) and kind in KINDS
        ]

    def cursor(self, name: str) -> Cursor:
        """Where the reader ``name`` has got; the start of the journal for one that has not read yet."""
        with self._read():
            row = self._connection().execute("SELECT game, seq, ended FROM cursors WHERE name = ?", (name,)).fetchone()
        return Cursor() if row is None else Cursor(int(row[0]), int(row[1]), bool(row[2]))

    def move_cursor(self, name: str, cursor: Cursor) -> None:
        """Keep ``cursor`` as where ``name`` has got; not waiting for the disk (a power cut may take it back)."""
        with self._write():
            db = self._connection()
            db.execute("PRAGMA synchronous=NORMAL")
            try:
                db.execute(
                    "INSERT OR REPLACE INTO cursors (name, game, seq, ended) VALUES (?, ?, ?, ?)",
                    (name, cursor.game, cursor.seq, int(cursor.ended)),
                )
            finally:
                db.execute("PRAGMA synchronous=FULL")

    def integrity(self) -> str:
        with self._read():
            return str(self._connection().execute("PRAGMA integrity_check").fetchone()[0])

    def _next_seq(self, game_id: int) -> int:
        if game_id not in self._seq:
            row = (
                self._connection()
                .execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game = ?", (game_id,))
                .fetchone()
            )
            self._seq[game_id] = row[0]
        self._seq[game_id] += 1
        return self._seq[game_id]

    def _write(self) -> _Guard:
        return _Guard(self.path, _error)

    def _read(self) -> _Guard:
        return _Guard(self.path, _damaged)


def _columns(db: sqlite3.Connection, table: str) -> dict[str, str]:
    """Each column of ``table`` by name, declared as SQLite keeps it: ``id INTEGER PRIMARY KEY``."""
    return {
        row[1]: f"{row[1]} {row[2]}{' NOT NULL' if row[3] else ''}{' PRIMARY KEY' if row[5] else ''}"
        for row in db.execute(f"PRAGMA table_info({table})")
    }


@functools.cache
def _shape() -> dict[str, dict[str, str]]:
    """The columns of :data:`SCHEMA`'s tables, as :func:`_columns` says them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: _columns(db, table) for table in tables}
    finally:
        db.close()


def _take_every_kind(db: sqlite3.Connection) -> None:
    """Copy the entries into a table whose CHECK takes every kind of :data:`KINDS` (SQLite cannot alter a CHECK)."""
    sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()[0]
    if all(f"'{kind}'" in sql for kind in KINDS):
        return
    db.execute("ALTER TABLE entries RENAME TO entries_before")
    db.execute(ENTRIES)
    columns = "game, seq, t, kind, text, wall"
    db.execute(f"INSERT INTO entries ({columns}) SELECT {columns} FROM entries_before")
    db.execute("DROP TABLE entries_before")


@dataclass(frozen=True, slots=True)
class Unwritten:
    """Entries the table confirmed but could not write before it stopped (the disk read-only or full): those of
    game ``game`` after all it has on disk, or (``game`` 0) of a game whose own row was never written, with its
    ``settings``. The stop keeps them in a side file (:func:`keep_unwritten`) that the next start offers to
    replay (:func:`kept_unwritten`)."""

    game: int
    entries: tuple[Entry, ...]
    settings: dict[str, Any] | None = None


UNWRITTEN = ".unwritten"  # the side file's suffix, after the journal's own name


def keep_unwritten(journal: Path, kept: list[Unwritten], elsewhere: Path | None = None) -> Path:
    """Write ``kept`` beside ``journal`` (``journal.db.unwritten``, JSON) or, when that folder cannot be written
    (the disk that refused the entries), in ``elsewhere`` (the service's runtime folder, which outlives a
    restart); where it went. OSError if neither can be written."""
    rows = [
        {
            "game": u.game,
            "settings": u.settings,
            "entries": [{"kind": e.kind, "text": e.text, "t": e.t} for e in u.entries],
        }
        for u in kept
    ]
    failure: OSError | None = None
    for folder in [journal.parent] + ([elsewhere] if elsewhere is not None else []):
        target = folder / (journal.name + UNWRITTEN)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as file:
                json.dump(rows, file, indent=1)
                file.flush()
                os.fsync(file.fileno())
            partial.replace(target)
            return target
        except OSError as exc:
            failure = failure or exc
    assert failure is not None
    raise failure


def kept_unwritten(journal: Path, elsewhere: Path | None = None) -> tuple[Path, list[Unwritten]] | None:
    """The side file a stop left (:func:`keep_unwritten`) and what it holds, or None if there is none; ValueError
    if it cannot be read as one."""
    for folder in [journal.parent] + ([elsewhere] if elsewhere is not None else []):
        path = folder / (journal.name + UNWRITTEN)
        if not path.is_file():
            continue
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
            kept = [
                Unwritten(
                    int(row["game"]),
                    tuple(Entry(str(e["kind"]), str(e["text"]), float(e["t"])) for e in row["entries"]),
                    dict(row["settings"]) if row["settings"] is not None else None,
                )
                for row in rows
            ]
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path}: not a file of unwritten entries ({exc})") from exc
        return path, kept
    return None


def _record(game_id: int, started: Any, settings: Any, outcome: Any, wall: Any, entries: int) -> GameRecord:
    """A game's row as a record; what cannot be read is named in ``damage`` instead of raising."""
    damage = []
    parsed = _json_object(settings)
    if parsed is None or not isinstance(parsed.get("game"), str):
        damage.append(f"settings {settings!r} are not a game's (JSON with a game key)")
        parsed = {}
    finished = None
    if outcome is not None:
        finished = _json_object(outcome)
        if finished is None:
            damage.append(f"outcome {outcome!r} is not JSON")
            finished = {"termination": "unreadable", "winner": None}
    number = started if isinstance(started, int | float) else 0.0
    wall_time = float(wall) if isinstance(wall, int | float) else None
    return GameRecord(game_id, float(number), parsed, finished, entries, wall_time, "; ".join(damage))


def _json_object(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def health(path: Path) -> tuple[bool, str, str]:
    """What ``companion doctor`` says of the journal at ``path`` (ok, what it found, what to do), read-only.

    A damaged journal the service set aside is a finding until someone has looked at it and deleted it; so are
    the plays a stop could not write (:func:`keep_unwritten`), until the service has replayed them or someone has
    deleted them.
    """
    aside = sorted(p.name for p in path.parent.glob(f"{path.name}.damaged-*") if not p.name.endswith(("-wal", "-shm")))
    unwritten = sorted(p.name for p in path.parent.glob(f"{path.name}{UNWRITTEN}*") if not p.name.endswith(".partial"))
    kept, looks = "", []
    if aside:
        kept = _("; damaged journals set aside: {files}").format(files=", ".join(aside))
        look = _("look at {files} in {folder} (companion history --journal FILE), then delete it")
        looks.append(look.format(files=", ".join(aside), folder=path.parent))
    if unwritten:
        kept += _("; plays a stop could not write: {files}").format(files=", ".join(unwritten))
        look = _(
            "start the service and press OK at its offer to replay them, or read {files} in {folder} and delete it"
        )
        looks.append(look.format(files=", ".join(unwritten), folder=path.parent))
    aside += unwritten
    look = "; ".join(looks)
    if not path.exists():
        return not aside, _("{path}: not made yet (the service makes it at start)").format(path=path) + kept, look
    try:
        journal = Journal.read_only(path)
        try:
            games, check = journal.games(), journal.integrity()
        finally:
            journal.close()
    except JournalError as exc:
        return (
            False,
            exc.text(language()) + kept,
            _("restart the service: it sets a damaged journal aside and starts a new one"),
        )
    if check != "ok":
        damaged = _("{path}: damaged ({check})").format(path=path, check=check)
        return False, damaged + kept, _("restart the service: it sets it aside and starts a new one")
    said = ngettext("{path}: {count} game", "{path}: {count} games", len(games)).format(path=path, count=len(games))
    return not aside, said + kept, look


class _Guard:
    """Turns SQLite's failures into a JournalError that says what to do."""

    def __init__(self, path: Path, error: Callable[[Path, BaseException], JournalError]) -> None:
        self.path, self.error = path, error

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, sqlite3.Error | OSError | UnicodeDecodeError) and not isinstance(exc, JournalError):
            raise self.error(self.path, exc) from exc


# SQLite's result codes (and their extended codes) that blame the disk or the moment, not the file's bytes: the
# file cannot be opened or read now, the disk is full or read-only, another connection holds it.
DISK_FAULTS = (
    "SQLITE_AUTH",
    "SQLITE_BUSY",
    "SQLITE_CANTOPEN",
    "SQLITE_FULL",
    "SQLITE_INTERRUPT",
    "SQLITE_IOERR",
    "SQLITE_LOCKED",
    "SQLITE_NOLFS",
    "SQLITE_NOMEM",
    "SQLITE_PERM",
    "SQLITE_PROTOCOL",
    "SQLITE_READONLY",
)


def _disk_fault(exc: BaseException) -> bool:
    return isinstance(exc, OSError) or str(getattr(exc, "sqlite_errorname", "")).startswith(DISK_FAULTS)


def _reason(exc: BaseException) -> str:
    """The failure's words; SQLite's own when Python could not decode them (a schema's bytes gone wrong)."""
    if isinstance(exc, UnicodeDecodeError) and isinstance(exc.object, bytes):
        return exc.object.decode("utf-8", "replace")
    return str(exc)


def _damaged(path: Path, exc: BaseException) -> JournalError:
    """A read failed: the file is damaged, unless the disk is to blame (:data:`DISK_FAULTS`)."""
    error = _error(path, exc)
    if _disk_fault(exc) or isinstance(error, JournalDamaged):
        return error
    return JournalDamaged(Said(N_("journal {path}: damaged ({error})"), path=path, error=_reason(exc)))


def _error(path: Path, exc: BaseException) -> JournalError:
    """What went wrong with the file, and what to do about it."""
    text = _reason(exc)
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or isinstance(exc, UnicodeDecodeError):
        return JournalDamaged(
            Said(N_("journal {path}: damaged, not a journal SQLite can read ({error})"), path=path, error=text)
        )
    code = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    if name.startswith("SQLITE_FULL") or code == errno.ENOSPC:  # by its kind, never by its words
        said = N_("journal {path}: the disk is full ({error}); free some space: the game goes on in memory meanwhile")
        return JournalError(Said(said, path=path, error=text), disk_full=True)
    if name.startswith("SQLITE_READONLY") or code == errno.EROFS:  # SQLite's, or the kernel's
        said = N_(
            "journal {path}: the disk is read-only ({error}); remount it read-write or set journal to a writable path"
        )
        return JournalError(Said(said, path=path, error=text))
    return JournalError(
        Said(N_("journal {path}: cannot write ({error}); check the path and its permissions"), path=path, error=text)
    )
