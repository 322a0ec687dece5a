"""The virtual table: a person plays from the table's page, with simulated cards and buttons (docs/WEB.md).

What the page asks goes where a hand's would, never to the referee: a card is laid into a simulated reader's RF
field or lifted out of it (:class:`~companion.nfc.backends.SimBackend`, read by our driver on the register-level
chip as any card), and a button's gpiozero mock pin is driven low, held and let go, so gpiozero's edges, the
debounce and the long press make the press as a finger's would. The page then sees the table's answer as every
page does, through ``/api/events``.

Routes (POST bodies are JSON; a refusal is a 4xx whose text says what to do):

- ``GET /api/virtual``: whether this table takes the page's input, the hand offered, why the input waits (another
  seat plays), the zones with the cards lying on each, and the card that heads a zone (6º SET's master cards);
- ``POST /api/virtual/lay`` ``{"card": "6O", "zone": "z1"}``: the card is laid on the zone (lifted from wherever
  it lay), after the card lying there, if any, is put aside (into its row once played, else back in the hand);
- ``POST /api/virtual/lift`` ``{"card": "6O"}``;
- ``POST /api/virtual/press`` ``{"button": "confirm"}``, ``{"button": "undo", "long": true}`` (held past the long
  press: takes back the last play), ``{"button": "confirm", "long": true}`` (the table's menu: pair a phone, the
  next game).

Only a table whose readers are simulated and whose pins are gpiozero's mock ones is virtual (the demo,
``companion run`` with ``backend = "sim"``); a real table's page only shows, and these POSTs are refused with 403.
A handler only changes a field or drives a pin and answers: the readers' poll and the button's timing do the rest,
so the page's input never holds the table's loop up.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from companion.events import Button
from companion.i18n import N_, translate
from companion.nfc.backends import SimBackend
from companion.referee import Referee
from companion.rules import Play
from companion.ui.buttons import LONG_S
from companion.ui.presses import HOLD_S
from companion.web.guard import Limits, Refused, json_body

__all__ = ["Hand", "VirtualTable", "cards_off_the_table", "routes"]

# The refusals, said in the table's language: key -> its English msgid
WORDS: dict[str, str] = {
    "real": N_("This table reads real cards: its page only shows it. Lay the cards on the readers."),
    "body": N_(
        "A request that makes no sense: send a JSON object with card and zone (lay), card (lift) or button (press)."
    ),
    "zone": N_("No zone {zone}: the zones are {zones}."),
    "card": N_("{card} is neither in your hand nor on a zone: pick a card from your hand."),
    "not_lying": N_("{card} lies on no zone."),
    "button": N_("No button {button}: the buttons are confirm, pass and undo; long only with confirm and undo."),
    "held": N_("{button} is already held down: let it go first."),
}


@dataclass(frozen=True)
class Hand:
    """What the page's person may lay now."""

    cards: list[str]  # the hand offered, in the deck's order
    wait: str | None = None  # why the person's input is refused now (another seat plays), or None


def cards_off_the_table(referee: Referee, lying: Mapping[str, str]) -> list[str]:
    """The deck's cards not yet on the table: not played, not heading a zone, not lying on a pad. At a table whose
    players' hands nobody dealt (``companion run`` on simulated readers) this is every hand at once: whoever's
    turn it is picks their card among them, as the referee itself never knows who holds what."""
    game = referee.current_game
    taken = {action.card for action in game.actions if isinstance(action, Play)}
    taken |= set(referee.zone_heads.values()) | set(lying)
    return [card.id for card in game.deck if card.id not in taken]


class VirtualTable:
    """The page's hand and fingers at a table of simulated readers (``backend``) and mock button pins (``pins``)."""

    def __init__(
        self,
        referee: Callable[[], Referee],
        backend: SimBackend,
        pins: Mapping[Button, Any],
        hand: Callable[[], Hand] | None = None,
    ) -> None:
        self.referee = referee
        self.backend = backend
        self.pins = dict(pins)
        self.hand = hand or (lambda: Hand(cards_off_the_table(self.referee(), self.backend.lying())))
        self._held: set[Button] = set()

    def say(self, key: str, **fields: object) -> str:
        return translate(WORDS[key], self.referee().game_config.language).format(**fields)

    def json(self) -> dict[str, Any]:
        hand = self.hand()
        lying = self.backend.lying()
        zones = {zone: [card for card, where in lying.items() if where == zone] for zone in self.referee().zone_roles}
        cards = [card for card in hand.cards if card not in lying]  # a card on a pad is out of the hand
        heads = dict(self.referee().zone_heads)
        return {"virtual": True, "hand": cards, "wait": hand.wait, "zones": zones, "heads": heads}

    # ---- what a hand does -----------------------------------------------------------------------------------

    def lay(self, card: str, zone: str) -> None:
        referee, lying = self.referee(), self.backend.lying()
        if zone not in referee.zone_roles:
            raise web.HTTPBadRequest(text=self.say("zone", zone=zone, zones=", ".join(referee.zone_roles)))
        if card not in self._hand().cards and card not in lying:
            raise web.HTTPConflict(text=self.say("card", card=card))
        for other, where in lying.items():
            if where == zone and other != card:
                self.backend.take(other)  # one card a pad: the one there is put aside (in its row, or the hand)
        self.backend.put(card, zone)

    def lift(self, card: str) -> None:
        self._hand()
        if card not in self.backend.lying():
            raise web.HTTPConflict(text=self.say("not_lying", card=card))
        self.backend.take(card)

    def press(self, button: Button, long: bool) -> None:
        self._hand()
        if button in self._held:
            raise web.HTTPConflict(text=self.say("held", button=button.upper()))
        pin = self.pins[button]
        self._held.add(button)
        pin.drive_low()

        def release() -> None:
            pin.drive_high()
            self._held.discard(button)

        asyncio.get_running_loop().call_later(LONG_S + HOLD_S if long else HOLD_S, release)

    def _hand(self) -> Hand:
        hand = self.hand()
        if hand.wait is not None:
            raise web.HTTPConflict(text=hand.wait)
        return hand


def routes(virtual: VirtualTable | None, language: Callable[[], str], limits: Limits) -> list[web.RouteDef]:
    """The virtual table's routes; with no virtual table (real readers), the same paths refuse, saying why. A body
    is a JSON object (:func:`companion.web.guard.json_body`): another site's form cannot post one."""

    def real() -> web.HTTPForbidden:
        return web.HTTPForbidden(text=translate(WORDS["real"], language()))

    async def show(request: web.Request) -> web.Response:
        if virtual is None:
            return web.json_response({"virtual": False, "why": real().text})
        return web.Response(text=json.dumps(virtual.json(), ensure_ascii=False), content_type="application/json")

    async def act(request: web.Request) -> web.Response:
        if virtual is None:
            raise real()
        try:
            body = await json_body(request, language(), limits)
        except Refused as exc:
            raise exc.http() from None
        try:
            what = request.match_info["what"]
            if what == "lay":
                virtual.lay(str(body["card"]), str(body["zone"]))
            elif what == "lift":
                virtual.lift(str(body["card"]))
            else:
                name, long = str(body["button"]), body.get("long") is True
                if name not in set(Button) or (long and name == Button.PASS):
                    raise web.HTTPBadRequest(text=virtual.say("button", button=name))
                virtual.press(Button(name), long)
        except (ValueError, KeyError):
            raise web.HTTPBadRequest(text=virtual.say("body")) from None
        return web.json_response(virtual.json())

    return [
        web.get("/api/virtual", show),
        web.post("/api/virtual/{what:lay|lift|press}", act),
    ]
