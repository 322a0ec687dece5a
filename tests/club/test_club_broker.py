"""The club's service against a real mosquitto: tables publish their journals with the table's own publisher, the
club takes them from its persistent session, and its standings equal those the journals hold, through
duplicates, a club away while the tables play, a club killed before its commit, and a broker killed."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from brokers import Broker, sample_lines
from clubs import Watch, mqtt, until
from nights import NAMES, Night, a_night, expected, play

from companion.club.feed import pending
from companion.club.publisher import CURSOR, publish_journal
from companion.club.service import Club
from companion.club.standings import League
from companion.journal import Cursor


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """mosquitto with the sample config's queue for the club: the default (1,000 messages a client) drops what a
    club away, or busy with a backlog, has not taken (the tests below fail with it)."""
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Broker(folder, f"allow_anonymous true\n{sample_lines('max_queued_messages')}")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def publish(broker: Broker, night: Night, table: str, *, again: bool = False) -> None:
    """The table's publisher sends its journal after its cursor (``again``: from the start, as after a power cut
    that took the cursor back)."""
    journal = night.journals[table]
    if again:
        journal.move_cursor(CURSOR, Cursor())
    await publish_journal(mqtt(broker, table), journal)


def everything(night: Night) -> set[tuple[str, str]]:
    return {(table, json.loads(text)["id"]) for table, text in night.everything()}


def test_two_tables_through_the_broker_give_the_journals_standings_and_sent_again_count_once(
    tmp_path: Path, broker: Broker
) -> None:
    night = a_night(tmp_path)

    async def go() -> None:
        async with Watch(broker, tmp_path / "club.db").running() as watch:
            await asyncio.gather(publish(broker, night, "t1"), publish(broker, night, "t2"))
            await until(lambda: set(watch.ids()) == everything(night))
            assert watch.league.standings() == expected(night.journals)
            heard = len(watch.updates)
            await publish(broker, night, "t1", again=True)  # every event of t1 a second time
            await publish(broker, night, "t2", again=True)
            offline = {"t1": "offline", "t2": "offline"}
            await until(lambda: {t.table: t.status for t in watch.league.tables()} == offline)
            await asyncio.sleep(0.5)
            assert len(watch.updates) == heard, "a duplicate is no update"
            assert watch.league.standings() == expected(night.journals)
            assert len(watch.ids()) == len(set(watch.ids()))

    asyncio.run(go())


def test_a_club_away_while_the_tables_play_gets_what_they_published_meanwhile(tmp_path: Path, broker: Broker) -> None:
    night = Night(tmp_path)
    path = tmp_path / "club.db"

    async def go() -> None:
        async with Watch(broker, path).running():
            play(night.journals["t1"], "seises", 11, names=NAMES, renege=0.1)
            await publish(broker, night, "t1")
        # the club is stopped: the broker keeps its session's messages
        play(night.journals["t1"], "seises", 12, names=NAMES, renege=0.1)
        play(night.journals["t2"], "sexto-set", 13)
        await asyncio.gather(publish(broker, night, "t1"), publish(broker, night, "t2"))
        async with Watch(broker, path).running() as watch:
            await until(lambda: sum(row.played for row in watch.league.standings()) == 4 + 4 + 2)
            assert watch.league.standings() == expected(night.journals)

    asyncio.run(go())


class Killed(BaseException):
    """The club's process killed: nothing after it runs, nothing is committed."""


class Crashing(League):
    """A league whose process dies after taking ``at`` events, before committing them."""

    def __init__(self, path: Path, at: int) -> None:
        super().__init__(path)
        self.at = at

    def receive(self, table: str, payload: bytes | str) -> str | None:
        self.at -= 1
        if self.at < 0:
            raise Killed
        return super().receive(table, payload)


def test_a_club_killed_before_its_commit_gets_again_what_it_had_taken(tmp_path: Path, broker: Broker) -> None:
    """Messages are acknowledged after the commit: what the club had received but not committed, the broker
    delivers again (were they acknowledged on arrival, as a client does by default, they would be lost)."""
    night = a_night(tmp_path)
    path = tmp_path / "club.db"

    async def go() -> None:
        async with Watch(broker, path).running():
            pass  # the club's session, subscribed: the broker keeps for it what the tables publish
        await asyncio.gather(publish(broker, night, "t1"), publish(broker, night, "t2"))
        crashing = Crashing(path, at=30)  # the backlog comes at once: the first messages, and more on their heels
        club = Club(mqtt(broker, "club"), crashing)
        with contextlib.suppress(Killed):
            await asyncio.wait_for(club.run(), 20)
        crashing.close()
        async with Watch(broker, path).running() as watch:
            await until(lambda: watch.league.standings() == expected(night.journals))

    asyncio.run(go())


def test_the_broker_killed_mid_game_loses_nothing_and_doubles_nothing(tmp_path: Path, broker: Broker) -> None:
    """The broker is killed while a table sends a game (SIGKILL: no goodbye), and started again on its port: the
    table sends the rest after its cursor, and everything once more (a power cut that took its cursor back); the
    club reconnects by itself, and counts each game once."""
    night = Night(tmp_path)

    async def go() -> None:
        async with Watch(broker, tmp_path / "club.db").running() as watch:
            play(night.journals["t1"], "seises", 21, names=NAMES, renege=0.1)
            play(night.journals["t2"], "seises", 23)
            sending = asyncio.create_task(publish(broker, night, "t1"))
            await until(lambda: night.journals["t1"].cursor(CURSOR).seq >= 100, 60)  # the broker has part of it
            broker.kill()
            with pytest.raises(aiomqtt.MqttError):
                await sending
            assert night.journals["t1"].cursor(CURSOR).seq < len(pending(night.journals["t1"], Cursor())) - 1
            assert watch.league.standings() == []
            play(night.journals["t1"], "seises", 22, names=NAMES, renege=0.1)  # the table plays on meanwhile
            broker.start()
            await asyncio.gather(publish(broker, night, "t1"), publish(broker, night, "t2"))
            await publish(broker, night, "t1", again=True)
            await until(lambda: sum(row.played for row in watch.league.standings()) == 4 + 4 + 4)
            assert watch.league.standings() == expected(night.journals)
            assert len(watch.ids()) == len(set(watch.ids()))

    asyncio.run(go())
