"""The club's broker as the shipped sample sets it up (systemd/mosquitto-companion.conf and .acl): every client logs
in, and a table may publish only under its own name; what the table does when the broker refuses it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import aiomqtt
import pytest
from brokers import Board, Broker, sample_broker

from companion.club.publisher import CURSOR, Publisher, publish_journal
from companion.config import GameConfig, read_mqtt
from companion.journal import Cursor, Entry, Journal

Until = Callable[..., Awaitable[None]]
ACCOUNTS = {"t1": "t1-secret", "club": "club-secret", "homeassistant": "house-secret"}


@pytest.fixture
def club_broker(tmp_path: Path) -> Iterator[Broker]:
    """mosquitto with the sample's logins, ACL and limits, its files in the test's folder instead of /etc/mosquitto."""
    broker = sample_broker(tmp_path / "broker", ACCOUNTS)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def a_game(path: Path) -> Journal:
    journal = Journal(path)
    game = journal.new_game(GameConfig().settings(), t=0.0)  # the default game
    journal.append(game, Entry("action", "play 6O", 1.0))
    return journal


def test_a_table_logged_in_publishes_under_its_own_name_and_the_club_reads_it(
    tmp_path: Path, club_broker: Broker, until: Until
) -> None:
    board = Board(club_broker, "club", ACCOUNTS["club"])
    mqtt = read_mqtt({"url": club_broker.url, "table": "t1", "username": "t1", "password": ACCOUNTS["t1"]}, "t")
    assert mqtt is not None
    journal = a_game(tmp_path / "journal.db")

    async def publish() -> None:
        async with board.watching():
            await publish_journal(mqtt, journal)
            await until(lambda: board.ids() == ["1:0", "1:1"] and board.status.get("t1") == "offline")

    asyncio.run(publish())
    assert journal.cursor(CURSOR) == Cursor(1, 1)


def test_a_table_that_names_another_table_s_topics_is_refused_by_the_broker(
    tmp_path: Path, club_broker: Broker, until: Until
) -> None:
    board = Board(club_broker, "club", ACCOUNTS["club"])
    mqtt = read_mqtt({"url": club_broker.url, "table": "t2", "username": "t1", "password": ACCOUNTS["t1"]}, "t")
    assert mqtt is not None
    journal = a_game(tmp_path / "journal.db")

    async def publish() -> None:
        async with board.watching():
            await publish_journal(mqtt, journal)  # MQTT 3.1.1 acknowledges a refused publish all the same
            await asyncio.sleep(0.3)

    asyncio.run(publish())
    assert board.events == [] and board.status == {} and board.state == {}
    assert "Denied PUBLISH" in club_broker.log() and "companion/t2/events" in club_broker.log()


def test_a_table_with_the_wrong_password_is_refused_keeps_its_events_and_never_logs_the_password(
    tmp_path: Path, club_broker: Broker, until: Until, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("companion.club.publisher.RETRY_S", (0.05, 0.1))
    caplog.set_level(logging.DEBUG)
    mqtt = read_mqtt({"url": club_broker.url, "table": "t1", "username": "t1", "password": "wrong-pw-42"}, "t")
    assert mqtt is not None
    journal = a_game(tmp_path / "journal.db")

    async def serve() -> None:
        with pytest.raises(aiomqtt.MqttError, match="Not authorized"):
            await publish_journal(mqtt, journal)
        publisher = Publisher(mqtt, journal, lambda: {})
        task = asyncio.create_task(publisher.run())
        await until(lambda: sum("Not authorized" in r.getMessage() for r in caplog.records) >= 3)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(serve())
    assert journal.cursor(CURSOR) == Cursor()  # nothing went: it all waits in the journal
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and club_broker.url in warnings[0].getMessage()
    assert not any("wrong-pw-42" in r.getMessage() for r in caplog.records)


def test_a_table_announces_its_home_assistant_sensors_under_its_own_name_and_home_assistant_reads_them(
    tmp_path: Path, club_broker: Broker, until: Until
) -> None:
    settings = {"url": club_broker.url, "table": "t1", "username": "t1", "password": ACCOUNTS["t1"]}
    mqtt = read_mqtt(settings | {"homeassistant": True}, "t")
    assert mqtt is not None
    journal = a_game(tmp_path / "journal.db")
    seen: dict[str, bytes] = {}

    async def publish() -> None:
        async with aiomqtt.Client(
            "127.0.0.1", club_broker.port, username="homeassistant", password=ACCOUNTS["homeassistant"]
        ) as house:
            for topic in ("homeassistant/#", "companion/#"):
                await house.subscribe(topic, qos=1)
            await publish_journal(mqtt, journal)

            async def take() -> None:
                async for message in house.messages:
                    assert isinstance(message.payload, bytes)
                    seen[message.topic.value] = message.payload

            taking = asyncio.create_task(take())
            await until(lambda: seen.get("companion/t1/status") == b"offline")
            taking.cancel()

    asyncio.run(publish())
    assert json.loads(seen["homeassistant/sensor/t1/game/config"])["state_topic"] == "companion/t1/state"
    assert json.loads(seen["companion/t1/state"])["game"] == GameConfig().name
    assert "Denied PUBLISH" not in club_broker.log()
