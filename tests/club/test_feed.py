"""The table's events from the journal: ids that never change, in the journal's order, from any cursor."""

from __future__ import annotations

from pathlib import Path

from companion.club.feed import pending
from companion.journal import Cursor, Entry, Journal


def two_games(path: Path) -> Journal:
    """A game won, taken back once after its end, then a second game in play."""
    journal = Journal(path)
    first = journal.new_game({"game": "g", "players": 2}, t=0.0)
    journal.append(first, Entry("action", "play 6O", 1.0))
    journal.append(first, Entry("zone", "z2 1C", 1.5))
    journal.finish(first, {"termination": "won", "winner": "seat 1"})
    journal.append(first, Entry("undo", "", 2.0))
    second = journal.new_game({"game": "g", "players": 2}, t=3.0)
    journal.append(second, Entry("action", "play 7O", 4.0))
    return journal


def test_each_game_s_start_entries_and_end_have_ids_in_the_journal_s_order(tmp_path: Path) -> None:
    events = [event for _, event in pending(two_games(tmp_path / "j.db"), Cursor())]
    assert [(e["id"], e["type"]) for e in events] == [
        ("1:0", "start"),
        ("1:1", "action"),
        ("1:2", "zone"),
        ("1:3", "undo"),  # written after the end, read before it: the end comes once the entries written so far
        ("1:end", "end"),
        ("2:0", "start"),
        ("2:1", "action"),
    ]
    assert events[0]["settings"] == {"game": "g", "players": 2}
    assert events[1]["text"] == "play 6O" and events[1]["t"] == 1.0
    assert events[4]["outcome"] == {"termination": "won", "winner": "seat 1"}
    assert events[4]["after"] == 3  # the entry the end follows: a consumer that lacks one waits for it


def test_from_any_cursor_the_events_are_the_rest_of_those_from_the_start(tmp_path: Path) -> None:
    journal = two_games(tmp_path / "j.db")
    everything = pending(journal, Cursor())
    for k, (after, _) in enumerate(everything):
        assert pending(journal, after) == everything[k + 1 :]


def test_page_by_page_from_any_cursor_the_events_are_the_same_and_no_page_is_longer_than_asked(tmp_path: Path) -> None:
    journal = two_games(tmp_path / "j.db")
    everything = pending(journal, Cursor())
    for size in range(1, len(everything) + 2):
        cursor, pages = Cursor(), []
        while page := pending(journal, cursor, size):
            assert len(page) <= size
            pages.append(page)
            cursor = page[-1][0]
        assert [event for page in pages for event in page] == everything
        assert all(len(page) == size for page in pages[:-1]), "a page is short only when the journal has no more"


def test_the_games_before_the_cursor_s_are_not_read(tmp_path: Path) -> None:
    journal = two_games(tmp_path / "j.db")
    assert [game.id for game in journal.games(since=2)] == [2]
    assert [event["id"] for _, event in pending(journal, Cursor(2, 0))] == ["2:1"]


def test_an_entry_after_a_game_s_end_follows_its_end_with_its_own_number(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    game = journal.new_game({"game": "g"}, t=0.0)
    journal.append(game, Entry("action", "play 6O", 1.0))
    journal.finish(game, {"termination": "won", "winner": "seat 1"})
    ended = pending(journal, Cursor())[-1][0]
    assert ended == Cursor(game, 1, True)
    journal.append(game, Entry("undo", "", 2.0))  # UNDO held after the winning play
    assert [(after, event["id"]) for after, event in pending(journal, ended)] == [(Cursor(game, 2, True), "1:2")]
