"""The firmware's hub in CPython on the chip simulator, talking to the host session through memory.

``MemoryPort`` stands for the USB cable; the host side is the real ``HubSession``, so every assertion is about
what the daemon would see.
"""

import ast
import asyncio
import random
import runpy
import types
from pathlib import Path
from typing import Any

import pytest

import companion.sim as sim
from companion.events import ZoneScan
from companion.hub.protocol import ACK_OK, Ack, FrameDecoder, Maintenance, Sync, ZoneReport, encode_frame
from companion.hub.session import HubOffline, HubOnline, HubSession
from companion.hub.simulated import FIRMWARE


class MemoryPort:
    """The USB cable in memory; what the host sends reaches the firmware through MicroPython's receive path."""

    def __init__(self) -> None:
        import usb_cdc

        self.out = bytearray()
        self.incoming = bytearray()
        self.cdc = usb_cdc.CdcInput()

    def write(self, data: bytes) -> None:
        self.out += data

    def read(self) -> bytes:
        self.cdc.receive(bytes(self.incoming))
        self.incoming = bytearray()
        return bytes(self.cdc.read())


def config(**changes: Any) -> types.SimpleNamespace:
    import hub_config

    settings = {name: getattr(hub_config, name) for name in dir(hub_config) if name.isupper()}
    settings.update(changes)
    return types.SimpleNamespace(**settings)


@pytest.fixture
def firmware(board: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    import hub_app
    import machine
    import micropython

    machine.attach(sim.machine_spi(0), {gpio: sim.machine_pin(0, zone) for zone, gpio in enumerate(range(8))})
    micropython.kbd_intr(3)  # as MicroPython starts main.py: Ctrl-C on
    monkeypatch.chdir(tmp_path)  # the board's flash
    return hub_app


def link(hub: Any, session: HubSession, port: MemoryPort, now: float = 0.0) -> list[Any]:
    """Carry the bytes both ways once: the host's to the hub, then the hub's to the host."""
    port.incoming += session.outbox
    session.outbox.clear()
    hub.read_port()
    events = session.receive(bytes(port.out), now)
    port.out.clear()
    return events


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ZONES": 9}, "ZONES = 9 but CHIP_SELECTS lists 8 pins"),
        ({"ZONES": 17, "CHIP_SELECTS": tuple(range(17))}, "the hub scans 1 to 16 zones"),
        ({"CHIP_SELECTS": (0, 1, 2, 3, 4, 5, 6, 24)}, "pin 24: not a GPIO on the Pico's header"),
        ({"CHIP_SELECTS": (0, 1, 2, 3, 4, 5, 6, 18)}, "pin 18 is given twice"),
        ({"SCK": 17}, "SCK = 17: SPI 0 can use GP(2, 6, 18, 22) for SCK"),
        ({"SPI_BAUDRATE": 20_000_000}, "SPI_BAUDRATE = 20000000"),
        ({"WATCHDOG_MS": 9000}, "WATCHDOG_MS = 9000: the Pico's watchdog takes 100 to 8388 ms"),
        ({"MAINTENANCE_PIN": 9}, "pin 9 is given twice"),
    ],
)
def test_check_config_says_what_to_change(firmware: Any, changes: dict[str, Any], message: str) -> None:
    assert any(message in error for error in firmware.check_config(config(**changes)))


def test_the_shipped_config_and_sixteen_zones_are_sound(firmware: Any) -> None:
    assert firmware.check_config(config()) == []
    sixteen = (0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 20, 21)
    assert firmware.check_config(config(ZONES=16, CHIP_SELECTS=sixteen)) == []


def test_a_bad_pin_is_reported_over_the_link_not_a_crash(firmware: Any) -> None:
    port = MemoryPort()
    hub = firmware.build(config(CHIP_SELECTS=(0, 1, 2, 3, 4, 5, 6, 40)), port)
    session = HubSession([f"z{i}" for i in range(8)])

    async def boot() -> list[Any]:
        hub.start()
        session.open(0.0)
        events = link(hub, session, port)
        hub.deinit()
        return events

    events = asyncio.run(boot())
    assert [type(e) for e in events] == [HubOffline]
    assert "pin 40: not a GPIO on the Pico's header" in str(events[0].reason)


def test_scanning_reporting_and_leds(firmware: Any) -> None:
    import machine
    import micropython

    port = MemoryPort()
    hub = firmware.build(config(ZONES=3, CHIP_SELECTS=(0, 1, 2)), port)
    session = HubSession(["a", "b", "c"])
    sim.unplug(0, 2)
    card = sim.Ntag213("04A1B2C3D4E5F6")

    async def play() -> list[Any]:
        hub.start()  # the scan loop runs in the background from here
        session.open(0.0)
        events = link(hub, session, port)
        assert micropython.interrupt_char[0] == -1  # from start(): 0x03 in the host's frames is data
        sim.field(0, 1).add(card)
        for _ in range(5000):  # at most about 5 s: a full scan of every zone, the card among them
            if hub.scanner.zones[1] == (card.uid,) and machine.watchdogs[-1].feeds:
                break
            await asyncio.sleep(0.001)
        session.set_led("b", "green", "steady", 0.1)
        session.set_led("c", "red", "blink", 0.1)
        events += link(hub, session, port, 0.2)
        hub.deinit()
        return events

    events = asyncio.run(play())
    assert isinstance(events[0], HubOnline) and events[0].info.health == (0, 0, 1)
    scans = [e for e in events if isinstance(e, ZoneScan)]
    assert scans[-1] == ZoneScan("b", (card.uid,), 0.2)
    assert any(e.zone == "c" and e.error for e in scans)  # the dead reader, named to the daemon
    assert hub.leds.state == [(0, 0), (1, 0), (2, 1)]
    assert hub.leds.pixels.shown[1] == (0, 64, 0)  # GRB order: green
    assert session.unacknowledged == 0  # both commands acknowledged
    assert machine.watchdogs[-1].feeds > 0  # the scan loop keeps the hardware watchdog fed
    assert hub.interrupts == 0


def test_a_dead_reader_is_retried_and_reported_back(firmware: Any) -> None:
    import scanner

    port = MemoryPort()
    hub = firmware.build(config(ZONES=1, CHIP_SELECTS=(0,)), port)
    sim.unplug(0, 0)
    assert [e.code for e in hub.scanner.start()] == [1]
    sim.reader(0, 0).unplugged = False
    messages = []
    for _ in range(scanner.RETRY_EVERY):
        messages += hub.scanner.scan_zone(0)
    assert [(m.zone, m.code) for m in messages] == [(0, 2)]
    assert hub.scanner.health == [0]


@pytest.mark.parametrize(("kind", "uid"), [("Ntag213", "00000000000000"), ("MifareClassic1K", "FFFFFFFF")])
def test_a_uid_no_tag_has_is_a_damaged_read_not_a_card(firmware: Any, kind: str, uid: str) -> None:
    hub = firmware.build(config(ZONES=1, CHIP_SELECTS=(0,)), MemoryPort())
    assert hub.scanner.start() == []
    sim.field(0, 0).add(getattr(sim, kind)(uid))
    assert hub.scanner.scan_zone(0) == []  # nothing to report, and nothing the protocol would refuse to carry
    assert hub.scanner.zones == [()]
    assert hub.scanner.garbled == 1


def test_the_hosts_first_frame_holds_0x03_and_is_answered(firmware: Any) -> None:
    """The host's SYNC on a fresh connection is 00 02 01 02 81 01 01 01 03 c1 2e 00: with Ctrl-C still on, its
    0x03 would empty the input and raise KeyboardInterrupt in the reader, and the hub would never answer."""
    port = MemoryPort()
    hub = firmware.build(config(), port)
    session = HubSession([f"z{i}" for i in range(8)])

    async def connect() -> list[Any]:
        hub.start()
        session.open(0.0)
        assert 3 in session.outbox
        events = link(hub, session, port)
        hub.deinit()
        return events

    events = asyncio.run(connect())
    assert isinstance(events[0], HubOnline)
    assert [e.uids for e in events[1:]] == [()] * 8  # and the snapshot that follows HELLO
    assert hub.interrupts == 0 and port.cdc.interrupts == 0


def test_a_ctrl_c_that_gets_through_costs_its_frame_only(firmware: Any) -> None:
    import micropython

    port = MemoryPort()
    hub = firmware.build(config(), port)

    async def connect() -> None:
        hub.start()
        micropython.kbd_intr(3)  # as if 0x03 came before main.py's first line turned it off
        port.incoming += b"\x00" + encode_frame(0, Sync(0, 0))
        hub.read_port()  # the reader gets the KeyboardInterrupt, not the frame
        assert hub.interrupts == 1 and micropython.interrupt_char[0] == -1
        assert port.out.count(0) == 2  # the boot's zero and HELLO only: the SYNC is gone
        port.incoming += b"\x00" + encode_frame(0, Sync(0, 0))
        hub.read_port()
        hub.deinit()

    asyncio.run(connect())
    kinds = [type(m).__name__ for _, m in FrameDecoder().feed(bytes(port.out))]
    assert kinds == ["Hello", "Hello", "Snapshot"]  # the second SYNC is answered


def test_main_turns_ctrl_c_off_before_anything_else() -> None:
    """main.py: MicroPython runs it with Ctrl-C on; the host may be talking while the modules load."""
    tree = ast.parse((FIRMWARE / "main.py").read_text())
    statements = [ast.unparse(node) for node in tree.body if not isinstance(node, ast.Expr | ast.Constant)]
    calls = [ast.unparse(node) for node in tree.body if isinstance(node, ast.Expr)][1:]  # after the docstring
    assert statements[0] == "import micropython"
    assert calls[0] == "micropython.kbd_intr(-1)"
    assert tree.body.index(next(n for n in tree.body if ast.unparse(n) == calls[0])) == 2


def test_the_watchdog_is_within_the_rp2040s_limit(firmware: Any) -> None:
    import hub_config

    assert firmware.WATCHDOG_MAX_MS == 8388  # ports/rp2/machine_wdt.c, WDT_TIMEOUT_MAX for the RP2040
    assert 100 <= hub_config.WATCHDOG_MS <= firmware.WATCHDOG_MAX_MS


def test_the_maintenance_command_restarts_into_the_repl(firmware: Any, tmp_path: Path) -> None:
    import machine

    port = MemoryPort()
    hub = firmware.boot(config(), port)
    assert hub is not None and len(machine.watchdogs) == 1
    port.incoming += b"\x00" + encode_frame(0, Sync(0, 0)) + encode_frame(1, Maintenance())

    async def run() -> None:
        await hub.run()

    with pytest.raises(machine.Reset):
        asyncio.run(run())
    assert Ack(1, ACK_OK) in [m for _, m in FrameDecoder().feed(bytes(port.out))]
    assert (tmp_path / "maintenance").exists()

    del machine.watchdogs[:]
    port.out.clear()
    assert firmware.boot(config(), port) is None  # maintenance mode: nothing runs, no watchdog
    assert machine.watchdogs == []
    assert b"maintenance mode" in port.out
    assert not (tmp_path / "maintenance").exists()  # once: the next boot is a normal one
    assert firmware.boot(config(), port) is not None and len(machine.watchdogs) == 1


def test_a_pin_held_to_ground_at_power_up_chooses_maintenance_mode(firmware: Any) -> None:
    import hub_config
    import machine

    machine.hold(hub_config.MAINTENANCE_PIN, 0)
    assert firmware.boot(config(), MemoryPort()) is None
    assert machine.watchdogs == []
    machine.hold(hub_config.MAINTENANCE_PIN, None)
    assert firmware.boot(config(), MemoryPort()) is not None
    assert len(machine.watchdogs) == 1


def edge_of_range(firmware: Any) -> tuple[Any, sim.Ntag213]:
    """A one-zone hub's scanner, started, and the NTAG213 it has found on its zone, now at the edge of range: it
    answers one poll in LIFT_SCANS (missed by up to LIFT_SCANS - 1 scans in a row)."""
    import hub_config

    hub = firmware.build(config(ZONES=1, CHIP_SELECTS=(0,)), MemoryPort())
    scanner = hub.scanner
    assert scanner.start() == []
    card = sim.Ntag213("04A1B2C3D4E5F6")
    sim.field(0, 0).add(card)
    assert [m.uids for m in scanner.scan_zone(0)] == [(card.uid,)]
    card.answer_one_in(hub_config.LIFT_SCANS)
    return scanner, card


def test_a_lift_is_reported_once_lift_scans_clean_scans_missed_the_card(firmware: Any) -> None:
    """A card is there from its first read and gone after LIFT_SCANS clean misses in a row: a tag at the edge of
    range, or a burst of interference, makes no phantom lift; a card really lifted is reported a few scans on."""
    import hub_config

    scanner, card = edge_of_range(firmware)
    for _ in range(60):
        assert scanner.scan_zone(0) == []
    card.answer_one_in(1)
    sim.field(0, 0).remove(card)
    for misses in range(hub_config.LIFT_SCANS - 1):
        assert scanner.scan_zone(0) == [], misses
    sim.field(0, 0).noise()  # a damaged answer: something is there, the count of clean misses starts again
    assert scanner.scan_zone(0) == []
    for _ in range(hub_config.LIFT_SCANS - 1):
        assert scanner.scan_zone(0) == []
    [lifted] = scanner.scan_zone(0)
    assert lifted.uids == () and scanner.zones == [()]


def test_a_tag_at_the_edge_of_range_under_interference_is_never_lifted(firmware: Any) -> None:
    """A tag at the edge of range (missed by up to LIFT_SCANS - 1 scans in a row) with bursts of interference on
    its zone, one scan in 20, for 2,000 scans: never reported lifted. Interference heard after an HLTA once stayed
    in the reader's FIFO and spoiled the next WUPA, a third miss in a row: about one phantom lift in 100 scans."""
    scanner, card = edge_of_range(firmware)
    rng = random.Random(1)
    for _ in range(2000):
        if rng.random() < 0.05:
            sim.field(0, 0).noise(rng.randint(1, 3))
        assert scanner.scan_zone(0) == []
    assert scanner.zones == [(card.uid,)] and scanner.garbled > 0


def test_main_stays_in_the_repl_in_maintenance_mode_and_restarts_on_a_stray_ctrl_c(
    firmware: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """main.py as the board runs it: Ctrl-C off first; maintenance mode ends main.py (the REPL); a Ctrl-C that
    got in before it was off restarts the board rather than leaving it in the REPL without a hub."""
    import machine
    import micropython

    monkeypatch.setattr(firmware, "UsbPort", MemoryPort)
    (tmp_path / "maintenance").write_text("")
    runpy.run_path(str(FIRMWARE / "main.py"))
    assert micropython.interrupt_char[0] == -1
    assert machine.watchdogs == [] and not (tmp_path / "maintenance").exists()

    def interrupted(cfg: Any, port: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(firmware, "boot", interrupted)
    with pytest.raises(machine.Reset):
        runpy.run_path(str(FIRMWARE / "main.py"))


def test_a_zone_whose_card_was_missed_is_scanned_again_between_the_others(firmware: Any) -> None:
    """With a card on every zone a round is long: a zone whose card its last scans missed is scanned again every
    ZONES // LIFT_SCANS zones, so a lift is reported within a round of the first miss, not two more; a tag at
    the edge of range (missed by up to LIFT_SCANS - 1 scans in a row) is not lifted for it."""
    import hub_config

    port = MemoryPort()
    hub = firmware.build(config(), port)
    scanner = hub.scanner
    assert scanner.start() == []
    cards = [sim.Ntag213(bytes((0x04, zone, 0x10, 0x20, 0x30, 0x40, 0x50))) for zone in range(8)]
    for zone, card in enumerate(cards):
        sim.field(0, zone).add(card)
    order: list[int] = []
    scan_zone = scanner.scan_zone

    def recorded(zone: int) -> Any:
        order.append(zone)
        return scan_zone(zone)

    scanner.scan_zone = recorded
    hub.scan_round()
    assert order == list(range(8)) and scanner.zones == [(card.uid,) for card in cards]

    cards[2].answer_one_in(hub_config.LIFT_SCANS)  # at the edge of range: never lifted
    for _ in range(30):
        hub.scan_round()
    assert scanner.zones[2] == (cards[2].uid,)

    cards[2].answer_one_in(1)
    hub.scan_round()  # it answered, or its misses run on: either way it is still there
    sim.field(0, 2).remove(cards[2])
    port.out.clear()
    order.clear()
    hub.scan_round()
    assert scanner.zones[2] == ()  # lifted in the round of its first miss
    # zone 2 again after zones 4 and 6: its 2nd and 3rd misses; empty then, it is polled after zone 7's scan
    assert order == [0, 1, 2, 3, 4, 2, 5, 6, 2, 7, 2]
    reports = [m for _, m in FrameDecoder().feed(bytes(port.out)) if getattr(m, "zone", None) == 2]
    assert [m.uids for m in reports] == [()]


def test_empty_zones_are_polled_after_each_zone_holding_a_card(firmware: Any) -> None:
    """A card is laid on an empty zone: the empty zones are polled after every scan of a zone holding a card, so
    a touch waits one occupied zone's scan and a poll of the empty ones, not a round of every zone; a zone whose
    reader is down is tried once a round. A card laid there is reported before the next occupied zone's scan."""
    port = MemoryPort()
    hub = firmware.build(config(), port)
    scanner = hub.scanner
    assert scanner.start() == []
    for zone in (1, 3, 4):
        sim.field(0, zone).add(sim.Ntag213(bytes((0x04, zone, 0x10, 0x20, 0x30, 0x40, 0x50))))
    sim.unplug(0, 6)
    hub.scan_round()
    hub.scan_round()  # zone 6's reader found down: it stays in the once-a-round group
    order: list[int] = []
    scan_zone = scanner.scan_zone

    def recorded(zone: int) -> Any:
        order.append(zone)
        if zone == 3:
            sim.field(0, 5).add(sim.Ntag213(bytes.fromhex("04a1b2c3d4e5f6")))
        return scan_zone(zone)

    scanner.scan_zone = recorded
    port.out.clear()
    hub.scan_round()
    empty, then = [0, 2, 5, 7], [0, 2, 7]  # zone 5 holds a card from its poll after zone 3's scan
    assert order == [1, *empty, 3, *empty, 4, *then, 5, *then, 6, *then]
    [report] = [m for _, m in FrameDecoder().feed(bytes(port.out)) if isinstance(m, ZoneReport)]
    assert report.zone == 5 and scanner.zones[5] == (bytes.fromhex("04a1b2c3d4e5f6"),)


def test_the_hub_collects_its_heap_a_round_after_every_eighth_report(
    firmware: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds that change nothing make no garbage (counted on the port, test_rp2040.py); the garbage of changes is
    collected by the hub itself at a quiet moment: a round after the report that makes 8, never in the round that
    sends it (the report must leave on USB first), and not again before 8 more."""
    port = MemoryPort()
    hub = firmware.build(config(), port)
    assert hub.scanner.start() == []
    collections: list[tuple[int, int]] = []  # reports sent and rounds scanned at each collection
    monkeypatch.setattr(firmware.gc, "collect", lambda: collections.append((hub.reports, hub.scans)))
    tag = sim.Ntag213(bytes.fromhex("04a1b2c3d4e5f6"))
    reported_in: list[int] = []

    async def play() -> None:
        task = asyncio.create_task(hub._scan())
        for change in range(10):
            sim.field(0, 3).add(tag) if change % 2 == 0 else sim.field(0, 3).remove(tag)
            reports = hub.reports
            while hub.reports == reports:
                await asyncio.sleep(0)
            reported_in.append(hub.scans)
            for _ in range(3):
                await asyncio.sleep(0)
        task.cancel()

    asyncio.run(play())
    assert len(reported_in) == 10 and hub.reports == 10
    [(reports, scans)] = collections
    assert reports == 8 and scans > reported_in[7]  # a round after the 8th report, not in its round
