"""The settings page (``/settings``): what a phone paired with the table may change, and the pairing itself.

A paired phone may also enroll cards: the table lends its readers and outputs to the enrollment ``companion
enroll`` runs (:class:`~companion.nfc.enrollment.Enrollment`), and the page shows the card to lay and each read.

Everyone may read; changing needs a pairing (docs/WEB.md, "Settings and pairing"). A person at the table picks
"pair a phone" in the menu and the screen shows a code of six digits; the phone types it on this page and gets a
session cookie. The code is good once, for ``CODE_S`` seconds, while the screen shows it: any button closes it.
Wrong codes count against the phone that typed them (its address): ``TRIES`` of them and that phone may try no more
with this code, ``TRY_S`` between two, while the others may; ``VOID_AFTER`` from all phones void it.

Every change goes to the referee as an event (:mod:`companion.referee.phone`), which applies it as the menu would:
nothing here changes the table itself.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import secrets
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.config import SPEECH_LEVELS
from companion.events import ZoneScan
from companion.i18n import N_, Plural, Said, languages, say, translate
from companion.menu import Settings, decks_for, games_for, label, players_for, unfit_games
from companion.nfc.enrollment import Enrollment
from companion.nfc.registry import Registry, RegistryError
from companion.nfc.stations import LentStation
from companion.referee import NewGame, PairingEnded, SeatNames, SpeechLevel
from companion.referee.phone import seat_names
from companion.table import Table
from companion.view import TableView
from companion.web.guard import Limits, Refused, client, json_body

__all__ = [
    "CODE_S",
    "COOKIE",
    "PAIRED_S",
    "READS_KEPT",
    "SETTINGS_STRINGS",
    "TRIES",
    "TRY_S",
    "VOID_AFTER",
    "PhoneEnrollment",
    "PhoneSettings",
]

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
CODE_S = 120.0  # how long a pairing code shown on the screen is good for
TRIES = 5  # wrong codes from one phone after which it may try no more with the code shown
TRY_S = 1.0  # a phone's wait after a wrong code before it may type another
VOID_AFTER = 25  # wrong codes from all phones that void the code shown (a guesser from many addresses)
PAIRED_S = 12 * 3600.0  # how long a pairing lasts (an evening at the club); a restart of the service ends it too
COOKIE = "companion-pairing"
READS_KEPT = 8  # the last reads of an enrollment the page lists

# The settings page's words: key -> its text (an English msgid of the catalogues, companion.i18n)
SETTINGS_STRINGS: dict[str, str] = {
    "settings": N_("Table settings"),
    "table": N_("See the table"),
    "pair_head": N_("Pair this phone"),
    "pair_how": N_("At the table, hold OK to open the menu and pick “Pair a phone”: the screen shows a code."),
    "code": N_("Code"),
    "pair": N_("Pair a phone"),  # the menu's words; "Pair" is 6º SET's noun (a pair of players): «Pareja»
    "paired": N_("Phone paired: you may change the table."),
    "next_game": N_("New game"),
    "next_game_note": N_(
        "Starts now and closes the game being played, as the menu's “New game”; until its first card, a long UNDO "
        "at the table brings the closed game back."
    ),
    "missing": N_("{game} is not offered: {why}"),
    "start": N_("Start"),
    "start_sure": N_("Tap again: this game ends"),  # “Start” tapped once: as the menu's “New game?”
    "seats": N_("Seat names"),
    "seats_note": N_("In the order you sit; the table asks who laid the 6 of coins."),
    "seats_unnamed": N_("This game does not name seats."),
    "voice": N_("Voice"),  # how much the table says aloud, as the menu's line
    "voice_note": N_("What the table says aloud: nothing, its rulings (refusals and results), or everything."),
    "save": N_("Save"),
    "done": N_("Done."),
    "not_paired": N_(
        "This phone is not paired: at the table, hold OK, pick “Pair a phone” in the menu and type here the code "
        "its screen shows."
    ),
    "no_code": N_("The table's screen shows no code: hold OK and pick “Pair a phone” in the menu."),
    "wrong_code": Plural(
        "Wrong code: type the one the screen shows ({left} more try).",
        "Wrong code: type the one the screen shows ({left} more tries).",
        "left",
    ),
    "too_many": N_("Wrong code five times from this phone: ask at the table for a new code in the menu."),
    "void": N_("Too many wrong codes: the code is void now. Ask for another in the table's menu."),
    "too_fast": N_("Wait a moment before typing another code."),
    "enroll_head": N_("Enroll cards"),
    "enroll_how": N_(
        "The table asks for each card of the deck not yet enrolled: lay it alone on any zone. Any button at the "
        "table goes back to the game."
    ),
    "enroll": N_("Enroll"),
    "stop": N_("Back to the game"),
    "lay": N_("Lay"),
    "bound": N_("enrolled"),
    "all_enrolled": N_("Every card of the deck is enrolled."),
    "no_registry": N_("This table has no card registry to enroll into."),
}


class PhoneEnrollment:
    """An enrollment started from a phone: it borrows the table's readers and outputs (:meth:`Table.lend`) and
    takes each scan they make, until every card is enrolled and it is given back (a button, or the page)."""

    def __init__(self, table: Table, registry: Registry, now: float) -> None:
        referee = table.referee
        self.station = LentStation(list(referee.zone_roles), table.tracker.absences, table.outputs)
        self.station.now = now
        self.enrollment = Enrollment(
            referee.current_game.deck,
            registry,
            self.station,
            lang=referee.table_language,
            out=lambda line: log.info("enroll: %s", line.strip()),
        )
        self.failed = ""  # why it stopped, when the registry could not be saved
        self.table = table

    def scan(self, scan: ZoneScan, now: float) -> None:
        self.station.feed(scan, now)
        try:
            self.enrollment.step()
        except (RegistryError, OSError) as exc:  # the registry could not be saved: what was saved before stays
            log.error("enroll: %s", exc)
            self.failed = str(exc)
            self.table.lend(None, now)

    def state(self, on: bool) -> dict[str, Any]:
        enrollment = self.enrollment
        deck, card = enrollment.deck, enrollment.card
        return {
            "on": on,
            "deck": deck.name,
            "card": None if card is None else {"id": card.id, "name": card.name(enrollment.lang)},
            "done": enrollment.done,
            "total": enrollment.total,
            "reads": [
                {
                    "zone": read.zone,
                    "card": read.card,
                    "name": _card_name(enrollment, read.card),
                    "refused": read.refused,
                }
                for read in enrollment.reads[-READS_KEPT:]
            ],
            "failed": self.failed,
        }


def _card_name(enrollment: Enrollment, card_id: str) -> str:
    card = enrollment.deck.get(card_id)
    return card.name(enrollment.lang) if card is not None else card_id


class PhoneSettings:
    """The settings page's routes for ``table``, and the pairings of the phones that may change it.

    It is an output of the table too: it sees each new pairing code as the screen shows it, to void it after
    ``CODE_S`` and to count the wrong tries against it."""

    def __init__(self, table: Table, limits: Limits) -> None:
        self.table = table
        self.limits = limits
        table.referee.allow_pairing()  # the menu offers "pair a phone"
        table.outputs.append(self)
        self._code: str | None = None  # the code the screen shows, as last seen
        self._wrong: collections.Counter[str] = collections.Counter()  # address -> wrong codes typed against it
        self._next_try: dict[str, float] = {}  # address -> when it may type a code again (the loop's clock)
        self._sessions: dict[str, float] = {}  # cookie -> until when it pairs (the loop's clock)
        self._enrollment: PhoneEnrollment | None = None  # the last enrollment started from a phone
        self._loop: asyncio.AbstractEventLoop | None = None  # the server's, once it starts

    def routes(self, app: web.Application) -> None:
        app.on_startup.append(self._started)
        app.router.add_get("/settings", self._page)
        app.router.add_get("/api/settings", self._settings)
        app.router.add_post("/api/pair", self._pair)
        app.router.add_post("/api/seats", self._seats)
        app.router.add_post("/api/game", self._game)
        app.router.add_post("/api/speech", self._speech)
        app.router.add_post("/api/enroll", self._enroll)
        app.router.add_post("/api/enroll/stop", self._stop_enrolling)

    # ---- an output of the table -------------------------------------------------------------------------------

    async def _started(self, app: web.Application) -> None:
        self._loop = asyncio.get_running_loop()

    def show(self, view: TableView, now: float) -> None:
        if view.pairing == self._code:
            return
        self._code = view.pairing
        self._wrong.clear()
        if view.pairing is not None and self._loop is not None:
            # The server's loop, which the table may be shown outside of (the demo runs it between turns).
            self._loop.call_later(CODE_S, self._expire, view.pairing)

    def _expire(self, code: str) -> None:
        if self.table.referee.pairing_shown == code:
            self.table.status(PairingEnded("expired"), asyncio.get_running_loop().time())

    # ---- reading ----------------------------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "settings.html")

    async def _settings(self, request: web.Request) -> web.Response:
        return web.json_response(self.state(self._paired(request)))

    def state(self, paired: bool) -> dict[str, Any]:
        """What the settings page shows: whether this phone is paired, the game now and what may be chosen."""
        referee = self.table.referee
        language = referee.table_language
        now = referee.menu_settings()
        zones = referee.zone_roles
        return {
            "paired": paired,
            "language": language,
            "game": {"game": now.game, "deck": now.deck, "players": now.players, "language": now.language},
            "games": [
                {
                    "name": game,
                    "label": label("game", game, game, language),
                    "decks": [
                        {
                            "name": deck,
                            "label": label("deck", deck, game, language),
                            "players": [
                                {"n": n, "label": label("players", n, game, language)} for n in players_for(game, deck)
                            ],
                        }
                        for deck in decks_for(game)
                    ],
                }
                for game in games_for(zones)
            ],
            "missing": [  # the games this table's zones cannot play, and why
                {"name": game, "label": label("game", game, game, language), "why": _why(unfit, language)}
                for game, unfit in unfit_games(zones).items()
            ],
            "languages": [{"name": name, "label": label("language", name, now.game, language)} for name in languages()],
            "seats": {
                "named": referee.game_kind.names_first_seat,
                "players": referee.game_config.players,
                "names": list(referee.game_config.seat_names),
            },
            "speech": None  # how much the table says aloud, when it has a voice, and the levels offered
            if now.speech is None
            else {
                "level": now.speech,
                "levels": [
                    {"name": level, "label": label("speech", level, now.game, language)} for level in SPEECH_LEVELS
                ],
                # the table cannot sound (no sound card, no espeak-ng): what to do, shown while a level is chosen
                "mute": None if referee.speech_mute is None else referee.speech_mute.text(language),
            },
            "enrollment": None if self._enrollment is None else self._enrollment.state(self._enrolling()),
            "texts": {key: translate(text, language) for key, text in SETTINGS_STRINGS.items()},
        }

    # ---- pairing ----------------------------------------------------------------------------------------------

    def _paired(self, request: web.Request) -> bool:
        until = self._sessions.get(request.cookies.get(COOKIE, ""))
        return until is not None and until > asyncio.get_running_loop().time()

    async def _pair(self, request: web.Request) -> web.Response:
        typed = str((await self._body(request)).get("code", "")).strip()
        shown = self.table.referee.pairing_shown
        address, now = client(request), asyncio.get_running_loop().time()
        if shown is None:
            raise self._refused("no_code")
        if self._wrong[address] >= TRIES:
            raise self._refused("too_many")
        if self._next_try.get(address, now) > now:
            raise self._refused("too_fast", status=web.HTTPTooManyRequests)
        if not secrets.compare_digest(typed.encode(), shown.encode()):
            self._wrong[address] += 1
            self._next_try = {key: when for key, when in self._next_try.items() if when > now}
            self._next_try[address] = now + TRY_S
            mine, everyone = self._wrong[address], sum(self._wrong.values())
            log.warning(
                "web: a wrong pairing code from %s (%d of %d from it, %d of %d in all)",
                address,
                mine,
                TRIES,
                everyone,
                VOID_AFTER,
            )
            if everyone >= VOID_AFTER:
                self._end("too_many")
                raise self._refused("void")
            if mine >= TRIES:
                raise self._refused("too_many")
            raise self._refused("wrong_code", left=TRIES - mine)
        self._end("paired")
        log.info("web: a phone paired from %s", address)
        token = secrets.token_urlsafe(32)
        loop = asyncio.get_running_loop()
        self._sessions = {key: until for key, until in self._sessions.items() if until > loop.time()}
        self._sessions[token] = loop.time() + PAIRED_S
        response = web.json_response({"paired": True})
        response.set_cookie(COOKIE, token, max_age=int(PAIRED_S), httponly=True, samesite="Strict", path="/")
        return response

    def _end(self, why: str) -> None:
        self.table.status(PairingEnded(why), asyncio.get_running_loop().time())  # type: ignore[arg-type]

    # ---- changing ---------------------------------------------------------------------------------------------

    async def _changing(self, request: web.Request) -> dict[str, Any]:
        """The request's JSON body, once this phone is paired; else 403 and where to find the code."""
        if not self._paired(request):
            raise self._refused("not_paired")
        return await self._body(request)

    async def _seats(self, request: web.Request) -> web.Response:
        body = await self._changing(request)
        referee = self.table.referee
        if not referee.game_kind.names_first_seat:
            raise _bad(f"{referee.game_kind.name} does not name its seats")
        try:
            names = seat_names(body.get("names"), referee.game_config.players)
        except ValueError as exc:
            raise _bad(str(exc)) from None
        self.table.status(SeatNames(names), asyncio.get_running_loop().time())
        return web.json_response({"names": list(referee.game_config.seat_names)})

    async def _speech(self, request: web.Request) -> web.Response:
        body = await self._changing(request)
        referee = self.table.referee
        if referee.speech_level is None:
            raise _bad("this table has no voice: the service gives every table one; the demo, with --voice DIR")
        level = body.get("level")
        if level not in SPEECH_LEVELS:
            raise _bad(f"level {level!r}: choose {', '.join(SPEECH_LEVELS)}")
        self.table.status(SpeechLevel(str(level)), asyncio.get_running_loop().time())
        return web.json_response({"level": referee.speech_level})

    async def _game(self, request: web.Request) -> web.Response:
        body = await self._changing(request)
        try:
            settings = Settings(
                game=str(body["game"]),
                deck=str(body["deck"]),
                players=int(body["players"]),
                language=body.get("language", self.table.referee.menu_settings().language),
            )
            if settings.language not in languages():
                raise ValueError(f"language {settings.language!r}: choose {' or '.join(languages())}")
        except KeyError as exc:
            raise _bad(f"give the game, the deck and the players ({exc.args[0]} is missing)") from None
        except (TypeError, ValueError) as exc:
            raise _bad(str(exc)) from None
        unfit = unfit_games(self.table.referee.zone_roles).get(settings.game)
        if unfit:
            raise _bad(_why(unfit, "en"))
        self.table.status(NewGame(settings), asyncio.get_running_loop().time())
        return web.json_response({"game": self.table.referee.game_config.settings()})

    async def _enroll(self, request: web.Request) -> web.Response:
        await self._changing(request)
        registry = self.table.tracker.registry
        if not isinstance(registry, Registry):
            raise self._refused("no_registry")
        if not self._enrolling():
            now = asyncio.get_running_loop().time()
            self._enrollment = PhoneEnrollment(self.table, registry, now)
            self.table.lend(self._enrollment, now)
            self._enrollment.enrollment.begin()
        assert self._enrollment is not None
        return web.json_response(self._enrollment.state(self._enrolling()))

    async def _stop_enrolling(self, request: web.Request) -> web.Response:
        await self._changing(request)
        if self._enrolling():
            self.table.lend(None, asyncio.get_running_loop().time())
        return web.json_response(None if self._enrollment is None else self._enrollment.state(False))

    def _enrolling(self) -> bool:
        return self._enrollment is not None and self.table.borrower is self._enrollment

    def _refused(
        self, key: str, status: type[web.HTTPException] = web.HTTPForbidden, **fields: object
    ) -> web.HTTPException:
        text = say(SETTINGS_STRINGS[key], self.table.referee.table_language, **fields)
        return status(text=_json_error(text), content_type="application/json")

    async def _body(self, request: web.Request) -> dict[str, Any]:
        """The request's JSON object (:func:`companion.web.guard.json_body`); a refusal as the page's others."""
        try:
            return await json_body(request, self.table.referee.table_language, self.limits)
        except Refused as exc:
            raise exc.http(_json_error(exc.text), "application/json") from None


def _why(unfit: tuple[Said, ...], language: str) -> str:
    return "; ".join(said.text(language) for said in unfit)


def _bad(text: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=_json_error(text), content_type="application/json")


def _json_error(text: str) -> str:
    return json.dumps({"error": text}, ensure_ascii=False)
