"""Robot Seises players: they deal real hands and choose actions, as people at the table would.

The engine never sees hands; robots do. The demo, the benchmarks and the recorded games use them to play complete
games whose every action goes through the engine's ``push``. All randomness comes from the ``random.Random``
passed in, so a seed gives the same game every time. They answer the calls every game's robots answer
(:class:`companion.games.Robots`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from companion.games.seises.rules import FIRST_CARD, Pay, Seises
from companion.rules import Action, Play

__all__ = ["SeisesRobots"]


@dataclass
class SeisesRobots:
    """Seises players around ``game``: hands dealt in seat order, seat 1 holding the 6 of oros.

    ``renege`` is the chance that a seat pays although it holds a legal card (to exercise the renuncio check).
    """

    game: Seises
    rng: random.Random
    renege: float = 0.0
    hands: list[list[str]] = field(default_factory=list)
    _dealt_hand: int = 0

    def deal(self) -> None:
        cards = [card.id for card in self.game.deck]
        self.rng.shuffle(cards)
        size = self.game.hand_size
        self.hands = [cards[i * size : (i + 1) * size] for i in range(self.game.players)]
        if self.game.hand == 1:
            holder = next(i for i, hand in enumerate(self.hands) if FIRST_CARD in hand)
            self.hands = self.hands[holder:] + self.hands[:holder]  # seat 1 is whoever holds the 6 of oros
        self._dealt_hand = self.game.hand

    def choose(self) -> tuple[Action, list[str] | None]:
        """The action of the seat whose turn it is and its hand (dealing first when a new hand has begun)."""
        game = self.game
        if self._dealt_hand != game.hand:
            self.deal()
        seat = game.turn
        assert seat is not None
        hand = self.hands[seat]
        playable = [card for card in game.legal_cards() if card in hand]
        if playable and not (self.renege and game.is_legal(Pay()) and self.rng.random() < self.renege):
            return Play(self.rng.choice(playable)), hand
        return Pay(), None

    def step(self) -> Action:
        """Choose, push, and update the hand that played."""
        action, hand = self.choose()
        self.game.push(action)
        self.played(action, hand)
        return action

    def played(self, action: Action, hand: list[str] | None) -> str | None:
        """``action`` from ``hand`` was pushed: its card leaves the hand (unless that play ended the hand, and
        the next deal replaces it). Nobody draws in Seises."""
        if hand is not None and isinstance(action, Play) and self._dealt_hand == self.game.hand:
            hand.remove(action.card)
        return None

    def unplayed(self, action: Action, hand: list[str] | None, drawn: str | None = None) -> None:
        """``action`` was taken back: its card returns to ``hand``."""
        if hand is not None and isinstance(action, Play):
            hand.append(action.card)

    def over(self) -> bool:
        return self.game.outcome() is not None

    def hand(self) -> list[str]:
        if self._dealt_hand != self.game.hand:
            self.deal()
        return self.hands[self.game.turn or 0]

    def turn(self) -> int:
        return self.game.turn or 0

    def held(self, seat: int) -> list[list[str]]:
        if self._dealt_hand != self.game.hand:
            self.deal()
        return [self.hands[seat]]
