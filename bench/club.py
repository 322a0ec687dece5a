"""The club (python -m bench club): what publishing costs a table's LEDs, and how far behind a club's standings run
with many tables on one broker.

**Scan to LED with publishing on.** The service of bench/daemon.py's scan-to-LED figure (asyncio, the readers'
thread, the screen's thread, the real ssd1306 driver on a bus that takes its bytes' time at 400 kHz, a wrong card
laid and lifted 120 times, 10 to 60 ms apart), its journal holding a club's history: ``HISTORY`` recorded Seises
games (about 1,500 entries each). Side by side, alternately, ``ROUNDS`` times each: publishing off; on, to a
local mosquitto, the history already published (each scan's view wakes the publisher, which finds nothing new);
on, to a broker that takes the connection and never answers; and on, to mosquitto, with the history not yet
published (a table back after an outage, or a journal that has never published: every event goes out, one round
trip each, while the player plays).

**Standings lag.** N simulated tables, each the table's own publisher (:class:`Publisher`, one MQTT connection,
each event sent once the one before it was acknowledged) on a journal of its own in memory (tmpfs: each table
has its own disk), in worker processes; one Debian mosquitto; one ``companion club`` (:class:`Club` on a
:class:`League` on this machine's disk) in this process. Each table plays recorded games (tests/games, those with
no refused line), one action every ``PLAY_S`` seconds on average (0.5 to 1.5 times it, at random) at play speed,
and that divided by the speed-up faster, for ``SECONDS``. The lag of an event runs from its table handing it to
the broker (``time.time()`` before the publish) to the club's commit of it (its ``Update.at``), the same clock
in every process. Events per second: the events the club committed over the time from the first publish to the
last commit. The tables' state messages are small (the club does not read them).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest.mock
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt

from bench.daemon import percentile, scan_to_led_in_service
from companion.club.feed import pending
from companion.club.publisher import CURSOR, Publisher
from companion.club.service import Club, Update
from companion.club.standings import League
from companion.config import GameConfig, MqttConfig, read_mqtt
from companion.daemon import Daemon
from companion.decks import load_deck
from companion.games import ending, find_kind
from companion.journal import Cursor, Entry, Journal
from companion.rules.transcript import UNDO, parse_line
from companion.view import TableView

GAMES = Path(__file__).resolve().parents[1] / "tests" / "games"
HISTORY = 20  # recorded games in the table's journal: a few nights of a club
HISTORY_GAME = "seises-won-above-50"  # 4 players, 1,499 entries
ROUNDS = 3
I2C_HZ = 400_000
PLAY_S = 3.0  # a table's mean time between actions at play speed: a card laid and confirmed
SECONDS = 15.0  # how long the tables play in each run
RUNS = ((10, 1), (100, 1), (500, 1), (10, 10), (100, 10), (500, 10), (10, 100))  # (tables, speed-up)
TABLES_A_WORKER = 125
DRAIN_S = 60.0  # how long the tables and the club may take to catch up once the play stops
# The club's broker as the sample config sets its queue (systemd/mosquitto-companion.conf); nothing saved to disk
BROKER = "max_queued_messages 100000\n"


@dataclass(frozen=True)
class Recorded:
    """A recorded game (tests/games): its settings, its entries as the table's journal has them, its outcome."""

    name: str
    settings: dict[str, Any]
    entries: tuple[tuple[str, str], ...]  # (kind, text): "action" and its line, or "undo"
    outcome: dict[str, Any]


def recorded_games() -> list[Recorded]:
    """Every recorded game a table could have played: those with a refused line are left out (a table refuses an
    illegal play before it reaches the journal)."""
    found = []
    for path in sorted(GAMES.glob("*.txt")):
        lines = path.read_text().splitlines()
        words = lines[0].lstrip("# ").split()
        if "--keep-going" in words:
            continue
        name, options = (
            words[0],
            dict(word.split("=", 1) for flag, word in itertools.pairwise(words) if flag == "--option"),
        )
        players = int(words[words.index("--players") + 1]) if "--players" in words else 4
        deck = words[words.index("--deck") + 1] if "--deck" in words else ""
        kind = find_kind(name)
        game = kind.new_game(players, load_deck(deck or kind.default_deck), options)
        entries: list[tuple[str, str]] = []
        for line in lines:
            action = parse_line(line, kind.grammar)
            if action == UNDO:
                game.pop()
                entries.append(("undo", ""))
            elif action is not None:
                game.push(action)
                entries.append(("action", line.split("#", 1)[0].strip()))
        # a recorded game that stops before its end (a match's first set) is left for a new game, as it stands
        outcome = game.outcome()
        end = ending(game, ended=True)
        termination = "replaced" if outcome is None else outcome.termination
        settings = GameConfig(name, players, deck, options).settings()
        winner = None if end is None else end.winner
        found.append(Recorded(path.stem, settings, tuple(entries), {"termination": termination, "winner": winner}))
    return found


def write_games(journal: Journal, games: list[Recorded], t: float = 0.0) -> int:
    """``games`` into ``journal``, each started, played and finished; the count of events they make."""
    events = 0
    for game in games:
        number = journal.new_game(game.settings, t)
        for kind, text in game.entries:
            t += 1.0
            journal.append_later(number, Entry(kind, text, t))
        journal.flush()
        journal.finish(number, game.outcome)
        events += len(game.entries) + 2  # its start and its end too
    return events


@contextlib.contextmanager
def mosquitto(config: str = "") -> Iterator[str]:
    """Debian's mosquitto on a free loopback port, its config ``config`` (nothing saved to disk); its url."""
    program = shutil.which("mosquitto", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
    assert program is not None, "mosquitto is missing: apt install mosquitto (make debian)"
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-broker-"))
    port = _free_port()
    (folder / "mosquitto.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n{config}")
    process = subprocess.Popen([program, "-c", str(folder / "mosquitto.conf")], stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 5
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            assert time.monotonic() < end and process.poll() is None, "mosquitto did not start"
            time.sleep(0.02)
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(5)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def stuck_broker() -> Iterator[str]:
    """A broker that takes the connection and never answers it (a machine whose broker hangs)."""
    with socket.socket() as stuck:
        stuck.bind(("127.0.0.1", 0))
        stuck.listen()
        yield f"mqtt://127.0.0.1:{stuck.getsockname()[1]}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Publishing:
    """One run of the service with publishing: its scan-to-LED times (s), the events sent meanwhile, and the
    longest read of the journal by the publisher (s, on the loop) with the events it gave."""

    times: list[float]
    sent: int = 0
    longest_read: tuple[float, int] = (0.0, 0)


def scan_to_led_publishing(url: str | None, history: list[Recorded], published: bool) -> Publishing:
    """The service whose journal holds ``history`` (``published``: the cursor past it), publishing to ``url``
    (None: publishing off)."""
    run = Publishing([])
    reads: list[tuple[float, int]] = []

    def timed_pending(*args: Any) -> list[tuple[Cursor, dict[str, Any]]]:
        start = time.perf_counter()
        found = pending(*args)
        reads.append((time.perf_counter() - start, len(found)))
        return found

    @contextlib.asynccontextmanager
    async def journal_of_a_club(daemon: Daemon) -> AsyncIterator[None]:
        table = daemon.table
        assert table is not None
        journal = table.journal
        write_games(journal, history, t=10.0)
        last = journal.last_game()
        assert last is not None
        before = Cursor(last.id, last.entries, True) if published else journal.cursor(CURSOR)
        journal.move_cursor(CURSOR, before)
        del reads[:]
        yield
        run.sent = _events_between(journal, before, journal.cursor(CURSOR))
        run.longest_read = max(reads, default=(0.0, 0))

    extra = "" if url is None else f'[mqtt]\nurl = "{url}"\ntable = "t1"\n'
    with unittest.mock.patch("companion.club.publisher.pending", timed_pending):
        run.times = [latency for latency, _ in scan_to_led_in_service(I2C_HZ, extra=extra, beside=journal_of_a_club)]
    return run


def _events_between(journal: Journal, before: Cursor, after: Cursor) -> int:
    """How many events a cursor passed going from ``before`` to ``after``."""

    def rank(cursor: Cursor) -> int:
        return sum(
            game.entries + 1 + (game.outcome is not None) for game in journal.games() if game.id < cursor.game
        ) + (cursor.seq + 1 + cursor.ended if cursor.game else 0)

    return rank(after) - rank(before)


def publishing() -> None:
    history = [game for game in recorded_games() if game.name == HISTORY_GAME] * HISTORY
    entries = sum(len(game.entries) for game in history)
    print(
        f"scan to LED with publishing (the service at {I2C_HZ // 1000} kHz, a wrong card laid and lifted 120 times; "
        f"the journal holds {len(history)} games, {entries:,} entries; {ROUNDS} rounds of each, alternately):"
    )
    runs: dict[str, list[Publishing]] = {}
    with mosquitto() as url, stuck_broker() as stuck:
        modes = {
            "publishing off": (None, True),
            "on, to mosquitto, the history published": (url, True),
            "on, to a broker that never answers": (stuck, True),
            "on, to mosquitto, the history not yet published": (url, False),
        }
        for _ in range(ROUNDS):
            for mode, (to, published) in modes.items():
                runs.setdefault(mode, []).append(scan_to_led_publishing(to, history, published))
    for mode, done in runs.items():
        ms = [t * 1e3 for run in done for t in run.times]
        longest = max(run.longest_read for run in done)
        print(
            f"  {mode}: {len(ms)} scans, p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms, "
            f"max {max(ms):.1f} ms; {sum(run.sent for run in done):,} events sent meanwhile; the longest read of the "
            f"journal on the loop {longest[0] * 1e3:.1f} ms ({longest[1]:,} events)"
        )


def tables_worker(spec: dict[str, Any]) -> None:
    """A worker process's tables (``spec``: url, names, speed, seconds, folder, seed): they play, publish, and
    catch up; then each event's (table, id, time handed to the broker) is printed, a JSON list a line."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a table: a socket, its journal and its WAL files
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    published: list[tuple[str, str, float]] = []
    publish = aiomqtt.Client.publish

    async def timed(self: aiomqtt.Client, topic: str, payload: Any = None, *args: Any, **kwargs: Any) -> None:
        if topic.endswith("/events"):
            published.append((topic.split("/")[1], json.loads(payload)["id"], time.time()))
        await publish(self, topic, payload, *args, **kwargs)

    aiomqtt.Client.publish = timed  # type: ignore[method-assign,assignment]
    asyncio.run(_tables(spec))
    for row in published:
        print(json.dumps(row))


async def _tables(spec: dict[str, Any]) -> None:
    games = recorded_games()
    rng = random.Random(spec["seed"])
    end = time.monotonic() + spec["seconds"]
    journals, runs = [], []
    for name in spec["names"]:
        journal = Journal(Path(spec["folder"]) / f"{name}.db")
        config = _broker(spec["url"], name)
        count = [0]
        publisher = Publisher(config, journal, lambda count=count: {"entries": count[0]})  # type: ignore[misc]
        journals.append(journal)
        runs.append(asyncio.create_task(publisher.run()))
        runs.append(
            asyncio.create_task(
                _play(journal, publisher, count, games, random.Random(rng.random()), spec["speed"], end)
            )
        )
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    caught_up = time.monotonic() + DRAIN_S
    while time.monotonic() < caught_up and not all(_published(journal) for journal in journals):
        await asyncio.sleep(0.1)
    for run in runs:
        run.cancel()
    await asyncio.wait(runs, timeout=10)  # each publisher says offline, or gives up saying it


def _broker(url: str, table: str) -> MqttConfig:
    config = read_mqtt({"url": url, "table": table}, "bench")
    assert config is not None
    return config


def _published(journal: Journal) -> bool:
    last = journal.last_game()
    cursor = journal.cursor(CURSOR)
    return last is None or (cursor.game, cursor.seq, cursor.ended) == (last.id, last.entries, last.outcome is not None)


async def _play(
    journal: Journal,
    publisher: Publisher,
    count: list[int],
    games: list[Recorded],
    rng: random.Random,
    speed: float,
    end: float,
) -> None:
    """Recorded games one after another, an action every ``PLAY_S / speed`` seconds on average, until ``end``."""
    view = TableView()
    t = 0.0
    while True:
        game = rng.choice(games)
        number = journal.new_game(game.settings, t)
        publisher.show(view, t)
        for kind, text in game.entries:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * PLAY_S / speed)
            if time.monotonic() >= end:
                return
            t += 1.0
            journal.append(number, Entry(kind, text, t))
            count[0] += 1
            publisher.show(view, t)
        journal.finish(number, game.outcome)
        publisher.show(view, t)


def standings_lag(tables: int, speed: float, seed: int = 1) -> dict[str, float]:
    """One run: ``tables`` tables at ``speed`` times play speed for ``SECONDS``, through one mosquitto to one club."""
    with mosquitto(BROKER) as url:
        return asyncio.run(_club_run(url, tables, speed, seed))


async def _club_run(url: str, tables: int, speed: float, seed: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-club-"))
    league = League(folder / "club.db")
    updates: dict[tuple[str, str], float] = {}

    def updated(new: list[Update]) -> None:
        for update in new:
            updates.setdefault((update.table, update.event), update.at)

    club = Club(_broker(url, "club"), league, on_update=updated)
    running = asyncio.create_task(club.run())
    await asyncio.wait_for(club.connected.wait(), 10)
    memory = Path(
        tempfile.mkdtemp(prefix="companion-bench-tables-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    )
    names = [f"t{n}" for n in range(1, tables + 1)]
    workers = []
    for first in range(0, tables, TABLES_A_WORKER):
        spec = {
            "url": url,
            "names": names[first : first + TABLES_A_WORKER],
            "speed": speed,
            "seconds": SECONDS,
            "folder": str(memory),
            "seed": seed + first,
        }
        code = f"from bench.club import tables_worker; tables_worker({spec!r})"
        workers.append(
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parents[1]
            )
        )
    published: dict[tuple[str, str], float] = {}
    for worker in workers:
        out, _ = await worker.communicate()
        for line in out.decode().splitlines():
            table, event, at = json.loads(line)
            published.setdefault((table, event), at)
    caught_up = time.monotonic() + DRAIN_S
    while time.monotonic() < caught_up and not published.keys() <= updates.keys():
        await asyncio.sleep(0.1)
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    league.close()
    shutil.rmtree(memory, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    lags = [updates[key] - at for key, at in published.items() if key in updates]
    began, ended = min(published.values()), max(updates.values())
    return {
        "events": float(len(published)),
        "missing": float(len(published.keys() - updates.keys())),
        "p50": percentile(lags, 50),
        "p99": percentile(lags, 99),
        "max": max(lags),
        "per_second": len(lags) / (ended - began),
    }


def standings() -> None:
    print(
        f"standings lag (event handed to the broker -> the club's commit), tables playing for {SECONDS:g} s, an action "
        f"every {PLAY_S:g} s at play speed (goal: 100 tables, p99 under 1 s):"
    )
    for tables, speed in RUNS:
        got = standings_lag(tables, speed)
        print(
            f"  {tables} tables at {speed:g}x ({tables * speed / PLAY_S:,.0f} actions/s): {got['events']:,.0f} events, "
            f"{got['missing']:.0f} missing; lag p50 {got['p50'] * 1e3:.0f} ms, p99 {got['p99'] * 1e3:.0f} ms, "
            f"max {got['max'] * 1e3:.0f} ms; {got['per_second']:,.0f} events/s"
        )


def main() -> None:
    print("## Club (python -m bench club)")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    publishing()
    standings()


if __name__ == "__main__":
    main()
