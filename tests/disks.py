"""A disk that fills up under the SQLite files the code opens (tests/conftest.py's ``disk`` fixture makes one)."""

from __future__ import annotations

import contextlib
import sqlite3

__all__ = ["Disk"]


class Disk:
    """The disk under the SQLite files the code opens: :meth:`fill` makes every further write fail with SQLite's
    own "database or disk is full" (``max_page_count``, with the free room in the last pages used up), and
    :meth:`free` gives room again. ``connections`` are the connections the code opened, oldest first."""

    FILLER = -1  # the entries of no game, and the games started at no time: what takes up the free room

    def __init__(self) -> None:
        self.connections: list[sqlite3.Connection] = []

    def open(self) -> list[sqlite3.Connection]:
        """The connections the code has not closed."""
        return [db for db in self.connections if _is_open(db)]

    def fill(self, room_pages: int = 0) -> None:
        """No more room on the disk; ``room_pages`` pages of SQLite's are left free."""
        for db in self.open():
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")
            seq = 0
            for size in (4096, 512, 64, 8, 1):  # whatever a row of this size still fits in, in both tables
                with contextlib.suppress(sqlite3.OperationalError):
                    while True:
                        seq += 1
                        db.execute(
                            "INSERT INTO entries (game, seq, t, kind, text) VALUES (?, ?, 0, 'action', ?)",
                            (self.FILLER, seq, "x" * size),
                        )
                with contextlib.suppress(sqlite3.OperationalError):
                    while True:  # the games' pages too: a game's outcome or a new game's row finds no room
                        db.execute("INSERT INTO games (started, settings) VALUES (?, ?)", (self.FILLER, "x" * size))
            db.execute(f"PRAGMA max_page_count = {pages + room_pages}")

    def free(self) -> None:
        for db in self.open():
            db.execute("DELETE FROM entries WHERE game = ?", (self.FILLER,))
            db.execute("DELETE FROM games WHERE started = ?", (self.FILLER,))
            db.execute("PRAGMA max_page_count = 1000000000")


def _is_open(db: sqlite3.Connection) -> bool:
    try:
        db.total_changes  # noqa: B018 (raises on a closed connection)
    except sqlite3.ProgrammingError:
        return False
    return True
