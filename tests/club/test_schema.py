"""The club's schema (companion/club/schema.py): every event a table's publisher sends passes it unchanged, and every
kind of hostile message (tests/club/hostile.py) is refused with what is wrong, quickly and without an exception of
another kind."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hostile import Hostile, a_fifo, payloads
from nights import NAMES, Night, a_night, play

from companion.club import schema
from companion.club.schema import BadMessage
from companion.config import GameConfig
from companion.journal import Entry

KINDS = [hostile.kind for hostile in payloads(Path("deck.fifo"))]


@pytest.fixture(scope="module")
def hostiles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Hostile]:
    return {hostile.kind: hostile for hostile in payloads(a_fifo(tmp_path_factory.mktemp("fifo")))}


def check(hostile: Hostile) -> object:
    """What the club's service checks of a message on ``hostile``'s topic."""
    schema.table(hostile.table)
    return schema.status(hostile.payload) if hostile.topic == "status" else schema.event(hostile.payload)


def test_every_event_a_table_sends_passes_unchanged(tmp_path: Path) -> None:
    """A night's events as the publisher sends them: Seises with and without names, an UNDO after the end, 6º SET,
    a game replaced before its first play, every deck and option the config can give."""
    night = a_night(tmp_path)
    sexto = night.journals["t2"]
    config = GameConfig("sexto-set", deck="squadratik", language="en", confirm_turns=False)
    number = sexto.new_game(config.settings(), 0.0)
    sexto.append(number, Entry("zone", "z2 M1", 3.0))
    sexto.finish(number, {"termination": "replaced", "winner": None})
    play(night.journals["t1"], "seises", 8, names=NAMES)
    for table in night.journals:
        night.publish(table)
    events = [text for _, text in night.everything()]
    assert {json.loads(text)["type"] for text in events} == {"start", "action", "undo", "zone", "end"}
    for text in events:
        assert schema.event(text.encode()) == json.loads(text)
    for table in ("t1", "mesa-3", "Mesa_12"):
        assert schema.table(table) == table
    assert [schema.status(word) for word in (b"online", b"offline")] == ["online", "offline"]


def test_there_are_at_least_27_kinds_of_hostile_message() -> None:
    assert len(set(KINDS)) == len(KINDS) >= 27


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_message_is_refused_with_what_is_wrong(kind: str, hostiles: dict[str, Hostile]) -> None:
    hostile = hostiles[kind]
    began = time.monotonic()
    with pytest.raises(BadMessage) as refused:
        check(hostile)
    assert time.monotonic() - began < 0.5
    said = str(refused.value)
    assert hostile.said in said
    assert said.isascii() and said.isprintable(), "the log line is one line, with no escape of the sender's"
    assert len(said) < 400


def test_a_night_s_events_each_changed_in_one_way_are_refused(tmp_path: Path) -> None:
    """Each key of each kind of event dropped, or given a value of another type: refused, never passed on."""
    night = Night(tmp_path)
    play(night.journals["t1"], "seises", 3, names=NAMES)
    night.publish("t1")
    samples = {json.loads(text)["type"]: json.loads(text) for _, text in night.everything()}
    for event in samples.values():
        for key in event:
            if key == "wall":
                continue  # optional: a journal older than schema 1 has none
            without = {k: v for k, v in event.items() if k != key}
            with pytest.raises(BadMessage):
                schema.event(json.dumps(without).encode())
            for wrong in ([], {}, "x", -1, 2.5, True):
                if not (type(wrong) is type(event[key]) or {type(wrong), type(event[key])} == {int, float}):
                    with pytest.raises(BadMessage, match=key):
                        schema.event(json.dumps(event | {key: wrong}).encode())
