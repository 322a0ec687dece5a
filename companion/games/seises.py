"""Seises at the table: the kind that glues the rules engine (:mod:`companion.rules.seises`) to the referee, the
screen and the robots.

Zones are ``"table"`` (any card) or a suit letter (a card of that suit only); a card laid is ``Play(card)``, the
PASS button pays a chip. Seat names are given in the order the players sit; seat 1 is whoever lays the 6 of oros,
so at the first play the referee asks who did. The engine's outcome (a seat reached 50) ends the game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from PIL import ImageDraw

from companion.config import GameConfig
from companion.decks import SUITS, Deck, load_deck
from companion.events import Button, CardLeft, UnknownTag, UnknownTagLeft
from companion.games import Ending, GameKind, Result, Sensor, Voice, ending, register
from companion.i18n import N_, Said, translate
from companion.rules.base import Action, Game, Pay, Play, either
from companion.rules.news import ChipOwed, GameWon, HandWon, News, Reneged, SomebodyReneged
from companion.rules.robots import SeisesRobots
from companion.rules.seises import DECKS, FIRST_CARD, OPTIONS, RECOMMENDED_PLAYERS, Seises, player_counts
from companion.ui.screens import (
    CELL_W,
    WIDTH,
    Slot,
    card_icon,
    cell,
    first_fitting,
    footer,
    header_footer,
    put_on,
    shorten,
    text_width,
)
from companion.view import Language, Message, MessageKind, Scoreboard, TableView, tr

__all__ = ["KIND", "Seat", "SeisesKind", "SeisesView", "news"]


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat: its name as shown (``"1"`` or a player's name), cards still in hand, score so far."""

    name: str
    cards_left: int
    score: int


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

    @property
    def game_over(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True, slots=True)
class _SeatCell:
    """The layout of a seat's cell for one number of grid rows: the fewer the rows, the taller the cell and
    the larger the cards left and the score, to be read across the table."""

    name: Slot
    icon_x: int  # the card outline beside the cards left, as tall as their digits
    cards: Slot
    score: Slot


# Grid rows -> cell layout. Each one is drawn by the tests with 8-character names, two-digit cards left and
# three-character scores (-45), in both languages. Up to 4 seats the cell has room for a second line.
_SEAT_CELLS: dict[int, _SeatCell] = {
    1: _SeatCell(Slot(1, 62, "bold", 11), 1, Slot(9, 18, "bold", 34), Slot(31, 31, "big", 34)),
    2: _SeatCell(Slot(1, 31, "body", 7), 1, Slot(8, 18, "body", 16), Slot(32, 30, "big", 16)),
    3: _SeatCell(Slot(1, 22, "small", 9), 25, Slot(31, 12, "body", 9), Slot(44, 18, "bold", 9)),
    4: _SeatCell(Slot(1, 22, "small", 7), 25, Slot(31, 12, "body", 7), Slot(44, 18, "body", 7)),
}

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
    "renege_points": N_("Paid holding the {card}: -{points} points"),
    "renege_hand": N_("Wins the hand: +{chips}. Paid holding the {card}{penalty}"),
    "penalty": N_(": -{points} points"),
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


class SeisesKind(GameKind):
    name = Seises.name
    caption = N_("Seises")
    engine = Seises
    decks = DECKS
    options = OPTIONS
    grammar = N_("play <card>, pay or undo")
    scoreboard = SeisesView
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

    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> Game:
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

    def card_on_zone(self, game: Game, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
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
                    return Message(MessageKind.END_OF_HAND, voice.text("renege", seat=seat), todo)
                title = voice.text("hand_won", seat=seat, chips=item.chips)
                return Message(MessageKind.END_OF_HAND, title, voice.text("next_hand", hand=item.next_hand, seat=seat))
        for item in found:
            if isinstance(item, Reneged):
                title = voice.text("renege", seat=voice.seat_name(item.seat - 1))
                return Message(MessageKind.RENEGE, title, _renege_todo(item, voice))
            if isinstance(item, SomebodyReneged):
                return Message(MessageKind.RENEGE, voice.text("somebody_reneged"), voice.text("somebody_reneged_do"))
            if isinstance(item, ChipOwed):
                return Message(MessageKind.INFO, voice.text("reserve_empty"))
        return None

    def notes(self, before: Mapping[str, Any], after: Mapping[str, Any], lang: str) -> Iterable[str]:
        for item in news(before, after):
            if isinstance(item, Reneged):
                penalty = translate(" (-{points} points)", lang).format(points=item.points) if item.points else ""
                yield translate("renege!", lang) + penalty
            elif isinstance(item, SomebodyReneged):
                yield translate("renege!: every seat paid while playable cards are in hands", lang)
            elif isinstance(item, ChipOwed):
                yield translate("reserve empty: the chip is owed", lang)
            elif isinstance(item, HandWon):
                said = translate("seat {seat} wins the hand and the pot ({chips} chips)", lang)
                yield said.format(seat=item.seat, chips=item.chips)
            elif isinstance(item, GameWon):
                yield translate("seat {seat} wins the game", lang).format(seat=item.seat)

    def who(self, turn: int | str | None, lang: str) -> str:
        return translate("seat {seat}", lang).format(seat=turn) if turn else translate("over:", lang)

    def whose_turn(self, game: Game, voice: Voice) -> str:
        assert isinstance(game, Seises)
        return voice.seat_name(game.turn if game.turn is not None else game.mano)

    def view(self, game: Game, voice: Voice) -> SeisesView:
        assert isinstance(game, Seises)
        seats = tuple(Seat(voice.seat_name(i), game.hand_sizes[i], game.scores[i]) for i in range(game.players))
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

    def draw(self, draw: ImageDraw.ImageDraw, view: Any, *, language: str = "es", message: str = "") -> None:
        """Bote and reserve, then one cell per seat, then whose turn (or the last message).

        A seat's cell shows its name, its cards left and its score, with a bar under it that fills towards the
        target (50). The seat whose turn it is is drawn inverted; the mano's name is followed by '*'. The fewer
        the seats, the taller the cells and the larger the numbers (see ``_SEAT_CELLS``).
        """
        assert isinstance(view, SeisesView)
        if not 2 <= len(view.seats) <= 8:
            raise ValueError(f"a Seises table has 2 to 8 seats, this view has {len(view.seats)}")
        pot = f"{tr('pot', language)} {view.pot}"
        reserve = [f"{tr(key, language)} {view.reserve}" for key in ("reserve", "reserve_short")]
        if view.owed:
            owed = f"{tr('owed', language)} {view.owed}"
            reserve = [*(f"{text} {owed}" for text in reserve), owed]
        right = first_fitting(reserve, "body", WIDTH - text_width(pot, "body") - 4)
        hand = f"{tr('hand', language)} {view.hand}"
        seat = view.seats[view.turn if view.winner is None else view.winner]
        label = tr("turn" if view.winner is None else "winner", language)
        whose = shorten(f"{label}: {seat.name}", "body", WIDTH - text_width(hand, "body") - 4)
        header_footer(draw, (pot, right), footer(whose, hand, message))

        rows = (len(view.seats) + 1) // 2
        layout = _SEAT_CELLS[rows]
        highlighted = view.winner if view.winner is not None else view.turn
        for index, seat in enumerate(view.seats):
            x, y, height = cell(index, rows)
            fill = 1
            if index == highlighted:
                draw.rectangle((x, y, x + CELL_W - 2, y + height - 1), fill=1)
                fill = 0
            name = seat.name + ("*" if index == view.mano else "")
            put_on(draw, (x, y), layout.name, shorten(name, layout.name.size, layout.name.width), fill, "left")
            card_icon(draw, x + layout.icon_x, y + layout.cards.baseline, layout.cards.size, fill)
            put_on(draw, (x, y), layout.cards, str(seat.cards_left), fill, "right" if rows > 2 else "left")
            put_on(draw, (x, y), layout.score, str(seat.score), fill, "right")
            filled = round(min(max(seat.score, 0), view.target) / view.target * (CELL_W - 4))
            if filled:
                draw.line((x + 1, y + height - 2, x + filled, y + height - 2), fill=fill)

    def tally(self, game: Game) -> Said:
        assert isinstance(game, Seises)
        points = " ".join(f"{seat}:{points}" for seat, points in enumerate(game.scores, start=1))
        return Said(N_("points {points}"), points=points)

    def verdict(self, game: Game, end: Ending, voice: Voice | None = None) -> Said:
        """The seat that reached 50 (§5): its score says the rule."""
        assert isinstance(game, Seises) and isinstance(end.winner, int)
        seat: Said | str = Said(N_("seat {seat}"), seat=end.winner)
        if voice is not None:
            seat = voice.seat_name(end.winner - 1)
        return Said(N_("{seat}, {points} points"), seat=seat, points=game.scores[end.winner - 1])

    def results(self, game: Game, finished: bool) -> list[Result]:
        assert isinstance(game, Seises)
        reneges = Counter(renege["seat"] for renege in game.reneges)
        end = ending(game, ended=finished)
        return [
            Result(seat, points, reneges[seat], end is not None and end.winner == seat)
            for seat, points in enumerate(game.scores, start=1)
        ]

    def standings(self, game: Game, voice: Voice) -> tuple[list[str], list[list[str]]]:
        assert isinstance(game, Seises)
        head = [voice.text("seat", n="").strip(), voice.text("points_head")]
        rows = [[voice.seat_name(seat), str(score)] for seat, score in enumerate(game.scores)]
        rows.sort(key=lambda row: -int(row[1]))
        return head, rows

    def robots(self, game: Game, rng: random.Random, renege: float = 0.02) -> SeisesRobots:
        assert isinstance(game, Seises)
        return SeisesRobots(game, rng, renege=renege)

    def sensors(self, state: Mapping[str, Any]) -> list[Sensor]:
        seats = [Sensor(f"score_{n}", f"Seat {n} score", ("scores", n - 1)) for n in range(1, len(state["scores"]) + 1)]
        winner = Sensor("winner", "Winner", ("winner",), icon="mdi:trophy", measurement=False)  # the seat at 50
        return [Sensor("pot", "Pot", ("pot",), icon="mdi:poker-chip"), *seats, winner]

    def examples(self, language: Language) -> dict[str, TableView]:
        """Every number of seats mid-game, the renuncio, a chip owed and the game's end; and the messages every
        game shares (a question, an illegal card, an unknown tag, the hub, a reader, the disk)."""
        # a whole referee and its events: imported only when the examples are drawn
        from companion.referee.health import HubStatus, JournalStatus, ReaderStatus
        from companion.ui.examples import NAMES, ExampleTable, message_is

        def table(players: int, renege: float = 0.05) -> ExampleTable:
            deck = next(name for name in DECKS if len(load_deck(name)) % players == 0)
            names = NAMES[:players]
            config = GameConfig(self.name, players, deck, language=language, seat_names=names)
            return ExampleTable(config, lambda game, rng: self.robots(game, rng, renege=renege))

        views: dict[str, TableView] = {}
        for players in (2, 3, 4, 5, 6, 8):
            views[f"seises-{players}-seats"] = table(players).until(_mid_game)
        at = table(4)
        at.lay("z1", FIRST_CARD)
        at.press(Button.CONFIRM)
        views["message-question"] = at.view()
        at.press(Button.CONFIRM)
        at.event(CardLeft("z1", FIRST_CARD))
        at.until(_mid_game)
        views["message-illegal"] = at.illegal()
        at.event(UnknownTag("z1", bytes.fromhex("04A1B2C3D4E580")))
        views["message-unknown-card"] = at.view()
        at.event(UnknownTagLeft("z1", bytes.fromhex("04A1B2C3D4E580")))
        for name, (trouble, mended) in {
            "message-hub-lost": (HubStatus(online=False), HubStatus(online=True)),
            "message-reader-down": (ReaderStatus("z1", ok=False), ReaderStatus("z1", ok=True)),
            "message-disk-full": (JournalStatus(ok=False), JournalStatus(ok=True)),
        }.items():
            at.event(trouble)
            views[name] = at.view()
            at.event(mended)
        views["message-end-of-hand"] = at.until(message_is(MessageKind.END_OF_HAND))
        # A table that pays half the time it could play: the renuncios, the reserve run dry and a 50-point pot
        # come in the first hand.
        at = table(5, renege=0.5)
        views["seises-renege"] = at.until(message_is(MessageKind.RENEGE))
        views["seises-owed"] = at.until(lambda view: message_is(MessageKind.INFO)(view) and _scoreboard(view).owed > 0)
        views["message-end-of-game"] = at.until(message_is(MessageKind.END_OF_GAME))
        at.press(Button.UNDO)  # the message read, the scoreboard shows the winner
        views["seises-game-over"] = at.view()
        return views


def _scoreboard(view: TableView) -> SeisesView:
    assert isinstance(view.game, SeisesView)
    return view.game


def _mid_game(view: TableView) -> bool:
    """The game well under way: a seat past half the target, and a round played in the hand."""
    game = _scoreboard(view)
    dealt = 40 if 40 % len(game.seats) == 0 else 48
    played = dealt - sum(seat.cards_left for seat in game.seats)
    return (
        view.message is None
        and max(seat.score for seat in game.seats) >= game.target // 2
        and played >= len(game.seats)
    )


def _renege_todo(renege: Reneged, voice: Voice) -> str:
    card = voice.card_name(renege.card)
    if renege.points:
        return voice.text("renege_points", card=card, points=renege.points)
    return voice.text("renege_do", card=card)


KIND = register(SeisesKind())
