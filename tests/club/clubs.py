"""A club on the test's loop against the tests' mosquitto (tests/brokers.py), for the tests of its service."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from brokers import Broker

from companion.club.service import Club, Update, stop
from companion.club.standings import League
from companion.config import MqttConfig, read_mqtt

__all__ = ["Watch", "mqtt", "until"]


def mqtt(broker: Broker, table: str, username: str = "", password: str = "") -> MqttConfig:
    config = read_mqtt({"url": broker.url, "table": table, "username": username, "password": password}, "test")
    assert config is not None
    return config


class Watch:
    """A club on the test's loop, with what its ``on_update`` heard; ``login`` its username and password."""

    def __init__(
        self, broker: Broker, path: Path, league: League | None = None, login: tuple[str, str] = ("", "")
    ) -> None:
        self.league = league or League(path)
        self.updates: list[Update] = []
        self.club = Club(mqtt(broker, "club", *login), self.league, on_update=self.updates.extend)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Watch]:
        task = asyncio.create_task(self.club.run())
        await asyncio.wait_for(self.club.connected.wait(), 10)
        try:
            yield self
        finally:
            await stop(task)
            self.league.close()

    def ids(self) -> list[tuple[str, str]]:
        return [(update.table, update.event) for update in self.updates]


async def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.02)
