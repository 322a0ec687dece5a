"""Reader hub link: bytes per second at idle and during play, host cost per frame, and change-to-event latency.

The firmware runs in CPython on the chip simulator at the far end of a pty (``companion.hub.simulated``); the
host back-end opens the pty with pyserial, as the daemon does. Byte counts do not depend on the machine. The
latency runs from the moment the firmware's scan hands a zone change to the link to the moment the host's
``ZoneScan`` reaches the daemon's callback: it includes encoding, the pty, pyserial and decoding, all in CPython
on this machine (on the Pico, encoding runs in MicroPython; see docs/PERFORMANCE.md). The scan period is
modeled hardware time from the simulator's clock.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
import timeit
from pathlib import Path

from companion.hub.backend import HubBackend
from companion.hub.protocol import FrameDecoder, Heartbeat, Snapshot, ZoneReport, encode_frame
from companion.hub.session import HubEvent, HubOnline
from companion.hub.simulated import Report, SimulatedHub
from companion.nfc.events import ZoneScan

ZONES = [f"z{i + 1}" for i in range(8)]
WINDOW_S = 4.0
CHANGES = 60
UID = bytes.fromhex("04a1b2c3d4e5f6")


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

    def emit(event: HubEvent) -> None:
        if isinstance(event, ZoneScan):
            arrived.append((time.perf_counter(), event))
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
            uid = bytes((0x04, zone, 0x10, 0x20, 0x30, 0x40, 0x50))
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
        return figures
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        hub.stop()


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
