"""The page's defences against what any machine on the room's network may send it (docs/WEB.md, "A hostile
network").

The page is served to a network the table does not choose, so nothing a client sends may stop the table, nor the
page for the others:

- **Descriptors.** Every connection holds one of the process's file descriptors, and the table's own files (the
  journal, the hub, the registry) need theirs. :class:`Door` counts the connections as they are accepted: one
  past :attr:`Limits.per_address` from its address is closed at once; when :attr:`Limits.connections` are open
  (bounded by what the process's ``RLIMIT_NOFILE`` leaves over the :data:`FD_RESERVE` kept for the table), an
  idle one of the address holding most makes way, or the new one is closed. A connection that sends no whole
  request within :attr:`Limits.idle_s` (or no next one after its last answer) is closed by aiohttp's keep-alive
  timer, which runs from the connection's first moment.
- **Event streams.** Each ``/api/events`` stream costs a write at every change of the table: there are at most
  :attr:`Limits.streams`, :attr:`Limits.streams_per_address` from one address (the server's ``_events``).
- **Who may ask.** DNS rebinding: another site's name made to point at the table lets its scripts read and post
  as if they were the table's own page; a request whose ``Host`` is not the table's (an address, or a name of the
  local network) is refused. A POST whose ``Origin`` is not the page's own is refused (another site's page), and
  the bodies taken are JSON objects only (another site's form cannot send one without asking first).
- **Bodies.** At most :attr:`Limits.body_bytes`, within :attr:`Limits.body_s`; numbers finite and within 2^53,
  nesting within what the parser takes: anything else is a 4xx that says what to send, never a 500.
- **Headers.** Every answer carries a content security policy that lets the page load and connect to the table
  only, is never framed, never sniffed, and sends no referrer.

Addresses on this machine (127.0.0.1, ::1) are not counted per address: a TLS proxy in front of the page (docs/
WEB.md) connects from there for every phone; its ``X-Forwarded-For`` names the phone.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import ipaddress
import json
import logging
import math
import os
import resource
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from companion.i18n import N_, translate

__all__ = [
    "FD_RESERVE",
    "HEADERS",
    "LIMITS",
    "WORDS",
    "Door",
    "Limits",
    "QuietBadRequests",
    "Refused",
    "client",
    "descriptors_left",
    "headers",
    "host_allowed",
    "json_body",
    "machine_names",
    "middleware",
    "say",
    "this_machine",
]

log = logging.getLogger(__name__)

FD_RESERVE = 64  # descriptors the page never takes: the journal (3), its reader (3), the hub, the registry, ...
MAX_INT = 2**53  # the largest integer a body may hold (JavaScript's exact integers; any count at a table is less)
LAN_SUFFIXES = (".local", ".lan", ".home.arpa", ".internal", ".localhost")  # names no outside site can own

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

# The refusals, said in the table's language: key -> its English msgid
WORDS: dict[str, str] = {
    "host": N_(
        "This table's page answers to its own address only: open it by the table's address (such as "
        "http://192.168.1.20:8080/) or its name on this network."
    ),
    "origin": N_("Only the table's own page may change it: open the page from the table's address and try there."),
    "json": N_("Send a JSON object (Content-Type: application/json)."),
    "not_json": N_("The body is not JSON: send a JSON object."),
    "number": N_("A number in the body is too large or not finite: send whole numbers as the page does."),
    "deep": N_("The body nests too deep: send a flat JSON object."),
    "large": N_("The body is too large: at most {bytes} bytes."),
    "slow": N_("The body took too long to arrive: send it again."),
    "streams": N_("The table serves as many live pages as it can: close another page of the table and reload."),
}


@dataclass(frozen=True)
class Limits:
    """What the page serves at most at once, and how long it waits for a client."""

    connections: int = 256  # open at once, from everyone (and within the descriptors left: Door)
    per_address: int = 24  # from one address (a phone's browser opens about 6)
    streams: int = 64  # /api/events streams, from everyone
    streams_per_address: int = 6  # from one address: a new one ends its oldest, if that one is old enough
    idle_s: float = 10.0  # a connection's time to send a whole request, from its start or its last answer
    body_bytes: int = 16 * 1024
    body_s: float = 10.0  # a body's time to arrive whole
    backlog: int = 64  # connections the kernel holds before they are accepted (accepted up to this many at once)


LIMITS = Limits()


class Refused(Exception):
    """A request refused: its HTTP error (aiohttp's class, or what makes one) and what to do, in the table's
    language."""

    def __init__(self, kind: Callable[..., web.HTTPException], text: str) -> None:
        super().__init__(text)
        self.kind, self.text = kind, text

    def http(self, text: str | None = None, content_type: str = "text/plain") -> web.HTTPException:
        """The HTTP error to raise, its body ``text`` (the sentence itself by default)."""
        return self.kind(text=self.text if text is None else text, content_type=content_type)


def say(key: str, language: str, **fields: object) -> str:
    return translate(WORDS[key], language).format(**fields)


# ---- connections ---------------------------------------------------------------------------------------------


def descriptors_left(reserve: int = FD_RESERVE) -> int:
    """The file descriptors this process may still open, less ``reserve`` (the table's own files)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError:  # not Linux: count as if half were used
        used = soft // 2
    return soft - used - reserve


class Door:
    """Counts the page's connections and closes those past the limits: the protocol factory given to the
    listening socket, wrapping aiohttp's (``runner.server``).

    A connection past its address's limit is closed at once. When all are taken, the longest-open idle
    connection (no request in it) of the address holding most is closed to let the new one in, so a flood from
    many addresses does not shut the others out for longer than its next connection; with none idle, the new one
    is closed."""

    def __init__(self, factory: Callable[[], asyncio.Protocol], limits: Limits) -> None:
        self.factory = factory
        self.limits = limits
        # A connection may hold a second descriptor (a file being sent); a whole backlog is accepted at once.
        self.most = max(1, min(limits.connections, (descriptors_left() - limits.backlog) // 2))
        self._open: dict[str, list[_Counted]] = {}  # address -> its connections, oldest first
        self.refused = 0  # connections closed at the door, since the start
        if self.most < limits.connections:
            log.warning(
                "web: at most %d connections at once, to keep %d file descriptors for the table "
                "(raise LimitNOFILE= for more)",
                self.most,
                FD_RESERVE,
            )

    def __call__(self) -> asyncio.Protocol:
        return _Counted(self, self.factory)

    @property
    def open(self) -> collections.Counter[str]:
        """Address -> connections open from it."""
        return collections.Counter({address: len(mine) for address, mine in self._open.items()})

    def admit(self, connection: _Counted) -> bool:
        address = connection.address
        mine = self._open.get(address, [])
        total = sum(len(theirs) for theirs in self._open.values())
        if (not this_machine(address) and len(mine) >= self.limits.per_address) or (
            total >= self.most and not self._evict()
        ):
            if self.refused % 100 == 0:  # a flood is logged, not each of its connections
                log.warning("web: a connection from %s refused: %d open (%d from it)", address, total, len(mine))
            self.refused += 1
            return False
        self._open.setdefault(address, []).append(connection)
        return True

    def _evict(self) -> bool:
        for mine in sorted(self._open.values(), key=len, reverse=True):
            idle = next((connection for connection in mine if connection.busy == 0), None)
            if idle is not None:
                mine.remove(idle)  # counted out now: its descriptor goes at the loop's next turn
                idle.close()
                return True
        return False

    def left(self, connection: _Counted) -> None:
        mine = self._open.get(connection.address, [])
        if connection in mine:
            mine.remove(connection)
        if not mine:
            self._open.pop(connection.address, None)


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, made only once the door admits it; ``busy``: requests being
    handled on it (the middleware counts them)."""

    def __init__(self, door: Door, factory: Callable[[], asyncio.Protocol]) -> None:
        self.door, self.factory = door, factory
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.address = ""
        self.busy = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) else ""
        self.transport = transport
        if not self.door.admit(self):
            transport.abort()
            return
        self.inner = self.factory()
        self.inner.connection_made(transport)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is not None:
            self.door.left(self)
            self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


def this_machine(address: str) -> bool:
    """Whether ``address`` is this machine's own (where a proxy in front of the page connects from). Only the
    usual two: the rest of 127.0.0.0/8 is counted as any address (the tests' other machines)."""
    return address in ("127.0.0.1", "::1", "::ffff:127.0.0.1")


def client(request: web.Request) -> str:
    """The address of the phone that sent ``request``: its peer's, or behind a proxy on this machine the last one
    the proxy put in ``X-Forwarded-For``."""
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    if forwarded and this_machine(peer):
        return forwarded.split(",")[-1].strip()
    return peer


class QuietBadRequests(logging.Filter):
    """On aiohttp's server log: a request that is not HTTP (a bad request line, headers too long, a length that is
    no number) is the client's doing, logged as one warning line with its address, not an error with a traceback
    (aiohttp logs those with the exception; only a bad method on a first request at debug)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            client = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args, record.exc_info, record.exc_text = (
                "web: a request from %s that is not HTTP: %r",
                (client, error.message),
                None,
                None,
            )
        return True


# ---- who may ask ---------------------------------------------------------------------------------------------


def host_allowed(host: str, names: frozenset[str]) -> bool:
    """Whether ``host`` (a ``Host`` header's, port and all) names the table: an address, or a name of the local
    network, which no outside site can point at it.

        >>> [host_allowed(h, frozenset({"mesa"})) for h in ("192.168.1.20:8080", "[fe80::1]:80", "mesa.local")]
        [True, True, True]
        >>> [host_allowed(h, frozenset({"mesa"})) for h in ("evil.example:8080", "", "mesa.example.com")]
        [False, False, False]
    """
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host  # a port after an address or a name
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else ""
    name = name.lower().rstrip(".")
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name in names or "." not in name or name.endswith(LAN_SUFFIXES)


def machine_names() -> frozenset[str]:
    """The names this machine answers to besides its addresses (``hostname``, and its domain's name)."""
    names = {socket.gethostname(), socket.getfqdn()}
    return frozenset(name.lower() for name in names if name)


def _same_origin(request: web.Request) -> bool:
    """A request with no ``Origin`` is no other site's page (browsers send it with every POST); one with it must
    be the page's own: the ``Host`` it was sent to, or behind a proxy on this machine the one it forwarded."""
    origin = request.headers.get("Origin")
    if origin is None:
        return request.headers.get("Sec-Fetch-Site", "same-origin") in ("same-origin", "none")
    hosts = {request.host}
    if this_machine(request.remote or "") and "X-Forwarded-Host" in request.headers:
        hosts.add(request.headers["X-Forwarded-Host"])
    return origin.lower() in {f"{scheme}://{host}".lower() for host in hosts for scheme in ("http", "https")}


def middleware(language: Callable[[], str]) -> Any:
    """The checks on every request and the headers on every answer; refusals in the table's ``language()``."""
    names = machine_names()

    @web.middleware
    async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
        if not host_allowed(request.host, names):
            log.warning(
                "web: refused %s %s from %s: Host %r", request.method, request.path, client(request), request.host
            )
            raise _refusal(web.HTTPMisdirectedRequest, say("host", language()))
        if request.method not in ("GET", "HEAD") and not _same_origin(request):
            log.warning(
                "web: refused %s %s from %s: Origin %r",
                request.method,
                request.path,
                client(request),
                request.headers.get("Origin"),
            )
            raise _refusal(web.HTTPForbidden, say("origin", language()))
        connection = request.transport.get_protocol() if request.transport is not None else None
        if not isinstance(connection, _Counted):
            return await handler(request)
        connection.busy += 1  # not idle: never closed to let another in
        try:
            return await handler(request)
        finally:
            connection.busy -= 1

    return guard


def _refusal(kind: type[web.HTTPException], text: str) -> web.HTTPException:
    return kind(text=text)


async def headers(request: web.Request, response: web.StreamResponse) -> None:
    """The headers of every answer (the application's ``on_response_prepare``: refusals and streams too)."""
    response.headers.update(HEADERS)


# ---- bodies --------------------------------------------------------------------------------------------------


async def json_body(request: web.Request, language: str, limits: Limits) -> dict[str, Any]:
    """The request's JSON object, or :class:`Refused` saying what to send. (The application's
    ``client_max_size`` is ``limits.body_bytes``: aiohttp stops reading past it.)"""
    if request.content_type != "application/json":
        raise Refused(web.HTTPUnsupportedMediaType, say("json", language))
    try:
        async with asyncio.timeout(limits.body_s):
            raw = await request.read()
    except TimeoutError:
        raise Refused(web.HTTPRequestTimeout, say("slow", language)) from None
    except web.HTTPRequestEntityTooLarge:
        too_large = functools.partial(web.HTTPRequestEntityTooLarge, limits.body_bytes, limits.body_bytes + 1)
        raise Refused(too_large, say("large", language, bytes=limits.body_bytes)) from None
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_not_finite, parse_float=_finite, parse_int=_int)
    except _NotFinite:
        raise Refused(web.HTTPBadRequest, say("number", language)) from None
    except RecursionError:
        raise Refused(web.HTTPBadRequest, say("deep", language)) from None
    except ValueError:  # not JSON, not UTF-8, an integer of more digits than Python reads
        raise Refused(web.HTTPBadRequest, say("not_json", language)) from None
    if not isinstance(body, dict):
        raise Refused(web.HTTPBadRequest, say("json", language))
    return body


class _NotFinite(ValueError):
    pass


def _not_finite(text: str) -> float:
    raise _NotFinite(text)  # NaN, Infinity, -Infinity: JSON has none


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_INT:  # 1e400 reads as infinity
        raise _NotFinite(text)
    return value


def _int(text: str) -> int:
    if len(text) > 17 or abs(value := int(text)) > MAX_INT:
        raise _NotFinite(text)
    return value
