"""The rules engines. ``find_game(name)`` picks a game class by its name in the config and on the command line."""

from companion.rules.base import Action, Game, IllegalPlay, Outcome, Pass, Pay, Play, Reason, SetupError
from companion.rules.seises import Seises
from companion.rules.sexto_set import SextoSet

GAMES: dict[str, type[Game]] = {Seises.name: Seises, SextoSet.name: SextoSet}


def find_game(name: str) -> type[Game]:
    try:
        return GAMES[name]
    except KeyError:
        raise SetupError(
            f"Unknown game {name!r}: choose {' or '.join(GAMES)}.",
            f"Juego desconocido {name!r}: elige {' o '.join(GAMES)}.",
        ) from None


__all__ = [
    "GAMES",
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
    "find_game",
]
