"""What the table's page is sent: the game's state as ``companion play --json`` prints it, and around it what the
players see (whose turn, the pending play, the zones' lights, the last messages), with the texts and the deck's
cards the page draws them with. Pure: the referee and a view in, a JSON-ready dict out.

Every game is drawn by a script its kind supplies (:meth:`companion.games.GameKind.page_script`); this module
names no game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from companion.games import ending
from companion.i18n import N_, translate
from companion.referee import Referee
from companion.rules.transcript import state
from companion.rules.words import describe
from companion.view import STRINGS, Message, TableView

__all__ = ["PAGE_STRINGS", "PLAYS_SHOWN", "message_json", "table_json"]

PLAYS_SHOWN = 24  # the game's last plays the page lists (a long game makes a thousand)

# The page's own few words (the rest are the screen's, companion.view.STRINGS): key -> its text (an English msgid)
PAGE_STRINGS: dict[str, str] = {
    "messages": N_("Messages"),
    "waiting": N_("Waiting for the table…"),
    "offline": N_("Lost the table: trying again"),
    "pending": N_("Awaiting OK"),
    "over": N_("Over"),
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
    "btn_pass": N_("PASS"),
    "btn_undo": N_("UNDO"),
    "btn_undo_long": N_("Hold UNDO"),
    "settings": N_("Table settings"),  # the link to /settings, the settings page's own title
}


def message_json(message: Message) -> dict[str, str]:
    return {"kind": message.kind.name, "title": message.title, "todo": message.todo}


def table_json(referee: Referee, view: TableView, messages: Iterable[Message]) -> dict[str, Any]:
    """Everything the page shows; ``state`` is the object ``/api/state`` serves."""
    kind, game, language = referee.game_kind, referee.current_game, view.language
    pending = referee.pending_action
    end = ending(game)
    return {
        "game": kind.name,
        "title": kind.title(language),
        "language": language,
        "state": state(game),
        "turn": kind.whose_turn(game, referee) if end is None else None,
        # once over: who won and by which rule, as the screen, history and the club say it
        "result": None if end is None else kind.verdict(game, end, referee).text(language),
        "seats": [referee.seat_name(seat) for seat in range(referee.game_config.players)],
        # the play that waits for OK, in the table's words ("juega 6 de oros"), and as the transcript writes it
        "pending": None
        if pending is None
        else {"action": str(pending.action), "said": describe(game, pending.action, language), "zone": pending.zone},
        "zones": dict(referee.zone_roles),
        "lights": {zone: light.value for zone, light in view.zone_lights.items()},
        "status": view.status.value,
        "message": None if view.message is None else message_json(view.message),
        "messages": [message_json(message) for message in messages],
        "plays": [str(action) for action in game.actions[-PLAYS_SHOWN:]],
        "play_count": len(game.actions),
        "menu": None if view.menu is None else {"title": view.menu.title, "items": list(view.menu.items)},
        "texts": {key: translate(text, language) for key, text in (STRINGS | PAGE_STRINGS).items()},
        "cards": {card.id: dataclasses.asdict(card) for card in game.deck},
    }
