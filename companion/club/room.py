"""The room's scoreboard: every table live and the league's standings, one small page for the screens of the room.

Routes: ``/`` the page (``companion/club/static/``: its HTML, script and style, nothing from elsewhere),
``/api/room`` what it draws (:func:`room_json`; a table's games that never came too, so that a game lost on the
way is said), ``/api/events`` the same pushed as server-sent events at each change, ``/standings.csv`` the
standings as CSV (:meth:`League.csv`). The page is drawn from the league, never from the tables' own pages: it
names no game, each table's sides (seats or pairs) and their points are its kind's results
(:meth:`GameKind.results`) for the game as the club rebuilt it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.club.service import Update, games
from companion.club.standings import League
from companion.games import kinds
from companion.i18n import N_, translate

__all__ = ["ROOM_STRINGS", "Room", "room_json"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
SHUTDOWN_S = 1.0  # how long stopping waits for requests in flight

# The page's words: key -> its text (an English msgid, in the catalogues)
ROOM_STRINGS: dict[str, str] = {
    "title": N_("The club"),
    "tables": N_("Tables"),
    "standings": N_("Standings"),
    "online": N_("online"),
    "offline": N_("offline"),
    "game": N_("game {number}"),
    "turn": N_("Turn"),
    "over": N_("Over"),
    "waiting": N_("waiting for event {event}"),
    "player": N_("Player"),
    "played": N_("Played"),
    "won": N_("Won"),
    "points": N_("Points"),
    "renuncios": N_("Reneges"),
    "no_tables": N_("No table has published yet"),
    "csv": N_("Standings as CSV"),
    "lost": N_("Lost the club: trying again"),
    "missing": N_("games {games} never came: not counted"),
}
SHOWN_RUNS = 5  # a table's runs of missing games on the board; more end in "…"


def room_json(league: League, language: str) -> dict[str, Any]:
    """Everything the room's page shows, in ``language``: each table and its latest game, the standings by game."""
    titles = {name: kind.title(language) for name, kind in kinds().items()}
    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in league.standings():
        by_game.setdefault(row.game, []).append(asdict(row))
    return {
        "language": language,
        "texts": {key: translate(text, language) for key, text in ROOM_STRINGS.items()},
        "tables": [
            asdict(table)
            | {"title": titles.get(table.game or "", table.game), "missing": _missing(league, table.table)}
            for table in league.tables()
        ],
        "standings": [{"game": name, "title": titles.get(name, name), "rows": rows} for name, rows in by_game.items()],
    }


def _missing(league: League, table: str) -> str:
    """The table's games that never came, for the board: ``3, 5-7``; "" when none is missing."""
    runs = league.missing(table)
    said = ", ".join(map(games, runs[:SHOWN_RUNS]))
    return f"{said}, …" if len(runs) > SHOWN_RUNS else said


class Room:
    """The room's page for ``league``, served on ``listen`` (host, port; port 0 takes a free one, then in
    :attr:`port`). :meth:`changed` is the :class:`~companion.club.service.Club`'s ``on_update``."""

    def __init__(self, league: League, listen: tuple[str, int], language: str) -> None:
        self.league, self.listen, self.language = league, listen, language
        self.port: int | None = None
        self._pages: set[asyncio.Event] = set()  # one a connected page, set when the room has changed
        self._ending = False
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/api/room", self._room)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/standings.csv", self._csv)
        app.on_shutdown.append(self._end_pages)
        self.app = app

    def changed(self, updates: list[Update] | None = None) -> None:
        """The league has changed: each page draws it anew when it is next free (changes meanwhile make one)."""
        for page in self._pages:
            page.set()

    def _json(self) -> str:
        return json.dumps(room_json(self.league, self.language), ensure_ascii=False)

    async def serve(self) -> None:
        """Serve until cancelled; OSError when ``listen`` cannot be listened on."""
        host, port = self.listen
        runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=SHUTDOWN_S)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
            self.port = runner.addresses[0][1]
            log.info("club: the room's board is on http://%s:%d/", host, self.port)
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    async def _end_pages(self, app: web.Application) -> None:
        self._ending = True
        self.changed()

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "room.html")

    async def _room(self, request: web.Request) -> web.Response:
        return web.Response(text=self._json(), content_type="application/json")

    async def _csv(self, request: web.Request) -> web.Response:
        return web.Response(
            text=self.league.csv(),
            content_type="text/csv",
            headers={"Content-Disposition": 'attachment; filename="standings.csv"'},
        )

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The room now, then each time it changes, as server-sent events (the browser reconnects)."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        page = asyncio.Event()
        self._pages.add(page)
        try:
            while not self._ending:
                page.clear()
                await response.write(f"data: {self._json()}\n\n".encode())
                await page.wait()
        except ConnectionResetError:
            pass  # the page went away
        finally:
            self._pages.discard(page)
        return response
