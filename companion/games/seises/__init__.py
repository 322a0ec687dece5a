"""Seises at the table: the kind that glues the rules engine (:mod:`companion.games.seises.rules`) to the referee,
the screen (:mod:`.screen`) and the robots (:mod:`.robots`).

Zones are ``"table"`` (any card) or a suit letter (a card of that suit only); a card laid is ``Play(card)``, the
PASS button pays a chip. Seat names are given in the order the players sit; seat 1 is whoever lays the 6 of oros,
so at the first play the referee asks who did. The engine's outcome (a seat reached 50) ends the game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.decks import SUITS, Deck
from companion.games.kind import Ending, GameKind, Result, Voice, ending
from companion.games.seises.news import ChipOwed, GameWon, HandWon, News, Reneged, SomebodyReneged
from companion.games.seises.robots import SeisesRobots
from companion.games.seises.rules import DECKS, OPTIONS, RECOMMENDED_PLAYERS, Pay, Seises, player_counts
from companion.i18n import N_, Plural, Said, translate
from companion.rules.base import Action, Play, either
from companion.view import Message, MessageKind, Scoreboard

__all__ = ["END_OF_HAND", "KIND", "RENEGE", "Seat", "SeisesKind", "SeisesView", "news"]


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat: its name as the table says it (a player's name, else ``Asiento 3``), cards still in hand, score so
    far; ``number`` counts from 1 in playing order, and ``named`` says whether a player's name is known (the
    screen then writes it, else the number)."""

    name: str
    cards_left: int
    score: int
    number: int = 0
    named: bool = True


@dataclass(frozen=True, slots=True)
class SeisesView(Scoreboard):
    """The Seises scoreboard.

    ``turn``, ``mano`` and ``winner`` are indexes into ``seats`` (0 is the first seat in playing order).
    ``pot`` is the chips in the bote, ``reserve`` the chips left in the reserve, ``owed`` the chips paid while
    the reserve was empty (shown, never in the pot). ``hand`` counts hands from 1. ``winner`` is set once a
    seat reached ``target`` points and the game is over.
    """

    seats: tuple[Seat, ...]
    turn: int
    mano: int
    pot: int
    reserve: int
    owed: int = 0
    hand: int = 1
    target: int = 50
    winner: int | None = None


# Seises's own messages: a hand won (the pot taken, the next hand begins) covers the scoreboard; a renuncio proven
# is a ruling on the footer, with the status LED's renuncio look
END_OF_HAND = MessageKind("end_of_hand", milestone=True)
RENEGE = MessageKind("renege", covers=False, ruling=True)

# The referee's words for Seises: key -> its text (an English msgid), filled with str.format.
TEXTS: dict[str, str] = {
    "wrong_zone": N_("{card}: {suit} zone"),
    "wrong_zone_do": N_("Lay it on the {suit} zone"),
    "confirm_pay": N_("Pay one chip?"),
    "ask_first_seat": N_("Who laid the 6 of coins?"),
    "ask_first_seat_do": N_("{name}: OK yes, PASS next name"),
    "new_game_names_do": N_("At the 6 of coins, say who laid it"),
    "hand_won": N_("{seat} wins the hand: +{chips}"),
    "next_hand": N_("Hand {hand}: {seat} opens with a six"),
    "game_won": N_("{seat} wins with {score}"),
    "renege": N_("Renege: {seat}"),
    "renege_do": N_("Paid holding the {card}"),
    "renege_points": Plural(
        "Paid holding the {card}: -{points} point", "Paid holding the {card}: -{points} points", "points"
    ),
    "renege_hand": N_("Wins the hand: +{chips}. Paid holding the {card}{penalty}"),
    "penalty": Plural(": -{points} point", ": -{points} points", "points"),
    "somebody_reneged": N_("Somebody reneged!"),
    "somebody_reneged_do": N_("All paid, yet cards in hands fit"),
    "reserve_empty": N_("Reserve empty: chip owed"),
    "points_head": N_("Points"),
}

TODO: dict[str, str] = {
    "wrong_zone": "wrong_zone_do",
    "confirm_pay": "confirm_do",
    "ask_first_seat": "ask_first_seat_do",
    "somebody_reneged": "somebody_reneged_do",
}


def news(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[News]:
    """In the order things happened: a renuncio and a chip owed come before the hand (and the game) they end::

    >>> game = Seises(players=4)
    >>> before = game.snapshot(); game.push(Play("6O")); news(before, game.snapshot())
    []
    """
    seat = before["turn"]
    found: list[News] = []
    if len(after["reneges"]) > len(before["reneges"]):
        renege = after["reneges"][-1]
        found.append(Reneged(seat, renege["card"], renege["points"]))
    if sum(after["owed"]) > sum(before["owed"]):
        found.append(ChipOwed(seat))
    if len(after["payments"]) > len(before["payments"]) and _round_of_pays(after["payments"], after["players"]):
        found.append(SomebodyReneged())
    if after["hand"] != before["hand"] or after["winner"] is not None:
        found.append(HandWon(seat, before["pot"], after["hand"]))  # a renuncio penalty is not the pot
    if after["winner"] is not None:
        found.append(GameWon(after["winner"], after["scores"][after["winner"] - 1]))
    return found


def _round_of_pays(payments: list[dict[str, Any]], players: int) -> bool:
    """The pays since the last card played make up whole rounds: every seat paid in turn while the same cards,
    never on the table and so in somebody's hand, were legal. Pays claim the legal cards of their moment, and a
    card played leaves that set for good, so the run of equal claims at the end is the run of pays."""
    legal = payments[-1]["legal"]
    run = 0
    for payment in reversed(payments):
        if payment["legal"] != legal:
            break
        run += 1
    return bool(legal) and run % players == 0


class SeisesKind(GameKind[Seises, SeisesView]):
    name = Seises.name
    caption = N_("Seises")
    decks = DECKS
    options = OPTIONS
    grammar = N_("play <card>, pay or undo")
    ideal_players = RECOMMENDED_PLAYERS
    names_first_seat = True
    texts = TEXTS
    todo = TODO
    confirm_pass_key = "confirm_pay"

    def player_counts(self, deck: Deck) -> tuple[int, ...]:
        return tuple(player_counts(deck))

    def players_problem(self, players: int, deck: Deck) -> Said | None:
        counts = self.player_counts(deck)
        if players in counts:
            return None
        low, high = RECOMMENDED_PLAYERS
        if not counts:
            said = N_("{cards} cards cannot be dealt evenly to 2 to 8 players: use a deck of 40 or 48 cards")
            return Said(said, cards=len(deck))
        said = N_(
            "{players} cannot share {cards} cards evenly: use {counts} (the rule sheet recommends {low} to {high})"
        )
        return Said(said, players=players, cards=len(deck), counts=either(counts), low=low, high=high)

    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> Seises:
        return Seises(players=players, deck=deck, options=dict(options))

    # ---- zones ------------------------------------------------------------------------------------------------

    def default_zones(self) -> dict[str, str]:
        return {"z1": "table"}

    def zone_problem(self, role: str) -> Said | None:
        if role == "table" or role in SUITS:
            return None
        return Said(N_('{role}: a Seises zone is "table" or a suit letter (O, C, E, B)'), role=repr(role))

    def zones_unfit(self, zones: Mapping[str, str]) -> tuple[Said, ...]:
        """None: Seises is played on any zones, a zone of another game's taking any card as a "table" zone does
        (:meth:`card_on_zone`)."""
        return ()

    def card_on_zone(self, game: Seises, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
        deck_card = game.deck.get(card)
        if role in SUITS and deck_card is not None and deck_card.suit != role:
            suit = translate(SUITS[deck_card.suit or "O"], voice.language)
            title = voice.text("wrong_zone", card=voice.card_name(card), suit=suit)
            return Message(MessageKind.ILLEGAL, title, voice.text("wrong_zone_do", suit=suit))
        return Play(card)

    def pass_action(self) -> Action:
        return Pay()

    # ---- what the table says and shows ------------------------------------------------------------------------

    def said(self, before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> tuple[Message | None, bool]:
        """The weightiest news, with a renuncio never left out (a renuncio proven by the card that ends the hand
        is said together with the hand won)."""
        found = news(before, after)
        renege = next((item for item in found if isinstance(item, Reneged)), None)
        flagged = renege is not None or any(isinstance(item, SomebodyReneged) for item in found)
        return self._message(found, renege, voice), flagged

    def _message(self, found: list[News], renege: Reneged | None, voice: Voice) -> Message | None:
        for item in found:
            if isinstance(item, GameWon):
                title = voice.text("game_won", seat=voice.seat_name(item.seat - 1), score=item.score)
                todo = voice.text("new_game_do")
                if renege is not None:
                    todo = f"{_renege_todo(renege, voice)}. {todo}"
                return Message(MessageKind.END_OF_GAME, title, todo)
        for item in found:
            if isinstance(item, HandWon):
                seat = voice.seat_name(item.seat - 1)
                if renege is not None:
                    penalty = voice.text("penalty", points=renege.points) if renege.points else ""
                    card = voice.card_name(renege.card)
                    todo = voice.text("renege_hand", chips=item.chips, card=card, penalty=penalty)
                    return Message(END_OF_HAND, voice.text("renege", seat=seat), todo)
                title = voice.text("hand_won", seat=seat, chips=item.chips)
                return Message(END_OF_HAND, title, voice.text("next_hand", hand=item.next_hand, seat=seat))
        for item in found:
            if isinstance(item, Reneged):
                title = voice.text("renege", seat=voice.seat_name(item.seat - 1))
                return Message(RENEGE, title, _renege_todo(item, voice))
            if isinstance(item, SomebodyReneged):
                return Message(RENEGE, voice.text("somebody_reneged"), voice.text("somebody_reneged_do"))
            if isinstance(item, ChipOwed):
                return Message(MessageKind.INFO, voice.text("reserve_empty"))
        return None

    def who(self, turn: int | str | None, lang: str) -> str:
        return translate("seat {seat}", lang).format(seat=turn) if turn else translate("over:", lang)

    def whose_turn(self, game: Seises, voice: Voice) -> str:
        return voice.seat_name(game.turn if game.turn is not None else game.mano)

    def view(self, game: Seises, voice: Voice) -> SeisesView:
        seats = tuple(
            Seat(name, game.hand_sizes[i], game.scores[i], i + 1, name != voice.text("seat", n=i + 1))
            for i in range(game.players)
            for name in (voice.seat_name(i),)
        )
        return SeisesView(
            seats=seats,
            turn=game.turn if game.turn is not None else game.mano,
            mano=game.mano,
            pot=game.pot,
            reserve=game.reserve,
            owed=sum(game.owed),
            hand=game.hand,
            winner=game.winner,
        )

    def tally(self, game: Seises) -> Said:
        points = " ".join(f"{seat}:{points}" for seat, points in enumerate(game.scores, start=1))
        return Said(N_("points {points}"), points=points)

    def verdict(self, game: Seises, end: Ending, voice: Voice | None = None) -> Said:
        """The seat that reached 50 (§5): its score says the rule."""
        assert isinstance(end.winner, int)
        seat: Said | str = Said(N_("seat {seat}"), seat=end.winner)
        if voice is not None:
            seat = voice.seat_name(end.winner - 1)
        return Said(N_("{seat}, {points} points"), seat=seat, points=game.scores[end.winner - 1])

    def results(self, game: Seises, finished: bool) -> list[Result]:
        reneges = Counter(renege["seat"] for renege in game.reneges)
        end = ending(game, ended=finished)
        return [
            Result(seat, points, reneges[seat], end is not None and end.winner == seat)
            for seat, points in enumerate(game.scores, start=1)
        ]

    def robots(self, game: Seises, rng: random.Random, renege: float = 0.02) -> SeisesRobots:
        return SeisesRobots(game, rng, renege=renege)


def _renege_todo(renege: Reneged, voice: Voice) -> str:
    card = voice.card_name(renege.card)
    if renege.points:
        return voice.text("renege_points", card=card, points=renege.points)
    return voice.text("renege_do", card=card)


KIND = SeisesKind()
