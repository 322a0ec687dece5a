"""6º SET a dobles: two pairs link cards on the 8 lines headed by the master cards.

Pairs ``"A"`` and ``"B"`` take turns, A first. A placement puts a card at the end of one line; it must link with
the line's open end: same dots and colour, blank to blank, and an empty card links both ways. A card may be
laid either way round, so a line keeps every end that could be open until a later card settles it::

    >>> game = SextoSet()
    >>> game.push(Play("N01", line="M1R"))     # 1R|2R on master card 1 red: 2R is open
    >>> sorted(game.open_ends["M1R"]), game.turn
    (['2R'], 'B')
    >>> game.is_legal(Play("N14", line="M1R"))  # 2R|2R links, but B's first card goes on a bare master card
    False
    >>> game.push(Play("N07", line="M1B"))     # 1B|2B on master card 1 black
    >>> game.is_legal(Play("N14", line="M1R"))  # A's second card: 2R|2R links
    True

When the set ends, each master card goes to the pair with more cards on its line (then more points; else
nobody), and the pair with more master cards wins the set. A pair that cannot link passes and loses the set; a
pass that the unplaced cards prove false is refused. Once a set has ended, ``turn`` is the pair that leads the
next one: the first card placed starts that set. Master cards won are also counted over the match, in a set lost
by a pass too.

The match is ``match_sets`` sets (3 by default): once the last has ended, :meth:`~SextoSet.outcome` names the
match's winner (more sets, then more master cards, else a draw) and every action is refused (``game_over``).
The outcome is read from the state, so taking back the last set's end takes the match's end back with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from enum import StrEnum
from typing import Any, ClassVar

from companion.decks import Card, Deck, Kind, load_deck, said_end
from companion.i18n import N_, Plural, Said
from companion.rules.base import (
    Action,
    Game,
    Outcome,
    Pass,
    Play,
    Reason,
    SetupError,
    add_sentences,
    check_options,
)

__all__ = ["ANY", "DEALT", "DECK", "OPTIONS", "PAIRS", "REMOVED_EMPTIES", "OpenEnds", "SextoSet", "SextoSetReason"]

DECK = "squadratik"  # its built-in deck (a user's copy may differ: see docs/RULES.md)
PAIRS = ("A", "B")
DEALT = 16  # 4 players, 4 cards each (§4)
REMOVED_EMPTIES = 5  # with the central card, 5 empty cards leave the game ("Cartas que se eliminan")
ANY = "*"  # the open end of an empty card: anything links to it (§9)
_ANY_ONLY = frozenset((ANY,))
_OTHER = {"A": "B", "B": "A"}

# option -> (allowed values, default); see docs/RULES.md
OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    # §6: in its first turn of a set, a pair lays its card on a master card, not on the other pair's card.
    "first_turn_on_master": (("true", "false"), "true"),
    # the sheet describes one set: a match is this many sets (GAMES.md, "The match")
    "match_sets": (tuple(str(n) for n in range(1, 16)), "3"),
}


class SextoSetReason(StrEnum):
    """Why 6º SET refuses a play, beyond the reasons of every game."""

    SET_OVER = "set_over"
    UNKNOWN_LINE = "unknown_line"
    MASTER_CARD = "master_card"
    CENTRAL_CARD = "central_card"
    NO_EMPTY_LEFT = "no_empty_left"
    NO_LINK = "no_link"
    FIRST_ON_MASTER = "first_on_master"
    HOLDS_A_LINKING_CARD = "holds_a_linking_card"  # a pass the unplaced cards prove false


add_sentences(
    {
        SextoSetReason.SET_OVER: (N_("Set over"), N_("Pick up the cards: the next one starts a set")),
        SextoSetReason.UNKNOWN_LINE: (N_("No line {line}"), N_("Use one of the 8 lines")),
        SextoSetReason.MASTER_CARD: (N_("{name}: not played"), N_("It heads its line; take it back")),
        SextoSetReason.CENTRAL_CARD: (N_("The central card is not played"), N_("Take it back")),
        SextoSetReason.NO_EMPTY_LEFT: (
            Plural("{allowed} empty card played", "{allowed} empty cards played", "allowed"),
            N_("No more in this set; take it back"),
        ),
        SextoSetReason.NO_LINK: (
            N_("{name} does not link with {open}"),
            N_("Another card or line: passing loses the set"),
        ),
        SextoSetReason.FIRST_ON_MASTER: (N_("First turn: on a master"), N_("Put the {name} on a line with no cards")),
        SextoSetReason.HOLDS_A_LINKING_CARD: (
            N_("You can link a card"),
            N_("Unplaced cards that cannot link: {idle}; you hold {held}"),
        ),
    }
)


class SextoSet(Game):
    name: ClassVar[str] = "sexto-set"
    title: ClassVar[str] = "6º SET"
    turn_hint: ClassVar[str] = N_("Place a card, or pass if you cannot link")

    def __init__(self, deck: Deck | str = DECK, options: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.options = check_options("6º SET", OPTIONS, options or {})
        self._first_on_master = self.options["first_turn_on_master"] == "true"
        self.match_sets = int(self.options["match_sets"])
        self.deck = load_deck(deck) if isinstance(deck, str) else deck
        self.masters: tuple[str, ...] = tuple(c.id for c in self.deck.of_kind(Kind.MASTER))
        if len(self.masters) != 8:
            said = N_("6º SET needs 8 master cards; the {deck} deck has {count}.")
            raise SetupError(Said(said, deck=self.deck.name, count=len(self.masters)))
        self._master_end = {m: frozenset((self.deck[m].master_end,)) for m in self.masters}
        # card id -> (kind, first end, second end): what placements() needs, without attribute look-ups
        self._shapes = {c.id: (c.kind, *(c.ends or ("", ""))) for c in self.deck}
        empties = len(self.deck.of_kind(Kind.EMPTY))
        self.empty_allowance = max(0, empties - REMOVED_EMPTIES)
        self.in_play = len(self.deck.of_kind(Kind.NORMAL)) + self.empty_allowance
        if self.in_play < DEALT:
            said = N_("6º SET deals {dealt} cards; the {deck} deck has {count} in play.")
            raise SetupError(Said(said, dealt=DEALT, deck=self.deck.name, count=self.in_play))
        self.sets_won = dict.fromkeys(PAIRS, 0)
        self.match_masters = dict.fromkeys(PAIRS, 0)  # master cards won in the sets that ended
        self.set_number = 0
        self._new_set()

    def _new_set(self) -> None:
        self.set_number += 1
        self.starter = PAIRS[(self.set_number - 1) % 2]  # sets alternate which pair leads
        self.turn: str = self.starter  # after a set has ended: the pair that leads the next one
        self.lines: dict[str, list[tuple[str, str]]] = {m: [] for m in self.masters}
        self.open_ends: dict[str, frozenset[str]] = dict(self._master_end)
        # the lines holding only their master card: for the first-turn rule
        self._bare: set[str] = set(self.masters)
        # per line: cards and points of pair A, cards and points of pair B
        self._tally: dict[str, list[int]] = {m: [0, 0, 0, 0] for m in self.masters}
        self.placed: set[str] = set()
        self._placements = dict.fromkeys(PAIRS, 0)
        self.empties_played = 0
        self.result: dict[str, Any] | None = None

    @property
    def draw_pile(self) -> int:
        """Each placement is followed by a draw while the pile lasts (§7)."""
        return max(0, self.in_play - DEALT - len(self.placed))

    def held(self, pair: str) -> int:
        """The cards ``pair`` holds: 4 each, and a placement is followed by a draw while the pile lasts (§4, §7).

        Turns alternate within a set, so the starter made the odd placements and the other pair the even
        ones; only those after the pile ran out shrank the hand.
        """
        first_dry = self.in_play - DEALT + 1  # the first placement with nothing left to draw
        odd = pair == self.starter

        def made_up_to(n: int) -> int:  # the pair's placements among the first n
            return (n + 1) // 2 if odd else n // 2

        dry = max(0, made_up_to(len(self.placed)) - made_up_to(first_dry - 1))
        return DEALT // 2 - dry

    def _idle_cards(self) -> int:
        """How many cards in play, not yet placed, cannot be placed anywhere now."""
        unplaced = [card.id for card in self.deck.of_kind(Kind.NORMAL) if card.id not in self.placed]
        placeable = {card for card, _ in self.placements(unplaced)}
        idle = len(unplaced) - len(placeable)
        empties_left = self.empty_allowance - self.empties_played
        bare_only = self._first_on_master and not self._placements[self.turn]
        if bare_only and not self._bare:  # the first-turn rule forbids every line, even to an empty card
            idle += empties_left
        return idle

    # ---- legality -------------------------------------------------------------------------------------

    def reason(self, action: Action) -> StrEnum | None:
        if self._match_over():
            return Reason.GAME_OVER
        if type(action) is Play:
            return self._placement_reason(action)
        if type(action) is Pass:
            if self.result is not None:
                return SextoSetReason.SET_OVER
            if self.held(self.turn) > self._idle_cards():  # it must hold a card that links
                return SextoSetReason.HOLDS_A_LINKING_CARD
            return None
        return Reason.WRONG_ACTION

    def _placement_reason(self, action: Play) -> StrEnum | None:
        card = self.deck.get(action.card)
        if card is None:
            return Reason.UNKNOWN_CARD
        line = action.line
        if line not in self._master_end:
            return SextoSetReason.UNKNOWN_LINE
        kind = card.kind
        fresh = self.result is not None  # this card would start the next set
        if kind is Kind.NORMAL:
            if fresh:
                opens = self._master_end[line]
            else:
                if action.card in self.placed:
                    return Reason.ON_TABLE
                if self._first_on_master and self.lines[line] and not self._placements[self.turn]:
                    return SextoSetReason.FIRST_ON_MASTER
                opens = self.open_ends[line]
            first, second = card.ends or ("", "")
            if ANY in opens or first in opens or second in opens:
                return None
            return SextoSetReason.NO_LINK
        if kind is Kind.EMPTY:
            if fresh:
                return SextoSetReason.NO_EMPTY_LEFT if self.empty_allowance == 0 else None
            if action.card in self.placed:
                return Reason.ON_TABLE
            if self.empties_played >= self.empty_allowance:
                return SextoSetReason.NO_EMPTY_LEFT
            if self._first_on_master and self.lines[line] and not self._placements[self.turn]:
                return SextoSetReason.FIRST_ON_MASTER
            return None
        if kind is Kind.MASTER:
            return SextoSetReason.MASTER_CARD
        if kind is Kind.CENTRAL:
            return SextoSetReason.CENTRAL_CARD
        return Reason.UNKNOWN_CARD  # a Spanish card in a Squadratik game

    def _details(self, action: Action, reason: StrEnum) -> dict[str, Any]:
        if not isinstance(action, Play):
            if reason is SextoSetReason.HOLDS_A_LINKING_CARD:
                return {"held": self.held(self.turn), "idle": self._idle_cards()}
            return {}
        card = self.deck.get(action.card)
        if card is None or reason is Reason.UNKNOWN_CARD:
            return {"card": action.card, "deck": self.deck.name}
        return {
            "name": card.said(),
            "line": action.line,
            "open": OpenEnds(self.open_ends.get(action.line or "", _ANY_ONLY)),
            "allowed": self.empty_allowance,
        }

    def placements(self, cards: Iterable[str]) -> list[tuple[str, str]]:
        """Every ``(card, line)`` of ``cards`` that may be placed now: the verdict of ``is_legal`` for each, in one
        pass over the open ends (the robots ask it for a whole hand at each turn)."""
        if self.result is not None:
            return [(card, line) for card in cards for line in self.masters if self.is_legal(Play(card, line))]
        bare = self._bare if self._first_on_master and not self._placements[self.turn] else None
        open_ends = list(self.open_ends.items())  # in master-card order
        empties_left = self.empties_played < self.empty_allowance
        shapes, placed = self._shapes, self.placed
        found = []
        for card in cards:
            shape = shapes.get(card)
            if shape is None or card in placed:
                continue
            kind, first, second = shape
            if kind is Kind.NORMAL:
                for line, opens in open_ends:
                    if (first in opens or second in opens or ANY in opens) and (bare is None or line in bare):
                        found.append((card, line))
            elif kind is Kind.EMPTY and empties_left:
                found += [(card, line) for line in self.masters if bare is None or line in bare]
        return found

    def legal_actions(self) -> Iterator[Action]:
        """After a set has ended: the first cards of the next set."""
        for card, line in self.placements(card.id for card in self.deck):
            yield Play(card, line)
        if self.is_legal(Pass()):
            yield Pass()

    # ---- applying and taking back ---------------------------------------------------------------------

    def _apply(self, action: Action) -> Any:
        if type(action) is Pass or self.result is not None or len(self.placed) + 1 == self.in_play:
            before = self.snapshot()  # the set ends or starts: everything changes
            if type(action) is Pass:
                self._end_set(winner=_OTHER[self.turn], reason="pass")
            else:
                assert type(action) is Play
                if self.result is not None:
                    self._new_set()
                self._place(action)
                if len(self.placed) == self.in_play:
                    self._end_set(winner=self._set_leader(), reason="all_placed")
            return ("whole", before)
        assert type(action) is Play
        return self._place(action)

    def _place(self, action: Play) -> tuple[str, str, frozenset[str]]:
        line = action.line
        assert line is not None
        card = self.deck[action.card]
        pair = self.turn
        opens = self.open_ends[line]
        self.open_ends[line] = _after(opens, card)
        self.lines[line].append((card.id, pair))
        self._bare.discard(line)
        self.placed.add(card.id)
        tally = self._tally[line]
        offset = 0 if pair == "A" else 2
        tally[offset] += 1
        tally[offset + 1] += card.points
        self._placements[pair] += 1
        if card.kind is Kind.EMPTY:
            self.empties_played += 1
        self.turn = _OTHER[pair]
        return ("place", line, opens)

    def _revert(self, undo: Any) -> None:
        if undo[0] == "whole":
            self._restore(undo[1])
            return
        _, line, opens = undo
        card_id, pair = self.lines[line].pop()
        card = self.deck[card_id]
        self.open_ends[line] = opens
        if not self.lines[line]:
            self._bare.add(line)
        self.placed.discard(card_id)
        tally = self._tally[line]
        offset = 0 if pair == "A" else 2
        tally[offset] -= 1
        tally[offset + 1] -= card.points
        self._placements[pair] -= 1
        if card.kind is Kind.EMPTY:
            self.empties_played -= 1
        self.turn = pair

    def _end_set(self, winner: str | None, reason: str) -> None:
        self.result = {"winner": winner, "reason": reason}
        if winner is not None:
            self.sets_won[winner] += 1
        for pair, won in self.masters_won().items():
            self.match_masters[pair] += won
        self.turn = PAIRS[self.set_number % 2]  # sets alternate which pair leads: the next one's

    # ---- who leads ------------------------------------------------------------------------------------

    def leader(self, line: str) -> str | None:
        """The pair with more cards on ``line``; on a tie, more points (§10-11); else nobody."""
        cards_a, points_a, cards_b, points_b = self._tally[line]
        if cards_a != cards_b:
            return "A" if cards_a > cards_b else "B"
        if points_a != points_b:
            return "A" if points_a > points_b else "B"
        return None

    def counts(self, line: str) -> tuple[int, int]:
        """The cards pair A and pair B have placed on ``line``."""
        tally = self._tally[line]
        return tally[0], tally[2]

    def masters_won(self) -> dict[str, int]:
        won = dict.fromkeys(PAIRS, 0)
        for line in self.masters:
            pair = self.leader(line)
            if pair is not None:
                won[pair] += 1
        return won

    def _set_leader(self) -> str | None:
        """The pair with more master cards (§12); equal counts are a drawn set."""
        won = self.masters_won()
        if won["A"] == won["B"]:
            return None
        return "A" if won["A"] > won["B"] else "B"

    def outcome(self) -> Outcome | None:
        """The match's end, once its last set has ended (a set's own end is :attr:`result`)."""
        return self.as_it_stands() if self._match_over() else None

    def _match_over(self) -> bool:
        return self.result is not None and self.set_number >= self.match_sets

    def as_it_stands(self) -> Outcome:
        """The match as it stands (GAMES.md, "The match"): the pair that won more sets; on equal sets, the pair
        with more master cards over the match; else a drawn match. Also the result of a match ended early."""
        sets, masters = self.sets_won, self.match_masters
        if sets["A"] != sets["B"]:
            return Outcome("sets", "A" if sets["A"] > sets["B"] else "B")
        if masters["A"] != masters["B"]:
            return Outcome("master_cards", "A" if masters["A"] > masters["B"] else "B")
        return Outcome("drawn", None)

    # ---- snapshot -------------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "deck": self.deck.source,
            "options": dict(self.options),
            "set": self.set_number,
            "starter": self.starter,
            "turn": None if self._match_over() else self.turn,  # once the match is over, nobody's
            "draw_pile": self.draw_pile,
            "lines": {m: [{"card": c, "pair": p} for c, p in cards] for m, cards in self.lines.items()},
            "open_ends": {m: sorted(ends) for m, ends in self.open_ends.items()},
            "masters": {m: self.leader(m) for m in self.masters},
            "masters_won": self.masters_won(),
            "held": {pair: self.held(pair) for pair in PAIRS},
            "result": None if self.result is None else dict(self.result),
            "sets_won": dict(self.sets_won),
            "match_masters": dict(self.match_masters),
            "match": self._match(),
        }

    def _match(self) -> dict[str, Any]:
        """The match in one object (``companion play --json``): sets won, master cards won, how many sets it is,
        and once it is over its winner (None: a draw) and the rule that named it."""
        outcome = self.outcome()
        return {
            "sets": dict(self.sets_won),
            "master_cards": dict(self.match_masters),
            "sets_to_play": self.match_sets,
            "over": outcome is not None,
            "winner": None if outcome is None else outcome.winner,
            "decided_by": None if outcome is None else outcome.termination,
        }

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> SextoSet:
        game = cls(deck=data["deck"], options=data["options"])
        game._restore(data)
        return game

    def _restore(self, data: Mapping[str, Any]) -> None:
        """Rebuild a set from its lines: open ends and tallies follow from the cards and who placed them."""
        self.set_number = data["set"] - 1
        self._new_set()
        self.starter = data["starter"]
        for line, cards in data["lines"].items():
            for entry in cards:
                self.turn = entry["pair"]
                self._place(Play(entry["card"], line))
        self.turn = data["turn"] or PAIRS[self.set_number % 2]  # a match over: the pair a next set would have
        self.result = None if data["result"] is None else dict(data["result"])
        self.sets_won = dict(data["sets_won"])
        self.match_masters = dict(data["match_masters"])


class OpenEnds(Said):
    """The ends a line may show, as players read them (:func:`~companion.decks.said_end`), either one::

    >>> OpenEnds({"2B", "0"}).text("es"), str(OpenEnds({"2B", "0"})), OpenEnds({"3R"}).text("es")
    ('0 o 2N', '0 or 2B', '3R')
    """

    def __init__(self, ends: Iterable[str]) -> None:
        super().__init__(N_("{choices} or {last}"))
        self.ends = sorted(ends)

    def text(self, lang: str) -> str:
        words = [end.text(lang) if isinstance(end, Said) else end for end in map(said_end, self.ends)]
        if len(words) == 1:
            return words[0]
        return Said(self.msgid, choices=", ".join(words[:-1]), last=words[-1]).text(lang)


def _after(opens: frozenset[str], card: Card) -> frozenset[str]:
    """The ends a line may show once ``card`` is laid on a line showing ``opens``."""
    if card.kind is Kind.EMPTY:
        return _ANY_ONLY
    assert card.ends is not None
    first, second = card.ends
    if ANY in opens:
        return frozenset(card.ends)
    if first in opens:
        return frozenset((second, first)) if second in opens else frozenset((second,))
    return frozenset((first,))
