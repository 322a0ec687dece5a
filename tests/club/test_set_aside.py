"""What the league keeps of the messages it sets aside is bounded: the first KB of each, the newest rows only, so a
flood of hostile messages cannot fill the club's disk; and it is committed with the events beside it."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from companion.club import standings
from companion.club.standings import League


def test_the_league_keeps_the_first_kb_of_the_newest_messages_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings, "SET_ASIDE_ROWS", 5)
    league = League(tmp_path / "club.db")
    league.set_aside("evil", "events", b"taken, never committed", "why")
    league.rollback()  # the club killed before its commit: the broker gives it again
    for k in range(20):
        league.set_aside("evil", "events", bytes([65 + k]) * (2_000_000 if k == 19 else 10), f"why {k}")
    league.commit()
    league.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "club.db")) as db:
        rows = db.execute("SELECT why, size, length(head) FROM set_aside ORDER BY rowid").fetchall()
    assert [why for why, _, _ in rows] == [f"why {k}" for k in range(15, 20)]
    assert rows[-1][1:] == (2_000_000, standings.SET_ASIDE_BYTES)
