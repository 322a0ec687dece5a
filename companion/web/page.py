"""What the table's page is sent: the game's state as ``companion play --json`` prints it, and around it what the
players see (whose turn, the pending play, the zones' lights, the last messages, who made each play), with the
texts and the deck's cards the page draws them with. Pure: the referee and a view in, a JSON-ready dict out.

Every game is drawn by a script its kind supplies (:meth:`companion.games.GameKind.page_script`); this module
names no game.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from typing import Any

from companion.decks import SUITS
from companion.games import ending
from companion.i18n import N_, translate
from companion.referee import Referee
from companion.referee.texts import TEXT
from companion.rules import Game
from companion.rules.transcript import state
from companion.rules.words import describe
from companion.view import STRINGS, Message, TableView

__all__ = ["PAGE_STRINGS", "PLAYS_SHOWN", "Players", "message_json", "table_json"]

PLAYS_SHOWN = 24  # the game's last plays the page lists (a long game makes a thousand)

# The page's own few words (the rest are the screen's, companion.view.STRINGS): key -> its text (an English msgid)
PAGE_STRINGS: dict[str, str] = {
    "messages": N_("Messages"),
    "waiting": N_("Waiting for the table…"),
    "offline": N_("Lost the table: trying again"),
    "pending": N_("Awaiting OK"),
    "over": N_("Over"),
    "goes_on": N_("the game goes on"),  # after a set or a hand that did not end the game: not "Over"
    "score": N_("Score"),
    "cards_left": N_("Cards"),
    "seat": N_("Player"),
    "mano": N_("leads"),  # beside the seat that leads the hand: the sheet's «mano» (Spanish: "mano")
    "line": N_("Line"),
    "leader": N_("Leads"),
    "held": N_("In hand"),
    "masters_won": N_("Master cards won"),
    "match_masters": N_("In the match"),  # the master cards won over the match, beside the set's
    "plays": N_("Plays"),
    "pay": N_("pays"),
    "pass": N_("passes"),
    "your_hand": N_("Your hand"),
    "your_turn": N_("Your turn"),
    "how": N_("Tap a card of your hand to lay it on the marked zone; tap a card on a zone to lift it."),
    "btn_confirm": N_("OK"),
    "btn_confirm_long": N_("Hold OK"),  # held past the long press: the table's menu
    "btn_pass": N_("PASS"),
    "btn_undo": N_("UNDO"),
    "btn_undo_long": N_("Hold UNDO"),
    "settings": N_("Table settings"),  # the link to /settings, the settings page's own title
    "oled": N_("The table's screen"),  # the mirror of the OLED, for a screen reader
}

# What the referee says to do in words of the command line, which the page's reader has not got: the referee's
# text key -> what the page says instead
PAGE_TODO: dict[str, str] = {
    "unknown_card_do": N_("Take it back and enroll it: Table settings, Enroll"),
    "not_recording_do": N_("Whoever keeps the table should check its journal"),
    "journal_aside_do": N_("A new one started; whoever keeps the table should check it"),
}


def message_json(message: Message, language: str = "en") -> dict[str, Any]:
    """A message as the page shows it: a command to type becomes what a person at the page does; ``milestone``:
    a part of the game ended (a hand, a set) with its result."""
    todo = message.todo
    for key, instead in PAGE_TODO.items():
        if todo == translate(TEXT[key], language):
            todo = translate(instead, language)
    return {"kind": message.kind.name, "milestone": message.kind.milestone, "title": message.title, "todo": todo}


class Players:
    """Who made each play of a game, as the table names them (the seat's name, ``Pareja A``): the one whose turn
    it was, noted at each view the table shows (:meth:`note`). A play the page never saw (a game resumed, a page
    served from the middle of one) is found by taking plays back on a copy of the game, once."""

    def __init__(self) -> None:
        self._game: Game | None = None
        self._who: dict[int, str] = {}  # actions played before -> who plays next

    def note(self, referee: Referee) -> None:
        game = self._same(referee.current_game)
        if ending(game) is None:
            self._who[len(game.actions)] = referee.game_kind.whose_turn(game, referee)

    def last(self, referee: Referee, count: int) -> list[str]:
        """Who made each of the game's last ``count`` plays, the oldest first."""
        game = self._same(referee.current_game)
        first = max(0, len(game.actions) - count)
        if any(n not in self._who for n in range(first, len(game.actions))):
            before = copy.deepcopy(game)
            while len(before.actions) > first:
                before.pop()
                self._who[len(before.actions)] = referee.game_kind.whose_turn(before, referee)
        return [self._who[n] for n in range(first, len(game.actions))]

    def _same(self, game: Game) -> Game:
        if game is not self._game:  # a new game: none of its plays known
            self._game, self._who = game, {}
        return game


def table_json(
    referee: Referee, view: TableView, messages: Iterable[Message], players: Players | None = None
) -> dict[str, Any]:
    """Everything the page shows; ``state`` is the object ``/api/state`` serves; ``players``: who made the plays
    (noted as the table showed them)."""
    kind, game, language = referee.game_kind, referee.current_game, view.language
    pending = referee.pending_action
    end = ending(game)
    shown = game.actions[-PLAYS_SHOWN:]
    return {
        "game": kind.name,
        "title": kind.title(language),
        "language": language,
        "state": state(game),
        "turn": kind.whose_turn(game, referee) if end is None else None,
        # once over: who won and by which rule, as the screen, history and the club say it
        "result": None if end is None else kind.verdict(game, end, referee).text(language),
        "winner": None if end is None else end.winner,  # a seat (from 1) or a pair; None with a draw
        "seats": [referee.seat_name(seat) for seat in range(referee.game_config.players)],
        # the play that waits for OK, in the table's words ("juega 6 de oros"), and as the transcript writes it
        "pending": None
        if pending is None
        else {"action": str(pending.action), "said": describe(game, pending.action, language), "zone": pending.zone},
        "zones": dict(referee.zone_roles),
        "lights": {zone: light.value for zone, light in view.zone_lights.items()},
        "status": view.status.value,
        "message": None if view.message is None else message_json(view.message, language),
        "messages": [message_json(message, language) for message in messages],
        "plays": [str(action) for action in shown],
        "players": (players or Players()).last(referee, len(shown)),  # who made each of them
        "play_count": len(game.actions),
        "menu": None if view.menu is None else {"title": view.menu.title, "items": list(view.menu.items)},
        "texts": {key: translate(text, language) for key, text in (STRINGS | PAGE_STRINGS).items()},
        "cards": {card.id: dataclasses.asdict(card) for card in game.deck},
        # the deck's suits in the table's words, for the rows of a game that lays them by suit
        "suits": {card.suit: _capital(translate(SUITS[card.suit], language)) for card in game.deck if card.suit},
    }


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
