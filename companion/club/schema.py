"""What a table may send the club: the one schema every message is checked against, with its bounds, before the
league or the board uses any of it (docs/CLUB.md, "Hostile messages").

The events are those :mod:`companion.club.feed` makes, and nothing else: each key of its type, each value of its
type and within its bounds, no key more. A message that is not one is :class:`BadMessage`, whose text says what
is wrong (for the log line, and the row the club sets it aside in)::

    >>> event(b'{"id": "3:1", "game": 3, "type": "action", "text": "play 6O", "t": 812.5, "wall": null}')["t"]
    812.5
    >>> forged = {"termination": "won", "winner": 1}
    >>> event(json.dumps({"id": "3:end", "game": 3, "type": "end", "outcome": forged, "after": "9"}).encode())
    Traceback (most recent call last):
    ...
    companion.club.schema.BadMessage: end '3:end': after must be a whole number, not '9'

A start's settings name the deck by a built-in deck's name only: a table's deck file is on the table's machine, and
a path sent to the club would be opened on the club's (``/dev/ptmx``, a FIFO: an open that never returns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from companion.config import TABLE_NAME
from companion.decks import BUILTIN_DECKS
from companion.games import kinds
from companion.names import refused

__all__ = ["MAX_BYTES", "BadMessage", "event", "shown", "status", "table"]

MAX_BYTES = 16_384  # an event's payload: a start with eight long names is under 1 KB
MAX_NUMBER = 2**53 - 1  # a game's or an entry's number: a journal's row ids, exact in the board's JavaScript too
MAX_TIME_S = 1e12  # |t| and |wall|: the table's clock and the wall clock, in seconds (30,000 years)
MAX_TEXT = 1_000  # an entry's text: a play, an UNDO, a zone, with a name or two
MAX_NAME = 100  # a seat's name, a termination, a winner
MAX_OPTIONS = 32
STATUSES = ("online", "offline")
PLAYERS = (2, 8)  # as the config's game.players
LANGUAGE = re.compile(r"[A-Za-z_-]{1,16}")
ID = re.compile(r"([1-9][0-9]{0,15}):(0|[1-9][0-9]{0,15}|end)")
ENTRIES = ("action", "undo", "zone")

# Each type's keys: required, then optional
KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "start": (frozenset({"id", "game", "type", "settings"}), frozenset({"wall"})),
    **{kind: (frozenset({"id", "game", "type", "text", "t"}), frozenset({"wall"})) for kind in ENTRIES},
    "end": (frozenset({"id", "game", "type", "outcome", "after"}), frozenset()),
}
SETTINGS = frozenset({"game", "players", "deck", "options", "language", "confirm_turns", "seat_names"})
OUTCOME = frozenset({"termination", "winner"})


class BadMessage(ValueError):
    """A message that is not what a table sends; the text says what is wrong."""


def table(name: str) -> str:
    """``name`` (a topic's level) when it can be a table's name (as the config's ``mqtt.table``)."""
    if not TABLE_NAME.fullmatch(name):
        raise BadMessage(f"{_quote(name)} is not a table's name (one word of letters, digits, - or _)")
    return name


def status(payload: bytes) -> str:
    """A status topic's payload: ``online`` or ``offline``."""
    for word in STATUSES:
        if payload == word.encode():
            return word
    raise BadMessage(f"status {_quote(payload)} is neither online nor offline")


def event(payload: bytes) -> dict[str, Any]:
    """An events topic's payload as the event it is; BadMessage when it is not one."""
    if len(payload) > MAX_BYTES:
        raise BadMessage(f"{len(payload)} bytes, more than an event's {MAX_BYTES}")
    try:
        parsed = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise BadMessage(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise BadMessage("JSON nested too deep") from None
    except ValueError as exc:  # JSONDecodeError, NaN and Infinity, an integer of more than 4,300 digits
        raise BadMessage(f"not JSON ({exc})") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("id"), str):
        raise BadMessage("not an event (a JSON object with an id)")
    return _event(parsed)


def _event(event: dict[str, Any]) -> dict[str, Any]:
    found = ID.fullmatch(event["id"])
    if found is None:
        raise BadMessage(f"event id {_quote(event['id'])} is not <game>:<number> nor <game>:end")
    number, part = int(found[1]), found[2]
    kind = event.get("type")
    expected = ("end",) if part == "end" else ("start",) if part == "0" else ENTRIES
    if not isinstance(kind, str) or kind not in expected:
        raise BadMessage(f"event {event['id']!r}: type {_quote(kind)} is not {' nor '.join(expected)}")
    what = f"{kind} {event['id']!r}"
    required, optional = KEYS[kind]
    _keys(what, event, required, optional)
    if _whole(what, "game", event["game"], 1) != number:
        raise BadMessage(f"{what}: game {event['game']} is not its id's")
    if part != "end":
        _whole(what, "entry number", int(part), 0)
    if "wall" in event and event["wall"] is not None:
        _time(what, "wall", event["wall"])
    if kind == "start":
        _settings(what, event["settings"])
    elif kind == "end":
        _outcome(what, event["outcome"])
        _whole(what, "after", event["after"], 0)
    else:
        _text(what, "text", event["text"], MAX_TEXT)
        _time(what, "t", event["t"])
    return event


def _settings(what: str, settings: Any) -> None:
    what = f"{what}: settings"
    if not isinstance(settings, dict):
        raise BadMessage(f"{what} must be an object, not {_quote(settings)}")
    _keys(what, settings, frozenset({"game"}), SETTINGS)
    if settings["game"] not in kinds():
        raise BadMessage(f"{what}: game {_quote(settings['game'])} is not one of {', '.join(kinds())}")
    if "players" in settings:
        _whole(what, "players", settings["players"], PLAYERS[0], PLAYERS[1])
    if settings.get("deck", "") not in ("", *BUILTIN_DECKS):
        raise BadMessage(
            f"{what}: deck {_quote(settings['deck'])} is not a built-in deck ({', '.join(BUILTIN_DECKS)}); "
            "the club plays no deck file of a table's"
        )
    options = settings.get("options", {})
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise BadMessage(f"{what}: options must be an object of at most {MAX_OPTIONS} texts, not {_quote(options)}")
    for key, value in options.items():
        _text(what, "option", key, MAX_NAME)
        _text(what, f"option {key}", value, MAX_NAME)
    if "language" in settings and not (
        isinstance(settings["language"], str) and LANGUAGE.fullmatch(settings["language"])
    ):
        raise BadMessage(f"{what}: language {_quote(settings['language'])} is not a language's code")
    if "confirm_turns" in settings and not isinstance(settings["confirm_turns"], bool):
        raise BadMessage(f"{what}: confirm_turns must be true or false, not {_quote(settings['confirm_turns'])}")
    names = settings.get("seat_names", [])
    if not isinstance(names, list) or len(names) > PLAYERS[1]:
        raise BadMessage(f"{what}: seat_names must be a list of at most {PLAYERS[1]} names, not {_quote(names)}")
    for name in names:
        _text(what, "seat name", name, MAX_NAME)


def _outcome(what: str, outcome: Any) -> None:
    what = f"{what}: outcome"
    if not isinstance(outcome, dict):
        raise BadMessage(f"{what} must be an object, not {_quote(outcome)}")
    _keys(what, outcome, OUTCOME, frozenset())
    _text(what, "termination", outcome["termination"], MAX_NAME)
    winner = outcome["winner"]
    if isinstance(winner, str):
        _text(what, "winner", winner, MAX_NAME)
    elif winner is not None:
        _whole(what, "winner", winner, 0, MAX_NAME)


def _keys(what: str, found: Mapping[str, Any], required: frozenset[str], optional: frozenset[str]) -> None:
    if missing := sorted(required - found.keys()):
        raise BadMessage(f"{what} lacks {', '.join(missing)}")
    if unknown := sorted(found.keys() - required - optional):
        raise BadMessage(f"{what} has keys no table sends: {_quote(', '.join(unknown))}")


def _whole(what: str, key: str, value: Any, low: int, high: int = MAX_NUMBER) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage(f"{what}: {key} must be a whole number, not {_quote(value)}")
    if not low <= value <= high:
        raise BadMessage(f"{what}: {key} {_quote(value)} is not from {low} to {high}")
    return value


def _time(what: str, key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadMessage(f"{what}: {key} must be a number of seconds, not {_quote(value)}")
    if not -MAX_TIME_S <= value <= MAX_TIME_S:  # NaN and the infinities too; exact for an integer of any size
        raise BadMessage(f"{what}: {key} {_quote(value)} is not a time (at most {MAX_TIME_S:g} s)")


def _text(what: str, key: str, value: Any, longest: int) -> None:
    if not isinstance(value, str):
        raise BadMessage(f"{what}: {key} must be a text, not {_quote(value)}")
    if len(value) > longest:
        raise BadMessage(f"{what}: {key} has {len(value)} characters, more than {longest}")
    if (char := refused(value)) is not None:
        raise BadMessage(f"{what}: {key} {_quote(value)} holds {char}, a control or direction character")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON has")


def shown(name: str) -> str:
    """A topic's table level for the log and the set-aside row: itself when it is a table's name, else quoted."""
    return name if TABLE_NAME.fullmatch(name) else _quote(name)


def _quote(value: Any, longest: int = 60) -> str:
    """``value`` for a log line: its ASCII repr (no control or direction character gets through), cut short."""
    text = ascii(value)
    return text if len(text) <= longest else f"{text[:longest]}..."
