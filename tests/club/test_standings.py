"""The club's league from the tables' events: the standings equal those computed from the journals, whatever the
order, the duplicates, the gaps and the restarts of the club."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nights import NAMES, Night, a_night, expected

from companion.club.feed import pending
from companion.club.standings import BadEvent, League
from companion.config import GameConfig
from companion.journal import Cursor, Entry, Journal


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    return a_night(tmp_path_factory.mktemp("night"))


def feed(league: League, table_events: dict[str, list[str]]) -> list[str | None]:
    taken = [league.receive(table, text) for table, texts in table_events.items() for text in texts]
    league.commit()
    return taken


def test_the_standings_equal_those_computed_from_the_journals(night: Night) -> None:
    league = League(":memory:")
    taken = feed(league, night.sent)
    assert None not in taken
    standings = league.standings()
    assert standings == expected(night.journals)
    # what the night holds, so that the comparison above means something
    assert {row.game for row in standings} == {"seises", "sexto-set"}
    assert {"Ana", "Luis", "Eva", "Juan", "t2 asiento 1", "t2 pareja A"} <= {row.player for row in standings}
    assert sum(row.renuncios for row in standings) > 0
    assert sum(row.won for row in standings if row.game == "seises") == 3  # 4 games, one win taken back
    assert next(row for row in standings if row.player == "Ana").played == 3


def test_every_event_sent_twice_and_a_window_sent_again_count_once(night: Night) -> None:
    league = League(":memory:")
    again = {table: [text for text in texts for _ in range(2)] + texts[3:9] for table, texts in night.sent.items()}
    taken = feed(league, again)
    assert taken.count(None) == sum(len(texts) + 6 for texts in night.sent.values())
    assert league.standings() == expected(night.journals)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3))
def test_any_order_with_duplicates_gives_the_same_standings(night: Night, seed: int, commits: int) -> None:
    """Events late, early, twice; committed now and then: once all are in, the standings are the journals'."""
    rng = random.Random(seed)
    league = League(":memory:")
    everything = night.everything()
    everything += rng.sample(everything, 10)
    rng.shuffle(everything)
    for k, (table, text) in enumerate(everything):
        league.receive(table, text)
        if commits and k % (50 * commits) == 0:
            league.commit()
    league.commit()
    assert league.standings() == expected(night.journals)


def test_a_gap_holds_what_follows_it_until_it_fills(night: Night) -> None:
    league = League(":memory:")
    texts = night.sent["t1"]
    first_end = next(k for k, text in enumerate(texts) if json.loads(text)["type"] == "end")
    missing = texts[5]  # an entry of the first game, the broker lost it
    feed(league, {"t1": texts[:5] + texts[6 : first_end + 1]})
    assert league.standings() == [], "a game with a gap is not counted"
    board = league.tables()[0]
    assert board.waiting == json.loads(missing)["id"] and board.over
    feed(league, {"t1": [missing]})
    assert [row.played for row in league.standings()] == [1, 1, 1, 1]
    assert league.tables()[0].waiting == ""


def test_an_end_waits_for_the_entries_before_it(night: Night) -> None:
    texts = night.sent["t1"]
    first_end = next(k for k, text in enumerate(texts) if json.loads(text)["type"] == "end")
    league = League(":memory:")
    feed(league, {"t1": [*texts[: first_end - 1], texts[first_end]]})  # the last entry, the winning play, lost
    assert league.standings() == []
    assert league.tables()[0].waiting == json.loads(texts[first_end - 1])["id"]
    feed(league, {"t1": [texts[first_end - 1]]})
    assert sum(row.won for row in league.standings()) == 1


def test_a_win_taken_back_after_its_end_is_no_longer_a_win_and_the_game_counts_once(night: Night) -> None:
    league = League(":memory:")
    texts = night.sent["t1"]
    undo = next(k for k, text in enumerate(texts) if json.loads(text)["type"] == "undo")
    feed(league, {"t1": texts[:undo]})
    before = {row.player: row for row in league.standings()}
    assert sum(row.won for row in before.values()) == 2
    feed(league, {"t1": [texts[undo]]})
    after = {row.player: row for row in league.standings()}
    assert sum(row.won for row in after.values()) == 1
    assert all(after[player].played == before[player].played for player in before)


def test_a_club_restarted_keeps_what_it_committed_and_takes_again_what_it_had_not(night: Night, tmp_path: Path) -> None:
    path = tmp_path / "club.db"
    everything = night.everything()
    half = len(everything) // 2
    league = League(path)
    for table, text in everything[:half]:
        league.receive(table, text)
    league.commit()
    for table, text in everything[half : half + 20]:  # taken, never committed: the broker has no ack for them
        league.receive(table, text)
    league.close()  # killed
    league = League(path)
    assert [league.receive(table, text) for table, text in everything[half - 5 : half]] == [None] * 5
    for table, text in everything[half - 5 :]:  # the broker delivers again what was not acknowledged
        league.receive(table, text)
    league.commit()
    assert league.standings() == expected(night.journals)
    assert League(path).standings() == expected(night.journals)


def test_the_board_shows_each_table_s_latest_game_and_the_csv_the_standings(night: Night) -> None:
    league = League(":memory:")
    texts = night.sent["t1"]
    feed(league, {"t1": texts[:40], "t2": night.sent["t2"]})
    league.status("t1", "online")
    league.commit()
    t1, t2 = league.tables()
    assert (t1.table, t1.status, t1.game, t1.number, t1.over) == ("t1", "online", "seises", 1, False)
    assert {side.player for side in t1.sides} == set(NAMES)
    assert t1.turn in NAMES
    assert (t2.status, t2.number, t2.over, t2.turn) == ("", 3, True, None)
    assert [side.points for side in t2.sides] == [0, 0, 0, 0]  # replaced before its first play
    lines = league.csv().splitlines()
    assert lines[0] == "game,player,played,won,points,reneges"
    assert len(lines) == 1 + len(league.standings())


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ("not json", "not JSON"),
        ('["a list"]', "not an event"),
        ('{"id": "x:1", "game": 1, "type": "action"}', "is not <game>:<number>"),
        ('{"id": "2:1", "game": 1, "type": "action", "text": "pay", "t": 1}', "does not match its id"),
        ('{"id": "1:0", "game": 1, "type": "action"}', "does not match its id"),
        ('{"id": "1:0", "game": 1, "type": "start"}', "has no settings"),
        ('{"id": "1:3", "game": 1, "type": "action"}', "has no text"),
    ],
)
def test_a_message_that_is_not_an_event_is_refused_with_what_is_wrong(payload: str, said: str) -> None:
    league = League(":memory:")
    with pytest.raises(BadEvent, match=said):
        league.receive("t1", payload)
    league.commit()
    assert league.tables() == []


def test_a_game_the_rules_cannot_rebuild_counts_for_nothing_and_says_why(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    number = journal.new_game(GameConfig("seises").settings(), 0.0)
    journal.append(number, Entry("action", "play 7O", 1.0))  # the first play must be the 6 of oros
    journal.finish(number, {"termination": "damaged", "winner": None})
    league = League(":memory:")
    feed(league, {"t1": [json.dumps(event) for _, event in pending(journal, Cursor())]})
    assert league.standings() == []
    assert "1:1" in league.tables()[0].waiting


@pytest.fixture(scope="module")
def reopened(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The events of a table whose game was won by seat 3, reopened by an UNDO of the winning play (and 10 more),
    then won by seat 4, published after each of those moments: the first end among them."""
    lines = (Path(__file__).parents[1] / "games" / "seises-undo-winning-play.txt").read_text().splitlines()[2:]
    first_undo = lines.index("undo")
    journal = Journal(tmp_path_factory.mktemp("reopened") / "journal.db")
    number = journal.new_game(GameConfig("seises").settings(), 0.0)
    sent: list[str] = []
    cursor = Cursor()

    def publish() -> None:
        nonlocal cursor
        journal.flush()
        for after, event in pending(journal, cursor):
            sent.append(json.dumps(event))
            cursor = after

    for t, line in enumerate(lines, start=1):
        if t == first_undo + 1:
            publish()
        if line == "undo":
            journal.append_later(number, Entry("undo", "", float(t)))
            if t == first_undo + 1:  # the UNDO of the winning play reopens the game
                journal.append_later(number, Entry("reopen", '{"termination": "goal", "winner": 3}', float(t)))
        else:
            journal.append_later(number, Entry("action", line, float(t)))
        if t == first_undo:
            journal.flush()
            journal.finish(number, {"termination": "goal", "winner": 3})
        elif t == first_undo + 1:
            publish()
    journal.flush()
    journal.finish(number, {"termination": "goal", "winner": 4})
    publish()
    return sent


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_a_reopened_game_counts_once_for_its_last_winner_whatever_the_order(reopened: list[str], seed: int) -> None:
    sent = reopened
    ends = [text for text in sent if json.loads(text)["type"] == "end"]
    assert [json.loads(text)["outcome"]["winner"] for text in ends] == [3, 4]
    assert len({json.loads(text)["id"] for text in sent}) == len(sent) - 1, "both ends are the game's end"
    rng = random.Random(seed)
    everything = sent + rng.sample(sent, 5) + ends[:1]  # the first end delivered again, late
    rng.shuffle(everything)
    league = League(":memory:")
    for text in everything:
        league.receive("t1", text)
    league.commit()
    assert [(row.player, row.won) for row in league.standings() if row.won] == [("t1 asiento 4", 1)]
    assert {row.played for row in league.standings()} == {1}
    assert league.tables()[0].over


def test_a_reopening_withdraws_the_counted_result_until_the_game_ends_again(reopened: list[str]) -> None:
    sent = reopened
    undo = next(k for k, text in enumerate(sent) if json.loads(text)["type"] == "undo")
    league = League(":memory:")
    feed(league, {"t1": sent[:undo]})
    assert [row.player for row in league.standings() if row.won] == ["t1 asiento 3"]
    assert json.loads(sent[undo + 1])["type"] == "reopen"
    feed(league, {"t1": sent[undo : undo + 2]})
    assert league.standings() == []
    board = league.tables()[0]
    assert not board.over and board.turn is not None and board.waiting == ""
    feed(league, {"t1": sent[undo + 2 :]})
    assert [row.player for row in league.standings() if row.won] == ["t1 asiento 4"]
