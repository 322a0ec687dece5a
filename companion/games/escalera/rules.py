"""The Escalera rules engine: two seats take turns laying a card of the Spanish deck, each of a higher rank than
the last one laid; a seat that cannot climb passes and loses, a seat that lays a king (12) wins."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any, ClassVar

from companion.decks import Deck
from companion.rules.base import Action, Game, Outcome, Pass, Play, Reason, add_sentences

__all__ = ["TOP", "Escalera", "EscaleraReason"]

TOP = 12  # a king wins at once


class EscaleraReason(StrEnum):
    NOT_HIGHER = "not_higher"


add_sentences({EscaleraReason.NOT_HIGHER: (("{name} is not above {top}"), ("Take it back; lay a higher one or pass"))})


class Escalera(Game):
    name: ClassVar[str] = "escalera"
    title: ClassVar[str] = "Escalera"
    turn_hint: ClassVar[str] = "Lay a higher card, or pass"

    def __init__(self, deck: Deck) -> None:
        super().__init__()
        self.deck = deck
        self.laid: list[str] = []
        self.turn = 0
        self.winner: int | None = None

    def _rank(self, card: str) -> int:
        rank = self.deck[card].rank
        assert rank is not None
        return rank

    def reason(self, action: Action) -> StrEnum | None:
        if self.winner is not None:
            return Reason.GAME_OVER
        if isinstance(action, Pass):
            return None
        if not isinstance(action, Play) or action.line is not None:
            return Reason.WRONG_ACTION
        if action.card not in self.deck:
            return Reason.UNKNOWN_CARD
        if action.card in self.laid:
            return Reason.ON_TABLE
        if self.laid and self._rank(action.card) <= self._rank(self.laid[-1]):
            return EscaleraReason.NOT_HIGHER
        return None

    def _details(self, action: Action, reason: StrEnum) -> dict[str, Any]:
        card = action.card if isinstance(action, Play) else ""
        if reason is Reason.UNKNOWN_CARD:
            return {"card": card, "deck": self.deck.name}
        name = self.deck[card].said() if card in self.deck else card
        return {"name": name, "top": self.deck[self.laid[-1]].said() if self.laid else "-"}

    def _apply(self, action: Action) -> Any:
        undo = (self.turn, self.winner)
        if isinstance(action, Pass):
            self.winner = 1 - self.turn
        else:
            assert isinstance(action, Play)
            self.laid.append(action.card)
            if self._rank(action.card) == TOP:
                self.winner = self.turn
        self.turn = 1 - self.turn
        return undo

    def _revert(self, undo: Any) -> None:
        if self.actions and isinstance(self.actions[-1], Play):
            self.laid.pop()
        self.turn, self.winner = undo

    def legal_actions(self) -> Iterator[Action]:
        for card in self.deck:
            if self.is_legal(Play(card.id)):
                yield Play(card.id)
        if self.winner is None:
            yield Pass()

    def outcome(self) -> Outcome | None:
        return None if self.winner is None else Outcome("climbed" if self.laid else "passed", self.winner + 1)

    def snapshot(self) -> dict[str, Any]:
        winner = None if self.winner is None else self.winner + 1
        return {"game": self.name, "laid": list(self.laid), "turn": self.turn + 1, "winner": winner}

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> Escalera:
        raise NotImplementedError("the toy game is never restored from a snapshot")
