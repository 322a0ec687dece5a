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
from companion.events import CardArrived, CardLeft, UnknownTag, UnknownTagLeft, ZoneScan
from companion.nfc.backends import (
    ReaderBackend,
    ScenarioError,
    SimBackend,
    SpiZone,
    TagMemoryReader,
    gpio_cs_transfer,
    mfrc522_backend,
    parse_scenario,
    spi_backend,
)
from companion.nfc.errors import ReaderNotResponding
from companion.nfc.ndef import FIRST_PAGE, card_id_pages
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


def written(uid: str, card: str) -> sim.Ntag213:
    """An NTAG213 carrying ``card`` as companion enroll --write-tags writes it."""
    tag = sim.Ntag213(uid)
    data = card_id_pages(card)
    tag.memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
    return tag


def feed_polls(backend: SimBackend, tracker: TableTracker, start: int, count: int) -> list[object]:
    return [event for t in range(start, start + count) for scan in backend.poll(t) for event in tracker.feed(scan)]


def test_a_copied_uid_is_the_card_its_own_memory_names(tmp_path: Path) -> None:
    """Two tags share a UID (a clone): each is read when it arrives, not taken for the one read before."""
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    backend = SimBackend(["O"], registry)
    backend.init()
    tracker = TableTracker(registry)
    original, copy = written("04C10E0000C10E", "6O"), written("04C10E0000C10E", "7O")
    sim.field(0, 0).add(original)
    assert feed_polls(backend, tracker, 0, 2) == [CardArrived("O", "6O", 0)]
    sim.field(0, 0).remove(original)
    assert feed_polls(backend, tracker, 2, 3) == [CardLeft("O", "6O", 4)]
    sim.field(0, 0).add(copy)
    assert feed_polls(backend, tracker, 5, 2) == [CardArrived("O", "7O", 5)]


def test_a_tag_naming_a_card_enrolled_on_another_tag_is_two_tags_claiming_it(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    registry.bind(SIX, "6O")
    backend = SimBackend(["O"], registry)
    backend.init()
    copy = written("04C10E0000C10E", "6O")
    sim.field(0, 0).add(copy)
    events = feed_polls(backend, TableTracker(registry), 0, 2)
    assert events == [UnknownTag("O", copy.uid, 0, claims="6O")]

    from companion.config import GameConfig
    from companion.referee import Referee

    referee = Referee(GameConfig(), {"O": "table"})
    referee.handle(events[0], 0.0)  # type: ignore[arg-type]
    message = referee.view().message
    assert message is not None and (message.title, message.todo) == (
        "Dos etiquetas dicen ser 6 de oros",
        "Retira la copia de O",
    )


def test_a_tag_that_slid_off_during_its_read_is_read_again_and_named(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    backend = SimBackend(["O"], registry)
    backend.init()
    tracker = TableTracker(registry)
    tag = written("04511DE0FF0000", "6O")
    tag.drop_next(1, after=5)  # ATQA, two anticollisions, two SAKs answered; the FAST_READ answer is lost
    sim.field(0, 0).add(tag)
    assert feed_polls(backend, tracker, 0, 1) == [UnknownTag("O", tag.uid, 0)]
    # the tracker says the tag is no longer an unknown one, then what card it is
    assert feed_polls(backend, tracker, 1, 3) == [UnknownTagLeft("O", tag.uid, 1), CardArrived("O", "6O", 1)]
    assert tracker.unknown_on("O") == set()


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


def test_the_spi_backend_reads_zones_through_spidev(spidev: types.ModuleType) -> None:
    sim.field(0, 1).add(sim.Ntag213(SIX))
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    backend.init()
    assert backend.poll(1.0) == [ZoneScan("O", (), 1.0), ZoneScan("C", (SIX,), 1.0)]


def test_a_dead_reader_is_named_by_its_zone(spidev: types.ModuleType) -> None:
    sim.unplug(0, 1)
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    with pytest.raises(ReaderNotResponding, match="zone C: no MFRC522"):
        backend.init()


def test_the_other_readers_work_and_a_dead_one_is_set_up_when_it_answers(spidev: types.ModuleType) -> None:
    sim.unplug(0, 0)
    sim.field(0, 0).add(sim.Ntag213(SIX))
    sim.field(0, 1).add(sim.Ntag213(SEVEN))
    backend = spi_backend([SpiZone("O", 0, 0), SpiZone("C", 0, 1)])
    with pytest.raises(ReaderNotResponding, match="zone O"):
        backend.init()
    first = backend.poll(1.0)
    assert first[0].error is not None and first[0].error.startswith("reader not responding")
    assert first[1] == ZoneScan("C", (SEVEN,), 1.0), "a dead reader does not keep the others from starting"
    assert backend.poll(1.1)[0].reader_down
    sim.reader(0, 0).unplugged = False  # plugged back, in its power-on state: its oscillator starts
    assert backend.poll(2.0)[0] == ZoneScan("O", (SIX,), 2.0)


def test_a_missing_spi_device_is_named_with_what_to_do(spidev: types.ModuleType, mock_factory: MockFactory) -> None:
    sim.no_device(0, 1)
    with pytest.raises(FileNotFoundError, match=r"^/dev/spidev0\.1: no such device \(zone C\)\. Enable SPI"):
        spi_backend([SpiZone("O", 0, 0, reset=25), SpiZone("C", 0, 1)], pin_factory=mock_factory)
    from gpiozero import DigitalOutputDevice

    DigitalOutputDevice(25, pin_factory=mock_factory).close()  # the reset line was let go (else GPIOPinInUse)


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


def test_a_gpio_chip_select_frames_each_transfer(mock_factory: MockFactory) -> None:
    from gpiozero import DigitalOutputDevice

    cs = DigitalOutputDevice(8, active_high=False, initial_value=False, pin_factory=mock_factory)
    dev = sim.spidev.SpiDev(0, 0)
    transfer = gpio_cs_transfer(dev, cs)
    assert transfer(bytes((0x80 | 0x37 << 1, 0))) == b"\x00\x92"
    states = [True, False, True]  # idle high, low for the transfer, high again
    assert [s.state for s in mock_factory.pin(8).states][1:] == states


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


def test_every_zone_reset_line_is_pulsed_then_held_high_while_the_readers_run(
    spidev: types.ModuleType, mock_factory: MockFactory
) -> None:
    backend = spi_backend([SpiZone("O", 0, 0, reset=24), SpiZone("C", 0, 1, reset=25)], pin_factory=mock_factory)
    for gpio in (24, 25):
        assert [s.state for s in mock_factory.pin(gpio).states][-2:] == [False, True], "low to reset, then high"
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


def test_at_the_table_a_tag_named_at_last_stops_being_an_unknown_card(tmp_path: Path) -> None:
    from companion.config import GameConfig
    from companion.journal import Journal
    from companion.referee import Referee
    from companion.table import Table
    from companion.view import ZoneLight

    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    backend = SimBackend(["z1"], registry)
    backend.init()
    referee = Referee(GameConfig(confirm_turns=False), {"z1": "table"})
    table = Table(referee, TableTracker(registry), Journal(tmp_path / "journal.db"))
    table.start(0.0)
    tag = written("04511DE0FF0000", "6O")
    tag.drop_next(1, after=5)  # the FAST_READ answer is lost: the first poll cannot name it
    sim.field(0, 0).add(tag)
    table.scan(backend.poll(1.0)[0], 1.0)
    assert referee.view().zone_lights["z1"] is ZoneLight.UNKNOWN
    table.scan(backend.poll(2.0)[0], 2.0)
    assert referee.view().zone_lights["z1"] is not ZoneLight.UNKNOWN
    assert referee.zones.lying["z1"] == {"6O"}
    assert [e.text for e in table.journal.entries(table.game_id)] == ["play 6O"]


class _OtherChip:
    """A reader that is not our MFRC522 driver but reads a selected NTAG's memory: one tag carrying card 6O."""

    uid = bytes.fromhex("04AB000000006F")

    def __init__(self) -> None:
        memory = bytearray(4 * 45)
        data = card_id_pages("6O")
        memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
        self.memory = bytes(memory)

    def init(self) -> None:
        pass

    def scan(self, on_select: Callable[[bytes, int], None] | None = None) -> list[bytes]:
        if on_select is not None:
            on_select(self.uid, 0x00)  # SAK 00: a type 2 tag
        return [self.uid]

    def fast_read(self, first: int, last: int) -> bytes:
        return self.memory[4 * first : 4 * (last + 1)]

    def forget(self) -> None:
        pass


def test_any_reader_that_reads_tag_memory_gets_the_card_id_a_tag_carries() -> None:
    """Reading the card id asks what the reader can do (TagMemoryReader), not which driver it is."""
    chip = _OtherChip()
    assert isinstance(chip, TagMemoryReader)
    scan = ReaderBackend([("z1", chip)]).poll(0.0)[0]
    assert scan.tag_cards == ((chip.uid, "6O"),)
