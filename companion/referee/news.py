"""What happened at an event, as the referee saw it: typed, pure values, worded by whoever listens.

The screen gets the referee's words (:meth:`~companion.referee.Referee.view`); an output that says things its own way
(the voice, :mod:`companion.speech`) reads these instead, through :attr:`~companion.referee.Referee.told`: the
news of the last event handled, in the order they happened. Nothing here is a sentence: a game's news are worked
out from the snapshots around an action (each game's ``news(before, after)``), a refusal carries its reason code
and details (:class:`~companion.rules.IllegalPlay`), the referee's own messages their key and fields
(:mod:`companion.referee.texts`)::

    >>> from companion.config import GameConfig
    >>> from companion.events import Button, CardArrived, CardLeft, Press
    >>> from companion.referee import Referee
    >>> referee = Referee(GameConfig(), zones={"z1": "table"})
    >>> _ = referee.handle(CardArrived("z1", "7O"), 0.0)
    >>> [type(item).__name__ for item in referee.told], referee.told[0].refusal.reason.value
    (['Refused'], 'first_play_six_of_oros')
    >>> _ = referee.handle(CardLeft("z1", "7O"), 1.0); _ = referee.handle(CardArrived("z1", "6O"), 1.0)
    >>> _ = referee.handle(Press(Button.CONFIRM, "short", 2.0), 2.0)
    >>> acted = referee.told[0]; acted.action, acted.after["turn"]
    (Play(card='6O', line=None), 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.rules import Action, IllegalPlay

__all__ = ["Acted", "LevelChosen", "Misplaced", "News", "Noticed", "Refused", "Undone"]


@dataclass(frozen=True, slots=True)
class Acted:
    """An action committed: the game's snapshots around it (each game words its own news from them, and whose turn
    it is next from ``after["turn"]``)."""

    action: Action
    before: Mapping[str, Any] = field(repr=False)
    after: Mapping[str, Any] = field(repr=False)


@dataclass(frozen=True, slots=True)
class Refused:
    """A play, a pay or a pass the rules refused: ``refusal`` has the action, the reason code and its details."""

    refusal: IllegalPlay


@dataclass(frozen=True, slots=True)
class Misplaced:
    """A card laid on a zone its game does not take it on (a suit's zone, a card of another suit)."""

    card: str
    zone: str


@dataclass(frozen=True, slots=True)
class Undone:
    """A long UNDO took back ``action``."""

    action: Action


@dataclass(frozen=True, slots=True)
class Noticed:
    """One of the referee's own messages: its text key (the kind's or the referee's, :mod:`.texts`) and fields."""

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LevelChosen:
    """The players chose how much the table says aloud (the menu's "voice", the phone's settings)."""

    level: str


News = Acted | Refused | Misplaced | Undone | Noticed | LevelChosen
