"""A hostile client beside the tables, through a real mosquitto to a running club: every kind of malformed message
(tests/club/hostile.py) is logged once with its table, topic and why, set aside in the league and acknowledged, and
the legitimate game another table sends right after it is counted; nothing of the hostile table counts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from brokers import Broker, sample_lines
from clubs import Watch, mqtt, until
from hostile import START, Hostile, a_fifo, payloads
from nights import replaced

from companion.club.publisher import CURSOR, publish_journal
from companion.journal import Cursor, Journal

pytestmark = pytest.mark.slow

# What mosquitto never passes on: more than the sample's message_size_limit, a topic with a control character
DROPPED = {"nested-100000-deep", "text-20-mb", "table-name-with-esc"}


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """mosquitto with the sample's limits, anyone let in: a hostile client may publish on any table's topics (with
    the sample's ACL it is a table's login, on its own topics: the same messages)."""
    broker = Broker(tmp_path / "broker", "allow_anonymous true\n" + sample_lines("message_size_limit"))
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def send(broker: Broker, hostile: Hostile) -> None:
    """One hostile message, QoS 1, from a client of its own (the broker may drop it for a topic it refuses)."""
    with contextlib.suppress(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="hostile", timeout=5) as client:
            await client.publish(hostile.full_topic, hostile.payload, qos=1)


def set_aside(path: Path) -> list[tuple[str, str, str, int, bytes]]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT tbl, topic, why, size, head FROM set_aside ORDER BY rowid").fetchall()


def test_every_hostile_message_is_set_aside_and_the_game_after_it_counts(
    tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "companion.club")
    hostiles = payloads(a_fifo(tmp_path))
    legit = Journal(tmp_path / "legit.db")
    replaced(legit)
    path = tmp_path / "club.db"

    def counted(table: str) -> bool:
        return any(row.player.startswith(f"{table} ") for row in watch.league.standings())

    async def go() -> None:
        nonlocal watch
        async with Watch(broker, path).running() as watch:
            # the hostile table's game starts as a table's does: a forged end would finish it
            await send(broker, Hostile("start", json.dumps(START).encode(), ""))
            for k, hostile in enumerate(hostiles):
                await send(broker, hostile)
                legit.move_cursor(CURSOR, Cursor())
                await publish_journal(mqtt(broker, f"g{k}"), legit)
                await until(lambda k=k: counted(f"g{k}"))  # type: ignore[misc]
                assert watch.club.connected.is_set()
            assert not counted("evil"), "no forged end finished the hostile table's game"
        said = [record.getMessage() for record in caplog.records if "set aside" in record.getMessage()]
        async with Watch(broker, path).running():  # started again: the broker has nothing more for it
            await asyncio.sleep(1.0)
        return_said = [record.getMessage() for record in caplog.records if "set aside" in record.getMessage()]
        assert return_said == said, "every message set aside was acknowledged"

    watch: Watch
    asyncio.run(go())
    rows = set_aside(path)
    reached = [hostile for hostile in hostiles if hostile.kind not in DROPPED]
    assert len(rows) == len(reached)
    said = [record.getMessage() for record in caplog.records if "set aside" in record.getMessage()]
    assert len(said) == len(reached)
    for hostile, (table, topic, why, size, head), line in zip(reached, rows, said, strict=True):
        assert hostile.said in why, hostile.kind
        assert topic == hostile.topic and size == len(hostile.payload) and head == hostile.payload[:1024]
        assert why in line and f"on {topic}" in line and (table in line), hostile.kind
        assert line.isascii() and line.isprintable(), hostile.kind
    assert "evil" in {table for table, *_ in rows}
