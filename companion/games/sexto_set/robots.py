"""Robot 6º SET players: four of them in two pairs, dealt real hands, choosing where to place as people at the
table would. All randomness comes from the ``random.Random`` passed in (:class:`companion.games.Robots`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from companion.decks import Kind
from companion.games.sexto_set.rules import DEALT, PAIRS, SextoSet
from companion.rules.base import Action, Pass, Play

__all__ = ["SextoSetRobots"]


@dataclass
class SextoSetRobots:
    """Four players, A1 B1 A2 B2, four cards each, the rest a draw pile; 5 random empty cards set aside."""

    game: SextoSet
    rng: random.Random
    hands: dict[str, list[list[str]]] = field(default_factory=dict)  # pair -> the two partners' hands
    pile: list[str] = field(default_factory=list)
    _dealt_set: int = 0

    def deal(self) -> None:
        deck = self.game.deck
        empties = [card.id for card in deck.of_kind(Kind.EMPTY)]
        self.rng.shuffle(empties)
        cards = [card.id for card in deck.of_kind(Kind.NORMAL)] + empties[: self.game.empty_allowance]
        self.rng.shuffle(cards)
        deal = [cards[i * 4 : (i + 1) * 4] for i in range(4)]
        self.hands = {"A": [deal[0], deal[2]], "B": [deal[1], deal[3]]}
        self.pile = cards[DEALT:]
        self._dealt_set = self.game.set_number if self.game.result is None else self.game.set_number + 1

    def choose(self) -> tuple[Action, list[str] | None]:
        """The action of the pair whose turn it is, and the hand it comes from (either partner may place)."""
        game = self.game
        pair = PAIRS[self.turn()]
        self._deal_if_new()
        options = [(card, line, hand) for hand in self.hands[pair] for card, line in game.placements(hand)]
        if not options:
            return Pass(), None
        card, line, hand = self.rng.choice(options)
        return Play(card, line), hand

    def step(self) -> Action:
        """Choose, push, and update the hand that played (and drew)."""
        action, hand = self.choose()
        self.game.push(action)
        self.played(action, hand)
        return action

    def played(self, action: Action, hand: list[str] | None) -> str | None:
        """``action`` from ``hand`` was pushed: the card leaves the hand and the player draws while the pile lasts.

        Returns the card drawn, if any.
        """
        if hand is None or not isinstance(action, Play):
            return None
        hand.remove(action.card)
        if not self.pile:
            return None
        drawn = self.pile.pop()
        hand.append(drawn)
        return drawn

    def unplayed(self, action: Action, hand: list[str] | None, drawn: str | None = None) -> None:
        """``action`` was taken back: its card returns to ``hand`` and the card drawn to the pile."""
        if hand is None or not isinstance(action, Play):
            return
        if drawn is not None:
            hand.remove(drawn)
            self.pile.append(drawn)
        hand.append(action.card)

    def over(self) -> bool:
        """The match is over: its last set (option ``match_sets``) has ended."""
        return self.game.outcome() is not None

    def hand(self) -> list[str]:
        pair = self.game.turn or "A"
        return self.hands[pair][0] if self.hands else []

    def turn(self) -> int:
        """The pair that plays now, or leads the next set once this one is over."""
        game = self.game
        return PAIRS.index(game.turn if game.result is None and game.turn is not None else PAIRS[game.set_number % 2])

    def held(self, seat: int) -> list[list[str]]:
        self._deal_if_new()
        return self.hands[PAIRS[seat]]

    def _deal_if_new(self) -> None:
        if self._dealt_set != (self.game.set_number if self.game.result is None else self.game.set_number + 1):
            self.deal()
