"""Runs on the emulated Pico as its ``main.py`` (``test_rp2040.py``): what the hub's scan loop allocates.

The firmware's own readers, scanner and hub (``hub_app``), its scan loop under asyncio as ``Hub.run`` starts it,
on whatever the host lays on the readers before the boot. After a few rounds to settle (every reader armed, each
card seen and confirmed), the collector is switched off and ``gc.mem_alloc()`` read before and after ``ROUNDS``
rounds of the loop: it prints ``garbage BYTES ROUNDS`` and stops. MicroPython only.
"""

# MicroPython has no str.format mini-language everywhere:
# ruff: noqa: UP031

import asyncio
import gc

import hub_config  # type: ignore[import-not-found]  # the board's
from hub_app import Hub, UsbPort, zone_readers  # type: ignore[import-not-found]
from scanner import Scanner  # type: ignore[import-not-found]

SETTLE = 20  # rounds: every card reported, and every still card past its zone's full selection once
ROUNDS = 48  # three times FULL_SCAN_EVERY: each zone's full selection comes three times


class Watchdog:
    def feed(self) -> None:
        pass


async def measure(hub: Hub) -> None:
    task = asyncio.create_task(hub._scan())
    while hub.scans < SETTLE:
        await asyncio.sleep_ms(1)
    gc.collect()
    gc.disable()
    start, before = hub.scans, gc.mem_alloc()
    while hub.scans < start + ROUNDS:
        await asyncio.sleep_ms(0)
    after, rounds = gc.mem_alloc(), hub.scans - start
    gc.enable()
    task.cancel()
    print("\ngarbage %d %d" % (after - before, rounds))


def main() -> None:
    hub = Hub(UsbPort(), Scanner(zone_readers(hub_config), hub_config.LIFT_SCANS), None, Watchdog())
    hub.scanner.start()
    asyncio.run(measure(hub))


main()
