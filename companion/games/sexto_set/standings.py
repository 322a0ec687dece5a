"""6º SET's final standings as the demo prints them: sets won, then master cards, the rule that names the match's
winner."""

from __future__ import annotations

from companion.games.kind import Voice
from companion.games.sexto_set.rules import PAIRS, SextoSet

__all__ = ["standings"]


def standings(game: SextoSet, voice: Voice) -> tuple[list[str], list[list[str]]]:
    """The head and the rows, a pair a row, whoever comes first by the rule first."""
    head = [voice.text("pair_head"), voice.text("sets_head"), voice.text("masters_head")]
    rows = [[pair, str(game.sets_won[pair]), str(game.match_masters[pair])] for pair in PAIRS]
    rows.sort(key=lambda row: (-int(row[1]), -int(row[2])))
    return head, rows
