"""The club's broker and the room's subscriber, for the tests of every folder that publishes or reads the club's
MQTT (tests/conftest.py's ``broker`` and ``board`` fixtures make them; a test that sets its broker up itself
imports them from here)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiomqtt
from processes import free_port

from companion.club.broker import LocalBroker

__all__ = ["SAMPLE", "Board", "Broker", "sample_broker", "sample_lines"]

SAMPLE = Path(__file__).resolve().parents[1] / "systemd"  # the broker's sample config and ACL


class Broker(LocalBroker):
    """Debian's mosquitto on a free loopback port, the club's own (:class:`LocalBroker`) with ``security`` as its
    lines on who may connect (the sample config's, in the tests of the ACL) and every event in its log.

    :meth:`kill` is the outage (SIGKILL: no goodbye to the clients, as when the broker's machine loses power);
    :meth:`start` brings it back on the same port with what it had saved. It saves after every change
    (``autosave_on_changes``), so a persistent subscriber's session outlives the kill. Its queue for a client is
    mosquitto's default unless ``security`` sets the sample's (tests/club/test_club_broker.py).
    """

    def __init__(self, folder: Path, security: str = "allow_anonymous true\n") -> None:
        super().__init__(free_port(), folder, f"{security}log_type all\n")
        self.url = f"mqtt://127.0.0.1:{self.port}"

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None


def sample_lines(*keys: str) -> str:
    """The sample config's lines that set ``keys``, each once (the tests' broker takes them, not its listener nor
    its files in /etc)."""
    lines = (SAMPLE / "mosquitto-companion.conf").read_text().splitlines()
    found = [line for line in lines if line.split(" ")[0] in keys]
    assert sorted(line.split(" ")[0] for line in found) == sorted(keys), f"the sample config sets each of {keys}"
    return "".join(f"{line}\n" for line in found)


def sample_broker(folder: Path, accounts: Mapping[str, str], *, leave_out: tuple[str, ...] = ()) -> Broker:
    """mosquitto (not started) as the sample sets it up: its logins (``accounts``, user: password, in a password
    file), its ACL, the client ids bound to the logins, its largest message and its queue, its files in ``folder``
    instead of /etc/mosquitto; ``leave_out`` some of those lines (a test of what they prevent)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "companion.acl").write_text((SAMPLE / "mosquitto-companion.acl").read_text())
    passwords = folder / "companion.passwd"
    for user, password in accounts.items():
        create = ["-c"] if not passwords.exists() else []
        subprocess.run(["mosquitto_passwd", *create, "-b", str(passwords), user, password], check=True)
    keys = ("allow_anonymous", "password_file", "acl_file", "use_username_as_clientid", "message_size_limit")
    lines = sample_lines(*(key for key in (*keys, "max_queued_messages") if key not in leave_out))
    return Broker(folder, lines.replace("/etc/mosquitto/", f"{folder}/"))


class Board:
    """The room's subscriber, as the club's would be: a persistent session (the broker queues what it misses while
    it is away), every table's events, states and status."""

    def __init__(self, broker: Broker, username: str | None = None, password: str | None = None) -> None:
        self.broker, self.username, self.password = broker, username, password
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, dict[str, Any]] = {}
        self.status: dict[str, str] = {}

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[Board]:
        subscribed = asyncio.Event()
        task = asyncio.create_task(self._run(subscribed))
        await asyncio.wait_for(subscribed.wait(), 10)
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    self.broker.port,
                    identifier="board",
                    clean_session=False,
                    username=self.username,
                    password=self.password,
                ) as client:
                    for topic in ("events", "state", "status"):
                        await client.subscribe(f"companion/+/{topic}", qos=1)
                    subscribed.set()
                    async for message in client.messages:
                        assert isinstance(message.payload, bytes)
                        table, topic = message.topic.value.split("/")[1:]
                        text = message.payload.decode()
                        if topic == "events":
                            self.events.append(json.loads(text))
                        elif topic == "state":
                            self.state[table] = json.loads(text)
                        else:
                            self.status[table] = text
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    def ids(self) -> list[str]:
        return [event["id"] for event in self.events]
