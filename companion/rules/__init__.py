"""The rules engines: one per game, pure (actions in, legality and state out). A game kind
(:mod:`companion.games`) glues each one to the table and registers it by name."""

from companion.rules.base import Action, Game, IllegalPlay, Outcome, Pass, Pay, Play, Reason, SetupError
from companion.rules.seises import Seises
from companion.rules.sexto_set import SextoSet

__all__ = [
    "Action",
    "Game",
    "IllegalPlay",
    "Outcome",
    "Pass",
    "Pay",
    "Play",
    "Reason",
    "Seises",
    "SetupError",
    "SextoSet",
]
