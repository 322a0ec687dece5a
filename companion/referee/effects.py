"""What the referee asks of the table besides writing journal entries: typed effects, returned by
:meth:`~companion.referee.Referee.handle` in order among the entries it commits. Pure values, no I/O.

The journal holds games and their entries; a new game and a game's changed settings are not entries of a game
but changes to its rows, so they are effects the table acts on: it closes the game a new one replaces and opens the
new one's row (:class:`GameOpened`), or writes the game's settings on its row (:class:`SettingsChanged`). The entries
that follow a :class:`GameOpened` belong to the new game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.journal import Entry

__all__ = ["Committed", "Effect", "GameOpened", "SettingsChanged"]


@dataclass(frozen=True, slots=True)
class GameOpened:
    """A new game begins with its first entry: the one it replaces ends as it stood, won by ``replaced_winner``
    (a side, None when nobody was ahead), and the new one's row gets ``settings`` (what the journal keeps of a
    game)."""

    settings: Mapping[str, Any]
    replaced_winner: int | str | None
    t: float


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The game's settings changed (its seats named, the menu's language, who is seat 1): its row gets
    ``settings``, so that resuming it keeps them."""

    settings: Mapping[str, Any]
    t: float


Effect = GameOpened | SettingsChanged
Committed = Entry | Effect  # what an event committed: the entries to write and the effects, in order
