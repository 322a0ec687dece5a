"""The page on a hostile network (companion.web.guard): a flood of idle connections or stalled event streams from
one address leaves the page to the others and the table its file descriptors; another site's page (a cross-site
POST, DNS rebinding) cannot play or pair; hostile bodies get a 4xx that says what to send, never a 500; every
answer carries the security headers. Clients on other addresses of this machine (127.0.0.2, ...) stand for other
machines on the room's network."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import expect
from systemd_units import unit_settings
from test_settings import Served, phone, served
from test_virtual import virtual_table
from test_web_server import until

import companion.sim as sim
import companion.web.guard as guard
import companion.web.server as server
from companion.documents.browser import Browser
from companion.journal import Journal
from companion.web.guard import HEADERS, Limits

SMALL = Limits(per_address=8, streams_per_address=3, idle_s=0.5)


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> Limits:
    monkeypatch.setattr(guard, "LIMITS", SMALL)
    return SMALL


async def connection(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def closed(reader: asyncio.StreamReader, timeout: float) -> bool:
    """Whether the server closed the connection within ``timeout`` (what it sent before is read and dropped)."""
    try:
        async with asyncio.timeout(timeout):
            while await reader.read(1 << 16):
                pass
            return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


# ---- descriptors: idle connections, stalled streams -----------------------------------------------------------


def test_idle_connections_from_one_address_are_capped_and_timed_out(tmp_path: Path, small: Limits) -> None:
    async def flood() -> tuple[int, int, int, float, int]:
        async with served(tmp_path) as table, phone("127.0.0.3") as other:
            web = table.daemon.web
            assert web is not None and web.port is not None and web.door is not None
            sockets = [await connection(web.port, "127.0.0.2") for _ in range(300)]
            await until(lambda: web.door is not None and web.door.refused >= 300 - small.per_address)
            kept = web.door.open["127.0.0.2"]
            started = time.monotonic()
            async with other.get(f"{table.url}/api/table") as response:
                assert response.status == 200
            served_in = time.monotonic() - started
            ends = await asyncio.gather(*(closed(reader, small.idle_s + 2.0) for reader, _ in sockets))
            for _, writer in sockets:
                writer.close()
            return kept, web.door.refused, sum(ends), served_in, web.door.open["127.0.0.2"]

    kept, refused, ended, served_in, left = asyncio.run(flood())
    assert kept == SMALL.per_address and refused == 300 - SMALL.per_address, "capped per address at the door"
    assert served_in < 1.0, "the page is served to another address at once"
    assert ended == 300 and left == 0, "the connections kept are closed once idle_s passes without a request"


def test_a_slow_request_head_is_timed_out(tmp_path: Path, small: Limits) -> None:
    """A client sending its request one byte at a time never gets a whole request in: closed at idle_s."""

    async def slowly() -> tuple[bool, float]:
        async with served(tmp_path) as table:
            assert table.daemon.web is not None and table.daemon.web.port is not None
            reader, writer = await connection(table.daemon.web.port, "127.0.0.2")
            started = time.monotonic()
            head = b"GET /api/table HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
            for byte in head:
                writer.write(bytes([byte]))
                if reader.at_eof() or writer.is_closing():
                    break
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        if await reader.read(1) == b"":
                            break
            writer.close()
            return reader.at_eof() or time.monotonic() - started < len(head) * 0.05, time.monotonic() - started

    ended, took = asyncio.run(slowly())
    assert ended and took < SMALL.idle_s + 1.5, took


def test_stalled_event_streams_from_one_address_are_capped(
    tmp_path: Path, small: Limits, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streams that never read, ten from one address at once: it keeps its share, the others are refused; a new one
    once its oldest is STREAM_KEPT_S old ends that one (a phone that slept; the refused ones' connections have
    been closed as idle by then); another address's page gets the table."""
    monkeypatch.setattr(server, "STREAM_KEPT_S", 0.5)

    async def stall() -> tuple[list[bytes], list[int], bytes, bool, int, bytes]:
        async with served(tmp_path) as table, phone("127.0.0.3") as other:
            web = table.daemon.web
            assert web is not None and web.port is not None
            request = b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            stalled, answers, counts = [], [], []
            for _ in range(10):
                reader, writer = await connection(web.port, "127.0.0.2")
                writer.write(request)
                stalled.append((reader, writer))
                answers.append((await reader.readline()).strip())  # its status; it reads no more
                counts.append(web.streams)
            await asyncio.sleep(0.6)
            reader, writer = await connection(web.port, "127.0.0.2")
            writer.write(request)
            later = (await reader.readline()).strip()
            oldest_ended = await closed(stalled[0][0], 2.0)
            async with other.get(f"{table.url}/api/events") as events:
                first = await events.content.readuntil(b"\n\n")
            streams = web.streams
            for _, stalled_writer in [*stalled, (reader, writer)]:
                stalled_writer.close()
            return answers, counts, later, oldest_ended, streams, first

    answers, counts, later, oldest_ended, streams, first = asyncio.run(stall())
    ok, refused = b"HTTP/1.1 200 OK", b"HTTP/1.1 503 Service Unavailable"
    # three streams, refusals while the address has connections to spare (8), then closed at the door
    assert answers == [ok] * 3 + [refused] * 5 + [b""] * 2 and counts == [1, 2, 3, 3, 3, 3, 3, 3, 3, 3]
    assert later == ok and oldest_ended, "a stream once the oldest is old enough ends the oldest"
    assert streams == small.streams_per_address + 1, "the address's share, and the other address's page"
    assert first.startswith(b"data: {"), "another address's page gets the table"


def test_this_machine_is_not_counted_per_address(tmp_path: Path, small: Limits) -> None:
    """127.0.0.1 is a proxy in front of the page, for every phone: more connections and streams than one address's
    share."""

    async def stream() -> tuple[int, int]:
        async with served(tmp_path) as table, aiohttp.ClientSession() as session:
            web = table.daemon.web
            assert web is not None and web.door is not None
            n = small.per_address + 2
            pages = [await session.get(f"{table.url}/api/events") for _ in range(n)]
            for page in pages:
                await page.content.readuntil(b"\n\n")
            kept = web.streams, web.door.open["127.0.0.1"]
            for page in pages:
                page.close()
            return kept

    assert asyncio.run(stream()) == (SMALL.per_address + 2,) * 2


# ---- other sites ---------------------------------------------------------------------------------------------


async def send(
    session: aiohttp.ClientSession, url: str, data: bytes, content_type: str, **headers: str
) -> tuple[int, str]:
    async with session.post(url, data=data, headers={"Content-Type": content_type, **headers}) as response:
        return response.status, await response.text()


def test_another_sites_requests_play_nothing(tmp_path: Path) -> None:
    """A cross-site form (text/plain, urlencoded), a script of another origin, a page reached by another site's
    name (DNS rebinding): refused, and no card goes on the table; the page's own request lays it."""
    lay = json.dumps({"card": "6O", "zone": "z1"}).encode()

    async def attack() -> tuple[dict[str, tuple[int, str]], dict[str, str]]:
        async with virtual_table(tmp_path) as (daemon, url, _bus), aiohttp.ClientSession() as session:
            readers: Any = daemon._readers
            port = url.rsplit(":", 1)[1]
            answers = {
                "text/plain": await send(session, f"{url}/api/virtual/lay", lay, "text/plain"),
                "form": await send(
                    session, f"{url}/api/virtual/lay", b"card=6O&zone=z1", "application/x-www-form-urlencoded"
                ),
                "origin": await send(
                    session, f"{url}/api/virtual/lay", lay, "application/json", Origin="http://evil.example"
                ),
                "cross-site": await send(
                    session, f"{url}/api/virtual/lay", lay, "application/json", **{"Sec-Fetch-Site": "cross-site"}
                ),
                "rebound": await send(
                    session,
                    f"{url}/api/virtual/lay",
                    lay,
                    "application/json",
                    Host=f"evil.example:{port}",
                    Origin=f"http://evil.example:{port}",
                ),
                "pair": await send(
                    session, f"{url}/api/pair", b'{"code": "123456"}', "application/json", Origin="http://evil.example"
                ),
            }
            async with session.get(f"{url}/api/table", headers={"Host": f"evil.example:{port}"}) as response:
                answers["rebound read"] = response.status, await response.text()
            lying = dict(readers.lying())
            answers["own"] = await send(
                session, f"{url}/api/virtual/lay", lay, "application/json", Origin=f"http://127.0.0.1:{port}"
            )
            return answers, lying

    answers, lying = asyncio.run(attack())
    assert lying == {}, "nothing another site sent laid a card"
    assert answers["text/plain"][0] == answers["form"][0] == 415
    assert answers["text/plain"][1] == "Send a JSON object (Content-Type: application/json)."
    assert answers["origin"][0] == answers["cross-site"][0] == answers["pair"][0] == 403
    assert answers["origin"][1].startswith("Only the table's own page may change it")
    assert answers["rebound"][0] == answers["rebound read"][0] == 421
    assert answers["rebound"][1].startswith("This table's page answers to its own address only")
    assert answers["own"][0] == 200, answers["own"]


# ---- hostile bodies ------------------------------------------------------------------------------------------

BODIES: dict[str, bytes] = {
    "1e400": b'{"card": 1e400, "zone": "z1", "button": 1e400, "code": 1e400, "names": [1e400]}',
    "Infinity": b'{"card": Infinity, "zone": "z1", "players": Infinity, "code": Infinity}',
    "-Infinity": b'{"players": -Infinity, "button": -Infinity}',
    "NaN": b'{"players": NaN, "code": NaN}',
    "big integer": b'{"players": 1' + b"0" * 400 + b', "code": 1' + b"0" * 400 + b"}",
    "past 64 bits": b'{"players": 18446744073709551617, "game": "seises", "deck": "spanish-40"}',
    "4301 digits": b'{"players": ' + b"9" * 4301 + b"}",
    "deep list": b"[" * 10_000,
    "deep object": b'{"a":' * 2_500 + b"1" + b"}" * 2_500,
    "too large": b'{"names": ["' + b"x" * 40_000 + b'"]}',
    "not UTF-8": b'{"card": "\xff\xfe"}',
    "not JSON": b"card=6O",
    "empty": b"",
    "a list": b'["confirm"]',
    "a string": b'"6O"',
    "null": b"null",
}
# Objects the parser takes: a route refuses what it cannot use (enroll takes any object: it reads none of it)
ODD: dict[str, bytes] = {
    "wrong types": b'{"card": {"a": 1}, "zone": [], "button": null, "long": "yes", "code": [], "names": "Ana", '
    b'"game": 7, "deck": {}, "players": "four", "language": []}',
    "control characters": b'{"card": "\\u0000\\u001b[2J", "zone": "z1\\u202e", "code": "\\u0007"}',
}
ROUTES = ("virtual/lay", "virtual/lift", "virtual/press", "pair", "seats", "game", "enroll", "enroll/stop")


def test_hostile_bodies_get_a_4xx_that_says_what_to_send(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Every body at every POST route, from a paired phone at a virtual table: the parser's refusals a 4xx
    everywhere, odd objects never a 500; never a traceback."""

    async def throw() -> dict[tuple[str, str], tuple[int, str]]:
        answers = {}
        async with virtual_table(tmp_path) as (daemon, url, bus):
            table = Served(daemon, bus, url)
            async with phone() as session:
                code = await table.pairing_code()
                status, _ = await send(
                    session, f"{url}/api/pair", json.dumps({"code": code}).encode(), "application/json"
                )
                assert status == 200
                for name, body in (BODIES | ODD).items():
                    for route in ROUTES:
                        answers[(name, route)] = await send(session, f"{url}/api/{route}", body, "application/json")
        return answers

    with caplog.at_level(logging.ERROR):
        answers = asyncio.run(throw())
    wrong = {key: answer for key, answer in answers.items() if not 400 <= answer[0] < 500 and key[0] in BODIES}
    assert not wrong, wrong
    assert all(answer[0] < 500 for answer in answers.values()), answers
    assert all(answer[1] for answer in answers.values()), "each refusal says what to do"
    assert answers[("1e400", "virtual/lay")] == (400, guard.WORDS["number"].format())
    assert answers[("deep list", "seats")][0] == 400 and "nests too deep" in answers[("deep list", "seats")][1]
    assert answers[("too large", "seats")][0] == 413
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


def test_requests_that_are_not_http_get_a_4xx_and_log_one_line_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    heads = [
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X: " + b"a" * 10_000 + b"\r\n\r\n",
        b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n",
        b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n",
    ]

    async def send_all() -> list[bytes]:
        answers = []
        async with served(tmp_path) as table:
            assert table.daemon.web is not None and table.daemon.web.port is not None
            for head in heads:
                reader, writer = await connection(table.daemon.web.port, "127.0.0.2")
                writer.write(head)
                answers.append((await reader.readline()).strip())
                writer.close()
        return answers

    with caplog.at_level(logging.WARNING):
        answers = asyncio.run(send_all())
    assert all(answer.split()[1].startswith(b"4") for answer in answers), answers
    said = [r.getMessage() for r in caplog.records if "that is not HTTP" in r.getMessage()]
    assert len(said) >= 4 and all("from 127.0.0.2" in line for line in said), "one line each, with the address"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


# ---- headers -------------------------------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    async def ask() -> dict[str, dict[str, str]]:
        seen = {}
        async with virtual_table(tmp_path) as (_daemon, url, _bus), aiohttp.ClientSession() as session:
            for path in (
                "/",
                "/static/table.js",
                "/games/seises.js",
                "/api/table",
                "/settings",
                "/nothing",
                "/api/events",
            ):
                async with session.get(f"{url}{path}") as response:
                    seen[path] = dict(response.headers)
            async with session.post(
                f"{url}/api/virtual/lay", data=b"x", headers={"Content-Type": "text/plain"}
            ) as response:
                seen["415"] = dict(response.headers)
        return seen

    seen = asyncio.run(ask())
    for path, headers in seen.items():
        assert {name: headers.get(name) for name in HEADERS} == HEADERS, path
    assert "frame-ancestors 'none'" in HEADERS["Content-Security-Policy"]


def test_the_pages_draw_under_their_content_security_policy(tmp_path: Path, browser: Browser) -> None:
    """The table's page and the settings page load, draw and play with the policy on: nothing it refuses (the
    browser's reports, from the page's first moment); what another site would inject is refused."""
    refused = """new Promise((done) => {
      const watch = new ReportingObserver((reports) => done(reports.map((report) => report.body.effectiveDirective)),
        { types: ["csp-violation"], buffered: true });
      watch.observe();
      setTimeout(() => done(watch.takeRecords().map((report) => report.body.effectiveDirective)), 500);
    })"""

    async def look() -> tuple[list[str], list[str], str, list[str]]:
        async with virtual_table(tmp_path) as (_daemon, url, _bus):
            async with browser.page(f"{url}/") as page:
                await page.locator('#hand [data-card="6O"]').click()
                await expect(page.locator("#pending")).not_to_have_text("")
                table = await page.evaluate(refused)
                pending = await page.locator("#pending").text_content()
                await page.evaluate("document.body.append(Object.assign(new Image(), {src: 'http://192.0.2.1/x.png'}))")
                injected = await page.evaluate(refused)
            async with browser.page(f"{url}/settings") as page:
                await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
                settings = await page.evaluate(refused)
        return table, settings, pending, injected

    table, settings, pending, injected = browser.run(look())
    assert table == settings == [] and pending, "nothing of the table's own pages is refused"
    assert pending == "Awaiting OK: plays the 6 of coins", "the play that waits, in the table's words"
    assert injected == ["img-src"]


# ---- the service's descriptors ----------------------------------------------------------------------------------

NOFILE = 256


@contextlib.contextmanager
def limited_service(folder: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``companion run`` on a virtual table, its descriptors limited to NOFILE; its page's address."""
    config = folder / "config.toml"
    config.write_text(
        f'[readers]\nbackend = "sim"\nregistry = "{folder / "registry.toml"}"\n'
        f'[journal]\npath = "{folder / "journal.db"}"\n[web]\nlisten = "127.0.0.1:0"\n'
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))

    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"},
        cwd=folder,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "the table's page is on " in line:
                yield process, line.split("the table's page is on ")[1].split()[0].rstrip("/")
                break
        else:
            raise AssertionError("the service did not serve its page")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_the_unit_gives_the_page_its_connections_and_the_table_its_reserve() -> None:
    """The unit's LimitNOFILE= holds the page's connections (two descriptors each, a backlog accepted at once) over
    the table's reserve and what a service has open at start."""
    unit = Path(__file__).parents[2] / "systemd" / "companion.service"
    (nofile,) = unit_settings(unit.read_text())["LimitNOFILE"]
    at_start = len(os.listdir("/proc/self/fd")) + 32  # this process's, and the table's own (readers, screen, MQTT)
    assert (int(nofile) - at_start - guard.FD_RESERVE - guard.LIMITS.backlog) // 2 >= guard.LIMITS.connections


@pytest.mark.slow
def test_a_flood_of_connections_leaves_the_service_its_files(tmp_path: Path) -> None:
    """1,200 connections from 40 addresses, against a service of NOFILE descriptors: it keeps FD_RESERVE for its
    own files; the journal is read (the history opens it) and written (a card played from the page), the page
    answers, and nothing says it ran out of descriptors."""

    async def flood(process: subprocess.Popen[str], url: str) -> tuple[int, int, Any]:
        port = int(url.rsplit(":", 1)[1])
        sockets = []
        most = 0
        with contextlib.suppress(TimeoutError):  # a service out of descriptors accepts no more: the flood ends
            async with asyncio.timeout(30):
                for n in range(40):
                    for _ in range(30):
                        with contextlib.suppress(OSError):
                            sockets.append(await connection(port, f"127.0.0.{10 + n}"))
                    most = max(most, len(os.listdir(f"/proc/{process.pid}/fd")))
        async with phone("127.0.0.3") as other:
            async with other.get(f"{url}/api/history") as response:
                history = response.status
            for body in ({"card": "6O", "zone": "z1"}, {"button": "confirm"}):
                what = "lay" if "card" in body else "press"
                if what == "press":
                    await asyncio.sleep(0.5)
                async with other.post(f"{url}/api/virtual/{what}", json=body) as response:
                    assert response.status == 200, await response.text()
            plays: list[str] = []
            for _ in range(100):
                async with other.get(f"{url}/api/table") as response:
                    plays = (await response.json())["plays"]
                if plays:
                    break
                await asyncio.sleep(0.1)
        for _, writer in sockets:
            writer.close()
        return most, history, plays

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    try:
        with limited_service(tmp_path) as (process, url):
            most, history, plays = asyncio.run(flood(process, url))
            process.terminate()
            log = process.communicate(timeout=20)[1]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert most <= NOFILE - guard.FD_RESERVE, f"{most} descriptors open"
    journal = Journal.read_only(tmp_path / "journal.db")
    game = journal.last_game()
    written = [entry.text for entry in journal.entries(game.id)] if game is not None else []
    journal.close()
    assert history == 200 and plays == ["play 6O"] and "play 6O" in written, "the journal opened and written"
    assert "Too many open files" not in log and "Traceback" not in log, log
    assert process.returncode == 0
