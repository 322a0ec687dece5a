"""Reader hub link: bytes per second at idle and during play, host cost per frame, and change-to-event latency.

The firmware runs in CPython on the chip simulator at the far end of a pty (``companion.hub.simulated``); the
host back-end opens the pty with pyserial, as the daemon does. Byte counts do not depend on the machine. The
latency runs from the moment the firmware's scan hands a zone change to the link to the moment the host's
``ZoneScan`` reaches the daemon's callback: it includes encoding, the pty, pyserial and decoding, all in CPython
on this machine (on the Pico, encoding runs in MicroPython; see docs/PERFORMANCE.md). The scan period is
modeled hardware time from the simulator's clock.

The lift latency runs from the moment a tag leaves a zone's field in the hub's simulator to the ``CardLeft`` of
the daemon's tracker (fed the back-end's ``ZoneScan`` events, with the daemon's absences for the hub): the hub's
debounce (``LIFT_SCANS`` scans of the zone), the link and the tracker. Every card lies at the edge of range
(answering one poll in ``LIFT_SCANS``) or in the open, under bursts of interference, and any ``CardLeft`` of a
card still lying is counted as a phantom lift.
"""

from __future__ import annotations

import asyncio
import random
import runpy
import statistics
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from companion.events import CardLeft, ZoneScan
from companion.hub.backend import HubBackend
from companion.hub.protocol import FrameDecoder, Heartbeat, Snapshot, ZoneReport, encode_frame
from companion.hub.session import TRACKER_ABSENCES, HubEvent, HubOnline
from companion.hub.simulated import FIRMWARE, Report, SimulatedHub
from companion.nfc.tracking import TableTracker

ZONES = [f"z{i + 1}" for i in range(8)]
WINDOW_S = 4.0
CHANGES = 60
LIFTS = 100
UID = bytes.fromhex("04a1b2c3d4e5f6")


def _played(zone: int) -> bytes:
    """The UID of the card played on ``zone`` in the play window."""
    return bytes((0x04, zone, 0x10, 0x20, 0x30, 0x40, 0x50))


class _Names:
    """The registry of the lift trials: each card is named after its tag's UID, in hex."""

    def card_for(self, uid: bytes) -> str:
        return uid.hex()

    def uid_for(self, card_id: str) -> str:
        return card_id


def parse_cost() -> dict[str, float]:
    """Host microseconds to decode one frame (best of 5), and to turn a zone report into a ``ZoneScan``."""
    frames = {
        "heartbeat": encode_frame(1, Heartbeat(40)),
        "zone report": encode_frame(1, ZoneReport(1, 3, (UID,))),
        "snapshot of 8 zones": encode_frame(1, Snapshot(1, ((UID,),) * 8)),
    }
    costs = {}
    for name, frame in frames.items():
        stream = b"".join(encode_frame(seq, FrameDecoder().feed(frame)[0][1]) for seq in range(256))
        best = min(timeit.repeat(lambda s=stream: FrameDecoder().feed(s), number=20, repeat=5))  # type: ignore[misc]
        costs[name] = best / (20 * 256) * 1e6
    return costs


async def _link(path: Path) -> dict[str, float]:
    hub = SimulatedHub(path, zones=len(ZONES))
    hub.start()
    arrived: list[tuple[float, ZoneScan]] = []
    online = asyncio.Event()
    tracker = TableTracker(_Names(), absences=TRACKER_ABSENCES)
    left: list[tuple[float, CardLeft]] = []

    def emit(event: HubEvent) -> None:
        if isinstance(event, ZoneScan):
            arrived.append((time.perf_counter(), event))
            left.extend((time.perf_counter(), e) for e in tracker.feed(event) if isinstance(e, CardLeft))
        elif isinstance(event, HubOnline):
            online.set()

    backend = HubBackend(ZONES, emit, str(path))
    task = asyncio.create_task(backend.run())
    try:
        await asyncio.wait_for(online.wait(), 10)
        figures: dict[str, float] = {}
        before = hub.status()
        await asyncio.sleep(WINDOW_S)  # idle: nothing on the table
        after = hub.status()
        figures["idle, hub to host (B/s)"] = (after.sent - before.sent) / WINDOW_S
        figures["idle, host to hub (B/s)"] = (after.received - before.received) / WINDOW_S
        scans = max(after.scans - before.scans, 1)
        figures["scan of 8 empty zones, modeled (ms)"] = (after.modeled_s - before.modeled_s) / scans * 1000
        figures["scans of all 8 zones per second, CPython simulation"] = scans / WINDOW_S
        # Play: a card on or off a random zone every 100 ms.
        rng = random.Random(4)
        on = [False] * len(ZONES)
        start = time.perf_counter()
        for _ in range(CHANGES):
            zone = rng.randrange(len(ZONES))
            uid = _played(zone)
            (hub.take if on[zone] else hub.put)(zone, uid)
            on[zone] = not on[zone]
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)
        elapsed = time.perf_counter() - start
        played = hub.status()
        figures["play, hub to host (B/s)"] = (played.sent - after.sent) / elapsed
        figures["play, host to hub (B/s)"] = (played.received - after.received) / elapsed
        latencies = _latencies(played.reports, arrived)
        figures["changes reported"] = len(latencies)
        figures["change to host event, median (ms)"] = statistics.median(latencies) * 1000
        figures["change to host event, 95th percentile (ms)"] = statistics.quantiles(latencies, n=20)[-1] * 1000
        figures["change to host event, max (ms)"] = max(latencies) * 1000
        figures["link faults"] = sum(backend.session.faults().values())
        for zone in (z for z in range(len(ZONES)) if on[z]):  # a clear table for the lifts
            hub.take(zone, _played(zone))
        figures.update(await _lift_trials(hub, tracker, left))
        return figures
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        hub.stop()


async def _lift_trials(
    hub: SimulatedHub, tracker: TableTracker, left: list[tuple[float, CardLeft]]
) -> dict[str, float]:
    """Lay a card, leave it a while under interference, lift it: ``LIFTS`` times, on random zones."""
    lift_scans = runpy.run_path(str(FIRMWARE / "hub_config.py"))["LIFT_SCANS"]
    rng = random.Random(9)
    lifted: dict[str, float] = {}
    latencies = []
    for trial in range(LIFTS):
        zone = rng.randrange(len(ZONES))
        uid = bytes((0x04, trial, 0x11, 0x22, 0x33, 0x44, 0x55))  # none of the cards played above
        card = uid.hex()
        hub.put(zone, uid)
        if trial % 2:
            hub.edge(uid, lift_scans)  # at the edge of range: missed by up to LIFT_SCANS - 1 scans in a row
        await _until(lambda z=ZONES[zone], c=card: c in tracker.cards_on(z))  # type: ignore[misc]
        for _ in range(rng.randint(2, 5)):  # lying there 60 to 150 ms, under bursts of interference
            hub.interference(zone, rng.randint(1, 3))
            await asyncio.sleep(0.03)
        lifted[card] = hub.take(zone, uid)
        await _until(lambda z=ZONES[zone], c=card: c not in tracker.cards_on(z))  # type: ignore[misc]
        latencies.append(next(t for t, e in reversed(left) if e.card == card) - lifted[card])
    latencies.sort()
    return {
        "lifts": len(latencies),
        "lift to CardLeft, median (ms)": statistics.median(latencies) * 1000,
        "lift to CardLeft, 99th percentile (ms)": statistics.quantiles(latencies, n=100)[-1] * 1000,
        "lift to CardLeft, max (ms)": latencies[-1] * 1000,
        "phantom lifts (CardLeft of a card still lying)": sum(t < lifted.get(e.card, t) for t, e in left),
    }


async def _until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    end = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError(f"waited {timeout_s} s in the lift trials")
        await asyncio.sleep(0.001)


def _latencies(reports: list[Report], arrived: list[tuple[float, ZoneScan]]) -> list[float]:
    """For each change the firmware sent, the time to the first ``ZoneScan`` of that zone with those cards."""
    out = []
    for report in reports:
        zone = ZONES[report.zone]
        for at, scan in arrived:
            if at >= report.t and scan.zone == zone and scan.uids == report.uids:
                out.append(at - report.t)
                break
    return out


def main() -> None:
    print("Reader hub link")
    for name, micros in parse_cost().items():
        print(f"  host decode, {name}: {micros:.1f} us per frame")
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(_link(Path(tmp) / "companion-hub"))
    for name, value in figures.items():
        print(f"  {name}: {value:.2f}" if isinstance(value, float) else f"  {name}: {value}")


if __name__ == "__main__":
    main()
