"""The table's events, read from the journal after a cursor: what ``companion/<table>/events`` carries.

A game's events, in order: its start (id ``<game>:0``), each journal entry (``<game>:<seq>``, as the journal
numbers it, from 1) and, once the journal has its outcome, its end (``<game>:end``, with ``after``: the number of
the entry it follows, so a consumer that missed one knows to wait for it). An UNDO that takes back the action that
ended the game is followed by a ``reopen`` entry: the end before it is withdrawn, and the game's next end comes
with the same id and a greater ``after`` (the end that counts is the one with the greatest). The ids never change,
so a consumer that sees one twice (after a power cut, or a broker that lost an acknowledgement) keeps the first::

    >>> import tempfile
    >>> from pathlib import Path
    >>> from companion.journal import Entry, Journal
    >>> journal = Journal(Path(tempfile.mkdtemp()) / "journal.db")
    >>> game = journal.new_game({"game": "g", "players": 4}, t=0.0)
    >>> journal.append(game, Entry("action", "play 6O", 1.5))
    >>> [event["id"] for _, event in pending(journal, Cursor())]
    ['1:0', '1:1']
    >>> journal.finish(game, {"termination": "won", "winner": "seat 1"})
    >>> [(after, event["type"]) for after, event in pending(journal, Cursor(1, 1))]
    [(Cursor(game=1, seq=1, ended=True), 'end')]
"""

from __future__ import annotations

from typing import Any

from companion.journal import Cursor, GameRecord, Journal, Numbered

__all__ = ["pending"]


def pending(journal: Journal, cursor: Cursor, limit: int | None = None) -> list[tuple[Cursor, dict[str, Any]]]:
    """The events after ``cursor``, oldest first, each with the cursor that has passed it; the first ``limit`` of
    them (None: all), so that a long backlog is read a page at a time. Only the games from the cursor's on are
    read: the journal's older history costs nothing."""
    found: list[tuple[Cursor, dict[str, Any]]] = []
    for game in journal.games(since=cursor.game):
        if limit is not None and len(found) >= limit:
            break
        if game.id > cursor.game:
            cursor = Cursor(game.id)
            found.append((cursor, _start(game)))
        room = None if limit is None else limit - len(found)
        entries = journal.entries_after(game.id, cursor.seq, room)
        for numbered in entries:
            # past a reopening, the game's end is to come again
            cursor = Cursor(game.id, numbered.seq, cursor.ended and numbered.entry.kind != "reopen")
            found.append((cursor, _entry(numbered)))
        if room is not None and len(entries) >= room:
            break  # the page is full: the game's other entries, then its end, come on the next one
        if game.outcome is not None and not cursor.ended:
            cursor = Cursor(game.id, cursor.seq, True)
            end = {"id": f"{game.id}:end", "game": game.id, "type": "end", "outcome": game.outcome, "after": cursor.seq}
            found.append((cursor, end))
    return found


def _start(game: GameRecord) -> dict[str, Any]:
    return {"id": f"{game.id}:0", "game": game.id, "type": "start", "settings": game.settings, "wall": game.wall}


def _entry(numbered: Numbered) -> dict[str, Any]:
    entry = numbered.entry
    return {
        "id": f"{numbered.game}:{numbered.seq}",
        "game": numbered.game,
        "type": entry.kind,
        "text": entry.text,
        "t": entry.t,
        "wall": numbered.wall,
    }
