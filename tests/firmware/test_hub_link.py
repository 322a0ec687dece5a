"""End to end: the firmware's main loop on the chip simulator at the far end of a pty, the host back-end on the
pty's path with pyserial. Cards arrive as events in order; a pulled cable loses and doubles nothing."""

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import serial

from companion.events import ZoneScan
from companion.hub.backend import HubBackend
from companion.hub.deploy import DeployError, enter_maintenance
from companion.hub.session import HubEvent, HubOffline, HubOnline
from companion.hub.simulated import SimulatedHub

ZONES = ["a", "b", "c", "d"]
TIMEOUT_S = 10.0


class Host:
    def __init__(self, hub: SimulatedHub, backend: HubBackend, events: list[HubEvent]) -> None:
        self.hub = hub
        self.backend = backend
        self.events = events

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        for _ in range(int(TIMEOUT_S / 0.01)):
            if condition():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"waited {TIMEOUT_S} s for {what}; events: {self.events[-10:]}")

    def last(self, zone: str) -> tuple[bytes, ...] | None:
        scans = [e for e in self.events if isinstance(e, ZoneScan) and e.zone == zone]
        return scans[-1].uids if scans else None

    def count(self, kind: type) -> int:
        return sum(isinstance(e, kind) for e in self.events)


@contextlib.asynccontextmanager
async def running(tmp_path: Path) -> AsyncIterator[Host]:
    """The simulated hub and the host back-end, both running (pytest has no asyncio plugin here)."""
    hub = SimulatedHub(tmp_path / "companion-hub", zones=len(ZONES))
    hub.start()
    events: list[HubEvent] = []
    backend = HubBackend(ZONES, events.append, str(hub.path))
    task = asyncio.create_task(backend.run())
    try:
        yield Host(hub, backend, events)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        hub.stop()


def changes(events: list[Any]) -> list[tuple[str, tuple[bytes, ...]]]:
    """The ZoneScans reduced to what changed, zone by zone, in order (a snapshot repeats what is known)."""
    known: dict[str, tuple[bytes, ...]] = {}
    out = []
    for event in events:
        if isinstance(event, ZoneScan) and known.get(event.zone, ()) != event.uids:
            known[event.zone] = event.uids
            out.append((event.zone, event.uids))
    return out


def test_cards_arrive_in_order_and_survive_a_pulled_cable(tmp_path: Path) -> None:
    asyncio.run(cards_and_a_pulled_cable(tmp_path))


async def cards_and_a_pulled_cable(tmp_path: Path) -> None:
    async with running(tmp_path) as host:
        await play_and_pull_the_cable(host)


async def play_and_pull_the_cable(host: Host) -> None:
    card1, card2, card3 = bytes.fromhex("04A1B2C3D4E5F6"), bytes.fromhex("04112233445566"), bytes.fromhex("DE0BADF0")
    await host.until(lambda: host.count(HubOnline) == 1, "HELLO")

    host.hub.put(0, card1)
    await host.until(lambda: host.last("a") == (card1,), "card 1 on zone a")
    host.hub.put(1, card2)
    await host.until(lambda: host.last("b") == (card2,), "card 2 on zone b")
    host.hub.take(0, card1)
    await host.until(lambda: host.last("a") == (), "card 1 off")

    noise = random.Random(1).randbytes(3000)  # between two of the firmware's frames, or inside one
    host.hub.noise(noise)
    host.hub.noise(b"\x00")
    await host.until(lambda: host.backend.session.faults().get("garbage", 0) > 0, "the noise to be counted")

    host.backend.set_led("b", "red", "blink")
    await host.until(lambda: host.hub.status().leds[1] == (2, 1), "the LED command")
    await host.until(lambda: host.backend.session.unacknowledged == 0, "the hub's ACK")

    host.hub.unplug()
    await host.until(lambda: host.count(HubOffline) == 1, "the host to notice the pulled cable")
    host.hub.put(2, card1)  # while the cable is out: these changes must arrive once it is back
    await host.until(lambda: host.hub.status().zones[2] == (card1,), "the hub to see card 1")
    host.hub.take(2, card1)
    await host.until(lambda: host.hub.status().zones[2] == (), "the hub to see card 1 go")
    host.hub.put(3, card3, "MifareClassic1K")
    await host.until(lambda: host.hub.status().zones[3] == (card3,), "the hub to see card 3")
    host.hub.plug()
    await host.until(lambda: host.count(HubOnline) == 2, "the host to reconnect")
    await host.until(lambda: host.last("d") == (card3,), "card 3 on zone d")
    host.hub.take(1, card2)
    await host.until(lambda: host.last("b") == (), "card 2 off")

    # Every change the firmware numbered (sent once, or again in a replay after the reconnection), in order.
    status = host.hub.status()
    numbered = {r.event: (ZONES[r.zone], r.uids) for r in status.reports}
    assert changes(host.events) == [numbered[event] for event in sorted(numbered)]
    assert changes(host.events) == [
        ("a", (card1,)),
        ("b", (card2,)),
        ("a", ()),
        ("c", (card1,)),
        ("c", ()),
        ("d", (card3,)),
        ("b", ()),
    ]
    assert [type(e).__name__ for e in host.events if not isinstance(e, ZoneScan)] == [
        "HubOnline",
        "HubOffline",
        "HubOnline",
    ]
    assert status.leds[1] == (2, 1)  # re-sent after the reconnection, still red and blinking
    assert status.dropped > 0  # the firmware did talk into the void while unplugged
    assert host.count(HubOffline) == 1  # the noise cost no heartbeat: only the pulled cable took the hub away
    assert status.interrupts == 0  # the host's 0x03 bytes were data from the first frame on


def test_deploy_restarts_the_hub_into_maintenance_mode(tmp_path: Path) -> None:
    """``make firmware-deploy`` first: the hub is asked over its link, restarts, and comes back with no watchdog
    and no scanning, the REPL left to mpremote. One that does not answer the link is left as it is."""
    hub = SimulatedHub(tmp_path / "companion-hub", zones=len(ZONES))
    hub.start()
    try:
        with serial.Serial(str(hub.path), exclusive=True), pytest.raises(DeployError, match="stop the companion"):
            enter_maintenance(str(hub.path))  # the daemon holds the port
        assert enter_maintenance(str(hub.path)).endswith("the hub is in maintenance mode")
        status = hub.status()
        assert (status.mode, status.boots, status.watchdogs) == ("maintenance", 2, 0)
        assert "no hub firmware answers" in enter_maintenance(str(hub.path))
    finally:
        hub.stop()
    with pytest.raises(DeployError, match=r"no hub at .*: plug it in .*fit the cap on its maintenance jumper"):
        enter_maintenance(str(hub.path))
