"""The web server of the table's page, in the daemon's asyncio loop (docs/WEB.md).

It is an output of the table like the LEDs and the screen, and comes after them: :meth:`WebServer.show` only notes
the new view and asks the loop to publish it once the table's event is handled, so a card's LED never waits for
the page. Publishing builds the page's JSON once per change (several views in one turn of the loop make one) and
hands it to each connected page; a page that is slow to read gets the newest state, never a queue of old ones.

Routes: ``/`` the page, ``/static/...`` its script and style, ``/games/NAME.js`` the script that draws a game
(its kind's), ``/api/state`` the game's state as ``companion play --json`` prints it, ``/api/table`` what the
page draws, ``/api/history`` the journal's games, ``/api/events`` the page's state pushed as server-sent events,
and with it each frame the OLED was sent (the page's mirror of the panel: :meth:`WebServer.frame`) and what the table's
voice says of each event (the phone's voice: :meth:`WebServer.hear`);
``/api/virtual...`` the virtual table's input (:mod:`companion.web.virtual`).
"""

from __future__ import annotations

import asyncio
import base64
import collections
import concurrent.futures
import contextlib
import dataclasses
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from aiohttp import web
from PIL import Image

from companion.games import AnyKind, Voice, kinds
from companion.journal import Journal, JournalError
from companion.referee.history import standing
from companion.referee.news import News
from companion.rules.transcript import state
from companion.speech.sentences import Utterance, utterances
from companion.table import Table
from companion.view import Message, TableView
from companion.web import guard
from companion.web.guard import Door, Limits
from companion.web.page import Players, table_json
from companion.web.settings import PhoneSettings
from companion.web.virtual import VirtualTable, routes

__all__ = ["MESSAGES_KEPT", "WebServer", "history"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
MESSAGES_KEPT = 6  # the last messages the page lists
SHUTDOWN_S = 1.0  # how long stopping waits for requests in flight
STREAM_KEPT_S = 10.0  # an address's stream younger than this is never ended for its next one
SAID_KEPT = 8  # the sentences a page that does not read is kept, the newest (its voice says the newest first)
SAID_LEVEL = "all"  # the pages are sent every sentence, each with its weight: a page chooses which it says


@runtime_checkable
class Panel(Protocol):
    """A screen that hands out each frame it sends (:meth:`companion.ui.display.Screen.watch`)."""

    def watch(self, watcher: Callable[[Image.Image], None]) -> None: ...


class WebServer:
    """The page of ``table``, served on ``listen`` (host, port; port 0 takes a free one, then in :attr:`port`);
    ``virtual``: the page's input, at a table of simulated readers; ``limits``: what it serves at most at once
    (:data:`companion.web.guard.LIMITS`); ``screen``: the OLED, whose frames the page mirrors."""

    def __init__(
        self,
        table: Table,
        listen: tuple[str, int],
        virtual: VirtualTable | None = None,
        limits: Limits | None = None,
        screen: object = None,
    ) -> None:
        self.table = table
        self.listen = listen
        self.virtual = virtual
        self.limits = limits = limits or guard.LIMITS
        self.door: Door | None = None  # the connections, once listening
        self.port: int | None = None  # once listening
        self._view: TableView | None = None
        self._messages: collections.deque[Message] = collections.deque(maxlen=MESSAGES_KEPT)
        self._players = Players()  # who made each play, noted at each view
        self._published = ""  # the last JSON sent to the pages
        self._scheduled = False
        self._frame = ""  # the OLED's last frame, as the pages are sent it (an "oled" event's data)
        self._drawn: tuple[int, int, bytes] | None = None  # the OLED's last frame, as the screen's thread gave it
        self._heard: list[tuple[tuple[News, ...], AnyKind, Voice]] = []  # news not yet worded for the pages
        self._pages: set[_Outbox] = set()  # one a connected page
        # each address's pages, oldest first (to end its oldest for its next)
        self._streams: dict[str, collections.deque[_Stream]] = {}
        self.streams_refused = 0  # event streams refused, since the start
        self._runner: web.AppRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop it serves on, once serving
        # /api/history's one thread: requests take turns, so phones asking at once never replay the journal at once
        self._history_reader = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="web-history")
        language = lambda: table.referee.game_config.language  # noqa: E731
        app = web.Application(client_max_size=limits.body_bytes, middlewares=[guard.middleware(language)])
        app.on_response_prepare.append(guard.headers)
        app.router.add_get("/", self._index)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/games/{name}.js", self._game_script)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/table", self._table)
        app.router.add_get("/api/history", self._history)
        app.router.add_get("/api/events", self._events)
        app.router.add_routes(routes(virtual, language, limits))  # refused on a real table
        app.on_shutdown.append(self._end_pages)
        self.settings = PhoneSettings(table, limits)  # /settings: what a paired phone changes (companion.web.settings)
        self.settings.routes(app)
        self.app = app
        if isinstance(screen, Panel):
            screen.watch(self.frame)

    @property
    def streams(self) -> int:
        """The pages connected to ``/api/events``."""
        return len(self._pages)

    # ---- an output of the table -------------------------------------------------------------------------------

    def show(self, view: TableView, now: float) -> None:
        """Note ``view``; the pages get it once the loop is free (never before the LEDs and the screen)."""
        self._view = view
        self._players.note(self.table.referee)
        if view.message is not None and (not self._messages or self._messages[-1] != view.message):
            self._messages.append(view.message)
        if not self._pages or self._loop is None:
            self._published = ""  # nobody has it: the next page gets the state as it is then
        elif not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._publish)  # the demo shows between turns of its loop, not in one

    def _publish(self) -> None:
        self._scheduled = False
        text = self._json()
        if text == self._published:
            return
        self._published = text
        for page in self._pages:
            page.put("", text)

    # ---- a listener of the table: the phone's voice ---------------------------------------------------------------

    def hear(self, news: Sequence[News], kind: AnyKind, voice: Voice, now: float) -> None:
        """Note an event's news for the pages that listen; they are worded once the loop is free, as the table's
        voice words them (:func:`~companion.speech.sentences.utterances`). With no page listening, nothing: the
        sentences are built for a listener only."""
        if not self._pages or self._loop is None:
            return
        self._heard.append((tuple(news), kind, voice))
        if len(self._heard) == 1:
            self._loop.call_soon(self._speak)  # after the state's publishing: the page shows, then says

    def _speak(self) -> None:
        heard, self._heard = self._heard, []
        said = [said for news, kind, voice in heard for said in utterances(news, kind, voice, SAID_LEVEL)]
        if not said:
            return
        items = [_said_json(utterance) for utterance in said]
        for page in self._pages:
            page.say(items)

    def frame(self, image: Image.Image) -> None:
        """The frame the OLED was just sent, for the pages' mirror. Called from the screen's thread: this takes
        the picture's bits (1,024 bytes for 128x64, no encoding) and hands them to the loop, after the LEDs."""
        bits = image.convert("1").tobytes()
        self._drawn = image.width, image.height, bits  # the next page connecting gets it, even before serving
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is served
                self._loop.call_soon_threadsafe(self._mirror, image.width, image.height, bits)

    def _mirror(self, width: int, height: int, bits: bytes) -> None:
        """Each page is sent the frame as its width, height and bits (a row after another, a byte for 8 pixels,
        the leftmost its highest bit, lit when set: PIL's 1-bit layout), which its canvas draws."""
        if not self._pages:
            self._frame = ""  # nobody has it: the next page gets the last one drawn as it connects
            return
        text = json.dumps({"width": width, "height": height, "bits": base64.b64encode(bits).decode()})
        if text == self._frame:
            return
        self._frame = text
        for page in self._pages:
            page.put("oled", text)

    def _json(self) -> str:
        view = self._view or self.table.referee.view()  # a page may ask before the table first shows
        data = table_json(self.table.referee, view, self._messages, self._players)
        if self.virtual is not None:  # the hand and the pads go with every change
            data["virtual"] = self.virtual.json()
        return json.dumps(data, ensure_ascii=False)

    # ---- serving ----------------------------------------------------------------------------------------------

    async def serve(self) -> None:
        """Serve until cancelled. An address that cannot be listened on is logged, and the table goes on."""
        host, port = self.listen
        self._loop = asyncio.get_running_loop()
        server_log = logging.getLogger("aiohttp.server")
        if not any(isinstance(f, guard.QuietBadRequests) for f in server_log.filters):
            server_log.addFilter(guard.QuietBadRequests())
        # keepalive_timeout runs from a connection's first moment too: one that sends no request is closed
        self._runner = runner = web.AppRunner(
            self.app, access_log=None, shutdown_timeout=SHUTDOWN_S, keepalive_timeout=self.limits.idle_s
        )
        await runner.setup()
        listening: asyncio.Server | None = None
        try:
            assert runner.server is not None
            self.door = door = Door(runner.server, self.limits)
            try:
                listening = await self._loop.create_server(door, host, port, backlog=self.limits.backlog)
            except OSError as exc:
                log.error(
                    "web: cannot listen on %s:%d (%s): the table referees without its page; free the port or "
                    "change web.listen",
                    host,
                    port,
                    exc.strerror or exc,
                )
                return
            self.port = listening.sockets[0].getsockname()[1]
            log.info(
                "web: the table's page is on http://%s:%d/ (at most %d connections, %d from one address)",
                host,
                self.port,
                door.most,
                self.limits.per_address,
            )
            await asyncio.Event().wait()
        finally:
            if listening is not None:
                listening.close()
            await runner.cleanup()
            self._history_reader.shutdown(wait=False, cancel_futures=True)

    async def _end_pages(self, app: web.Application) -> None:
        for page in self._pages:
            page.end()

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _game_script(self, request: web.Request) -> web.FileResponse:
        kind = kinds().get(request.match_info["name"])
        script = kind.page_script() if kind is not None else None
        if script is None:
            raise web.HTTPNotFound(text=f"no game {request.match_info['name']!r} has a page script")
        return web.FileResponse(script)

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(state(self.table.referee.current_game), dumps=_dumps)

    async def _table(self, request: web.Request) -> web.Response:
        return web.Response(text=self._json(), content_type="application/json")

    async def _history(self, request: web.Request) -> web.Response:
        """The journal's games, read and replayed in the history's own thread: never on the loop, which a card's
        LED waits for (a long journal replays every game)."""
        loop = asyncio.get_running_loop()
        try:
            path, lang = self.table.journal.path, self.table.referee.game_config.language
            listed = await loop.run_in_executor(self._history_reader, history, path, lang)
        except JournalError as exc:
            raise web.HTTPServiceUnavailable(text=str(exc)) from None
        return web.json_response(listed, dumps=_dumps)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The page's state now, then each time it changes, as server-sent events (the browser reconnects)."""
        address, now = guard.client(request), asyncio.get_running_loop().time()
        mine = self._streams.get(address) or collections.deque()
        full = len(self._pages) >= self.limits.streams or (
            len(mine) >= self.limits.streams_per_address and not guard.this_machine(address)
        )
        if full and (not mine or now - mine[0].started < STREAM_KEPT_S):
            # none of this address's to end, or none that a phone that slept could have left: a client streaming
            # again and again is refused, not given another's place
            self.streams_refused += 1
            if self.streams_refused % 100 == 1:
                log.warning("web: event streams from %s refused: %d open, %d from it", address, self.streams, len(mine))
            language = self.table.referee.game_config.language
            raise web.HTTPServiceUnavailable(text=guard.say("streams", language), headers={"Retry-After": "10"})
        if full:
            mine.popleft().end()  # a phone that slept and came back on a new connection: its oldest
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        stream = _Stream(_Outbox(), request, now)
        self._pages.add(stream.page)
        self._streams[address] = mine
        mine.append(stream)
        try:
            # the state as last published, if a page has it: a page connecting costs no new JSON
            self._published = self._published or self._json()
            stream.page.put("", self._published)
            if self._drawn is not None and not self._frame:  # drawn before the server had a loop
                self._mirror(*self._drawn)
            if self._frame:
                stream.page.put("oled", self._frame)
            while (events := await stream.page.get()) is not None:
                # the state as the stream's plain messages, the frame as "oled" events, the sentences as "speech"
                await response.write("".join(_event(name, text) for name, text in events).encode())
        except ConnectionResetError:
            pass  # the page went away
        finally:
            self._pages.discard(stream.page)
            with contextlib.suppress(ValueError):
                mine.remove(stream)
            if not mine and self._streams.get(address) is mine:
                del self._streams[address]
        return response


@dataclasses.dataclass(eq=False)
class _Stream:
    """A page connected to ``/api/events``: what it is sent next, its request, since when (the loop's clock)."""

    page: _Outbox
    request: web.Request
    started: float

    def end(self) -> None:
        """End it at once, even when it is stalled on a write the client never reads."""
        self.page.end()
        if self.request.transport is not None:
            self.request.transport.abort()


class _Outbox:
    """What a page is sent next: the newest of each event (the state, the OLED's frame), never a queue of old ones,
    since a page only needs the newest; the sentences said since it last read (the newest :data:`SAID_KEPT`), as one
    "speech" event after the state; or the end."""

    def __init__(self) -> None:
        self._waiting: dict[str, str] = {}
        self._said: list[dict[str, str]] = []
        self._ended = False
        self._ready = asyncio.Event()

    def put(self, event: str, text: str) -> None:
        self._waiting[event] = text  # replaces what the page has not read yet
        self._ready.set()

    def say(self, items: list[dict[str, str]]) -> None:
        self._said = [*self._said, *items][-SAID_KEPT:]
        self._ready.set()

    def end(self) -> None:
        self._ended = True
        self._ready.set()

    async def get(self) -> list[tuple[str, str]] | None:
        """The events waiting, once there are any, in the order they first came; None once ended."""
        await self._ready.wait()
        self._ready.clear()
        if self._ended:
            return None
        events = list(self._waiting.items())
        self._waiting.clear()
        if self._said:
            events.append(("speech", json.dumps(self._said, ensure_ascii=False)))
            self._said = []
        return events


def history(path: Path, lang: str) -> list[dict[str, Any]]:
    """The games of the journal at ``path``, each with its score and winner in ``lang`` (what ``companion history``
    prints).

    It opens the file read-only, a connection of its own: the table's connection stays the loop's alone, and
    SQLite's WAL lets this one read while the table writes."""
    if not path.is_file():
        return []  # no game yet
    journal = Journal.read_only(path)
    try:
        listed: list[dict[str, Any]] = []
        for game in journal.games():
            where, name = standing(game, journal), str(game.settings.get("game"))
            listed.append(
                {
                    "id": game.id,
                    "game": name,
                    "title": kinds()[name].title(lang) if name in kinds() else name,  # as players write it
                    "wall": game.wall,
                    "entries": game.entries,
                    "score": where.score.text(lang) if where.score else "",
                    "winner": where.winner.text(lang) if where.winner else None,
                    "outcome": game.outcome,
                    "damage": where.damage,
                }
            )
        return listed
    finally:
        journal.close()


def _said_json(utterance: Utterance) -> dict[str, str]:
    """A sentence as the page's voice takes it: its words, its language, and what it is (``turn``, ``news``,
    ``refusal``, ``result``: which the page's level says, and which goes stale)."""
    return {"text": utterance.text, "lang": utterance.lang, "weight": utterance.weight.name.lower()}


def _event(name: str, text: str) -> str:
    return f"event: {name}\ndata: {text}\n\n" if name else f"data: {text}\n\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
