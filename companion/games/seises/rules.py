"""Seises: rows built up and down from the sixes, a chip pot, games to 50 points.

The companion cannot see hands: it knows how many cards each seat holds and what is on the table. Seats are
numbered 1..N in playing order; seat 1 is whoever plays the 6 of oros in the first hand. A hand ends the moment a
seat lays its last card; that seat takes the pot and leads (is "mano" of) the next hand. Attributes count seats
from 0 (``turn``, ``mano``, list indexes); ``snapshot()`` and ``outcome()`` count from 1, as players do::

    >>> game = Seises(players=4)
    >>> game.push(Play("6O")); game.push(Play("7O")); game.push(Pay())
    >>> game.pot, game.reserve, game.snapshot()["turn"]
    (1, 49, 4)
    >>> game.is_legal(Play("9O"))
    False
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from companion.decks import SUITS, Card, Deck, Kind, load_deck
from companion.i18n import N_, Said
from companion.rules.base import (
    Action,
    Game,
    Outcome,
    Play,
    Reason,
    SetupError,
    add_sentences,
    check_options,
    either,
    register_action,
)

__all__ = ["CHIPS", "DECKS", "GOAL", "OPTIONS", "Pay", "Seises", "SeisesReason", "fitting"]

CHIPS = 50  # the reserve holds 50 chips at the start of every hand (§3)
GOAL = 50  # the game is won at 50 points or more (§1, §5)
FIRST_CARD = "6O"  # the first hand opens with the 6 of oros (§4)

DECKS = ("spanish-40", "spanish-48")  # the built-in decks it is played with; the first is its default
RECOMMENDED_PLAYERS = (4, 8)  # "Lo ideal es que intervengan de cuatro a ocho jugadores" (§2)

# option -> (allowed values, default); see docs/RULES.md
OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    # a renuncio is flagged, or costs the reneging seat renege_points points (a penalty chip would only feed
    # the pot that the offender may take)
    "renege_penalty": (("flag", "points"), "flag"),
    "renege_points": (tuple(str(points) for points in range(1, 51)), "5"),
    "reserve_exhausted": (("cap", "unlimited"), "cap"),
}


@register_action
@dataclass(frozen=True, slots=True)
class Pay(Action):
    """The seat whose turn it is cannot play and pays one chip (a "prenda") into the pot (§4)."""

    verb: ClassVar[str] = "pay"
    deed: ClassVar[str] = N_("pays one chip")
    taken_back: ClassVar[str] = N_("the chip paid")


class SeisesReason(StrEnum):
    """Why Seises refuses a play, beyond the reasons of every game."""

    FIRST_PLAY_SIX_OF_OROS = "first_play_six_of_oros"
    FIRST_PLAY_NO_PAY = "first_play_no_pay"
    HAND_OPENS_WITH_SIX = "hand_opens_with_six"
    SUIT_NOT_STARTED = "suit_not_started"
    NOT_NEXT_IN_ROW = "not_next_in_row"
    HOLDS_A_PLAYABLE_CARD = "holds_a_playable_card"  # a pay the cards off the table prove false


add_sentences(
    {
        SeisesReason.FIRST_PLAY_SIX_OF_OROS: (
            N_("Opens with the 6 of coins"),
            N_("Take back the {name}; play the 6 of coins"),
        ),
        SeisesReason.FIRST_PLAY_NO_PAY: (N_("No paying yet"), N_("Whoever holds the 6 of coins plays it")),
        SeisesReason.HAND_OPENS_WITH_SIX: (
            N_("A hand opens with a six"),
            N_("Take back the {name}; play a six or pay"),
        ),
        SeisesReason.SUIT_NOT_STARTED: (
            N_("No row of {suit} yet"),
            N_("Take back the {name}; the 6 of {suit} starts it"),
        ),
        SeisesReason.NOT_NEXT_IN_ROW: (N_("{name} does not follow {row}"), N_("Take it back; {needed} fits, or pay")),
        SeisesReason.HOLDS_A_PLAYABLE_CARD: (
            N_("You can play a card"),
            N_("Cards off the table that cannot be played: {idle}; you hold {held}"),
        ),
    }
)


def fitting(cards: Sequence[Card]) -> Said:
    """The cards that would fit a row (one or two: beside its low end, its high end), as players say them: the
    ranks, then the suit once (``5 o caballo de espadas``, ``5 or knight of swords``)."""
    *below, last = cards
    if not below:
        return last.said()
    return Said(N_("{choices} or {last}"), choices=below[0].said_rank(), last=last.said())


class _Payment:
    """A chip paid by ``seat``: the claim that none of the cards in ``legal`` was in its hand."""

    __slots__ = ("legal", "proven", "seat")

    def __init__(self, seat: int, legal: frozenset[str], proven: bool = False) -> None:
        self.seat = seat
        self.legal = legal
        self.proven = proven


class Seises(Game):
    name: ClassVar[str] = "seises"
    title: ClassVar[str] = "Seises"
    turn_hint: ClassVar[str] = N_("Play a card or pay one chip")

    def __init__(self, players: int = 4, deck: Deck | str = DECKS[0], options: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.deck = load_deck(deck) if isinstance(deck, str) else deck
        self.options = check_options("Seises", OPTIONS, options or {})
        self._ranks = _rank_order(self.deck)
        self._six = self._ranks.index(6)
        # card id -> (suit, position of its rank in the row order); (suit, position) -> card id
        self._cards: dict[str, tuple[str, int]] = {}
        self._ids: dict[tuple[str, int], str] = {}
        for card in self.deck:
            assert card.suit is not None and card.rank is not None
            key = (card.suit, self._ranks.index(card.rank))
            self._cards[card.id] = key
            self._ids[key] = card.id
        works = player_counts(self.deck)
        if players not in works:
            low, high = RECOMMENDED_PLAYERS
            said = N_(
                "Seises with the {deck} deck ({cards} cards) is played by {counts} players, so that every hand "
                "gets the same number of cards (the rule sheet recommends {low} to {high}); not by {players}."
            )
            raise SetupError(
                Said(
                    said,
                    deck=self.deck.name,
                    cards=len(self.deck),
                    counts=either(works),
                    low=low,
                    high=high,
                    players=players,
                )
            )
        self.players = players
        self.hand_size = len(self.deck) // players
        self.scores = [0] * players
        self.hand = 1
        self.mano = 0  # seats are 0-based inside, 1-based outside
        self.winner: int | None = None
        self.reneges: list[dict[str, Any]] = []  # over the whole game
        self._new_hand(mano=0)

    def _new_hand(self, mano: int) -> None:
        self.mano = mano
        self.turn: int | None = mano
        self.pot = 0
        self.reserve = CHIPS
        self.owed = [0] * self.players
        self.hand_sizes = [self.hand_size] * self.players
        self.rows: dict[str, tuple[int, int] | None] = dict.fromkeys(SUITS)
        self.payments: list[_Payment] = []  # this hand's, for the renege check

    # ---- legality -------------------------------------------------------------------------------------

    def reason(self, action: Action) -> StrEnum | None:
        if self.winner is not None:
            return Reason.GAME_OVER
        if type(action) is Play:
            return self._card_reason(action) if action.line is None else Reason.WRONG_ACTION
        if type(action) is Pay:
            if self.hand == 1 and self.rows["O"] is None:
                return SeisesReason.FIRST_PLAY_NO_PAY
            if self._idle_cards() < self.hand_sizes[self.turn or 0]:
                return SeisesReason.HOLDS_A_PLAYABLE_CARD
            return None
        return Reason.WRONG_ACTION

    def _idle_cards(self) -> int:
        """How many cards in hands cannot be played now: every card is dealt, so the cards in hands are
        exactly those not on the table, and the legal ones are all among them."""
        return sum(self.hand_sizes) - len(self.legal_cards())

    def _card_reason(self, action: Play) -> StrEnum | None:
        key = self._cards.get(action.card)
        if key is None:
            return Reason.UNKNOWN_CARD
        suit, position = key
        rows = self.rows
        if self.hand == 1 and rows["O"] is None and action.card != FIRST_CARD:
            return SeisesReason.FIRST_PLAY_SIX_OF_OROS
        row = rows[suit]
        if row is None:
            if position == self._six:
                return None
            if not any(rows.values()):
                return SeisesReason.HAND_OPENS_WITH_SIX
            return SeisesReason.SUIT_NOT_STARTED
        low, high = row
        if position == high + 1 or position == low - 1:
            return None
        if low <= position <= high:
            return Reason.ON_TABLE
        return SeisesReason.NOT_NEXT_IN_ROW

    def _details(self, action: Action, reason: StrEnum) -> dict[str, Any]:
        if not isinstance(action, Play):
            if reason is SeisesReason.HOLDS_A_PLAYABLE_CARD:
                return {"held": self.hand_sizes[self.turn or 0], "idle": self._idle_cards()}
            return {}
        card = self.deck.get(action.card)
        if card is None or card.suit is None:
            return {"card": action.card, "deck": self.deck.name}
        suit = card.suit
        details: dict[str, Any] = {"name": card.said(), "suit": Said(SUITS[suit])}
        row = self.rows[suit]
        if row is not None:
            low, high = row
            details["row"] = str(self._ranks[low]) if low == high else f"{self._ranks[low]}-{self._ranks[high]}"
            if reason is SeisesReason.NOT_NEXT_IN_ROW:  # the card is off the row's ends: the row has an end to grow
                details["needed"] = fitting(
                    [self.deck[self._ids[suit, p]] for p in (low - 1, high + 1) if (suit, p) in self._ids]
                )
        return details

    def legal_cards(self) -> list[str]:
        """The cards that could be played now (whoever holds them), in suit order."""
        if self.winner is not None:
            return []
        if self.hand == 1 and self.rows["O"] is None:
            return [FIRST_CARD]
        ids = self._ids
        cards = []
        for suit, row in self.rows.items():
            if row is None:
                cards.append(ids[suit, self._six])
            else:
                low, high = row
                below = ids.get((suit, low - 1))
                if below is not None:
                    cards.append(below)
                above = ids.get((suit, high + 1))
                if above is not None:
                    cards.append(above)
        return cards

    def legal_actions(self) -> Iterator[Action]:
        for card in self.legal_cards():
            yield Play(card)
        if self.is_legal(Pay()):
            yield Pay()

    # ---- applying and taking back ---------------------------------------------------------------------

    def _apply(self, action: Action) -> Any:
        seat = self.turn
        assert seat is not None
        if type(action) is Pay:
            self.payments.append(_Payment(seat, frozenset(self.legal_cards())))
            chip = self._pay_chip(seat)
            self.turn = (seat + 1) % self.players
            return ("pay", seat, chip)
        assert type(action) is Play
        if self.hand_sizes[seat] == 1:
            before = self.snapshot()  # the hand ends: everything changes
            self._play(seat, action.card)
            self._check_renege(seat, action.card)  # a penalty comes off before the pot is scored
            self._end_hand(seat)
            return ("hand", before)
        row_before = self._play(seat, action.card)
        renege = self._check_renege(seat, action.card)
        self.turn = (seat + 1) % self.players
        return ("play", seat, action.card, row_before, renege)

    def _play(self, seat: int, card: str) -> tuple[int, int] | None:
        suit, position = self._cards[card]
        row = self.rows[suit]
        self.rows[suit] = (position, position) if row is None else (min(row[0], position), max(row[1], position))
        self.hand_sizes[seat] -= 1
        return row

    def _pay_chip(self, seat: int) -> str:
        """One chip from ``seat`` into the pot; ``"owed"`` when the reserve is empty and the pot is capped."""
        if self.reserve > 0:
            self.reserve -= 1
            self.pot += 1
            return "pot"
        if self.options["reserve_exhausted"] == "unlimited":
            self.pot += 1
            return "extra"
        self.owed[seat] += 1
        return "owed"

    def _check_renege(self, seat: int, card: str) -> tuple[int, int] | None:
        """A card that was legal when ``seat`` paid proves that payment false (the first one it proves).

        Returns the payment's index and the points the penalty took, for undo.
        """
        for index, payment in enumerate(self.payments):
            if payment.seat == seat and not payment.proven and card in payment.legal:
                payment.proven = True
                lost = 0
                if self.options["renege_penalty"] == "points":
                    lost = min(int(self.options["renege_points"]), self.scores[seat])  # never below 0
                    self.scores[seat] -= lost
                self.reneges.append({"seat": seat + 1, "card": card, "hand": self.hand, "points": lost})
                return (index, lost)
        return None

    def _end_hand(self, seat: int) -> None:
        self.scores[seat] += self.pot
        if self.scores[seat] >= GOAL:
            self.winner = seat
            self.turn = None
            self.pot, self.reserve = 0, CHIPS
            return
        self.hand += 1
        self._new_hand(mano=seat)

    def _revert(self, undo: Any) -> None:
        kind = undo[0]
        if kind == "hand":
            self._restore(undo[1])
            return
        seat = undo[1]
        self.turn = seat
        if kind == "pay":
            self.payments.pop()
            self._unpay_chip(seat, undo[2])
            return
        _, _, card, row_before, renege = undo
        if renege is not None:
            index, lost = renege
            self.payments[index].proven = False
            self.reneges.pop()
            self.scores[seat] += lost
        self.rows[self._cards[card][0]] = row_before
        self.hand_sizes[seat] += 1

    def _unpay_chip(self, seat: int, chip: str) -> None:
        if chip == "pot":
            self.reserve += 1
            self.pot -= 1
        elif chip == "extra":
            self.pot -= 1
        else:
            self.owed[seat] -= 1

    # ---- outcome and snapshot -------------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        if self.winner is None:
            return None
        return Outcome("goal", self.winner + 1)

    def snapshot(self) -> dict[str, Any]:
        ranks = self._ranks
        return {
            "game": self.name,
            "deck": self.deck.source,
            "options": dict(self.options),
            "players": self.players,
            "hand": self.hand,
            "mano": self.mano + 1,
            "turn": None if self.turn is None else self.turn + 1,
            "pot": self.pot,
            "reserve": self.reserve,
            "owed": list(self.owed),
            "scores": list(self.scores),
            "hand_sizes": list(self.hand_sizes),
            "rows": {s: None if r is None else [ranks[r[0]], ranks[r[1]]] for s, r in self.rows.items()},
            "payments": [{"seat": p.seat + 1, "legal": sorted(p.legal), "proven": p.proven} for p in self.payments],
            "reneges": [dict(r) for r in self.reneges],
            "winner": None if self.winner is None else self.winner + 1,
        }

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> Seises:
        game = cls(players=data["players"], deck=data["deck"], options=data["options"])
        game._restore(data)
        return game

    def _restore(self, data: Mapping[str, Any]) -> None:
        position = self._ranks.index
        self.hand = data["hand"]
        self.mano = data["mano"] - 1
        self.turn = None if data["turn"] is None else data["turn"] - 1
        self.pot = data["pot"]
        self.reserve = data["reserve"]
        self.owed = list(data["owed"])
        self.scores = list(data["scores"])
        self.hand_sizes = list(data["hand_sizes"])
        self.rows = {s: None if r is None else (position(r[0]), position(r[1])) for s, r in data["rows"].items()}
        self.payments = [_Payment(p["seat"] - 1, frozenset(p["legal"]), p["proven"]) for p in data["payments"]]
        self.reneges = [dict(r) for r in data["reneges"]]
        self.winner = None if data["winner"] is None else data["winner"] - 1


def player_counts(deck: Deck) -> list[int]:
    """The numbers of players (2 to 8; the sheet recommends 4 to 8, §2) among whom the whole deck deals evenly."""
    return [n for n in range(2, 9) if len(deck) % n == 0]


def _rank_order(deck: Deck) -> list[int]:
    """The ranks in "orden correlativo": the deck's ranks in order, so 7 and 10 are neighbours in 40 cards."""
    if any(card.kind is not Kind.SPANISH for card in deck):
        raise SetupError(
            Said(N_("Seises is played with a Spanish deck; {deck} has cards of another kind."), deck=deck.name)
        )
    by_suit: dict[str, set[int]] = {suit: set() for suit in SUITS}
    for card in deck:
        assert card.suit is not None and card.rank is not None
        by_suit[card.suit].add(card.rank)
    ranks = by_suit["O"]
    if any(r != ranks for r in by_suit.values()) or 6 not in ranks:
        said = N_("Seises needs every suit of the {deck} deck to have the same ranks, the six among them.")
        raise SetupError(Said(said, deck=deck.name))
    return sorted(ranks)
