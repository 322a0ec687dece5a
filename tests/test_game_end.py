"""A game ends once, everywhere: an UNDO held after the action that ended it reopens it at the table, in the
journal (a ``reopen`` entry), in ``companion history`` and at the club (which withdraws the result it had
counted), and a power cut after it resumes the reopened game exactly."""

from __future__ import annotations

import json
from pathlib import Path

from companion.club.feed import pending
from companion.club.standings import League
from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press
from companion.journal import Cursor, Entry, Journal
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.referee.history import standing
from companion.rules.transcript import UNDO, parse_line
from companion.table import Table

GAMES = Path(__file__).parent / "games"


def seises_table(folder: Path) -> Table:
    """A 4-seat Seises table whose plays commit at once, on the journal in ``folder``, started (or resumed)."""
    referee = Referee(GameConfig(confirm_turns=False), {"z1": "table"})
    table = Table(referee, TableTracker(Registry.load(folder / "registry.toml")), Journal(folder / "journal.db"))
    table.start(0.0)
    return table


def power_cut(table: Table, folder: Path) -> Table:
    """The power goes and comes back: what is on disk is all the new table has."""
    table.journal.close()
    return seises_table(folder)


def act(table: Table, line: str, t: float) -> None:
    """One transcript line done at the table: a card laid on z1 and lifted, a pay (PASS, CONFIRM), a held UNDO."""
    action = parse_line(line)
    if action == UNDO:
        table.press(Press(Button.UNDO, "long", t), t)
    elif line == "pay":
        table.press(Press(Button.PASS, "short", t), t)
        table.press(Press(Button.CONFIRM, "short", t), t)
    else:
        card = line.split()[-1]
        table.status(CardArrived("z1", card), t)
        table.status(CardLeft("z1", card), t)


class Club:
    """A club fed the table's events as its publisher sends them: from its cursor in the journal, in order."""

    def __init__(self) -> None:
        self.league = League(":memory:")
        self.cursor = Cursor()

    def hear(self, journal: Journal) -> None:
        for after, event in pending(journal, self.cursor):
            self.league.receive("t1", json.dumps(event))
            self.cursor = after
        self.league.commit()

    def winners(self) -> list[str]:
        return [row.player for row in self.league.standings() if row.won]

    def played(self) -> int:
        return sum(row.played for row in self.league.standings())


def test_an_undo_of_the_winning_play_reopens_the_game_everywhere_and_another_seat_wins(tmp_path: Path) -> None:
    lines = (GAMES / "seises-undo-winning-play.txt").read_text().splitlines()[2:]
    first_undo = lines.index("undo")
    table = seises_table(tmp_path)
    game = table.game_id
    # the game up to its winning play, as the table wrote it
    for t, line in enumerate(lines[: first_undo - 1], start=1):
        table.journal.append_later(game, Entry("action", line, float(t)))
    table.journal.flush()
    table = power_cut(table, tmp_path)
    assert table.game_id == game
    club = Club()
    club.hear(table.journal)

    act(table, lines[first_undo - 1], 5000.0)  # the winning play: seat 3 reaches 50
    record = table.journal.game(game)
    assert record is not None and record.outcome == {"termination": "goal", "winner": 3}
    club.hear(table.journal)
    assert club.winners() == ["t1 asiento 3"] and club.played() == 4

    undos = lines[first_undo:].index(next(line for line in lines[first_undo:] if line != "undo"))
    assert undos == 11
    for k in range(undos):
        act(table, "undo", 5001.0 + k)
    kinds = [entry.kind for entry in table.journal.entries(game)[-12:]]
    assert kinds == ["undo", "reopen"] + ["undo"] * 10
    record = table.journal.game(game)
    assert record is not None and record.outcome is None
    assert standing(record, table.journal).winner is None
    club.hear(table.journal)
    assert club.played() == 0, "the club withdrew the result it had counted"
    board = club.league.tables()[0]
    assert not board.over and board.turn is not None

    before = table.referee.game.snapshot()
    table = power_cut(table, tmp_path)
    assert table.game_id == game, "the reopened game is resumed, not a new one"
    assert table.referee.game.snapshot() == before

    for t, line in enumerate(lines[first_undo + undos :], start=6000):
        act(table, line, float(t))
    record = table.journal.game(game)
    assert record is not None and record.outcome == {"termination": "goal", "winner": 4}
    where = standing(record, table.journal)
    assert where.winner is not None and where.winner.text("en") == "seat 4, 52 points"
    club.hear(table.journal)
    assert club.winners() == ["t1 asiento 4"] and club.played() == 4, "counted once, for its last winner"
    assert club.league.tables()[0].over
