"""The club's league: every table's events kept in SQLite, each game rebuilt through its rules, the standings.

Each event (:mod:`companion.club.feed`) is kept once, by its table and id: a duplicate (a table that sends again
after a power cut, a broker that delivers twice) changes nothing. A game is rebuilt as the table rebuilds it when
it resumes: a :class:`~companion.referee.Referee` from the start's settings, then each entry in the journal's
order (:meth:`Referee.replay`). An event that comes before one it follows (a gap) waits, kept, until the gap
fills; then everything that waited is applied in order. Once a game has ended and every entry before its end is
in, its kind says each side's points, renuncios and whether it won (:meth:`GameKind.results`, the rules that
``companion history`` gives the winner by); those results replace the game's earlier ones, so an entry that comes
after the end changes the game's results, never adds a second game. An UNDO held after the winning play reopens
the game (a ``reopen`` entry): the end before it is withdrawn, and with it the results counted, until the game
ends again (an end with a greater ``after``, which takes the first one's place).

The standings add up the results of the games that ended, per game and player::

    >>> from companion.games import DEFAULT_GAME
    >>> league = League(":memory:")
    >>> start = {"id": "1:0", "game": 1, "type": "start", "settings": {"game": DEFAULT_GAME, "players": 4}}
    >>> league.receive("t1", json.dumps(start)), league.receive("t1", json.dumps(start))
    ('1:0', None)
    >>> league.commit(); league.standings()
    []
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

from companion.config import GameConfig
from companion.games import ending
from companion.journal import Entry
from companion.referee import Referee

__all__ = ["BadEvent", "League", "Side", "Standing", "TableNow"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    tbl TEXT NOT NULL,
    game INTEGER NOT NULL,
    seq INTEGER NOT NULL,  -- 0 the start, 1, 2... the entries, -1 the end (which has no number of its own)
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (tbl, game, seq)
);
CREATE TABLE IF NOT EXISTS results (
    tbl TEXT NOT NULL,
    game INTEGER NOT NULL,
    side TEXT NOT NULL,
    kind TEXT NOT NULL,
    player TEXT NOT NULL,
    points INTEGER NOT NULL,
    renuncios INTEGER NOT NULL,
    won INTEGER NOT NULL,
    PRIMARY KEY (tbl, game, side)
);
CREATE TABLE IF NOT EXISTS tables (
    tbl TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    changed REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS set_aside (  -- messages that were no table's (companion.club.schema), never used
    tbl TEXT NOT NULL,
    topic TEXT NOT NULL,
    why TEXT NOT NULL,
    size INTEGER NOT NULL,
    head BLOB NOT NULL,  -- the payload's first SET_ASIDE_BYTES
    received REAL NOT NULL
);
"""
SET_ASIDE_BYTES = 1024  # what is kept of a message set aside: enough to see what it was
SET_ASIDE_ROWS = 10_000  # the newest kept: a flood of them cannot fill the club's disk
END = -1  # the end's place in the events table
ENTRIES = ("action", "undo", "reopen", "zone")  # the events that are journal entries
CSV_HEAD = ("game", "player", "played", "won", "points", "reneges")  # a script's names, in English


class BadEvent(ValueError):
    """A message on a table's events topic that is not one of its events; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line in the standings of one game (a kind's name): the games that ended, summed."""

    game: str
    player: str
    played: int
    won: int
    points: int
    renuncios: int


@dataclass(frozen=True, slots=True)
class Side:
    """A side of a table's game as it stands: its player (or the table's seat or pair when unnamed)."""

    player: str
    points: int
    renuncios: int
    won: bool


@dataclass(frozen=True, slots=True)
class TableNow:
    """A table for the room's board: whether it is online, and its latest game as the club has rebuilt it."""

    table: str
    status: str  # "online", "offline", or "" when the table has not said
    game: str | None  # the kind's name of its latest game; None before the club has any
    number: int  # that game's number at the table
    sides: tuple[Side, ...]
    turn: str | None  # whose turn, in the table's words; None once the game is over or cannot be rebuilt
    over: bool
    waiting: str = ""  # what the game waits for (an event that has not come) or why it cannot be rebuilt
    result: str = ""  # once over: who won and by which rule, in the table's words (GameKind.verdict)


@dataclass
class _Game:
    """One game of one table, rebuilt from its events as far as they run in order."""

    table: str
    number: int
    referee: Referee | None = None
    applied: int = -1  # the last event applied in order: -1 none yet, 0 the start, n the entry n
    end: dict[str, Any] | None = None
    damage: str = ""  # why the game cannot be rebuilt; it counts for nothing
    kind: str = ""
    reopened: int = 0  # the last reopen entry applied: an end before it is withdrawn

    @property
    def over(self) -> bool:
        """It has an end that no reopening applied since has withdrawn."""
        return self.end is not None and _after(self.end) >= self.reopened

    @property
    def complete(self) -> bool:
        """Ended, with every entry before its end applied."""
        if not self.over or self.referee is None or self.damage:
            return False
        assert self.end is not None
        after = self.end.get("after")
        return not isinstance(after, int) or self.applied >= after


@dataclass
class League:
    """The league kept at ``path`` (SQLite; ``":memory:"`` for a test). :meth:`receive` takes each event, and
    :meth:`commit` makes what it took durable: acknowledge the messages to the broker only after it."""

    path: str | Path
    clock: Callable[[], float] = time.time
    _games: dict[tuple[str, int], _Game] = field(default_factory=dict, init=False)
    _latest: dict[str, int] = field(default_factory=dict, init=False)  # each table's latest game

    def __post_init__(self) -> None:
        if str(self.path) != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a commit is on disk before the broker hears of it
        self._db.executescript(SCHEMA)
        for table, number in self._db.execute("SELECT tbl, MAX(game) FROM events GROUP BY tbl"):
            self._latest[table] = number

    def close(self) -> None:
        self._db.close()

    # ---- taking events ------------------------------------------------------------------------------------------

    def receive(self, table: str, payload: bytes | str) -> str | None:
        """Take one event of ``table`` (a message of ``companion/<table>/events``): its id when it is new, None for
        a duplicate. BadEvent for a message that is not an event."""
        event = _parse(payload)
        number, seq = _place(event)
        self._begin()
        if seq == END and not self._later_end(table, number, event):
            return None
        added = self._db.execute(
            "INSERT OR IGNORE INTO events (tbl, game, seq, body, received) VALUES (?, ?, ?, ?, ?)",
            (table, number, seq, json.dumps(event, ensure_ascii=False), self.clock()),
        ).rowcount
        if not added:
            return None
        if number >= self._latest.get(table, 0):
            self._latest[table] = number
        game = self._games.get((table, number))
        if game is None:
            self._games[table, number] = game = self._load(table, number)
        else:
            self._advance(game, [(seq, event)])
        self._keep_results(game)
        return str(event["id"])

    def _later_end(self, table: str, number: int, end: dict[str, Any]) -> bool:
        """Whether ``end`` comes after the end kept of the game, if any (the game was reopened and has ended
        again): it then takes that end's place. An end that does not is one already seen, or one a reopening
        has withdrawn."""
        kept = self._db.execute(
            "SELECT body FROM events WHERE tbl = ? AND game = ? AND seq = ?", (table, number, END)
        ).fetchone()
        if kept is None:
            return True
        if _after(end) <= _after(json.loads(kept[0])):
            return False
        self._db.execute("DELETE FROM events WHERE tbl = ? AND game = ? AND seq = ?", (table, number, END))
        return True

    def status(self, table: str, text: str) -> None:
        """What ``companion/<table>/status`` says (``online``, ``offline``)."""
        self._begin()
        self._db.execute(
            "INSERT OR REPLACE INTO tables (tbl, status, changed) VALUES (?, ?, ?)", (table, text, self.clock())
        )

    def set_aside(self, table: str, topic: str, payload: bytes, why: str) -> None:
        """Keep a message that is not a table's (its first bytes, its size and why), committed with the events taken
        beside it; only the newest SET_ASIDE_ROWS are kept."""
        self._begin()
        self._db.execute(
            "INSERT INTO set_aside (tbl, topic, why, size, head, received) VALUES (?, ?, ?, ?, ?, ?)",
            (table, topic, why, len(payload), payload[:SET_ASIDE_BYTES], self.clock()),
        )
        self._db.execute(
            "DELETE FROM set_aside WHERE rowid <= (SELECT MAX(rowid) FROM set_aside) - ?", (SET_ASIDE_ROWS,)
        )

    def commit(self) -> None:
        """Make every event taken since the last commit durable; on failure nothing of them is kept, and the
        games are rebuilt from what is."""
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error:
            self.rollback()
            raise

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._games.clear()  # they had taken what is no longer kept
        self._latest = dict(self._db.execute("SELECT tbl, MAX(game) FROM events GROUP BY tbl").fetchall())

    def _begin(self) -> None:
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")

    def _load(self, table: str, number: int) -> _Game:
        """A game rebuilt from the events kept of it."""
        game = _Game(table, number)
        rows = self._db.execute(
            "SELECT seq, body FROM events WHERE tbl = ? AND game = ? ORDER BY seq", (table, number)
        ).fetchall()
        self._advance(game, [(seq, json.loads(body)) for seq, body in rows])
        return game

    def _advance(self, game: _Game, events: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """Apply ``events`` and whatever waited for them, in order, as far as they run without a gap."""
        for seq, event in events:
            if seq == END:
                game.end = event
            elif seq == game.applied + 1:
                self._apply(game, seq, event)
                game.applied = seq
            else:
                continue  # kept in the events table: it waits for the gap before it
            for waited, body in self._db.execute(
                "SELECT seq, body FROM events WHERE tbl = ? AND game = ? AND seq > ? ORDER BY seq",
                (game.table, game.number, game.applied),
            ).fetchall():
                if waited != game.applied + 1:
                    break
                self._apply(game, waited, json.loads(body))
                game.applied = waited

    def _apply(self, game: _Game, seq: int, event: dict[str, Any]) -> None:
        if game.damage:
            return
        if event["type"] == "reopen":
            game.reopened = seq
        try:
            if event["type"] == "start":
                settings = event["settings"]
                game.referee = Referee(GameConfig.from_settings(settings), {})
                game.kind = game.referee.game_kind.name
            else:
                assert game.referee is not None
                game.referee.replay([Entry(event["type"], event["text"], float(event["t"]))])
        except (ValueError, IndexError, KeyError, TypeError) as exc:
            game.damage = f"{event['id']}: {exc}"

    def _keep_results(self, game: _Game) -> None:
        """The game's results, once it is complete, in place of its earlier ones; none for a game that cannot be
        rebuilt, nor for one that ended with no action played (a game started and replaced at once)."""
        key = (game.table, game.number)
        self._db.execute("DELETE FROM results WHERE tbl = ? AND game = ?", key)
        if game.complete and game.referee is not None and game.referee.current_game.actions:
            referee = game.referee
            results = referee.game_kind.results(referee.current_game, True)
            self._db.executemany(
                "INSERT INTO results (tbl, game, side, kind, player, points, renuncios, won) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (*key, str(side), game.kind, _player(referee, game.table, side), points, renuncios, int(won))
                    for side, points, renuncios, won in map(astuple, results)
                ],
            )
        if game.complete and self._latest.get(game.table) != game.number:
            del self._games[key]  # over and not on the board: rebuilt from its events if anything comes for it

    # ---- what the league says -----------------------------------------------------------------------------------

    def standings(self) -> list[Standing]:
        """Per game and player: games ended, won, points and renuncios; the most games won first, then points."""
        rows = self._db.execute(
            "SELECT kind, player, COUNT(*), SUM(won), SUM(points), SUM(renuncios) FROM results "
            "GROUP BY kind, player ORDER BY kind, SUM(won) DESC, SUM(points) DESC, player"
        ).fetchall()
        return [Standing(*row) for row in rows]

    def csv(self) -> str:
        """The standings as CSV, a head line first (``companion club --csv``, ``/standings.csv``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_HEAD)
        for row in self.standings():
            writer.writerow((row.game, row.player, row.played, row.won, row.points, row.renuncios))
        return out.getvalue()

    def tables(self) -> list[TableNow]:
        """Every table the club has heard of, by name, with its latest game."""
        statuses = dict(self._db.execute("SELECT tbl, status FROM tables").fetchall())
        return [self._now(table, statuses.get(table, "")) for table in sorted(set(statuses) | set(self._latest))]

    def missing(self, table: str) -> list[tuple[int, int]]:
        """The games before ``table``'s latest of which the league has no event at all, as (first, last) runs: a
        table numbers its games from 1 without a gap, so these were lost on the way (a broker that dropped them, a
        session another client took) and are not in the standings."""
        rows = self._db.execute(
            "SELECT before + 1, game - 1 FROM (SELECT game, LAG(game, 1, 0) OVER (ORDER BY game) AS before "
            "FROM (SELECT DISTINCT game FROM events WHERE tbl = ?)) WHERE game > before + 1",
            (table,),
        )
        return [(first, last) for first, last in rows]

    def _now(self, table: str, status: str) -> TableNow:
        number = self._latest.get(table)
        if number is None:
            return TableNow(table, status, None, 0, (), None, False)
        game = self._games.get((table, number))
        if game is None:
            self._games[table, number] = game = self._load(table, number)
        referee = game.referee
        if referee is None or game.damage:
            waiting = game.damage or f"{number}:0"
            return TableNow(table, status, game.kind or None, number, (), None, False, waiting)
        over = game.over
        sides = tuple(
            Side(_player(referee, table, result.side), result.points, result.renuncios, result.won)
            for result in referee.game_kind.results(referee.current_game, over)
        )
        waiting = ""
        if over and not game.complete:
            waiting = f"{number}:{game.applied + 1}"
        kind, played = referee.game_kind, referee.current_game
        end = ending(played, ended=over)
        turn = None if over or end is not None else kind.whose_turn(played, referee)
        result = "" if end is None else kind.verdict(played, end, referee).text(referee.table_language)
        return TableNow(table, status, game.kind, number, sides, turn, over, waiting, result)


def _after(end: dict[str, Any]) -> int:
    """The number of the entry an end follows (0 for an end that does not say)."""
    after = end.get("after")
    return after if isinstance(after, int) else 0


def _player(referee: Referee, table: str, side: int | str) -> str:
    """A side's player: the seat's name when the table names its players, else the table's seat or pair."""
    if isinstance(side, int) and referee.seat_names and referee.seat_one_known:
        return referee.seat_name(side - 1)
    return f"{table} {referee.game_kind.who(side, referee.table_language)}"


def _parse(payload: bytes | str) -> dict[str, Any]:
    try:
        event = json.loads(payload)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadEvent(f"not JSON ({exc})") from None
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        raise BadEvent(f"not an event (a JSON object with an id): {str(payload)[:80]!r}")
    return event


def _place(event: dict[str, Any]) -> tuple[int, int]:
    """The event's game and its place in it, from its id (``<game>:<seq>``, ``<game>:0`` the start,
    ``<game>:end``), checked against its type and fields."""
    number, _, part = str(event["id"]).partition(":")
    kind = event.get("type")
    try:
        game = int(number)
        seq = END if part == "end" else int(part)
    except ValueError:
        raise BadEvent(f"event id {event['id']!r} is not <game>:<number> nor <game>:end") from None
    expected = ("end",) if seq == END else ("start",) if seq == 0 else ENTRIES
    if game < 1 or seq < END or kind not in expected or event.get("game") != game:
        raise BadEvent(f"event {event['id']!r} of type {kind!r} and game {event.get('game')!r} does not match its id")
    if seq == 0 and not isinstance(event.get("settings"), dict):
        raise BadEvent(f"start {event['id']!r} has no settings")
    if seq > 0 and not (isinstance(event.get("text"), str) and isinstance(event.get("t"), int | float)):
        raise BadEvent(f"entry {event['id']!r} has no text and time t")
    return game, seq
