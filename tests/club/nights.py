"""Nights at the club's tables for its tests: robot games written into journals as a table writes them, their events
as the table publishes them, and the standings the journals hold."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from companion.club.feed import pending
from companion.club.standings import Standing
from companion.config import GameConfig
from companion.games import find_kind
from companion.journal import Cursor, Entry, Journal
from companion.referee import Referee
from companion.rules.transcript import seat_one_note

NAMES = ("Ana", "Luis", "Eva", "Juan")


def play(journal: Journal, game: str, seed: int, *, names: tuple[str, ...] = (), renege: float = 0.0) -> int:
    """A whole robot game into ``journal``, as the table writes it: its actions, the first naming seat 1 when the
    seats have names (``# seat 1: name k (Eva)``), and its end: a Seises game at 50, a 6º SET match after its
    last set."""
    kind = find_kind(game)
    config = GameConfig(game, players=4, seat_names=names)
    engine = Referee(config, {}).game
    robots: Any = kind.robots(engine, random.Random(seed))
    if renege:
        robots.renege = renege
    number = journal.new_game(config.settings(), 0.0)
    first = random.Random(seed).randrange(len(names)) + 1 if names else 0
    t = 0.0
    while not robots.over():
        action, hand = robots.choose()
        engine.push(action)
        robots.played(action, hand)
        t += 1.0
        text = str(action) + (seat_one_note(first, names[first - 1]) if first and t == 1.0 else "")
        journal.append(number, Entry("action", text, t))
    outcome = engine.outcome()
    assert outcome is not None, "the robots play a game to its end"
    journal.finish(number, {"termination": outcome.termination, "winner": outcome.winner})
    return number


def replaced(journal: Journal, seed: int = 1) -> int:
    """A Seises game as a table writes it, replaced by a new game after twelve plays (it counts); its number."""
    config = GameConfig("seises")
    engine = Referee(config, {}).game
    robots = find_kind("seises").robots(engine, random.Random(seed))
    number = journal.new_game(config.settings(), 0.0)
    for t in range(1, 13):
        action, hand = robots.choose()
        engine.push(action)
        robots.played(action, hand)
        journal.append(number, Entry("action", str(action), float(t)))
    journal.finish(number, {"termination": "replaced", "winner": None})
    return number


def expected(journals: dict[str, Journal]) -> list[Standing]:
    """The standings as the journals have them: each ended game replayed as the table resumes one, each side's
    result from its kind; summed per game and player."""
    totals: dict[tuple[str, str], Counter[str]] = {}
    for table, journal in journals.items():
        for record in journal.games():
            referee = Referee(GameConfig.from_settings(record.settings), {})
            referee.replay(journal.entries(record.id))
            if record.outcome is None or not referee.game.actions:
                continue
            for result in referee.kind.results(referee.game, True):
                named = isinstance(result.side, int) and referee.config.seat_names
                player = (
                    referee.seat_name(int(result.side) - 1)
                    if named
                    else f"{table} {referee.kind.who(result.side, 'es')}"
                )
                total = totals.setdefault((referee.kind.name, player), Counter())
                total.update(played=1, won=int(result.won), points=result.points, renuncios=result.renuncios)
    rows = [
        Standing(game, player, t["played"], t["won"], t["points"], t["renuncios"])
        for (game, player), t in totals.items()
    ]
    return sorted(rows, key=lambda row: (row.game, -row.won, -row.points, row.player))


class Night:
    """Two tables' journals and their events as published live: after each game, and after the UNDO."""

    def __init__(self, folder: Path) -> None:
        self.journals = {"t1": Journal(folder / "t1.db"), "t2": Journal(folder / "t2.db")}
        self.sent: dict[str, list[str]] = {"t1": [], "t2": []}
        self._cursors = {"t1": Cursor(), "t2": Cursor()}

    def publish(self, table: str) -> None:
        for after, event in pending(self.journals[table], self._cursors[table]):
            self.sent[table].append(json.dumps(event))
            self._cursors[table] = after

    def everything(self) -> list[tuple[str, str]]:
        return [(table, text) for table, texts in self.sent.items() for text in texts]


def a_night(folder: Path) -> Night:
    """Named players who renege now and then, an UNDO after a win, a 6º SET match and a Seises game of unnamed
    seats, a game replaced with no action played."""
    night = Night(folder)
    t1, t2 = night.journals["t1"], night.journals["t2"]
    play(t1, "seises", 3, names=NAMES, renege=0.1)
    won = play(t1, "seises", 4, names=NAMES, renege=0.1)
    night.publish("t1")
    t1.append(won, Entry("undo", "", 999.0))  # UNDO held after the winning play: the win is taken back
    night.publish("t1")
    play(t1, "seises", 5, names=NAMES[::-1], renege=0.1)
    night.publish("t1")
    play(t2, "sexto-set", 6)
    play(t2, "seises", 7)
    empty = t2.new_game(GameConfig("seises").settings(), 0.0)
    t2.finish(empty, {"termination": "replaced", "winner": None})
    night.publish("t2")
    return night
