"""The table's page (companion.web): a card laid on a simulated zone to the page's DOM updated, in headless
Chromium (p50 and p99); what the page weighs; and what 20 connected pages cost the LEDs: scan to LED with the page
off and with 20 pages reading it, side by side.

Card to DOM: the daemon as ``companion run`` starts it (simulated readers polled every 10 ms, as the sample
config; mock pins; the real ssd1306 driver on a bus that takes its bytes' time), resumed in the middle of a Seises
hand, serves its page to Debian's headless Chromium (companion.documents.browser). A card that may be played is
laid on the zone and lifted, again and again: the page then shows the play waiting for CONFIRM, and shows it gone.
A ``MutationObserver`` in the page stamps each change of its DOM with the wall clock (``performance.timeOrigin +
performance.now()``, the clock ``time.time()`` reads, checked against it over Playwright's link); the bench
stamps the lay, and the LED pin (the table's first output) as bench/daemon.py does.

200 stalled pages: the same service, with 200 clients from one other address (127.0.0.2, a phone on the room's
network) that ask for ``/api/events`` and never read (a receive buffer of 1 KB: the kernel stops taking the
events at once); a connection the server closes is opened again a second later (a browser's EventSource waits
about 3 s), as a hostile client would. Once with
no page, once with the 200, alternately, three times each; what the server kept of them is counted.

20 pages: the service of bench/daemon.py's scan-to-LED-during-frames figure (asyncio, the readers' thread, the
screen's thread, the bus at 400 kHz), with a wrong card laid and lifted 120 times; once with no page, once with 20
pages on ``/api/events``, alternately, three times each. The pages are aiohttp clients in a process of their own:
what costs the table is the server's work in its process (the JSON built, 20 writes a change); 20 Chromium tabs
would, on this 2-core machine, mostly measure the browser drawing 20 pages on the table's cores, which phones do on
their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import unittest.mock
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from gpiozero.pins.mock import MockFactory, MockPWMPin
from playwright.async_api import Page

import companion.web.server as server
from bench.daemon import percentile, scan_to_led_in_service
from companion.config import GameConfig, parse_config
from companion.daemon import Daemon
from companion.documents.browser import Browser, chromium
from companion.documents.pages import robot_actions
from companion.events import ZoneScan
from companion.journal import Entry, Journal
from companion.rules import Play
from companion.rules.words import describe
from companion.sim.oled import FakeI2CBus
from companion.speech.sentences import utterances
from companion.table import Table
from companion.ui.display import make_device
from companion.web.page import table_json

LAYS = 200  # cards laid for the card-to-DOM figure
PLAYED = 24  # robot actions played before the bench resumes the game, as in the page's pictures in docs/web/
PAGES = 20
STALLED = 200  # stalled event streams from one address
STALLED_FROM = "127.0.0.2"
ROUNDS = 3  # of each, web off and 20 pages, alternately
I2C_HZ = 400_000

# Stamps every change of the page's DOM (the wall clock, in ms, and what #pending says then); shown(from, said)
# waits for the first stamp from index ``from`` on whose pending play is ``said``: its index + 1 and time (s).
STAMPS = """(() => {
  window.stamps = [];
  new MutationObserver(() => {
    stamps.push([performance.timeOrigin + performance.now(), document.getElementById('pending').textContent]);
    window.wake?.();
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
  window.shown = async (from, card) => {
    for (;;) {
      const i = stamps.findIndex((stamp, j) => j >= from && stamp[1].endsWith(` ${card}`));
      if (i >= 0) return [i + 1, stamps[i][0] / 1000];
      await new Promise((woken) => (window.wake = woken));
    }
  };
})()"""

# 20 pages on /api/events, in a process of their own, until its stdin closes; then how many events each got.
PAGES_PROCESS = """
import asyncio, sys
import aiohttp

async def page(session, url, counts, i):
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=None)) as events:
        async for chunk in events.content.iter_any():
            counts[i] += chunk.count(b"data: ")

async def main(url, n):
    counts = [0] * n
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = [asyncio.create_task(page(session, url, counts, i)) for i in range(n)]
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(" ".join(map(str, counts)))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


# STALLED clients from one address on /api/events that never read, each opened again once the server closes it,
# in a process of their own until its stdin closes; prints "ready" once all were opened once, then at the end how
# many times the server closed one.
STALLED_PROCESS = """
import select, socket, sys, threading, time

host, port, n, source = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
request = f"GET /api/events HTTP/1.1\\r\\nHost: {host}:{port}\\r\\n\\r\\n".encode()

def opened():
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.bind((source, 0))
    try:
        sock.connect((host, port))
        sock.sendall(request)
    except OSError:
        pass
    return sock

socks = [opened() for _ in range(n)]
print("ready", flush=True)
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
closed = 0
since = [0.0] * n  # when each was found closed
while not done.is_set():
    for i, sock in enumerate(socks):
        if since[i]:
            if time.monotonic() - since[i] > 1.0:
                socks[i], since[i] = opened(), 0.0
            continue
        try:
            gone = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            gone = False
        except OSError:
            gone = True
        if gone:
            sock.close()
            closed += 1
            since[i] = time.monotonic()
    time.sleep(0.05)
print(closed)
"""


# ---- card laid to DOM ------------------------------------------------------------------------------------------


def half_played(folder: Path, game: str) -> Path:
    """A journal holding a game of ``game`` the robots played ``PLAYED`` actions of, in English (the daemon
    resumes it: rows and lines of cards on the page, as in the middle of a game)."""
    journal = Journal(folder / "journal.db")
    game_id = journal.new_game(GameConfig(name=game, language="en").settings(), 0.0)
    for text in robot_actions(game, PLAYED):
        journal.append(game_id, Entry("action", text, 1.0))
    journal.close()
    return folder / "journal.db"


def daemon_config(folder: Path, journal: Path) -> str:
    """The sample config's readers (polled every 10 ms), the page on a free loopback port; the game, its language
    and seats come from the journal (the config's game gives only the zones)."""
    return (
        f'[readers]\nbackend = "sim"\nregistry = "{folder}/registry.toml"\n[journal]\npath = "{journal}"\n'
        '[web]\nlisten = "127.0.0.1:0"\n'
    )


@contextlib.asynccontextmanager
async def served(text: str) -> AsyncIterator[tuple[Daemon, str]]:
    daemon = Daemon(
        parse_config(text, "bench"),
        pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin),
        display=make_device([], bus=FakeI2CBus(hz=I2C_HZ, realtime=True)),
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        while daemon.web is None or daemon.web.port is None or daemon._readers is None:
            assert not task.done(), "the daemon stopped"
            await asyncio.sleep(0.01)
        yield daemon, f"http://127.0.0.1:{daemon.web.port}"
    finally:
        stop.set()
        await task


async def clock_offset(page: Page) -> tuple[float, float]:
    """The browser's wall clock minus ours (seconds), and how sure that is (half the quickest round trip)."""
    best = (0.0, float("inf"))
    for _ in range(30):
        before = time.time()
        theirs = await page.evaluate("performance.timeOrigin + performance.now()") / 1000
        after = time.time()
        if (after - before) / 2 < best[1]:
            best = (theirs - (before + after) / 2, (after - before) / 2)
    return best


def card_to_dom(browser: Browser, lays: int = LAYS, seed: int = 9) -> dict[str, Any]:
    """Per lay: seconds from the card laid to its LED, and to the page's DOM showing the play. Two cards that
    may be played are laid by turns, each lifted before the other is laid: each replaces the other's play
    waiting for CONFIRM (a lifted card stays pending, docs/DAEMON.md)."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-web-"))
    journal = half_played(folder, "seises")
    led_at: list[float] = []  # wall-clock time of each LED change a scan made
    original = Table.scan

    def stamped(self: Table, scan: ZoneScan, now: float) -> None:
        outputs = self.outputs
        lights = _Stamped(outputs[0], led_at)
        self.outputs = [lights, *outputs[1:]]
        try:
            original(self, scan, now)
        finally:
            self.outputs = outputs

    async def run() -> dict[str, Any]:
        rng = random.Random(seed)
        to_led: list[float] = []
        to_dom: list[float] = []
        async with served(daemon_config(folder, journal)) as (daemon, url), browser.page(f"{url}/") as page:
            readers: Any = daemon._readers
            game = daemon.table.referee.game  # type: ignore[union-attr]
            cards = [card.id for card in game.deck if game.reason(Play(card.id)) is None][:2]
            # the pending play as the page says it, in the table's words ("Awaiting OK: plays the 6 of coins")
            said = {card: describe(game, Play(card), daemon.table.referee.language) for card in cards}  # type: ignore[union-attr]
            await page.locator("#game table").wait_for(state="attached")
            await page.evaluate(STAMPS)
            offset, sure = await clock_offset(page)
            seen = 0
            for lay in range(lays):
                card = cards[lay % 2]
                await asyncio.sleep(rng.uniform(0.02, 0.08))  # at any moment of the readers' poll
                laid_at = time.time()
                leds = len(led_at)
                readers.put(card, "z1")
                async with asyncio.timeout(10):
                    seen, shown_at = await page.evaluate(f"shown({seen}, {json.dumps(said[card])})")
                to_dom.append(shown_at - offset - laid_at)
                to_led.append(led_at[leds] - laid_at)
                readers.take(card)
                await asyncio.sleep(0.05)  # the readers see it gone (3 empty polls)
        return {"to_led": to_led, "to_dom": to_dom, "clock": (offset, sure), "cards": cards}

    Table.scan = stamped  # type: ignore[method-assign]
    try:
        return browser.run(run())
    finally:
        Table.scan = original  # type: ignore[method-assign]


class _Stamped:
    def __init__(self, output: Any, stamps: list[float]) -> None:
        self.output, self.stamps = output, stamps

    def show(self, view: Any, now: float) -> None:
        self.output.show(view, now)
        self.stamps.append(time.time())


# ---- page weight -----------------------------------------------------------------------------------------------

WEIGHT = """performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .filter((entry) => !entry.name.endsWith('/api/events'))
  .map((entry) => [new URL(entry.name).pathname, entry.decodedBodySize])"""


def page_weight(browser: Browser, game: str) -> tuple[list[tuple[str, int]], int]:
    """The files the page loads (path, bytes), and the bytes of the state it is sent at each change."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-web-"))

    async def run() -> tuple[list[tuple[str, int]], int]:
        async with served(daemon_config(folder, half_played(folder, game))) as (_daemon, url):
            async with browser.page(f"{url}/") as page:
                await page.locator("#game table").wait_for(state="attached")
                files = [(str(path), int(size)) for path, size in await page.evaluate(WEIGHT)]
            async with aiohttp.ClientSession() as session, session.get(f"{url}/api/table") as response:
                state = len(await response.read())
        return files, state

    return browser.run(run())


# ---- 20 pages and the LEDs -------------------------------------------------------------------------------------


def scan_to_led_with_pages(pages: int, seed: int) -> tuple[list[float], dict[str, int]]:
    """Scan to LED (seconds) of every scan that changed the LED; with ``pages`` > 0, the web on and that many pages
    reading it, and what the server did: JSON built, events each page got, the news worded for the pages' voice
    (``worded`` times, ``said`` sentences; ``speech_us``: the loop's CPU time on it, ``time.thread_time``)."""
    counts = {"built": 0, "least": 0, "most": 0, "worded": 0, "said": 0, "speech_us": 0}
    if pages == 0:
        timed = scan_to_led_in_service(I2C_HZ, seed=seed)
        return [latency for latency, _ in timed], counts
    build, word, hear, speak = table_json, utterances, server.WebServer.hear, server.WebServer._speak

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts["built"] += 1
        return build(*args, **kwargs)

    def worded(*args: Any) -> Any:
        said = word(*args)
        counts["worded"] += 1
        counts["said"] += len(said)
        return said

    def cpu_timed(method: Any) -> Any:
        def on_the_loop(*args: Any) -> None:
            start = time.thread_time()
            try:
                method(*args)
            finally:
                counts["speech_us"] += round((time.thread_time() - start) * 1e6)

        return on_the_loop

    @contextlib.asynccontextmanager
    async def reading(daemon: Daemon) -> AsyncIterator[None]:
        while daemon.web is None or daemon.web.port is None:
            await asyncio.sleep(0.01)
        web = daemon.web
        process = subprocess.Popen(
            [sys.executable, "-c", PAGES_PROCESS, f"http://127.0.0.1:{web.port}/api/events", str(pages)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            while len(web._pages) < pages:
                assert process.poll() is None, "the pages' process ended"
                await asyncio.sleep(0.01)
            counts.update(built=0, worded=0, said=0, speech_us=0)
            yield
            await asyncio.sleep(0.2)  # the last change reaches the pages
        finally:
            out, _ = await asyncio.get_running_loop().run_in_executor(None, process.communicate, "")
        got = [int(n) for n in out.split()]
        counts["least"], counts["most"] = min(got), max(got)

    with (
        unittest.mock.patch.object(server, "table_json", counted),
        unittest.mock.patch("companion.web.server.utterances", worded),
        unittest.mock.patch.object(server.WebServer, "hear", cpu_timed(hear)),
        unittest.mock.patch.object(server.WebServer, "_speak", cpu_timed(speak)),
    ):
        latencies = scan_to_led_in_service(I2C_HZ, seed=seed, extra='[web]\nlisten = "127.0.0.1:0"\n', beside=reading)
    return [latency for latency, _ in latencies], counts


def scan_to_led_with_stalled(seed: int) -> tuple[list[float], dict[str, int]]:
    """Scan to LED (seconds) of every scan that changed the LED, the web on and STALLED clients of one address
    stalled on ``/api/events``; what the server kept of them (streams, connections) and closed."""
    counts = {"streams": 0, "connections": 0, "closed": 0, "refused": 0}

    @contextlib.asynccontextmanager
    async def stalling(daemon: Daemon) -> AsyncIterator[None]:
        while daemon.web is None or daemon.web.port is None or daemon.web.door is None:
            await asyncio.sleep(0.01)
        web, door = daemon.web, daemon.web.door
        process = subprocess.Popen(
            [sys.executable, "-c", STALLED_PROCESS, "127.0.0.1", str(web.port), str(STALLED), STALLED_FROM],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            ready = await asyncio.get_running_loop().run_in_executor(None, process.stdout.readline)
            assert ready.strip() == "ready", "the stalled clients' process ended"
            refused = door.refused
            yield
            counts["streams"], counts["connections"] = web.streams, door.open[STALLED_FROM]
            counts["refused"] = door.refused - refused
        finally:
            out, _ = await asyncio.get_running_loop().run_in_executor(None, process.communicate, "")
        counts["closed"] = int(out.split()[-1])

    timed = scan_to_led_in_service(I2C_HZ, seed=seed, extra='[web]\nlisten = "127.0.0.1:0"\n', beside=stalling)
    return [latency for latency, _ in timed], counts


def stalled_side_by_side(rounds: int = ROUNDS) -> tuple[list[float], list[float], list[dict[str, int]]]:
    off: list[float] = []
    on: list[float] = []
    kept: list[dict[str, int]] = []
    for round_ in range(rounds):
        off += scan_to_led_with_pages(0, seed=15 + round_)[0]
        times, counts = scan_to_led_with_stalled(seed=15 + round_)
        on += times
        kept.append(counts | {"changes": len(times)})
    return off, on, kept


def side_by_side(rounds: int = ROUNDS) -> tuple[list[float], list[float], list[dict[str, int]]]:
    off: list[float] = []
    on: list[float] = []
    served_counts: list[dict[str, int]] = []
    for round_ in range(rounds):
        off += scan_to_led_with_pages(0, seed=5 + round_)[0]
        times, counts = scan_to_led_with_pages(PAGES, seed=5 + round_)
        on += times
        served_counts.append(counts | {"changes": len(times)})
    return off, on, served_counts


# ---- report ----------------------------------------------------------------------------------------------------


def ms(values: list[float], p: float) -> str:
    return f"{percentile([v * 1e3 for v in values], p):.2f}"


def over(values: list[float], limit_s: float) -> int:
    return sum(v > limit_s for v in values)


def machine() -> str:
    load = os.getloadavg()[0]
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"


def main(argv: list[str] | None = None) -> None:
    if (argv if argv is not None else sys.argv[1:]) == ["stalled"]:  # python -m bench.web stalled: that figure alone
        print(f"machine: {machine()}")
        stalled_report()
        return
    print("## The table's page (python -m bench web)")
    print(f"machine: {machine()}")
    with chromium() as browser:
        lays = card_to_dom(browser)
        for game in ("seises", "sexto-set"):
            files, state = page_weight(browser, game)
            total = sum(size for _, size in files)
            listed = ", ".join(f"{path} {size:,}" for path, size in files)
            print(
                f"page weight, {game}: {total:,} bytes loaded ({listed}); the state it is sent: {state:,} bytes; "
                f"together {(total + state) / 1024:.1f} KB (goal 150 KB)"
            )
    to_led, to_dom = lays["to_led"], lays["to_dom"]
    offset, sure = lays["clock"]
    web = [dom - led for dom, led in zip(to_dom, to_led, strict=True)]
    print(
        f"card laid to the page's DOM, {len(to_dom)} lays of {' and '.join(lays['cards'])} (the browser's clock "
        f"{offset * 1e3:+.2f} ms from ours, known to ±{sure * 1e3:.2f} ms): p50 {ms(to_dom, 50)} ms, "
        f"p99 {ms(to_dom, 99)} ms, max {max(to_dom) * 1e3:.2f} ms, over 100 ms: {over(to_dom, 0.1)} (goal p99 100 ms)"
    )
    print(f"  card laid to LED (the readers' 10 ms poll, the table): p50 {ms(to_led, 50)}, p99 {ms(to_led, 99)} ms")
    print(f"  LED to DOM (the page's JSON, its event, the browser's drawing): p50 {ms(web, 50)}, p99 {ms(web, 99)} ms")
    off, on, counts = side_by_side()
    print(
        f"scan to LED, web off: {len(off)} scans, p50 {ms(off, 50)} ms, p99 {ms(off, 99)} ms, "
        f"over 5 ms: {over(off, 0.005)}"
    )
    print(
        f"scan to LED, {PAGES} pages: {len(on)} scans, p50 {ms(on, 50)} ms, p99 {ms(on, 99)} ms, over 5 ms: "
        f"{over(on, 0.005)} (goal: p99 at most 5 ms above the web off's)"
    )
    print(f"  p99 added by {PAGES} pages: {float(ms(on, 99)) - float(ms(off, 99)):+.2f} ms")
    for count in counts:
        print(
            f"  a round: {count['changes']} LED changes; the page's JSON built {count['built']} times for {PAGES} "
            f"pages; the pages got {count['least']} to {count['most']} events each (the first state, then one a change)"
        )
        print(
            f"    the phone's voice: the news worded {count['worded']} times for the {PAGES} pages, "
            f"{count['said']} sentences; the loop's CPU on it {count['speech_us'] / max(count['changes'], 1):.0f} us "
            "per LED change (after the LED)"
        )
    stalled_report()


def stalled_report() -> None:
    off, on, kept = stalled_side_by_side()
    print(
        f"scan to LED, web off: {len(off)} scans, p50 {ms(off, 50)} ms, p99 {ms(off, 99)} ms, "
        f"over 5 ms: {over(off, 0.005)}"
    )
    added = float(ms(on, 99)) - float(ms(off, 99))
    print(
        f"scan to LED, {STALLED} stalled event streams from one address: {len(on)} scans, p50 {ms(on, 50)} ms, "
        f"p99 {ms(on, 99)} ms ({added:+.2f} ms, x{float(ms(on, 99)) / float(ms(off, 99)):.2f} the web off's), "
        f"over 5 ms: {over(on, 0.005)} (goal: p99 at most 5 ms above the web off's)"
    )
    for count in kept:
        print(
            f"  a round: {count['changes']} LED changes; the server kept {count['streams']} streams and "
            f"{count['connections']} connections of the {STALLED}; it closed {count['closed']} (the client opened "
            f"each again a second later), {count['refused']} of them at the door"
        )


if __name__ == "__main__":
    main()
