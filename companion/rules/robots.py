"""Robot players: they deal real hands and choose actions, as people at the table would.

The engines never see hands; robots do. The demo, the benchmarks and the recorded games use them to play
complete games whose every action goes through an engine's ``push``. All randomness comes from the
``random.Random`` passed in, so a seed gives the same game every time. Every game's robots answer the same calls
(:class:`companion.games.Robots`): ``choose`` an action and the hand it comes from, then say it was ``played`` (or
``unplayed`` after an undo).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from companion.decks import Kind
from companion.rules.base import Action, Pass, Pay, Play
from companion.rules.seises import FIRST_CARD, Seises
from companion.rules.sexto_set import DEALT, PAIRS, SextoSet

__all__ = ["SeisesRobots", "SextoSetRobots"]


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
