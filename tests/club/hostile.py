"""What a hostile client of the club's broker sends on a table's topics, each kind with a word of why the club must
refuse it (tests/club/test_schema.py checks the schema refuses each, tests/club/test_club_hostile.py sends them
all through mosquitto to a running club)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.config import GameConfig

START: dict[str, Any] = {"id": "1:0", "game": 1, "type": "start", "settings": GameConfig().settings(), "wall": 1e9}
ACTION: dict[str, Any] = {"id": "1:1", "game": 1, "type": "action", "text": "play 6O", "t": 1.5, "wall": 1e9}
END: dict[str, Any] = {"id": "1:end", "game": 1, "type": "end", "outcome": {"termination": "won", "winner": 1}}


@dataclass(frozen=True)
class Hostile:
    kind: str  # what it is, the test's id
    payload: bytes
    said: str  # in what the club says of it
    table: str = "evil"  # the topic's table level
    topic: str = "events"

    @property
    def full_topic(self) -> str:
        return f"companion/{self.table}/{self.topic}"


def _json(event: dict[str, Any], **changes: Any) -> bytes:
    return json.dumps(event | changes, ensure_ascii=False).encode()


def _settings(**changes: Any) -> bytes:
    return _json(START, settings=START["settings"] | changes)


def a_fifo(folder: Path) -> Path:
    """A FIFO in ``folder``, for the deck that names it: opening it for reading waits for a writer, for ever."""
    fifo = folder / "deck.fifo"
    os.mkfifo(fifo)
    return fifo


def payloads(fifo: Path) -> list[Hostile]:
    """Every kind; ``fifo`` the FIFO the deck of one of them names (:func:`a_fifo`)."""
    deep = 8_000  # within an event's bytes, past Python's recursion limit
    return [
        Hostile("nested-100000-deep", b"[" * 100_000 + b"]" * 100_000, "more than an event's"),
        Hostile("nested-past-the-recursion-limit", b"[" * deep + b"]" * deep, "nested too deep"),
        Hostile("nested-objects", b'{"":' * 3_000 + b"1" + b"}" * 3_000, "nested too deep"),
        Hostile("nested-in-the-options", _settings(options={"x": json.loads("[" * 500 + "]" * 500)}), "must be a text"),
        Hostile("game-number-2-to-the-63", _json(START, id=f"{2**63}:0", game=2**63), "is not <game>:<number>"),
        Hostile("game-field-past-64-bits", _json(START, game=2**64), "is not from 1 to"),
        Hostile("game-field-not-its-id-s", _json(START, game=2), "not its id's"),
        Hostile("entry-number-2-to-the-64", _json(ACTION, id=f"1:{2**64}"), "is not <game>:<number>"),
        Hostile("entry-number-2-to-the-53", _json(ACTION, id=f"1:{2**53}"), "is not from 0 to"),
        Hostile("t-a-400-digit-integer", _json(ACTION, t=10**400), "is not a time"),
        Hostile("t-1e400", _json(ACTION).replace(b'"t": 1.5', b'"t": 1e400'), "is not a time"),
        Hostile("t-nan", _json(ACTION).replace(b'"t": 1.5', b'"t": NaN'), "NaN is not a number"),
        Hostile("t-infinity", _json(ACTION).replace(b'"t": 1.5', b'"t": -Infinity'), "Infinity is not a number"),
        Hostile("t-a-text", _json(ACTION, t="1.5"), "must be a number of seconds"),
        Hostile("t-true", _json(ACTION, t=True), "must be a number of seconds"),
        Hostile("wall-past-any-time", _json(ACTION, wall=1e300), "is not a time"),
        Hostile("game-a-text", _json(START, game="1"), "must be a whole number"),
        Hostile("game-true", _json(START, game=True), "must be a whole number"),
        Hostile("deck-dev-ptmx", _settings(deck="/dev/ptmx"), "not a built-in deck"),
        Hostile("deck-a-fifo", _settings(deck=str(fifo)), "not a built-in deck"),
        Hostile("deck-relative-path", _settings(deck="../../etc/passwd"), "not a built-in deck"),
        Hostile("settings-a-list", _json(START, settings=["seises"]), "must be an object"),
        Hostile("settings-unknown-game", _settings(game="poker"), "is not one of"),
        Hostile("players-a-million", _settings(players=10**6), "is not from 2 to 8"),
        Hostile("language-a-path", _settings(language="../../locale"), "is not a language's code"),
        Hostile("seat-name-esc", _settings(seat_names=["Ana\x1b[2J", "Luis", "Eva", "Juan"]), "holds U+001B"),
        Hostile("seat-name-rlo", _settings(seat_names=["\u202eanA", "Luis", "Eva", "Juan"]), "holds U+202E"),
        Hostile("seat-name-nul", _settings(seat_names=["Ana\x00", "Luis", "Eva", "Juan"]), "holds U+0000"),
        Hostile("seat-name-bel", _settings(seat_names=["Ana\x07", "Luis", "Eva", "Juan"]), "holds U+0007"),
        Hostile("seat-names-a-hundred", _settings(seat_names=["Ana"] * 100), "at most 8 names"),
        Hostile("text-forging-a-log-line", _json(ACTION, text="play 6O\nERROR club: forged"), "holds U+000A"),
        Hostile("text-a-lone-surrogate", json.dumps(ACTION | {"text": "play \ud800"}).encode(), "holds U+D800"),
        Hostile("text-60-kb", _json(ACTION, text="x" * 60_000), "more than an event's"),
        Hostile("text-20-mb", _json(ACTION, text="x" * 20_000_000), "more than an event's"),
        Hostile("end-after-a-text", _json(END, after="9"), "after must be a whole number"),
        Hostile("end-after-null", _json(END, after=None), "after must be a whole number"),
        Hostile("end-after-true", _json(END, after=True), "after must be a whole number"),
        Hostile("end-after-a-fraction", _json(END, after=8.5), "after must be a whole number"),
        Hostile("end-without-after", _json(END), "lacks after"),
        Hostile("end-outcome-a-text", _json(END, after=3, outcome="won"), "must be an object"),
        Hostile("end-winner-a-list", _json(END, after=3, outcome={"termination": "won", "winner": [1]}), "winner"),
        Hostile("a-key-no-table-sends", _json(ACTION, deck="/dev/ptmx"), "keys no table sends"),
        Hostile("type-not-its-id-s", _json(START, type="end"), "is not start"),
        Hostile("not-utf-8", b'{"id": "1:1", "text": "\xff\xfe"}', "not UTF-8"),
        Hostile("not-json", b"play 6O", "not JSON"),
        Hostile("a-json-list", b'["1:0"]', "not an event"),
        Hostile("empty", b"", "not JSON"),
        Hostile("status-with-escapes", b"online\x1b[2J", "neither online nor offline", topic="status"),
        Hostile("table-name-with-rlo", _json(START), "is not a table's name", table="\u202elive"),
        Hostile("table-name-with-esc", b"online", "is not a table's name", table="a\x1b[31mb", topic="status"),
    ]
