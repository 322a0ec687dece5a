"""NFC readers: our driver and the public ``mfrc522`` package side by side, on the simulated MFRC522 at 4 MHz.

Every figure is modeled hardware time from ``companion.sim.clock``: SPI bytes at the bus speed, the host's cost
of each SPI transaction (a Python ``spidev`` call on a Pi 4 or a Pi Zero 2 W, MicroPython's ``machine_transfer``
on the hub's Pico), frames on air, tag answer delays, the chip's timer. It does not depend on the machine running
the benchmark; the transactions per poll are counts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import companion.sim as sim
from companion.nfc.backends import SPI_HZ
from companion.nfc.ndef import CARD_PAGE, FIRST_PAGE, card_id_pages
from companion.nfc.rc522 import FULL_SCAN_EVERY, RC522, machine_transfer, spidev_transfer
from companion.sim.pi import pi_modules
from companion.sim.world import CALL_COST_S

ZONES = 8
GOALS_MS = {"empty": 1.5, "identified": 6.0, "round cards": 15.0, "round empty": 15.0}
PLATFORMS = (("Pi 4", "pi4"), ("Pi Zero 2 W", "zero2w"), ("Pico (hub)", "pico"))
# The Pico anchor: MicroPython on a 125 MHz RP2040 runs a loop that sets a pin high then low in about 31 us
# (Roy Longbottom, "Raspberry Pi Pico, Pi 4 and Pi 400 Python and C Basic Beginners Bit Banging Benchmarks").
PICO_TOGGLE_LOOP_US = 31.0
ROOT = Path(__file__).resolve().parents[1]

Figure = tuple[int, float]  # SPI transactions, modeled milliseconds


def measure(action: Callable[[], object]) -> Figure:
    """SPI transactions and modeled milliseconds an action takes."""
    start, calls = sim.clock.now_s, sim.clock.transactions
    action()
    return sim.clock.transactions - calls, (sim.clock.now_s - start) * 1e3


def ntag(i: int, card: str) -> sim.Ntag213:
    tag = sim.Ntag213(bytes((0x04, 0x10 + i, 0x20, 0x30, 0x40, 0x50, i)))
    data = card_id_pages(card)
    tag.memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
    return tag


def readers(platform: str) -> list[RC522]:
    """Our driver on ``ZONES`` simulated readers, through spidev on a Pi, through ``machine`` on the Pico."""
    sim.reset()
    sim.clock.platform(platform)
    made = []
    for device in range(ZONES):
        sequence = None
        if platform == "pico":
            transfer = machine_transfer(sim.machine_spi(0, SPI_HZ), sim.machine_pin(0, device))
            sequence = sim.machine_sequence(0, device, SPI_HZ)  # the RP2040's native code (firmware/spi_rp2.py)
        else:
            dev = sim.spidev.SpiDev(0, device)
            dev.max_speed_hz = SPI_HZ
            transfer = spidev_transfer(dev)
        reader = RC522(transfer, sequence=sequence, spi_hz=SPI_HZ)
        reader.init()
        made.append(reader)
    return made


def ours(platform: str) -> dict[str, Figure]:
    zones = readers(platform)
    first = zones[0]
    first.scan()
    figures = {"empty": measure(first.scan)}

    identified: list[tuple[int, float]] = []

    def read_card_page(uid: bytes, sak: int) -> None:
        first.fast_read(CARD_PAGE, CARD_PAGE)
        identified.append((sim.clock.transactions, sim.clock.now_s))

    sim.field(0, 0).add(ntag(0, "6O"))
    start, calls = sim.clock.now_s, sim.clock.transactions
    figures["new NTAG213"] = measure(lambda: first.scan(read_card_page))
    figures["identified"] = (identified[0][0] - calls, (identified[0][1] - start) * 1e3)
    sim.field(0, 0).clear()
    first.scan()
    sim.field(0, 0).add(sim.MifareClassic1K("DEADBEEF"))
    figures["new Classic"] = measure(first.scan)
    sim.field(0, 0).clear()
    for reader in zones:
        reader.scan()
    figures["round empty"] = measure(lambda: [r.scan() for r in zones])
    for device in range(ZONES):
        sim.field(0, device).add(ntag(device, f"{device + 1}O"))
    for reader in zones:  # the cards arrive
        reader.scan()
    # the steady rounds: quick confirmations and, every FULL_SCAN_EVERY-th, a full selection; their mean is reported
    calls, ms = measure(lambda: [r.scan() for _ in range(FULL_SCAN_EVERY) for r in zones])
    figures["round cards"] = (round(calls / FULL_SCAN_EVERY), ms / FULL_SCAN_EVERY)
    return figures


def package() -> dict[str, Figure]:
    sim.reset()
    with pi_modules():
        from mfrc522 import MFRC522

        chips: list[Any] = [MFRC522(bus=0, device=device, spd=SPI_HZ) for device in range(ZONES)]

        def poll(chip: Any) -> object:
            status, _ = chip.MFRC522_Request(chip.PICC_REQIDL)
            return chip.MFRC522_Anticoll() if status == chip.MI_OK else None

        first = chips[0]
        figures = {"empty": measure(lambda: poll(first))}
        sim.field(0, 0).add(sim.MifareClassic1K("DEADBEEF"))
        figures["new Classic"] = measure(lambda: poll(first))
        sim.field(0, 0).clear()
        figures["round empty"] = measure(lambda: [poll(c) for c in chips])
        for device in range(ZONES):
            sim.field(0, device).add(sim.MifareClassic1K(bytes((0xDE, 0xAD, 0xBE, device))))
        [poll(c) for c in chips]
        # Without HALT a card answers every other poll: average two rounds.
        calls, ms = measure(lambda: [poll(c) for _ in range(2) for c in chips])
        figures["round cards"] = (calls // 2, ms / 2)
    return figures


def pico_call_estimate() -> str:
    """Time ``machine_transfer`` (with stand-in pins and SPI) and a pin-toggling loop in the MicroPython VM and
    in CPython; scale the VM's transfer by the Pico's known toggling loop."""
    node = shutil.which("node")
    vm = ROOT / "firmware/vm"
    if node is None or not (vm / "node_modules").is_dir():
        return "the MicroPython VM is not installed (make firmware-vm): Pico figures use the documented estimate"
    script = ROOT / "bench/pico_call.py"
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "manifest.json"
        files = {  # as on the hub (firmware/build.py): the driver and the errors it raises
            "/lib/rc522.py": str(ROOT / "companion/nfc/rc522.py"),
            "/lib/nfc_errors.py": str(ROOT / "companion/nfc/errors.py"),
        }
        manifest.write_text(json.dumps({"files": files, "script": str(script)}))
        run = subprocess.run(
            [node, str(vm / "run.mjs"), str(manifest)], capture_output=True, text=True, timeout=120, check=True
        )
    local = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=ROOT, check=True
    )
    vm_transfer, vm_loop = map(float, run.stdout.split())
    cpy_transfer, _ = map(float, local.stdout.split())
    estimate = vm_transfer / vm_loop * PICO_TOGGLE_LOOP_US
    return (
        f"Pico call cost: machine_transfer takes {vm_transfer / cpy_transfer:.1f} times as long in the MicroPython VM "
        f"as in CPython here, and {vm_transfer / vm_loop:.2f} pin-toggling loops; at the Pico's "
        f"{PICO_TOGGLE_LOOP_US:.0f} us a loop, about {estimate:.0f} us a call (the model charges "
        f"{CALL_COST_S['pico'] * 1e6:.0f} us)"
    )


def main() -> None:
    figures = {name: ours(platform) for name, platform in PLATFORMS}
    theirs = package()
    rows = [
        ("empty-zone poll", "empty"),
        ("new NTAG213: until its card id is read", "identified"),
        ("new NTAG213: the whole scan, HLTA included", "new NTAG213"),
        ("new MIFARE Classic 1K: UID", "new Classic"),
        (f"round of {ZONES} zones, all empty", "round empty"),
        (f"round of {ZONES} zones, a still card on each", "round cards"),
    ]
    print(
        f"NFC readers: modeled time on the simulated MFRC522, SPI at {SPI_HZ // 1_000_000} MHz, each transaction "
        "also costing the host its call (ms, and SPI transactions)"
    )
    heads = [f"{name} ({CALL_COST_S[p] * 1e6:.0f} us/call)" for name, p in PLATFORMS]
    print(f"{'':44}" + "".join(f"{h:>26}" for h in heads) + f"{'mfrc522 0.0.7, Pi 4':>26}")
    for label, key in rows:
        cells = [f"{figures[name][key][1]:7.2f} ms {figures[name][key][0]:4d} tx" for name, _ in PLATFORMS]
        package_cell = f"{theirs[key][1]:7.2f} ms {theirs[key][0]:4d} tx" if key in theirs else "cannot (7-byte UID)"
        print(f"{label:44}" + "".join(f"{c:>26}" for c in cells) + f"{package_cell:>26}")
    for name, _ in PLATFORMS[:2]:
        for key, goal in GOALS_MS.items():
            ms = figures[name][key][1]
            print(f"goal {name}, {key}: {ms:.2f} ms <= {goal} ms {'met' if ms <= goal else 'MISSED'}")
    print(pico_call_estimate())


if __name__ == "__main__":
    main()
