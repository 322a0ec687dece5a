"""The page's part of the service's chaos soak (bench/soak_service.py): a hostile machine on the room's network
beside the table, for the service's whole life, and a phone that must still be served.

While the robots play, a thread of this process attacks the service's page (``[web]`` on a free loopback port; the
service runs with the unit's ``LimitNOFILE=``), a round at a time, each of one kind, the kinds in turn:

- ``idle sockets``: ``IDLE`` connections from one address that send nothing, held for a while;
- ``stalled streams``: ``STALLED`` requests for ``/api/events`` from one address that never read their answer;
- ``slow head``: a request head sent a byte at a time, slower than the page waits for;
- ``not HTTP``: garbage, a header of 10,000 bytes, a negative length: a 4xx, and one line in the log;
- ``hostile body``: a body of tests/web/test_guard.py's kinds (deep nesting, ``1e400``, ``Infinity``, integers past
  64 bits, not UTF-8, too large, ...) to a POST route: it must be answered 4xx (at this real table the routes a
  pairing opens refuse before reading a body, and the virtual table's are refused: ``/api/pair`` reads them all);
- ``cross-site``: a text/plain POST, another site's ``Origin``, another site's ``Host`` (DNS rebinding): 4xx;
- ``wrong code``: a pairing code guessed: 403, and nothing paired.

After each round a phone at another address asks for ``/api/table`` and must get it within ``SERVED_S``; the
service's descriptors stay within its limit less the table's reserve (``companion.web.guard.FD_RESERVE``). A
broken promise is a violation; a request that fails because the soak has just killed the service is not.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.web.guard import FD_RESERVE

FAULTS = ("idle sockets", "stalled streams", "slow head", "not HTTP", "hostile body", "cross-site", "wrong code")
NOFILE = 1024  # systemd/companion.service's LimitNOFILE=
IDLE = 300
STALLED = 100
SERVED_S = 5.0  # the longest the phone may wait for the page during an attack
ROUTES = ("/api/pair", "/api/seats", "/api/game", "/api/enroll", "/api/virtual/lay", "/api/virtual/press")
BODIES: tuple[bytes, ...] = (
    b"[" * 10_000,
    b'{"a":' * 2_500 + b"1" + b"}" * 2_500,
    b'{"code": 1e400, "players": 1e400, "card": 1e400}',
    b'{"code": Infinity, "players": -Infinity, "names": [NaN]}',
    b'{"players": 18446744073709551617, "game": "seises", "deck": "spanish-40"}',
    b'{"players": ' + b"9" * 5000 + b"}",
    b'{"names": ["' + b"x" * 40_000 + b'"]}',
    b'{"code": "\xff\xfe"}',
    b"code=000000",
    b"",
    b"null",
    b'"000000"',
)
NOT_HTTP: tuple[bytes, ...] = (
    b"\x00\x01\x02 \x1b[2J\r\n\r\n",
    b"GET / HTTP/1.1\r\nX: " + b"a" * 10_000 + b"\r\n\r\n",
    b"POST /api/pair HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
)
ATTACKER, STREAMER, PHONE = "127.0.0.2", "127.0.0.3", "127.0.0.4"  # machines on the room's network


class Gone(Exception):
    """The service went away under a request (the soak killed it): not the page's fault."""


@dataclass
class Target:
    """The service being attacked: its page's address and its process id."""

    url: str
    pid: int


@dataclass
class HostileNeighbour:
    """Attacks ``target()`` (None while no service serves) until stopped; counts in ``counts``."""

    target: Callable[[], Target | None]
    rng: random.Random
    counts: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hostile-neighbour", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    def _run(self) -> None:
        order: list[str] = []
        while not self._stop.is_set():
            target = self.target()
            if target is None:
                time.sleep(0.1)
                continue
            if not order:
                order = self.rng.sample(FAULTS, len(FAULTS))  # each kind in turn, in an order of the seed's
            fault = order.pop()
            self.counts[f"page: {fault}"] += 1  # injected, as the soak's other faults: a kill may cut it short
            try:
                self._round(fault, target)
            except Gone:
                continue
            except AssertionError as exc:
                if self._same(target):
                    self.violations.append(f"the page, {fault}: {exc}")
            time.sleep(self.rng.uniform(0.1, 1.0))

    def _same(self, target: Target) -> bool:
        """Whether ``target`` still serves (the soak neither killed it nor started another)."""
        return self.target() == target and _alive(target.pid)

    # ---- a round ------------------------------------------------------------------------------------------------

    def _round(self, fault: str, target: Target) -> None:
        held: list[socket.socket] = []
        try:
            if fault == "idle sockets":
                held = [s for s in (_connect(target, ATTACKER) for _ in range(IDLE)) if s is not None]
            elif fault == "stalled streams":
                for _ in range(STALLED):
                    sock = _connect(target, STREAMER, receive=1024)
                    if sock is not None:
                        _send(sock, _head(target, "GET", "/api/events"))
                        held.append(sock)
            elif fault == "slow head":
                self._slow_head(target)
            elif fault == "not HTTP":
                self._not_http(target)
            elif fault == "hostile body":
                body, route = self.rng.choice(BODIES), self.rng.choice(ROUTES)
                self.counts["page: bodies tried"] += 1
                status = self._post(target, route, body, "application/json")
                assert 400 <= status < 500, f"{body[:40]!r}... to {route}: {status}"
            elif fault == "cross-site":
                self._cross_site(target)
            else:
                status = self._post(target, "/api/pair", b'{"code": "%06d"}' % self.rng.randrange(10**6))
                assert status in (403, 429), f"a guessed pairing code: {status}"
            self._served(target)
        finally:
            for sock in held:
                sock.close()
        used = _descriptors(target.pid)
        self.counts["page: most descriptors"] = max(self.counts["page: most descriptors"], used)
        assert used <= NOFILE - FD_RESERVE or not self._same(target), f"{used} descriptors open"

    def _slow_head(self, target: Target) -> None:
        sock = _connect(target, ATTACKER)
        if sock is None:
            return
        with sock:
            started = time.monotonic()
            for byte in _head(target, "GET", "/api/table")[:-2]:  # never the blank line that ends it
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    break  # closed by the page
                time.sleep(0.3)
                if time.monotonic() - started > 30:
                    raise AssertionError("a request head sent a byte at a time is held for 30 s")

    def _not_http(self, target: Target) -> None:
        sock = _connect(target, ATTACKER)
        if sock is None:
            return
        with sock:
            _send(sock, self.rng.choice(NOT_HTTP))
            try:
                status = sock.recv(64).split(b" ")[1:2]
            except OSError:
                status = []
        assert not status or status[0].startswith(b"4"), f"a request that is not HTTP: {status}"

    def _cross_site(self, target: Target) -> None:
        lay = b'{"card": "6O", "zone": "z1"}'
        assert self._post(target, "/api/virtual/lay", lay, "text/plain") in (403, 415)
        assert self._post(target, "/api/seats", lay, origin="http://evil.example") == 403
        host = f"evil.example:{target.url.rsplit(':', 1)[1]}"
        assert self._post(target, "/api/pair", b'{"code": "000000"}', host=host) == 421

    def _served(self, target: Target) -> None:
        """The phone gets the table's state within SERVED_S."""
        started = time.monotonic()
        try:
            status, body = _ask(target, PHONE, "GET", "/api/table", None, {}, SERVED_S)
            assert status == 200, f"the phone was answered {status}: {body[:200]!r}"
            json.loads(body)
        except OSError as exc:
            if not self._same(target):
                raise Gone from None
            raise AssertionError(f"the phone was not served: {exc}") from None
        took = time.monotonic() - started
        self.counts["page: phone served"] += 1
        assert took < SERVED_S, f"the phone waited {took:.1f} s"

    def _post(
        self,
        target: Target,
        path: str,
        body: bytes,
        content_type: str = "application/json",
        origin: str | None = None,
        host: str | None = None,
    ) -> int:
        headers = (
            {"Content-Type": content_type} | ({"Origin": origin} if origin else {}) | ({"Host": host} if host else {})
        )
        try:
            return _ask(target, ATTACKER, "POST", path, body, headers, 10)[0]
        except OSError as exc:
            if not self._same(target):
                raise Gone from None
            raise AssertionError(f"POST {path}: {exc}") from None


def _head(target: Target, method: str, path: str) -> bytes:
    host = target.url.removeprefix("http://")
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()


def _connect(target: Target, source: str, receive: int = 0) -> socket.socket | None:
    host, port = target.url.removeprefix("http://").rsplit(":", 1)
    sock = socket.socket()
    if receive:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive)
    try:
        sock.bind((source, 0))
        sock.settimeout(5)
        sock.connect((host, int(port)))
    except OSError:
        sock.close()
        return None
    return sock


def _send(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # closed at the door
        sock.sendall(data)


def _ask(
    target: Target, source: str, method: str, path: str, body: bytes | None, headers: dict[str, str], timeout: float
) -> tuple[int, bytes]:
    """A request from ``source`` (a machine of its own on the room's network): its status and body."""
    host, port = target.url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


def _descriptors(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def report(counts: Counter[str], out: Callable[[str], None]) -> None:
    out(
        "page faults: "
        + ", ".join(f"{fault} {counts[f'page: {fault}']}" for fault in FAULTS)
        + f"; hostile bodies tried {counts['page: bodies tried']}, the phone served {counts['page: phone served']} "
        f"times, the service's most descriptors {counts['page: most descriptors']} (limit {NOFILE}, "
        f"{FD_RESERVE} kept for the table)"
    )
