"""Reader back-ends on simulated chips: the sim scenario, our driver through spidev, the mfrc522 package."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import companion.sim as sim
from companion.decks import load_deck
from companion.nfc.backends import (
    ScenarioError,
    SimBackend,
    SpiZone,
    gpio_cs_transfer,
    mfrc522_backend,
    parse_scenario,
    spi_backend,
)
from companion.nfc.events import CardArrived, CardLeft, UnknownTag, ZoneScan
from companion.nfc.rc522 import ReaderNotResponding
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker

SIX = bytes.fromhex("04A1B2C3D4E5F6")
SEVEN = bytes.fromhex("04112233445566")


def run(backend: SimBackend, tracker: TableTracker, until: float, step: float = 0.02) -> list[tuple[float, object]]:
    events: list[tuple[float, object]] = []
    for i in range(round(until / step) + 1):
        for scan in backend.poll(i * step):
            events += [(round(i * step, 2), e) for e in tracker.feed(scan)]
    return events


def test_a_scenario_plays_through_the_whole_stack(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    registry.bind(SIX, "6O")
    backend = SimBackend(["O", "C"], registry)
    backend.init()
    backend.play(parse_scenario("0.1 on 6O O\n0.1 on 7C C  # not enrolled: named by its tag\n0.5 off 6O\n"))
    deck = load_deck("spanish-40")
    events = run(backend, TableTracker(registry, known=deck.__contains__), until=0.7)
    assert events == [
        (0.1, CardArrived("O", "6O", 0.1)),
        (0.1, CardArrived("C", "7C", 0.1)),
        (0.54, CardLeft("O", "6O", 0.54)),
    ]
    assert backend.tag("6O").uid == SIX  # the enrolled UID is the one in the field


def test_noise_and_a_card_at_the_edge_of_range_never_flicker_the_table(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    backend = SimBackend(["O"], registry)
    backend.init()
    backend.play(parse_scenario("0.0 on 6O O\n0.0 edge 6O 2\n0.2 noise O 3\n0.4 noise O 1"))
    events = run(backend, TableTracker(registry), until=1.0)
    assert [e for _, e in events] == [CardArrived("O", "6O", 0.02)]  # the first poll found it out of reach


def test_a_zone_scan_with_a_damaged_answer_carries_the_error() -> None:
    backend = SimBackend(["O"])
    backend.init()
    backend.noise("O")
    (scan,) = backend.poll(0.0)
    assert scan.uids == () and scan.error is not None and "parity" in scan.error


def test_a_tag_that_nobody_enrolled_or_named_is_unknown(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    backend = SimBackend(["O"], registry)
    backend.init()
    blank = sim.Ntag213("04BADBADBADBAD")
    sim.field(0, 0).add(blank)
    (scan,) = backend.poll(0.0)
    assert TableTracker(registry).feed(scan) == [UnknownTag("O", blank.uid, 0.0)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.1 on 6O", "T on CARD ZONE"),
        ("soon off 6O", "T off CARD"),
        ("1 jump 6O", "is not a step"),
        ("1 on 6O Z", "zones are O"),
    ],
)
def test_a_bad_scenario_line_says_how_to_write_it(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        SimBackend(["O"]).play(parse_scenario(text))


def test_the_spi_backend_reads_zones_through_spidev(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    sim.field(0, 1).add(sim.Ntag213(SIX))
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    backend.init()
    assert backend.poll(1.0) == [ZoneScan("O", (), 1.0), ZoneScan("C", (SIX,), 1.0)]


def test_a_dead_reader_is_named_by_its_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    sim.unplug(0, 1)
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    with pytest.raises(ReaderNotResponding, match="zone C: no MFRC522"):
        backend.init()


def test_the_other_readers_work_and_a_dead_one_is_set_up_when_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    sim.unplug(0, 0)
    sim.field(0, 0).add(sim.Ntag213(SIX))
    sim.field(0, 1).add(sim.Ntag213(SEVEN))
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    with pytest.raises(ReaderNotResponding, match="zone O"):
        backend.init()
    first = backend.poll(1.0)
    assert first[0].error is not None and first[0].error.startswith("reader not responding")
    assert first[1] == ZoneScan("C", (SEVEN,), 1.0), "a dead reader does not keep the others from starting"
    sim.reader(0, 0).unplugged = False  # plugged back, in its power-on state
    assert backend.poll(2.0)[0] == ZoneScan("O", (SIX,), 2.0)


def test_a_missing_spi_device_is_named_with_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    sim.no_device(0, 1)
    factory = MockFactory()
    with pytest.raises(FileNotFoundError, match=r"^/dev/spidev0\.1: no such device \(zone C\)\. Enable SPI"):
        spi_backend([SpiZone("O", 0, 0, reset=25), SpiZone("C", 0, 1)], pin_factory=factory)
    from gpiozero import DigitalOutputDevice

    DigitalOutputDevice(25, pin_factory=factory).close()  # the reset line was let go (else GPIOPinInUse)


def test_the_mfrc522_backend_names_a_missing_spi_device(fake_pi: Callable[[], types.ModuleType]) -> None:
    fake_pi()
    sim.no_device(0, 0)
    with pytest.raises(FileNotFoundError, match=r"^/dev/spidev0\.0: no such device \(zone table\)"):
        mfrc522_backend([SpiZone("table", 0, 0)])


def test_the_polling_thread_hands_over_scans_until_stopped() -> None:
    backend = SimBackend(["O", "C"])
    backend.init()
    backend.put("6O", "C")
    scans: list[ZoneScan] = []
    backend.start(scans.append)
    while len(scans) < 6:
        pass
    backend.stop()
    assert {s.zone for s in scans} == {"O", "C"}
    assert all(s.uids == (backend.tag("6O").uid,) for s in scans if s.zone == "C")


def test_a_gpio_chip_select_frames_each_transfer() -> None:
    factory = MockFactory()
    from gpiozero import DigitalOutputDevice

    cs = DigitalOutputDevice(8, active_high=False, initial_value=False, pin_factory=factory)
    dev = sim.spidev.SpiDev(0, 0)
    transfer = gpio_cs_transfer(dev, cs)
    assert transfer(bytes((0x80 | 0x37 << 1, 0))) == b"\x00\x92"
    states = [True, False, True]  # idle high, low for the transfer, high again
    assert [s.state for s in factory.pin(8).states][1:] == states


def test_the_mfrc522_backend_reads_classic_cards(fake_pi: Callable[[], types.ModuleType]) -> None:
    fake_pi()
    uid = bytes.fromhex("DEADBEEF")
    sim.field(0, 0).add(sim.MifareClassic1K(uid))
    backend = mfrc522_backend([SpiZone("table", 0, 0)])
    backend.init()
    seen = [backend.poll(float(t))[0].uids for t in range(4)]
    assert seen == [(uid,), (), (uid,), ()]  # no HALT in the package: the card answers every other WUPA
    with pytest.raises(ValueError, match="spidev chip selects only"):
        mfrc522_backend([SpiZone("table", 0, 0, cs_gpio=5)])


def test_every_zone_reset_line_is_pulsed_then_held_high_while_the_readers_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", sim.spidev)
    factory = MockFactory()
    backend = spi_backend([SpiZone("O", 0, 0, reset=24), SpiZone("C", 0, 1, reset=25)], pin_factory=factory)
    for gpio in (24, 25):
        assert [s.state for s in factory.pin(gpio).states][-2:] == [False, True], "low to reset, then high"
    backend.close()
    assert backend.devices == []


def test_the_mfrc522_backend_drives_each_zones_reset_in_bcm_numbering(
    fake_pi: Callable[[], types.ModuleType],
) -> None:
    fake_pi()
    gpio = sys.modules["RPi.GPIO"]
    mfrc522_backend([SpiZone("O", 0, 0, reset=24), SpiZone("C", 0, 1, reset=25)])
    assert gpio.getmode() == gpio.BCM  # type: ignore[attr-defined]
    assert gpio.levels == {24: 1, 25: 1}  # type: ignore[attr-defined]


def test_the_docs_name_only_parameters_the_back_ends_have() -> None:
    """docs/NFC.md once named a ``reset_gpio=`` that ``spi_backend`` never had."""
    import dataclasses
    import inspect
    import re

    text = (Path(__file__).parents[2] / "docs" / "NFC.md").read_text("utf-8")
    call = re.search(r"`spi_backend\((.*?)\)`:", text, re.S)
    assert call is not None
    named = set(re.findall(r"(\w+)=", call.group(1)))
    known = set(inspect.signature(spi_backend).parameters) | {f.name for f in dataclasses.fields(SpiZone)}
    assert named and named <= known, f"docs/NFC.md names {sorted(named - known)}"
