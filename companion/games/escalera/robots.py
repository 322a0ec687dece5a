"""Escalera's robot players: each holds half the deck and lays its lowest card that climbs, or passes."""

from __future__ import annotations

import random

from companion.games.escalera.rules import Escalera
from companion.rules.base import Action, Pass, Play

__all__ = ["EscaleraRobots"]


class EscaleraRobots:
    """Two players holding half the deck each; each lays its lowest card that climbs, or passes."""

    def __init__(self, game: Escalera, rng: random.Random) -> None:
        self.game = game
        cards = [card.id for card in game.deck]
        rng.shuffle(cards)
        self.hands = [cards[0::2], cards[1::2]]

    def choose(self) -> tuple[Action, list[str] | None]:
        hand = self.hands[self.game.turn]
        climbing = sorted((card for card in hand if self.game.is_legal(Play(card))), key=self.game._rank)
        return (Play(climbing[0]), hand) if climbing else (Pass(), None)

    def played(self, action: Action, hand: list[str] | None) -> str | None:
        if hand is not None and isinstance(action, Play):
            hand.remove(action.card)
        return None

    def unplayed(self, action: Action, hand: list[str] | None, drawn: str | None) -> None:
        if hand is not None and isinstance(action, Play):
            hand.append(action.card)

    def over(self) -> bool:
        return self.game.outcome() is not None

    def hand(self) -> list[str]:
        return self.hands[self.game.turn]

    def turn(self) -> int:
        return self.game.turn

    def held(self, seat: int) -> list[list[str]]:
        return [self.hands[seat]]
