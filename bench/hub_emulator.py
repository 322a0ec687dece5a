"""The reader hub on MicroPython's real rp2 port in an emulated RP2040, calibrated to a real Pico, beside the model.

``python -m bench hub --emulator``. Every figure is emulated time, never the wall clock: the chip's own timer
(``time.ticks_us``) on the emulated Pico, and the emulated clock at which the readers see a tag laid or lifted
and at which a report leaves on USB (``firmware/emulator/run.mjs``, ``--usb-times``). The readers are the chip
simulator's MFRC522s on SPI0 (``tests/firmware/rp2040_hub.py``), SPI at ``hub_config.SPI_BAUDRATE``.

Calibration: rp2040js counts fewer cycles than a real RP2040 spends on MicroPython (its flash and bus wait states
are not modeled), so the emulator first times the published loop, a pin set high then low (``PICO_LOOP_US``),
and runs again with each instruction's time scaled so that the loop takes a Pico's time. The SPI bytes on the
wire, the readers' timers and the tags keep their own time: only the processor is scaled.

The model is ``companion.sim``'s clock (world.py): the firmware's driver and scanner in CPython, each SPI
transaction charged its bytes at the bus speed and the Pico's cost: a call of ``machine_transfer``
(``CALL_COST_S["pico"]``), or an exchange in native code and each transaction in it (``NATIVE_SEQUENCE_S``),
nothing else.
Both count the SPI transactions of an empty zone's scan, a new NTAG213's and a round (the Pico pauses around each
while the host reads the count off the bus): they must agree, and the model's times stay within ``MODEL_RATIO``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import serial

import companion.sim as sim
from companion.hub.protocol import FrameDecoder, Heartbeat, Message, ZoneReport
from companion.hub.simulated import FIRMWARE, load_firmware, unload_firmware
from companion.nfc.rc522 import FULL_SCAN_EVERY, RC522, machine_transfer
from companion.sim.world import CALL_COST_S, NATIVE_SEQUENCE_S

# Published: MicroPython on a 125 MHz RP2040 runs a loop that sets a pin high then low in about 31 us (Roy
# Longbottom, "Raspberry Pi Pico, Pi 4 and Pi 400 Python and C Basic Beginners Bit Banging Benchmarks"; the same
# anchor as bench/nfc.py).
PICO_LOOP_US = 31.0
ROOT = FIRMWARE.parent
UID = bytes.fromhex("04a1b2c3d4e5f6")
GOALS_MS = {"laid": 30.0, "lift p99": 150.0}  # docs/PERFORMANCE.md: touch to event, lift to CardLeft
BOOT_S = 120.0  # wall time allowed for the emulated Pico to boot and answer (a busy machine)
FIGURES = ("loop", "register", "exchange", "empty", "new", "round")
# How far the model's scan times may stray from the calibrated port's, either way (docs/NFC.md): the model charges
# each exchange one cost (NATIVE_SEQUENCE_S) where the port spends more between a new tag's exchanges.
MODEL_RATIO = 1.6


def _harness() -> Any:
    """tests/firmware/rp2040_hub.py: the emulated Pico with its filesystem, USB pty and SPI0 readers."""
    sys.path.insert(0, str(ROOT / "tests/firmware"))
    try:
        import rp2040_hub  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return rp2040_hub


def _hub_config() -> dict[str, Any]:
    import runpy

    return runpy.run_path(str(FIRMWARE / "hub_config.py"))


@contextmanager
def _emulated(files: dict[str, bytes] | None, cpu_scale: float, usb_times: bool = False) -> Iterator[Any]:
    harness = _harness()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        board = harness.board_files(path)
        board.update(files or {})
        readers = harness.Readers()
        with harness.EmulatedHub(path, board, readers, cpu_scale=cpu_scale, usb_times=usb_times) as hub:
            yield hub, readers, harness


def device_figures(count: int, cpu_scale: float) -> dict[str, float]:
    """``bench/hub_pico.py`` on the emulated Pico: microseconds of its timer for each of ``FIGURES``."""
    script = {"main.py": (ROOT / "bench/hub_pico.py").read_bytes()}
    figures: dict[str, float] = {}
    started = 0
    with _emulated(script, cpu_scale) as (hub, readers, harness):
        chip = readers.chips[harness.CHIP_SELECTS[0]]
        with serial.Serial(hub.path, timeout=0) as port:
            port.write(b"%d\n" % count)
            seen = b""
            deadline = time.monotonic() + BOOT_S + 60 * count
            while time.monotonic() < deadline:
                seen += port.read(4096)
                lines = seen.split(b"\n")
                seen = lines.pop()
                for line in (raw.strip().decode(errors="replace") for raw in lines):
                    if line == "lay":
                        with readers.lock:
                            chip.field.add(sim.Ntag213(UID))
                        port.write(b"\n")
                    elif line == "lift":
                        with readers.lock:
                            chip.field.clear()
                        port.write(b"\n")
                    elif line.startswith("count "):
                        started = readers.transactions  # the Pico waits for the line below: no SPI meanwhile
                        port.write(b"\n")
                    elif line.startswith("counted "):
                        figures["transactions " + line.split()[1]] = readers.transactions - started
                        port.write(b"\n")
                    elif line.startswith("figure "):
                        _, name, micros = line.split()
                        figures[name] = float(micros)
                    elif line == "done":
                        return figures
                    elif line.startswith("Traceback") or "Error" in line:
                        raise RuntimeError(f"bench/hub_pico.py failed on the emulated Pico: {line}")
                time.sleep(0.02)
    raise TimeoutError(f"the emulated Pico did not finish bench/hub_pico.py; it said {figures}")


class _Frames:
    """The hub's frames as the host reads them, each with the emulated time its last byte left on USB."""

    def __init__(self, port: serial.Serial, hub: Any) -> None:
        self.port = port
        self.hub = hub
        self.decoder = FrameDecoder()
        self.offset = 0  # bytes read from the hub so far
        self.pending: list[tuple[int, Message]] = []  # frames and the offset just past their end

    def read(self) -> list[tuple[float, Message]]:
        data = self.port.read(4096)
        start = 0
        while (end := data.find(b"\x00", start)) >= 0:
            self.pending += [(self.offset + end + 1, m) for _, m in self.decoder.feed(data[start : end + 1])]
            start = end + 1
        self.decoder.feed(data[start:])
        self.offset += len(data)
        return self._timed()

    def _timed(self) -> list[tuple[float, Message]]:
        out = []
        packets = self.hub.usb_packets()
        sent = 0
        times = []
        for at, size in packets:
            sent += size
            times.append((sent, at))
        while self.pending and times and times[-1][0] >= self.pending[0][0]:
            end, message = self.pending.pop(0)
            out.append((next(at for total, at in times if total >= end), message))
        return out


def _change(chip: Any, laid: bool) -> Callable[[], None]:
    def change() -> None:
        if laid:
            chip.field.add(sim.Ntag213(UID))
        else:
            chip.field.clear()

    return change


def _report(zone: int, uids: tuple[bytes, ...]) -> Callable[[Message], bool]:
    return lambda message: isinstance(message, ZoneReport) and (message.zone, message.uids) == (zone, uids)


def journeys(trials: int, cpu_scale: float, crowded: bool = False) -> dict[str, list[float]]:
    """The hub's own firmware: an NTAG213 laid on a random zone at a random moment, then lifted, ``trials``
    times. Milliseconds from the moment the readers' clock has it there (or gone) to the moment its zone's report
    left on USB; and the hub's round of every zone, from its heartbeats (one each 250 ms of its time, with the
    rounds it scanned meanwhile). ``crowded``: a card lies still on every other zone, as in play, and the trials
    are on the last zone."""
    rng = random.Random(25)
    out: dict[str, list[float]] = {"laid": [], "lift": [], "scans": []}
    with (
        _emulated(None, cpu_scale, usb_times=True) as (hub, readers, harness),
        serial.Serial(hub.path, timeout=0) as port,
    ):
        frames = _Frames(port, hub)
        heartbeat_s = _hub_config()["HEARTBEAT_MS"] / 1000

        def until(wanted: Callable[[Message], bool], wait_s: float = BOOT_S) -> float:
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline:
                for at, message in frames.read():
                    if isinstance(message, Heartbeat):
                        out["scans"].append(message.scans)
                    if wanted(message):
                        return float(at)
                time.sleep(0.02)
            raise TimeoutError(f"the emulated hub did not answer: {hub.diagnostics()}")

        until(lambda m: isinstance(m, Heartbeat))
        lying = harness.CHIP_SELECTS[:-1] if crowded else ()
        for zone, pin in enumerate(lying):
            with readers.lock:
                readers.chips[pin].field.add(sim.Ntag213(bytes((0x04, zone, 0x5E, 0x15, 0xE5, 0x00, 0x11))))
        seen: set[int] = set()

        def each_lying(message: Message) -> bool:
            if isinstance(message, ZoneReport) and len(message.uids) == 1:
                seen.add(message.zone)
            return len(seen) == len(lying)

        if lying:
            until(each_lying)
        out["scans"].clear()
        for _ in range(trials):
            pin = harness.CHIP_SELECTS[-1] if crowded else rng.choice(harness.CHIP_SELECTS)
            zone = harness.CHIP_SELECTS.index(pin)
            chip = readers.chips[pin]
            for uids, key in (((UID,), "laid"), ((), "lift")):
                when = readers.now_s + rng.uniform(0.05, 0.15)  # at any moment of a round
                readers.at(when, _change(chip, bool(uids)))
                sent = until(_report(zone, uids))
                out[key].append((sent - when) * 1000)
    beats = out.pop("scans")[1:]  # the first counts from the boot
    out["round"] = [heartbeat_s * len(beats) / max(sum(beats), 1) * 1000]
    return out


def model_figures(trials: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """The same figures on the model: the firmware's scanner and driver on ``companion.sim`` at the hub's SPI
    speed and time-out, in modeled time: milliseconds per operation, and per trial laid and lifted."""
    cfg = _hub_config()
    load_firmware()
    try:
        from scanner import Scanner  # type: ignore[import-not-found]  # the firmware's, as on the board

        sim.reset()
        sim.clock.platform("pico")
        readers = []
        zones = len(cfg["CHIP_SELECTS"])
        for device in range(zones):
            transfer = machine_transfer(sim.machine_spi(0, cfg["SPI_BAUDRATE"]), sim.machine_pin(0, device))
            turn = device * FULL_SCAN_EVERY // zones  # as firmware/hub_app.zone_readers gives them
            readers.append(
                RC522(
                    transfer,
                    sequence=sim.machine_sequence(0, device, cfg["SPI_BAUDRATE"]),  # as on the Pico's RP2040
                    timeout_ms=cfg["READER_TIMEOUT_MS"],
                    spi_hz=cfg["SPI_BAUDRATE"],
                    keep_ready=True,
                    full_scan_turn=turn,
                )
            )
        scanner = Scanner(readers, cfg["LIFT_SCANS"])
        scanner.start()
        clock = sim.clock

        def timed(action: Callable[[], object], name: str = "") -> float:
            start, transactions = clock.now_s, clock.transactions
            action()
            if name:
                figures["transactions " + name] = clock.transactions - transactions
            return (clock.now_s - start) * 1e3

        figures: dict[str, float] = {}
        figures["register"] = timed(readers[0].version)
        readers[0].scan()
        figures["empty"] = timed(readers[0].scan, "empty")
        [scanner.scan_zone(z) for z in range(len(readers))]  # every reader scanned once, as on the Pico
        figures["round"] = timed(lambda: [scanner.scan_zone(z) for z in range(len(readers))], "round")
        sim.field(0, 0).add(sim.Ntag213(UID))
        figures["new"] = timed(readers[0].scan, "new")
        sim.field(0, 0).clear()
        readers[0].scan()
        scanner.scan_zone(0)
        rng = random.Random(25)
        laid_or_lifted: dict[str, list[float]] = {"laid": [], "lift": []}
        for _ in range(trials):
            zone = rng.randrange(len(readers))
            for uids, key in (((UID,), "laid"), ((), "lift")):
                when = clock.now_s + rng.uniform(0.05, 0.15)  # at any moment of a round
                changed = reported = False
                while not reported:
                    for z in range(len(readers)):
                        if not changed and clock.now_s >= when:
                            (sim.field(0, zone).add(sim.Ntag213(UID)) if uids else sim.field(0, zone).clear())
                            changed = True
                        # a report whenever the zone's cards change (the firmware's own ZoneReport class)
                        if scanner.scan_zone(z) and z == zone and scanner.zones[zone] == uids:
                            laid_or_lifted[key].append((clock.now_s - when) * 1e3)
                            reported = True
                            break
        return figures, laid_or_lifted
    finally:
        unload_firmware()


def _ms(figures: dict[str, float], name: str) -> float:
    return figures[name] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench hub --emulator", description=__doc__.splitlines()[0])
    parser.add_argument("--emulator", action="store_true", help="this benchmark (the default runs bench/hub.py's)")
    parser.add_argument("--count", type=int, default=20, help="runs of each timing on the Pico (default 20)")
    parser.add_argument("--trials", type=int, default=20, help="cards laid and lifted (default 20)")
    args = parser.parse_args(argv)
    report(args.count, args.trials)
    return 0


def report(count: int, trials: int) -> None:
    raw = device_figures(count, 1.0)
    scale = PICO_LOOP_US / raw["loop"]
    pico = device_figures(count, scale)
    timed = journeys(trials, scale)
    crowded = journeys(trials, scale, crowded=True)
    model, model_timed = model_figures(trials)
    print(
        "Reader hub on MicroPython's real rp2 port, emulated RP2040 (rp2040js), emulated time; calibrated to a "
        f"125 MHz Pico by the pin on/off loop ({PICO_LOOP_US:.0f} us published, {raw['loop']:.1f} us emulated: "
        f"each instruction's time x {scale:.2f})"
    )
    print(f"  calibrated loop: {pico['loop']:.1f} us (the published {PICO_LOOP_US:.0f} us)")
    print(f"{'':44}{'emulated':>12}{'calibrated':>12}{'model':>12}{'calibrated/model':>18}")
    rows = [
        ("2-byte register read", "register"),
        ("empty-zone scan", "empty"),
        ("new NTAG213 scan (select, HLTA)", "new"),
        ("round of 8 zones, all empty", "round"),
    ]
    for label, key in rows:
        modeled = model[key]
        cells = (_ms(raw, key), _ms(pico, key), modeled)
        print(f"{label + ' (ms)':44}" + "".join(f"{c:12.3f}" for c in cells) + f"{cells[1] / modeled:18.2f}")
    ratios = [pico[key] / 1000 / model[key] for _, key in rows[1:]]
    within = "met" if all(1 / MODEL_RATIO <= r <= MODEL_RATIO for r in ratios) else "MISSED"
    spread = f"x {min(ratios):.2f} to {max(ratios):.2f}"
    print(f"  the model's scans within x {MODEL_RATIO} of the calibrated ones ({spread}): {within}")
    counts = ", ".join(
        f"{label.split(' (')[0]} {pico['transactions ' + key]:.0f} / {model['transactions ' + key]:.0f}"
        for label, key in rows[1:]
    )
    print(f"  SPI transactions, calibrated / model: {counts}")
    wire_us = 2 * 8e6 / _hub_config()["SPI_BAUDRATE"]
    print(
        f"  per SPI transaction besides its bytes (a 2-byte read less {wire_us:.0f} us on the wire): calibrated "
        f"{pico['register'] - wire_us:.0f} us, the model charges {CALL_COST_S['pico'] * 1e6:.0f} us"
    )
    call_us, each_us = (cost * 1e6 for cost in NATIVE_SEQUENCE_S)
    print(
        f"  the same read as one exchange in native code (firmware/spi_rp2.py), less its bytes: calibrated "
        f"{pico['exchange'] - wire_us:.0f} us; the model charges an exchange {call_us:.0f} us, the driver's Python "
        f"around it included, and {each_us:.0f} us a transaction in it"
    )
    round_ms = timed["round"][0]
    print(f"  round of 8 zones in the hub's own loop during the trials (its heartbeats), calibrated: {round_ms:.1f} ms")
    for key, label in (("laid", "card laid -> its zone report"), ("lift", "card lifted -> its zone report")):
        emulated, on_model = sorted(timed[key]), sorted(model_timed[key])
        print(
            f"  {label} (ms, {len(emulated)} trials): calibrated median {statistics.median(emulated):.1f}, "
            f"max {emulated[-1]:.1f}; model median {statistics.median(on_model):.1f}, max {on_model[-1]:.1f}"
        )
    print(f"  with a still card on each of the 7 other zones, a round (its heartbeats): {crowded['round'][0]:.1f} ms")
    for key, label in (("laid", "card laid -> its zone report"), ("lift", "card lifted -> its zone report")):
        values = sorted(crowded[key])
        print(
            f"  {label}, 7 other zones holding cards (ms, {len(values)} trials): calibrated median "
            f"{statistics.median(values):.1f}, max {values[-1]:.1f}"
        )
    for key, goal in GOALS_MS.items():
        values = sorted(timed[key.split()[0]] + crowded[key.split()[0]])
        value = values[-1] if key == "laid" else values[min(len(values) - 1, int(len(values) * 0.99))]
        what = "max" if key == "laid" else "p99"
        verdict = "met" if value <= goal else "MISSED"
        print(f"goal {key.split()[0]} {what}: {value:.1f} ms <= {goal:.0f} ms {verdict}")
