"""Where each game of the journal stands: its score and winner, from its entries replayed through the engine as
the table does on start. ``companion history`` prints it; the table's page serves it (``/api/history``)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.config import GameConfig
from companion.decks import DeckError
from companion.games import ending
from companion.i18n import Said
from companion.journal import GameRecord, Journal, JournalError
from companion.referee import Referee
from companion.rules import SetupError

__all__ = ["Standing", "standing"]


@dataclass(frozen=True, slots=True)
class Standing:
    score: Said | None  # in words, as the game's kind says it (None when damaged)
    winner: Said | None  # None while nobody has won (or when damaged)
    damage: str = ""  # why the game cannot be replayed; empty when it can


def standing(game: GameRecord, journal: Journal) -> Standing:
    """Where ``game`` stands; a game that cannot be replayed says why in ``damage``, never raises."""
    if game.damage:
        return Standing(None, None, game.damage)
    try:
        referee = Referee(GameConfig.from_settings(game.settings), {})
        referee.replay(journal.entries(game.id))
    except (JournalError, SetupError, DeckError, ValueError, IndexError) as exc:
        return Standing(None, None, str(exc))
    kind, played = referee.kind, referee.game
    end = ending(played, ended=game.outcome is not None)
    return Standing(kind.tally(played), None if end is None or end.winner is None else kind.verdict(played, end))
