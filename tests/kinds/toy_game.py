"""A toy third game, written as a newcomer adds one: a tiny rules engine and its kind, in this one module.

"Escalera": two seats take turns laying a card of the Spanish deck on one zone, each card of a higher rank than the
last one laid. A seat that cannot climb passes and loses; a seat that lays a king (12) wins. Registering
:data:`KIND` is all the table needs to play it (``tests/kinds/test_toy_game.py`` plays it through the referee,
the table and the screen).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from PIL import ImageDraw

from companion.decks import Deck
from companion.games import Ending, GameKind, Result, Voice, ending
from companion.i18n import Said
from companion.rules.base import Action, Game, Outcome, Pass, Play, Reason, add_sentences
from companion.ui.screens import WIDTH, header_footer, put
from companion.view import Language, Message, MessageKind, Scoreboard, TableView

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


@dataclass(frozen=True, slots=True)
class EscaleraView(Scoreboard):
    top: str  # the last card laid, named; "" before the first
    turn: int  # 0 or 1
    winner: int | None = None


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


class EscaleraKind(GameKind):
    name = Escalera.name
    caption = "Escalera"
    engine = Escalera
    decks = ("spanish-40",)
    options: ClassVar[Mapping[str, tuple[tuple[str, ...], str]]] = {}
    grammar = "play <card>, pass or undo"
    scoreboard = EscaleraView
    texts: ClassVar[Mapping[str, str]] = {
        "confirm_climb_pass": "Cannot climb? You lose",  # English, until a catalogue translates them
        "climbed": "Seat {seat} wins",
    }
    todo: ClassVar[Mapping[str, str]] = {"confirm_climb_pass": "confirm_do"}
    confirm_pass_key = "confirm_climb_pass"

    def player_counts(self, deck: Deck) -> tuple[int, ...]:
        return (2,)

    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> Game:
        self.check_options(options)
        return Escalera(deck)

    def default_zones(self) -> dict[str, str]:
        return {"z1": "table"}

    def zone_problem(self, role: str) -> Said | None:
        return None if role == "table" else Said('{role}: an Escalera zone is "table"', role=repr(role))

    def card_on_zone(self, game: Game, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
        return Play(card)

    def pass_action(self) -> Action:
        return Pass()

    def said(self, before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> tuple[Message | None, bool]:
        if after["winner"] is None or before["winner"] is not None:
            return None, False
        title = voice.text("climbed", seat=after["winner"])
        return Message(MessageKind.END_OF_GAME, title, voice.text("new_game_do")), False

    def notes(self, before: Mapping[str, Any], after: Mapping[str, Any], lang: str) -> Iterable[str]:
        if after["winner"] is not None and before["winner"] is None:
            yield f"seat {after['winner']} wins" if lang == "en" else f"gana el asiento {after['winner']}"

    def who(self, turn: int | str | None, lang: str) -> str:
        return f"{'seat' if lang == 'en' else 'asiento'} {turn}"

    def whose_turn(self, game: Game, voice: Voice) -> str:
        assert isinstance(game, Escalera)
        return voice.seat_name(game.turn)

    def view(self, game: Game, voice: Voice) -> EscaleraView:
        assert isinstance(game, Escalera)
        top = voice.card_name(game.laid[-1]) if game.laid else ""
        return EscaleraView(top=top, turn=game.turn, winner=game.winner)

    def draw(self, draw: ImageDraw.ImageDraw, view: Any, *, language: str = "es", message: str = "") -> None:
        assert isinstance(view, EscaleraView)
        whose = f"{'Turn' if language == 'en' else 'Turno'}: {view.turn + 1}"
        header_footer(draw, (self.title(language), whose), (message, ""))
        put(draw, (0, 24), view.top or "-", "bold", WIDTH, align="center")

    def tally(self, game: Game) -> Said:
        assert isinstance(game, Escalera)
        return Said("{laid} cards laid", laid=len(game.laid))

    def verdict(self, game: Game, end: Ending, voice: Voice | None = None) -> Said:
        return Said("seat {seat}", seat=end.winner)

    def results(self, game: Game, finished: bool) -> list[Result]:
        assert isinstance(game, Escalera)
        end = ending(game, ended=finished)
        return [Result(seat + 1, len(game.laid), 0, end is not None and end.winner == seat + 1) for seat in (0, 1)]

    def standings(self, game: Game, voice: Voice) -> tuple[list[str], list[list[str]]]:
        assert isinstance(game, Escalera)
        return ["Seat", "Won"], [[voice.seat_name(seat), str(int(game.winner == seat))] for seat in (0, 1)]

    def robots(self, game: Game, rng: random.Random) -> EscaleraRobots:
        assert isinstance(game, Escalera)
        return EscaleraRobots(game, rng)

    def examples(self, language: Language) -> dict[str, TableView]:
        return {}


KIND = EscaleraKind()
