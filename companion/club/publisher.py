"""The table on the club's broker: its events from the journal, its game's state and whether it is online.

Topics, under ``companion/<table>/``:

* ``status``: ``online`` (retained) once connected; ``offline`` (retained) when the service stops, and as the
  broker's last will when the table vanishes without a word (a power cut, the network gone).
* ``events``: every journal entry and every game's start and end (:mod:`companion.club.feed`), one JSON object a
  message, QoS 1, in the journal's order; a game reopened by an UNDO of its ending action (a ``reopen`` entry)
  sends its end again once it has ended again. The cursor in the journal moves past an event only once the broker has
  acknowledged it, so after an outage the backlog goes out in order, and nothing is lost.
* ``state``: the current game's state, the same JSON object ``companion play --json`` prints, retained, sent
  after the events whenever it changed (and again on every connection).
* ``message``: the last message the table's screen showed (its kind, title and what to do), retained.

With ``[mqtt] homeassistant = true`` the table also announces its sensors and device triggers to Home Assistant
(:mod:`companion.club.homeassistant`): on every connection, and again when the game's kind or seats change. A
trigger (a hand won, a game won, an illegal play, a renuncio) goes to its topic, ``trigger/<object>`` (QoS 1, not
retained: Home Assistant would fire it again at every restart), after the state it changed; it is of the moment,
so one that happens while the broker is away is not sent later, and the view the table starts on (a game resumed
on its last message) fires none.

The publisher is a task of its own on the daemon's loop, fed by the journal: the table never waits for it. The
table wakes it by showing it each view (it is one of the table's outputs); what it sends it reads from the
journal, so a view it missed loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any

import aiomqtt

from companion.club.feed import pending
from companion.club.homeassistant import discovery, fired, topics, trigger_topic, triggers
from companion.config import GameConfig, MqttConfig
from companion.journal import Journal, JournalError
from companion.referee import Referee
from companion.rules.transcript import state
from companion.view import Message, TableView

__all__ = ["CURSOR", "Publisher", "last_state", "publish_journal"]

log = logging.getLogger(__name__)

CURSOR = "mqtt"  # the publisher's cursor in the journal
RETRY_S = (1.0, 30.0)  # after a failed connection: the first wait, doubled up to the last
GOODBYE_S = 2.0  # how long a stopping service waits to say "offline"
# The broker says the table's last will after 1.5 keepalives of silence: a table that lost its power shows offline
# within about 20 s; its pings cost two small packets every 15 s.
KEEPALIVE_S = 15
TRIGGERS_KEPT = 64  # triggers waiting for the publisher's next turn: a burst of refused cards loses its oldest
PAGE = 100  # events read from the journal at a time: about a millisecond of the loop (12 µs an event)


class Publisher:
    """Sends the table's journal and state to the broker of ``config``; :meth:`run` is its task."""

    def __init__(
        self,
        config: MqttConfig,
        journal: Journal,
        state: Callable[[], dict[str, Any]],
        page: str | None = None,
    ) -> None:
        """``page``: the address of the table's page, for Home Assistant's link to it (homeassistant.page_url)."""
        self.config, self.journal, self.state, self.page = config, journal, state, page
        self.topic = f"companion/{config.table}"
        self.connected = False
        self._wake = asyncio.Event()
        self._sent_state = ""
        self._message: Message | None = None  # the last one the table showed
        self._sent_message: Message | None = None
        self._announced: dict[str, str] | None = None  # Home Assistant's configs sent on this connection
        self._shown = False  # a view seen: the first is where the table starts, no happening
        self._last: Message | None = None  # the message of the last view, for the triggers
        self._fired: deque[tuple[str, Message]] = deque(maxlen=TRIGGERS_KEPT)

    def show(self, view: TableView, now: float) -> None:
        """The table has handled an event: look at the journal again, and fire the triggers of what it said."""
        message = view.message
        if message is not None and self._shown and self.connected and self.config.homeassistant:
            self._fired.extend((object_id, message) for object_id in fired(view, self._last))
        self._shown, self._last = True, message
        if message is not None:
            self._message = message
        self._wake.set()

    async def run(self) -> None:
        """Connect, send what waits, and again after each wake; on a lost broker, try again (never raises)."""
        retry = RETRY_S[0]
        while True:
            try:
                async with self._client() as client:
                    await client.publish(f"{self.topic}/status", "online", qos=1, retain=True)
                    self.connected, retry = True, RETRY_S[0]
                    self._sent_state, self._sent_message, self._announced = "", None, None
                    self._fired.clear()  # fired while away: of another moment
                    log.info("mqtt: publishing to %s as %s", self.config.url, self.topic)
                    try:
                        await self._serve(client)
                    except asyncio.CancelledError:
                        with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                            await client.publish(
                                f"{self.topic}/status", "offline", qos=1, retain=True, timeout=GOODBYE_S
                            )
                        raise
            except (aiomqtt.MqttError, OSError) as exc:
                # said once an outage; the retries that fail too are only debug
                say = log.warning if retry == RETRY_S[0] else log.debug
                say("mqtt: %s: %s; the events wait in the journal, trying again from %g s", self.config.url, exc, retry)
            except Exception:  # a fault of ours must not end the publishing for good, nor touch the table
                log.exception("mqtt: publishing failed; trying again in %g s", retry)
            self.connected = False
            await asyncio.sleep(retry)
            retry = min(retry * 2, RETRY_S[1])

    async def _serve(self, client: aiomqtt.Client) -> None:
        """Send what waits, then again at each wake, until the connection is lost (its MqttError)."""
        lost = asyncio.ensure_future(self._until_lost(client))
        woken: asyncio.Future[Any] | None = None
        try:
            while True:
                self._wake.clear()
                await self._send(client)
                woken = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait({woken, lost}, return_when=asyncio.FIRST_COMPLETED)
                if lost.done():
                    lost.result()
        finally:
            for waiting in (lost, woken):
                if waiting is not None:
                    waiting.cancel()

    @staticmethod
    async def _until_lost(client: aiomqtt.Client) -> None:
        """Returns only by raising the MqttError of a lost connection (the table subscribes to nothing)."""
        async for _ in client.messages:
            pass
        raise aiomqtt.MqttError("the connection ended")

    async def _send(self, client: aiomqtt.Client) -> None:
        """The events after the cursor, each acknowledged before the cursor passes it; then the state if it changed,
        the message, and the triggers fired before the state was read (those fired meanwhile wait for the next
        state)."""
        fired_now = list(self._fired)
        self._fired.clear()
        if self.journal.is_open:
            try:
                cursor = self.journal.cursor(CURSOR)
                # a page at a time: reading a backlog of thousands at once would hold up the loop, and the LEDs
                while page := pending(self.journal, cursor, PAGE):
                    for cursor, event in page:
                        await _put(client, f"{self.topic}/events", json.dumps(event, ensure_ascii=False), retain=False)
                        self.journal.move_cursor(CURSOR, cursor)
            except JournalError as exc:  # the table says so already; the next wake tries again
                log.debug("mqtt: journal: %s", exc)
        state = self.state()
        text = json.dumps(state, ensure_ascii=False)
        if text != self._sent_state:
            if self.config.homeassistant:  # the sensors first, so none reads a state it has no value in
                await self._announce(client, state)
            await _put(client, f"{self.topic}/state", text)
            self._sent_state = text
        message = self._message
        if message is not None and message != self._sent_message:
            await _put(client, f"{self.topic}/message", _said(message))
            self._sent_message = message
        for object_id, message in fired_now:  # after the state they changed, so an automation reads the new one
            await _put(client, trigger_topic(self.config.table, object_id), _said(message), retain=False)

    async def _announce(self, client: aiomqtt.Client, state: dict[str, Any]) -> None:
        """Home Assistant's config of each sensor the game has and of the device's triggers, where it changed; an
        empty one (a removal) for each sensor it no longer has, or, first on a connection, for any a table may have
        announced before."""
        table, page = self.config.table, self.page
        announced_now = discovery(table, state, page) | triggers(table, page)
        configs = {topic: json.dumps(config) for topic, config in announced_now.items()}
        announced = self._announced
        for topic, config in configs.items():
            if announced is None or announced.get(topic) != config:
                await _put(client, topic, config)
        for topic in sorted((topics(self.config.table) if announced is None else announced.keys()) - configs.keys()):
            await _put(client, topic, "")
        self._announced = configs

    async def send_once(self) -> None:
        """Connect, send what waits and the state, say ``offline`` and leave; MqttError if the broker cannot be
        reached or refuses the table."""
        async with self._client() as client:
            await client.publish(f"{self.topic}/status", "online", qos=1, retain=True)
            await self._send(client)
            await client.publish(f"{self.topic}/status", "offline", qos=1, retain=True)

    def _client(self) -> aiomqtt.Client:
        config = self.config
        context = None
        if config.tls:
            context = ssl.create_default_context(cafile=config.ca or None)
        return aiomqtt.Client(
            config.host,
            config.port,
            username=config.username or None,
            password=config.password or None,
            identifier=f"companion-{config.table}",
            will=aiomqtt.Will(f"{self.topic}/status", "offline", qos=1, retain=True),
            tls_context=context,
            timeout=10,
            keepalive=KEEPALIVE_S,
        )


def _said(message: Message) -> str:
    """A message as the table publishes it: its kind, title and what to do."""
    return json.dumps({"kind": str(message.kind), "title": message.title, "todo": message.todo}, ensure_ascii=False)


async def _put(client: aiomqtt.Client, topic: str, payload: str, *, retain: bool = True) -> None:
    """Publish with QoS 1 and wait for the broker's acknowledgement; CancelledError if the task was asked to stop
    meanwhile. aiomqtt awaits the acknowledgement with asyncio.wait_for, which on Python 3.11 loses a
    cancellation that comes in the same turn of the loop as the acknowledgement (CPython gh-86296, fixed in 3.12
    by a new wait_for): a service stopped then would send its whole backlog and wait for ever instead of
    stopping, so the stop is looked for here."""
    await client.publish(topic, payload, qos=1, retain=retain)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def last_state(journal: Journal) -> dict[str, Any]:
    """The state of the journal's last game, rebuilt from its entries as the table does when it resumes it."""
    last = journal.last_game()
    assert last is not None, "a journal with no game has no state"
    referee = Referee(GameConfig.from_settings(last.settings), {})
    referee.replay(journal.entries(last.id))
    return state(referee.current_game)


async def publish_journal(config: MqttConfig, journal: Journal) -> None:
    """Publish a journal whose games are over (the demo's, played at its simulated clock's speed): its events
    after the cursor and its last game's state; MqttError if the broker cannot be reached or refuses."""
    await Publisher(config, journal, lambda: last_state(journal)).send_once()
