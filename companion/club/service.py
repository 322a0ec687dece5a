"""``companion club``'s link to the broker: every table's events into the league (:mod:`companion.club.standings`).

It subscribes to ``companion/+/events`` and ``companion/+/status`` with QoS 1 in a **persistent session** (a fixed
client id, ``clean_session`` false), so the broker keeps what the tables publish while the club is away and
delivers it when it is back. A message is acknowledged (PUBACK) only once the league has **committed** it to disk:
a club killed between the two gets it again, and the league, idempotent on the event ids, takes it once. The
messages that arrive together are committed together (one disk sync for a burst), then acknowledged, then
:attr:`Club.on_update` hears of the new events::

    club = Club(broker, League("club.db"), on_update=lambda updates: print(updates))
    await club.run()  # until cancelled; a lost broker is tried again, never raised
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
import paho.mqtt.client as paho

from companion.club import schema
from companion.club.schema import BadMessage
from companion.club.standings import BadEvent, League
from companion.config import MqttConfig

__all__ = ["CLIENT_ID", "Club", "Update", "games", "stop"]

log = logging.getLogger(__name__)

# The club's session on the broker. A table's client id is companion-<table>, and a table's name has no dot, so no
# table takes it by mistake; a broker that binds client ids to usernames (the sample's use_username_as_clientid)
# gives the club its login's name instead, so that no other login can take it on purpose.
CLIENT_ID = "companion.club"
TOPICS = ("companion/+/events", "companion/+/status")
RETRY_S = (1.0, 30.0)  # after a failed connection: the first wait, doubled up to the last
STOP_S = 0.5  # how long a cancelled task has before it is cancelled again
BATCH = 200  # at most this many messages a commit, so a long backlog is acknowledged as it goes


@dataclass(frozen=True, slots=True)
class Update:
    """A new event of a table, durable in the league since ``at`` (``time.time()`` just after its commit)."""

    table: str
    event: str  # its id, <game>:<seq> or <game>:end
    at: float


class Club:
    """The league of ``league`` fed by the tables on ``broker``; :meth:`run` is its task. ``on_update`` hears of
    each commit's new events (the room's page redraws; a benchmark times the lag)."""

    def __init__(
        self,
        broker: MqttConfig,
        league: League,
        *,
        on_update: Callable[[list[Update]], None] | None = None,
        identifier: str = CLIENT_ID,
    ) -> None:
        self.broker, self.league, self.on_update, self.identifier = broker, league, on_update, identifier
        self.connected = asyncio.Event()  # set while subscribed
        self._missing: dict[str, list[tuple[int, int]]] = {}  # each table's games that never came, as last said

    async def run(self) -> None:
        """Connect, subscribe and take every message; on a lost broker, try again (never raises)."""
        retry = RETRY_S[0]
        while True:
            try:
                client = self._client()
                async with client:
                    for topic in TOPICS:
                        await client.subscribe(topic, qos=1)
                    self.connected.set()
                    retry = RETRY_S[0]
                    log.info("club: reading the tables on %s", self.broker.url)
                    await self._take(client)
            except (aiomqtt.MqttError, OSError) as exc:
                say = log.warning if retry == RETRY_S[0] else log.debug  # said once an outage
                say("club: %s: %s; trying again from %g s", self.broker.url, exc, retry)
            except sqlite3.Error as exc:  # the disk: what was not committed is not acknowledged, and comes again
                log.error("club: cannot write the league %s (%s); trying again in %g s", self.league.path, exc, retry)
            self.connected.clear()
            await asyncio.sleep(retry)
            retry = min(retry * 2, RETRY_S[1])

    async def _take(self, client: aiomqtt.Client) -> None:
        """Each message into the league; when none more waits (or a batch is full), commit, then acknowledge."""
        taken: list[aiomqtt.Message] = []
        new: list[tuple[str, str]] = []
        try:
            async for message in client.messages:
                taken.append(message)
                new += self._receive(message)
                if len(client.messages) == 0 or len(taken) >= BATCH:
                    self.league.commit()
                    at = time.time()
                    for done in taken:
                        if done.qos:
                            _paho(client).ack(done.mid, done.qos)
                    self._look_for_gaps({table for table, _ in new})
                    if new and self.on_update is not None:
                        self.on_update([Update(table, event, at) for table, event in new])
                    taken, new = [], []
        finally:
            self.league.rollback()  # what was taken and not committed comes again: the broker has no ack for it

    def _receive(self, message: aiomqtt.Message) -> list[tuple[str, str]]:
        """The message into the league once :mod:`companion.club.schema` has checked it: the new event's (table,
        id), if it was one. A message that is no table's is logged, set aside in the league and taken (its
        acknowledgement goes with the others'): left unacknowledged, the broker would give it again at every start."""
        parts = message.topic.value.split("/")
        name, topic = parts[1], parts[2]
        payload = bytes(message.payload)  # what paho received, as it received it
        try:
            table = schema.table(name)
            if topic == "status":
                self.league.status(table, schema.status(payload))
                return []
            schema.event(payload)
            event = self.league.receive(table, payload)
        except (BadMessage, BadEvent) as exc:
            shown = schema.shown(name)
            log.warning("club: table %s sent on %s what no table sends, set aside: %s", shown, topic, exc)
            self.league.set_aside(shown, topic, payload, str(exc))
            return []
        return [] if event is None else [(table, event)]

    def _look_for_gaps(self, tables: set[str]) -> None:
        """Say once each run of a table's games that never came (the board shows them: :meth:`League.missing`)."""
        for table in tables:
            missing = self.league.missing(table)
            if missing != self._missing.get(table, []):
                lost = ", ".join(map(games, missing))
                log.warning("club: table %s: no event came of its games %s; they are not in the standings", table, lost)
            self._missing[table] = missing

    def _client(self) -> aiomqtt.Client:
        broker = self.broker
        context = ssl.create_default_context(cafile=broker.ca or None) if broker.tls else None
        client = aiomqtt.Client(
            broker.host,
            broker.port,
            username=broker.username or None,
            password=broker.password or None,
            identifier=self.identifier,
            clean_session=False,
            tls_context=context,
            timeout=10,
        )
        _paho(client).manual_ack_set(True)  # before connecting: the session's backlog comes right after CONNACK
        return client


async def stop(*tasks: asyncio.Task[Any]) -> None:
    """Cancel ``tasks`` and wait for their end, cancelling again those still running: before Python 3.12,
    ``asyncio.wait_for`` (with which aiomqtt awaits the broker's answers) may swallow a cancellation that comes with
    the answer (CPython gh-86296), and the club would read on."""
    running = set(tasks)
    while running:
        for task in running:
            task.cancel()
        _, running = await asyncio.wait(running, timeout=STOP_S)


def games(run: tuple[int, int]) -> str:
    """A run of game numbers as the log and the board say it: ``3``, ``5-7``."""
    first, last = run
    return str(first) if first == last else f"{first}-{last}"


def _paho(client: aiomqtt.Client) -> paho.Client:
    """aiomqtt's paho client, for the acknowledgement after the commit: aiomqtt has no manual acknowledgement yet,
    paho 2 has (``manual_ack_set``, ``ack``); aiomqtt's issue 345 gives this way to it."""
    return client._client
