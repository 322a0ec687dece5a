"""Enrollment on every back-end's station: simulated readers anyone can try, what the OLED and the zone LEDs say,
a run that goes on where the last one stopped, and "what is this card?".

The parts are real: the driver on the register-level chip simulator, gpiozero's LEDs on mock pins, the luma
ssd1306 driver on the fake I2C bus (whose bytes are decoded back into the picture the panel would show).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

import companion.sim as sim
from companion.cli import main
from companion.decks import load_deck
from companion.hardware import load_pinmap
from companion.nfc import enrollment
from companion.nfc.backends import ReaderBackend
from companion.nfc.enrollment import Enrollment, Identify
from companion.nfc.errors import NfcError
from companion.nfc.ndef import card_id_from_ndef
from companion.nfc.rc522 import RC522
from companion.nfc.registry import Registry
from companion.nfc.stations import ReaderStation, SimStation
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, frame_to_text, make_device
from companion.ui.lights import StatusLed, ZoneLights
from companion.ui.screens import render
from companion.view import Message, MessageKind, TableView


class Bench:
    """A SimStation with the pin map's LEDs on mock pins and the OLED on a fake bus, as the command builds it."""

    def __init__(self, registry: Registry, factory: MockFactory, zones: tuple[str, ...] = ("z1", "z2")) -> None:
        self.factory = factory
        pinmap = load_pinmap()
        self.pins = {zone: pinmap.zones[zone] for zone in zones}
        self.lights = ZoneLights(
            self.pins, StatusLed(pinmap.status_led, pin_factory=self.factory), pin_factory=self.factory
        )
        self.bus = FakeI2CBus()
        self.station = SimStation(zones, [self.lights, Screen(make_device([], bus=self.bus))], registry)

    def screen_is(self, title: str, action: str) -> bool:
        expected = render(TableView(message=Message(MessageKind.QUESTION, title, action)))
        shown = self.bus.last_image().convert("1")
        return bytes(shown.tobytes()) == bytes(expected.tobytes())

    def lit(self, zone: str, colour: str) -> bool:
        """Whether ``colour`` of the zone's red/green pair was driven on since the last look."""
        pin = self.factory.pin(getattr(self.pins[zone], colour))
        on = any(state.state for state in pin.states[1:])
        pin.clear_states()
        return on

    def close(self) -> None:
        self.station.close()


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    path = tmp_path / "mini.toml"
    path.write_text(
        'name = "mini"\n'
        + "".join(
            f'[[cards]]\nid = "{rank}{suit}"\nkind = "spanish"\nsuit = "{suit}"\nrank = {rank}\n'
            for rank, suit in ((1, "O"), (6, "O"), (12, "C"), (7, "E"))
        )
    )
    return path


@pytest.fixture
def no_pi(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr("companion.pins.MODEL", Path("/nonexistent/model"))
    monkeypatch.setattr("companion.commands.enroll.CONFIG_PATH", Path("/nonexistent/config.toml"))
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()


# -- 2. anyone can try it --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_pi")
def test_off_a_pi_enroll_says_how_to_try_it_and_sim_auto_enrolls_a_whole_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = tmp_path / "registry.toml"
    assert main(["enroll", "--deck", "spanish-40", "--registry", str(registry)]) == 2
    err = capsys.readouterr().err
    assert "not a Raspberry Pi" in err and "--backend sim --auto" in err and "Traceback" not in err
    args = ["--deck", "spanish-40", "--registry", str(registry), "--backend", "sim", "--auto", "--write-tags"]
    assert main(["enroll", *args]) == 0
    out = capsys.readouterr().out
    assert "40/40 done: 40 cards of spanish-40 enrolled" in out
    assert len(Registry.load(registry, deck="spanish-40").bindings()) == 40
    assert main(["enroll", *args]) == 0
    assert "every card of spanish-40 is enrolled" in capsys.readouterr().out


@pytest.mark.usefixtures("spidev", "mock_factory")
def test_a_missing_spidev_device_is_named_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("companion.commands.enroll.CONFIG_PATH", Path("/nonexistent/config.toml"))
    sim.no_device(0, 0)
    assert main(["enroll", "--deck", "spanish-40", "--registry", str(tmp_path / "r.toml")]) == 2
    err = capsys.readouterr().err
    assert "/dev/spidev0.0: no such device (zone z1)" in err and "raspi-config" in err


def test_auto_goes_with_the_simulated_readers_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["enroll", "--deck", "spanish-40", "--backend", "hub", "--auto", "--registry", str(tmp_path / "r.toml")]
    assert main(args) == 2
    assert "--auto lays simulated tags: it goes with --backend sim" in capsys.readouterr().err


def test_the_config_gives_the_readers_deck_and_registry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    registry = tmp_path / "registry.toml"
    config.write_text(f'[game]\ndeck = "spanish-48"\n[readers]\nbackend = "sim"\nregistry = "{registry}"\n')
    assert main(["enroll", "--config", str(config), "--auto"]) == 0
    assert "48/48 done" in capsys.readouterr().out
    assert len(Registry.load(registry, deck="spanish-48").bindings()) == 48


# -- 3. the OLED, the LEDs, going on, identifying ----------------------------------------------------------


def test_the_oled_asks_for_each_card_and_the_zone_led_confirms_or_refuses(
    mini: Path, tmp_path: Path, mock_factory: MockFactory
) -> None:
    deck = load_deck(mini)
    registry = Registry.load(tmp_path / "r.toml", deck="mini")
    registry.bind(bytes.fromhex("04AA0000000001"), "7E")
    bench = Bench(registry, mock_factory)
    taken, fresh, other = (sim.Ntag213(f"04AA00000000{i:02X}") for i in (1, 2, 3))
    z1, z2 = sim.field(0, 0), sim.field(0, 1)
    seen: list[str] = []

    def look(title: str, action: str) -> Callable[[], bool]:
        return lambda: bench.screen_is(title, action)

    # What the player does, one step per poll, each once the table shows what comes before it.
    steps: list[tuple[Callable[[], bool], Callable[[], None], str]] = [
        (look("2/4 as de oros", "Pon la carta en una zona"), lambda: z1.add(taken), "asks for the first card"),
        (look("2/4 as de oros", "Ya es 7 de espadas: retírala"), lambda: z1.remove(taken), "already 7E"),
        (lambda: bench.lit("z1", "red"), lambda: (z2.add(fresh), z2.add(other)), "red on z1"),
        (look("2/4 as de oros", "Una carta cada vez"), lambda: None, "two tags at once"),
        (lambda: bench.lit("z2", "red"), lambda: z2.remove(other), "red on z2"),
    ]

    polls = iter(range(2000))

    def pause() -> None:
        assert next(polls, None) is not None, f"stuck after {seen}\n" + frame_to_text(bench.bus.last_image())
        if steps and steps[0][0]():
            _, act, what = steps.pop(0)
            seen.append(what)
            act()

    lines: list[str] = []

    def stop_after_first(card: object) -> None:
        if any("1O = etiqueta" in line for line in lines):  # the terminal speaks the table's language too
            raise KeyboardInterrupt

    enrollment = Enrollment(deck, registry, bench.station, out=lines.append, pause=pause, on_ask=stop_after_first)
    with pytest.raises(KeyboardInterrupt):
        enrollment.run()
    assert seen == ["asks for the first card", "already 7E", "red on z1", "two tags at once", "red on z2"]
    assert registry.card_for(fresh.uid) == "1O"
    assert bench.lit("z2", "green") and not bench.lit("z2", "red")
    assert "  la etiqueta 04AA0000000001 ya es 7 de espadas (7E); retírala y pon as de oros (o usa --rebind)" in lines
    assert "  una carta cada vez: deja en la zona solo la carta pedida" in lines
    assert bench.screen_is("3/4 6 de oros", "Pon la carta en una zona")
    bench.close()


def test_an_interrupted_enrollment_goes_on_where_it_stopped(
    mini: Path, tmp_path: Path, mock_factory: MockFactory
) -> None:
    deck = load_deck(mini)
    path = tmp_path / "r.toml"
    registry = Registry.load(path, deck="mini")
    bench = Bench(registry, mock_factory, zones=("z1",))
    asked: list[str] = []

    def lay(card: object) -> None:
        asked.append(card.id)  # type: ignore[attr-defined]
        if len(asked) == 3:
            raise KeyboardInterrupt  # Ctrl-C while the third card is asked for
        bench.station.lay(card.id)  # type: ignore[attr-defined]

    with pytest.raises(KeyboardInterrupt):
        Enrollment(deck, registry, bench.station, on_ask=lay, pause=lambda: None, out=lambda line: None).run()
    bench.close()
    sim.reset()
    registry = Registry.load(path, deck="mini")  # what the first run saved, and nothing else
    assert sorted(registry.bindings().values()) == ["1O", "6O"]
    bench = Bench(registry, mock_factory, zones=("z1",))
    lines: list[str] = []
    screens: list[bool] = []

    def lay_again(card: object) -> None:
        screens.append(bench.screen_is(f"{len(screens) + 3}/4 {deck[card.id].name()}", "Pon la carta en la zona z1"))  # type: ignore[attr-defined]
        bench.station.lay(card.id)  # type: ignore[attr-defined]

    assert Enrollment(deck, registry, bench.station, on_ask=lay_again, pause=lambda: None, out=lines.append).run() == 2
    assert lines[0] == "2 de 4 cartas de mini ya están inscritas: se sigue desde ahí"
    assert "pon rey de copas (quedan 2)" in lines[1] and "[##########----------] 2/4" in lines[1]
    assert screens == [True, True]
    assert bench.screen_is("Baraja inscrita", "4 de 4 cartas")
    assert sorted(Registry.load(path, deck="mini").bindings().values()) == ["12C", "1O", "6O", "7E"]
    bench.close()


def test_identify_names_each_card_laid_on_a_zone(mini: Path, tmp_path: Path, mock_factory: MockFactory) -> None:
    deck = load_deck(mini)
    registry = Registry.load(tmp_path / "r.toml", deck="mini")
    registry.bind(bytes.fromhex("04BB0000000006"), "6O")
    bench = Bench(registry, mock_factory)
    lines: list[str] = []
    hand = [("6O", "z2"), ("stranger", "z1")]
    names = Identify(deck, registry, bench.station, out=lines.append)

    def lay() -> None:
        if hand and names.named == 2 - len(hand):
            bench.station.lay(*hand.pop(0))

    names.pause = lay
    assert names.run(stop=lambda: names.named == 2) == 2
    stranger = bench.station.tag("stranger").uid.hex().upper()
    assert lines == [
        "zona z2: 6 de oros (6O)",
        f"zona z1: la etiqueta {stranger} no es ninguna carta de mini (companion enroll)",
    ]
    assert bench.screen_is("Etiqueta desconocida", stranger)
    assert bench.lit("z2", "green")
    bench.close()


def test_cards_identify_with_the_simulated_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = tmp_path / "r.toml"
    common = ["--deck", "spanish-40", "--registry", str(registry), "--backend", "sim", "--lang", "en"]
    assert main(["enroll", *common, "--auto"]) == 0
    capsys.readouterr()
    # Every look at the zones is after a wait: --auto laying the next card once spun the loop (7 s of CPU in 12).
    counts = {"looks": 0, "waits": 0}
    news, sleep = enrollment._Zones.news, time.sleep

    def look(self: Any) -> Any:
        counts["looks"] += 1
        return news(self)

    def wait(seconds: float) -> None:
        counts["waits"] += 1
        sleep(seconds)

    monkeypatch.setattr(enrollment._Zones, "news", look)
    monkeypatch.setattr(enrollment.time, "sleep", wait)
    assert main(["cards", *common, "--identify", "--auto"]) == 0
    assert counts["looks"] > 41 and counts["waits"] >= counts["looks"], counts
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "zone z1: ace of coins (1O)" and out[39] == "zone z1: king of clubs (12B)"
    assert out[40].startswith("zone z1: tag 04") and out[40].endswith("is no card of spanish-40 (companion enroll)")


def test_written_tags_carry_their_card_id(mini: Path, tmp_path: Path, mock_factory: MockFactory) -> None:
    deck = load_deck(mini)
    registry = Registry.load(tmp_path / "r.toml", deck="mini")
    bench = Bench(registry, mock_factory)
    enrollment = Enrollment(
        deck,
        registry,
        bench.station,
        write_tags=True,
        on_ask=lambda card: bench.station.lay(card.id, "z2"),
        pause=lambda: None,
        out=lambda line: None,
    )
    assert enrollment.run() == 4
    for card in deck:
        tag = bench.station.tag(card.id)
        assert registry.card_for(tag.uid) == card.id
        assert card_id_from_ndef(bytes(tag.memory[16:160])) == card.id
    bench.close()


FIRST, TWIN = bytes.fromhex("04A1B2C3D4E5F6"), bytes.fromhex("04A1B2000000F1")  # one roll: one level-1 answer


class CountingWriter:
    """A reader that writes tags but is not our driver: it counts the pages it writes, through the one it holds."""

    def __init__(self, reader: RC522) -> None:
        self.reader, self.pages = reader, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reader, name)

    def write_page(self, page: int, data4: bytes) -> None:
        self.pages += 1
        self.reader.write_page(page, data4)


class ScanOnly:
    """A reader that reads UIDs only, as the ``mfrc522`` package's."""

    def init(self) -> None: ...

    def scan(self, on_select: Any = None) -> list[bytes]:
        return []


def test_a_station_writes_through_any_reader_that_writes_tags_and_refuses_one_that_cannot(reader: RC522) -> None:
    writer = CountingWriter(reader)
    tag = sim.Ntag213(FIRST)
    sim.field(0, 0).add(tag)
    station = ReaderStation(ReaderBackend([("z1", writer), ("z2", ScanOnly())]), [])
    assert [scan.uids for scan in station.poll()] == [(FIRST,), ()]
    station.write("z1", FIRST, "6O")
    assert card_id_from_ndef(bytes(tag.memory[16:160])) == "6O" and writer.pages > 0
    with pytest.raises(NfcError, match="this back-end cannot write tags"):
        station.write("z2", FIRST, "6O")


def test_a_station_selects_every_tag_at_every_poll_so_a_twin_swapped_in_at_once_is_seen(reader: RC522) -> None:
    """Enrolling binds what was read: a tag swapped for its twin between two polls (the reader's quick confirm of
    a lone tag by its level-1 answer cannot tell them apart) is the twin at the very next poll."""
    station = ReaderStation(ReaderBackend([("z1", reader)]), [])
    sim.field(0, 0).add(sim.Ntag213(FIRST))
    assert station.poll()[0].uids == (FIRST,)
    sim.field(0, 0).clear()
    sim.field(0, 0).add(sim.Ntag213(TWIN))
    assert station.poll()[0].uids == (TWIN,)
