"""A game ends once, everywhere: an UNDO held after the action that ended it reopens it at the table, in the
journal (a ``reopen`` entry), in ``companion history`` and at the club (which withdraws the result it had
counted), and a power cut after it resumes the reopened game exactly."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.club.feed import pending
from companion.club.publisher import CURSOR, Publisher
from companion.club.standings import League
from companion.commands.history import transcript
from companion.config import GameConfig, parse_config
from companion.events import Button, CardArrived, CardLeft, Press
from companion.games import register, unregister
from companion.games.sexto_set import SextoSetKind
from companion.journal import Cursor, Entry, GameRecord, Journal
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.referee.history import standing
from companion.rules import Action, Play
from companion.rules.transcript import UNDO, parse_line, state
from companion.table import Table

if TYPE_CHECKING:
    from brokers import Board

Until = Callable[..., Awaitable[None]]
GAMES = Path(__file__).parent / "games"
sys.path.insert(0, str(GAMES))
import record  # noqa: E402


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


def test_an_undo_of_the_winning_play_reopens_the_game_everywhere_and_another_seat_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    exported, damaged = transcript(record, table.journal)  # companion export: the reopening is a comment
    assert not damaged and '# reopen {"termination": "goal", "winner": 3}' in exported.splitlines()
    (tmp_path / "game.txt").write_text(exported)
    assert main(["play", "seises", str(tmp_path / "game.txt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {**table.referee.game.snapshot(), "refused": []}


# ---- random play with undos across hand, set and game ends, and power cuts anywhere ------------------------------

MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")


class OneSetMatch(SextoSetKind):
    """6º SET whose match is one set: its set's end ends the game (the table's reopening on a 6º SET end)."""

    name = "sexto-set-one-set"
    ends_at_outcome = True


@pytest.fixture(scope="module", autouse=True)
def one_set_match() -> Iterator[None]:
    register(OneSetMatch())
    yield
    unregister(OneSetMatch.name)


@dataclass(frozen=True)
class Scenario:
    """A robot game's first actions, written to the journal as the table wrote them; the test plays on."""

    config: GameConfig
    zones: dict[str, str]
    prefix: tuple[str, ...]


@functools.cache
def scenarios() -> tuple[Scenario, ...]:
    _, history = record.seises_game(1, 8, "spanish-40", 0.0, {})
    lines = [str(action) for action, _, _ in history]
    hand_ends = [k for k, (_, before, after) in enumerate(history) if after and after["hand"] != before["hand"]]
    _, history = record.sexto_match(2, 1, {})
    set_end = next(k for k, (_, _, after) in enumerate(history) if after and after["result"] is not None)
    sexto_lines = tuple(str(action) for action, _, _ in history[: set_end - 3])
    lines_zones = {f"z{k}": master for k, master in enumerate(MASTERS, start=1)}
    table = {"z1": "table"}
    return (
        Scenario(GameConfig(players=8, confirm_turns=False), table, tuple(lines[: len(lines) - 4])),  # the game's end
        Scenario(GameConfig(players=8, confirm_turns=False), table, tuple(lines[: hand_ends[-2] - 2])),  # a hand's
        Scenario(GameConfig("sexto-set", confirm_turns=False), lines_zones, sexto_lines),  # a set's end
        Scenario(GameConfig(OneSetMatch.name, confirm_turns=False), lines_zones, sexto_lines),  # the match's end
    )


def table_of(scenario: Scenario, folder: Path) -> Table:
    referee = Referee(scenario.config, scenario.zones)
    table = Table(referee, TableTracker(Registry.load(folder / "registry.toml")), Journal(folder / "journal.db"))
    table.start(0.0)
    return table


def do(table: Table, action: Action, t: float) -> None:
    """``action`` done at the table: its card laid on its line's zone and lifted, or PASS and CONFIRM."""
    if isinstance(action, Play):
        zone = next(zone for zone, role in table.referee.zones.roles.items() if role in ("table", action.line))
        table.status(CardArrived(zone, action.card), t)
        table.status(CardLeft(zone, action.card), t)
    else:
        table.press(Press(Button.PASS, "short", t), t)
        table.press(Press(Button.CONFIRM, "short", t), t)


def agree(table: Table, club: Club, before: dict[str, object] | None = None, *, replay: bool = False) -> None:
    """The table's game, the journal (and with ``replay``, its replay and ``history``) and the club say the same."""
    journal, referee = table.journal, table.referee
    if before is not None:
        assert referee.game.snapshot() == before, "the game resumed exactly"
    games = journal.games()
    assert games[-1].id == table.game_id
    ended = referee.game_over()
    outcome = None if ended is None else {"termination": ended.termination, "winner": ended.winner}
    assert games[-1].outcome == outcome
    assert all(game.outcome is not None for game in games[:-1]), "only the game in play has no outcome"
    if replay:
        replayed = Referee(GameConfig.from_settings(games[-1].settings), {})
        replayed.replay(journal.entries(table.game_id))
        assert replayed.game.snapshot() == referee.game.snapshot()
        for game in games:
            where = standing(game, journal)
            assert not where.damage
            won = game.outcome and game.outcome["winner"]
            assert (where.winner is not None) == bool(won and game.outcome["termination"] != "replaced")
    club.hear(journal)
    board = club.league.tables()[0]
    assert (board.number, board.over, board.waiting) == (table.game_id, ended is not None, "")
    if referee.game.outcome() is None:  # (a 6º SET set that ended is nobody's turn until the next one starts)
        assert board.turn == referee.kind.whose_turn(referee.game, referee)
    counted = sorted(row.player for row in club.league.standings() if row.won)
    assert counted == sorted(who for game in games if game.outcome is not None for who in winners(journal, game))


WINNERS: dict[tuple[Path, int, int], list[str]] = {}


def winners(journal: Journal, game: GameRecord) -> list[str]:
    """Who won ``game`` by its kind's results (the rule the club counts by), replayed from the journal."""
    key = (journal.path, game.id, game.entries)
    if key not in WINNERS:
        referee = Referee(GameConfig.from_settings(game.settings), {})
        referee.replay(journal.entries(game.id))
        results = referee.kind.results(referee.game, True) if referee.game.actions else []
        WINNERS[key] = [f"t1 {referee.kind.who(result.side, 'es')}" for result in results if result.won]
    return WINNERS[key]


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_play_with_undos_and_power_cuts_the_table_journal_history_and_club_agree(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    scenario = data.draw(st.sampled_from(scenarios()))
    folder = tmp_path_factory.mktemp("table")
    table = table_of(scenario, folder)
    for t, line in enumerate(scenario.prefix, start=1):
        table.journal.append_later(table.game_id, Entry("action", line, float(t)))
    table.journal.flush()
    club = Club()
    table = power_cut_to(table, scenario, folder, club)
    agree(table, club, replay=True)
    t = 10_000.0
    for _ in range(data.draw(st.integers(5, 30))):
        t += 1.0
        step = data.draw(st.sampled_from(("act", "act", "act", "undo", "undo", "cut")))
        if step == "cut":
            before = table.referee.game.snapshot()
            over = table.referee.game_over() is not None
            table = power_cut_to(table, scenario, folder, club)
            fresh = Referee(scenario.config, scenario.zones).game.snapshot()
            agree(table, club, fresh if over else before, replay=True)
            continue
        if step == "undo" or table.referee.game_over() is not None:
            table.press(Press(Button.UNDO, "long", t), t)
        else:
            legal = sorted(table.referee.game.legal_actions(), key=str)
            do(table, legal[data.draw(st.integers(0, len(legal) - 1))], t)
        agree(table, club)
    agree(table, club, replay=True)


def power_cut_to(table: Table, scenario: Scenario, folder: Path, club: Club) -> Table:
    """A power cut: the table comes back from its journal, and the publisher's cursor, written without waiting
    for the disk, may be a little behind (the club hears some events again)."""
    table.journal.close()
    club.cursor = Cursor(club.cursor.game, max(0, club.cursor.seq - 2)) if club.cursor.game else club.cursor
    return table_of(scenario, folder)


def test_a_game_whose_winning_play_is_on_disk_but_not_its_outcome_is_closed_on_start_and_can_be_reopened(
    tmp_path: Path,
) -> None:
    lines = (GAMES / "seises-undo-winning-play.txt").read_text().splitlines()[2:]
    table = seises_table(tmp_path)
    for t, line in enumerate(lines[: lines.index("undo")], start=1):  # the power went before its outcome
        table.journal.append_later(table.game_id, Entry("action", line, float(t)))
    table.journal.flush()
    game = table.game_id
    table = power_cut(table, tmp_path)
    record_ = table.journal.game(game)
    assert table.game_id == game and record_ is not None
    assert record_.outcome == {"termination": "goal", "winner": 3}, "closed as the table has it"
    act(table, "undo", 9000.0)
    record_ = table.journal.game(game)
    assert record_ is not None and record_.outcome is None


def test_the_publisher_sends_the_reopening_and_the_club_counts_the_last_winner(
    tmp_path: Path, board: Board, until: Until
) -> None:
    """The table's publisher on a real mosquitto: the first end, the undo and the reopening, the second end."""
    lines = (GAMES / "seises-undo-winning-play.txt").read_text().splitlines()[2:]
    first_undo = lines.index("undo")
    table = seises_table(tmp_path)
    for t, line in enumerate(lines[: first_undo - 1], start=1):
        table.journal.append_later(table.game_id, Entry("action", line, float(t)))
    table.journal.flush()
    table = power_cut(table, tmp_path)  # the table resumes the game just before its winning play
    earlier = pending(table.journal, Cursor())  # sent before: the club has them
    table.journal.move_cursor(CURSOR, earlier[-1][0])
    mqtt = parse_config(f'[mqtt]\nurl = "{board.broker.url}"\ntable = "t1"\n', "t").mqtt
    assert mqtt is not None
    publisher = Publisher(mqtt, table.journal, lambda: state(table.referee.game))

    expected: list[str] = []

    async def publish(moves: list[str], t: float) -> None:
        for k, line in enumerate(moves):
            act(table, line, t + k)
        expected.extend(event["id"] for _, event in pending(table.journal, table.journal.cursor(CURSOR)))
        async with board.watching():
            await publisher.send_once()
            await until(lambda: board.ids() == expected)

    asyncio.run(publish(lines[first_undo - 1 : first_undo], 5000.0))  # seat 3 wins
    asyncio.run(publish(lines[first_undo : first_undo + 1], 6000.0))  # the winning play undone: reopened
    asyncio.run(publish(lines[first_undo + 1 :], 7000.0))  # 10 more undone, then seat 4 wins
    kinds = [event["type"] for event in board.events]
    assert kinds.count("end") == 2 and kinds.index("reopen") == kinds.index("end") + 2
    assert [event["outcome"]["winner"] for event in board.events if event["type"] == "end"] == [3, 4]
    league = League(":memory:")
    for event in [event for _, event in earlier] + board.events:
        league.receive("t1", json.dumps(event))
    league.commit()
    assert [(row.player, row.played) for row in league.standings() if row.won] == [("t1 asiento 4", 1)]
    assert board.state["t1"]["winner"] == 4
