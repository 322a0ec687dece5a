"""The transcript format of ``companion play``: one action per line, ``#`` starts a comment.

``play <card>``, ``play <line> <card>``, ``pass``, ``undo``, and the verbs the games add (Seises's ``pay``: each
game's rules register their actions, :func:`~companion.rules.base.register_action`). Each line is read the same
way in every game, so that an action of another game (a ``pass`` where one pays) reaches the engine, which
refuses it as ``wrong_action``; a game kind gives the words its own lines use (its ``grammar``), said when a line
is no action. The acting seat or pair is always the one whose turn it is, so a line names only the action::

    >>> from companion.rules import Play
    >>> parse_line("play 6O  # the first play")
    Play(card='6O', line=None)
    >>> format_action(Play("N07", line="M2B"))
    'play M2B N07'

A game's first play, when the players said who made it, carries who is seat 1 in a comment of its line (a table
whose seats have names asks at that play): the journal's entries are what a power cut leaves and what the club
hears, one after another, so the fact goes with the play it belongs to (docs/decisions/015)::

    >>> line = "play 6O" + seat_one_note(3, "Eva")
    >>> line
    'play 6O  # seat 1: name 3 (Eva)'
    >>> noted_seat_one(line), noted_seat_one("play 6O  # seat 1: name 2"), noted_seat_one("play 6O")
    ((3, 'Eva'), (2, None), None)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from companion.i18n import N_, Said, SaidError
from companion.rules.base import ACTIONS, Action, Game

__all__ = [
    "ANY_ACTION",
    "UNDO",
    "TranscriptError",
    "format_action",
    "noted_seat_one",
    "parse_line",
    "seat_one_note",
    "state",
]

UNDO: Final = "undo"

# What a line may say (an English msgid), when the game does not say it more exactly.
ANY_ACTION = N_("play <card>, play <line> <card>, pay, pass or undo")


class TranscriptError(SaidError):
    """A line that is not an action of any game (a usage error, not an illegal play)."""


def parse_line(line: str, grammar: str = ANY_ACTION) -> Action | Literal["undo"] | None:
    """The action on ``line``; ``None`` for a blank or comment line. ``grammar`` (an English msgid) says what the
    game's lines look like, for the error a line that is no action raises."""
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    if verb == UNDO and not args:
        return UNDO
    action = ACTIONS[verb].parse(args) if verb in ACTIONS else None
    if action is not None:
        return action
    said = N_("not an action: {line} (write {grammar})")
    raise TranscriptError(Said(said, line=repr(line.strip()), grammar=Said(grammar)))


def format_action(action: Action) -> str:
    """The transcript line for ``action``; ``parse_line`` reads it back."""
    return str(action)


def seat_one_note(number: int, name: str) -> str:
    """The comment a first play's line ends with when the players said who made it: ``number`` is that player's
    place (from 1) among the seat names in the order they sit, ``name`` their name."""
    return f"  # seat 1: name {number} ({name})"


_SEAT_ONE = re.compile(r"#\s*seat 1: name (\d+)(?: \((.*)\))?\s*$")


def noted_seat_one(line: str) -> tuple[int, str | None] | None:
    """Who is seat 1 as ``line``'s comment says (:func:`seat_one_note`): their place among the seat names (from
    1) and their name (None on a line that gives only the place); None when the line says nothing of it."""
    noted = _SEAT_ONE.search(line)
    return None if noted is None else (int(noted.group(1)), noted.group(2))


def state(game: Game, refused: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The game's state after its actions, and the lines refused on the way (each with its reason code): what
    ``companion play --json`` ends with, and what the table's page serves as ``/api/state``."""
    return {**game.snapshot(), "refused": [dict(line) for line in refused]}
