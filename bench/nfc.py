"""NFC readers: our driver and the public ``mfrc522`` package side by side, on the simulated MFRC522 at 4 MHz.

Every figure is modeled hardware time from ``companion.sim.clock`` (SPI bytes at the bus speed, frames on air,
tag answer delays, the chip's timer), so it does not depend on the machine running the benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import companion.sim as sim
from companion.nfc.ndef import CARD_PAGE, FIRST_PAGE, card_id_pages
from companion.nfc.rc522 import RC522, spidev_transfer
from companion.sim.pi import pi_modules

SPI_HZ = 4_000_000
ZONES = 8
GOALS_MS = {"empty": 1.5, "new": 6.0, "round": 15.0}


def measure(action: Callable[[], object]) -> tuple[int, float]:
    """SPI bytes and modeled milliseconds an action takes."""
    start, sent = sim.clock.now_s, sim.clock.spi_bytes
    action()
    return sim.clock.spi_bytes - sent, (sim.clock.now_s - start) * 1e3


def ntag(i: int, card: str) -> sim.Ntag213:
    tag = sim.Ntag213(bytes((0x04, 0x10 + i, 0x20, 0x30, 0x40, 0x50, i)))
    data = card_id_pages(card)
    tag.memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
    return tag


def ours() -> dict[str, tuple[int, float]]:
    sim.reset()
    readers = []
    for device in range(ZONES):
        dev = sim.spidev.SpiDev(0, device)
        dev.max_speed_hz = SPI_HZ
        reader = RC522(spidev_transfer(dev))
        reader.init()
        readers.append(reader)
    first = readers[0]
    figures = {"empty": measure(first.scan)}

    identified: list[float] = []

    def read_card_page(uid: bytes, sak: int) -> None:
        first.fast_read(CARD_PAGE, CARD_PAGE)
        identified.append(sim.clock.now_s)

    sim.field(0, 0).add(ntag(0, "6O"))
    start = sim.clock.now_s
    figures["new NTAG213"] = measure(lambda: first.scan(read_card_page))
    figures["identified"] = (0, (identified[0] - start) * 1e3)
    sim.field(0, 0).clear()
    first.scan()
    sim.field(0, 0).add(sim.MifareClassic1K("DEADBEEF"))
    figures["new Classic"] = measure(first.scan)
    sim.field(0, 0).clear()
    for reader in readers:
        reader.scan()
    figures["round empty"] = measure(lambda: [r.scan() for r in readers])
    for device in range(ZONES):
        sim.field(0, device).add(ntag(device, f"{device + 1}O"))
    [r.scan() for r in readers]  # the cards arrive; the round measured is the steady one
    figures["round cards"] = measure(lambda: [r.scan() for r in readers])
    return figures


def package() -> dict[str, tuple[int, float]]:
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
        sent, ms = measure(lambda: [poll(c) for _ in range(2) for c in chips])
        figures["round cards"] = (sent // 2, ms / 2)
    return figures


def main() -> None:
    a, b = ours(), package()

    def cell(figures: dict[str, tuple[int, float]], key: str) -> str:
        if key not in figures:
            return "cannot: reads 88 and 3 bytes of a 7-byte UID"
        sent, ms = figures[key]
        return f"{ms:6.2f} ms {sent:6d} B" if sent else f"{ms:6.2f} ms"

    rows = [
        ("empty-zone poll", "empty"),
        ("new NTAG213: UID + card-id page, whole scan", "new NTAG213"),
        ("  of which until the card id is read", "identified"),
        ("new MIFARE Classic 1K: UID", "new Classic"),
        (f"round of {ZONES} zones, all empty", "round empty"),
        (f"round of {ZONES} zones, a card on each", "round cards"),
    ]
    print(f"NFC readers: modeled hardware time on the simulated MFRC522, SPI at {SPI_HZ // 1_000_000} MHz")
    print(f"{'':46} {'ours (companion.nfc.rc522)':>28}   {'mfrc522 package 0.0.7':>28}")
    for label, key in rows:
        print(f"{label:46} {cell(a, key):>28}   {cell(b, key):>28}")
    checks = [
        ("empty poll", a["empty"][1], GOALS_MS["empty"]),
        ("new NTAG213 identified", a["identified"][1], GOALS_MS["new"]),
        (f"round of {ZONES} with cards", a["round cards"][1], GOALS_MS["round"]),
        (f"round of {ZONES} empty", a["round empty"][1], GOALS_MS["round"]),
    ]
    for name, ms, goal in checks:
        print(f"goal {name}: {ms:.2f} ms <= {goal} ms {'met' if ms <= goal else 'MISSED'}")


if __name__ == "__main__":
    main()
