"""The tests' broker is Debian's mosquitto, started by the ``broker`` fixture: what the club's tests rely on."""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING

import aiomqtt
import pytest

if TYPE_CHECKING:
    from brokers import Broker


async def _round_trip(broker: Broker, topic: str) -> bytes:
    """A message to ``topic`` and back through the broker."""
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.subscribe(topic, qos=1)
        await client.publish(topic, b"through", qos=1)
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            return message.payload
    raise AssertionError("no message")


def test_the_broker_is_a_real_mosquitto_on_its_own_port_that_can_be_killed_and_started_again(
    broker: Broker,
) -> None:
    assert asyncio.run(asyncio.wait_for(_round_trip(broker, "t/a"), 10)) == b"through"
    broker.kill()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", broker.port), timeout=1).close()
    broker.start()
    assert asyncio.run(asyncio.wait_for(_round_trip(broker, "t/b"), 10)) == b"through"
    assert "mosquitto version" in broker.log() and "t/b" in broker.log()
