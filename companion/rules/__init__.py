"""What every game's rules engine is (:class:`Game`, pure: actions in, legality and state out) and the actions and
refusals they share. Each engine lives in its game's package (``companion/games/<game>/rules.py``), whose kind
(:mod:`companion.games`) glues it to the table."""

from companion.rules.base import Action, Game, IllegalPlay, Outcome, Pass, Play, Reason, SetupError

__all__ = [
    "Action",
    "Game",
    "IllegalPlay",
    "Outcome",
    "Pass",
    "Play",
    "Reason",
    "SetupError",
]
