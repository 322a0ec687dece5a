"""Escalera: a toy third game, written as a newcomer adds one, and the proof that a game is one folder.

Two seats take turns laying a card of the Spanish deck on one zone, each of a higher rank than the last one laid
(:mod:`.rules`); its robots (:mod:`.robots`) and its screen (:mod:`.screen`) sit beside this kind. It is not among
the built-in games, so no table offers it: registering :data:`KIND` is all the table needs to play it
(``tests/kinds/test_toy_game.py`` plays it through the referee, the table, the screen, the demo and ``companion
play``), and listing it as the built-in ones are listed (pyproject.toml's entry points) is the one line that would
make it one. Its words are English only, as a game is before a catalogue translates it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.decks import Deck
from companion.games.escalera.robots import EscaleraRobots
from companion.games.escalera.rules import Escalera
from companion.games.kind import Ending, GameKind, Result, Voice, ending
from companion.i18n import Said
from companion.rules.base import Action, Pass, Play
from companion.view import Message, MessageKind, Scoreboard

__all__ = ["KIND", "EscaleraKind", "EscaleraView"]


@dataclass(frozen=True, slots=True)
class EscaleraView(Scoreboard):
    top: str  # the last card laid, named; "" before the first
    turn: int  # 0 or 1
    winner: int | None = None


class EscaleraKind(GameKind[Escalera, EscaleraView]):
    name = Escalera.name
    caption = "Escalera"
    decks = ("spanish-40",)
    options: ClassVar[Mapping[str, tuple[tuple[str, ...], str]]] = {}
    grammar = "play <card>, pass or undo"
    texts: ClassVar[Mapping[str, str]] = {
        "confirm_climb_pass": "Cannot climb? You lose",  # English, until a catalogue translates them
        "climbed": "Seat {seat} wins",
    }
    todo: ClassVar[Mapping[str, str]] = {"confirm_climb_pass": "confirm_do"}
    confirm_pass_key = "confirm_climb_pass"

    def player_counts(self, deck: Deck) -> tuple[int, ...]:
        return (2,)

    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> Escalera:
        self.check_options(options)
        return Escalera(deck)

    def default_zones(self) -> dict[str, str]:
        return {"z1": "table"}

    def zone_problem(self, role: str) -> Said | None:
        return None if role == "table" else Said('{role}: an Escalera zone is "table"', role=repr(role))

    def card_on_zone(self, game: Escalera, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
        return Play(card)

    def pass_action(self) -> Action:
        return Pass()

    def said(self, before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> tuple[Message | None, bool]:
        if after["winner"] is None or before["winner"] is not None:
            return None, False
        title = voice.text("climbed", seat=after["winner"])
        return Message(MessageKind.END_OF_GAME, title, voice.text("new_game_do")), False

    def who(self, turn: int | str | None, lang: str) -> str:
        return f"{'seat' if lang == 'en' else 'asiento'} {turn}"

    def whose_turn(self, game: Escalera, voice: Voice) -> str:
        return voice.seat_name(game.turn)

    def view(self, game: Escalera, voice: Voice) -> EscaleraView:
        top = voice.card_name(game.laid[-1]) if game.laid else ""
        return EscaleraView(top=top, turn=game.turn, winner=game.winner)

    def tally(self, game: Escalera) -> Said:
        return Said("{laid} cards laid", laid=len(game.laid))

    def verdict(self, game: Escalera, end: Ending, voice: Voice | None = None) -> Said:
        return Said("seat {seat}", seat=end.winner)

    def results(self, game: Escalera, finished: bool) -> list[Result]:
        end = ending(game, ended=finished)
        return [Result(seat + 1, len(game.laid), 0, end is not None and end.winner == seat + 1) for seat in (0, 1)]

    def robots(self, game: Escalera, rng: random.Random) -> EscaleraRobots:
        return EscaleraRobots(game, rng)


KIND = EscaleraKind()
