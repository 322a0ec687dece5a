"""The hub's firmware on MicroPython's real rp2 port, in an emulated RP2040, reached by the daemon's own back-end.

No stand-in of ours runs here: MicroPython's C code (its USB CDC with its Ctrl-C byte, its littlefs, its
scheduler) boots from the UF2, our .mpy files and main.py from its filesystem, and the host opens the USB serial
port with pyserial as it opens a real Pico. Without ``Readers`` nothing answers on SPI0 and every zone's reader is
down; with them, the chip simulator's MFRC522s answer the emulated SPI0's bytes.
"""

import asyncio
import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial
from rp2040_hub import EmulatedHub, Readers, board_files

from companion.events import ZoneScan
from companion.hub.backend import HubBackend, HubUnavailable, hello
from companion.hub.protocol import (
    ACK_OK,
    COLOURS,
    MODES,
    Ack,
    FrameDecoder,
    Heartbeat,
    Hello,
    Maintenance,
    Message,
    SetLed,
    Snapshot,
    Sync,
    ZoneError,
    encode_frame,
)
from companion.hub.session import HubEvent, HubOffline, HubOnline
from companion.sim.tags import Ntag213

pytestmark = pytest.mark.rp2040

ZONES = [f"z{n}" for n in range(8)]  # firmware/hub_config.py's eight chip selects
BOOT_S = 30.0  # wall time for the emulated Pico to boot and greet (about 3 s on an idle 2-core machine)
# Garbage as a host's line noise or a stray program might write: every byte value, 0x03 (Ctrl-C) and 0x04 (Ctrl-D)
# among them, twice over
GARBAGE = bytes(range(256)) * 2


def without_ctrl_c_off(name: str, source: str) -> str:
    """The firmware as it would be without its fix: Ctrl-C left on, as MicroPython runs main.py."""
    return source.replace("micropython.kbd_intr(-1)", "pass  # Ctrl-C left on")


def hung_after_four_rounds(name: str, source: str) -> str:
    """A scan loop that hangs (a reader's driver stuck, say) after its fourth round, with a 500 ms watchdog."""
    if name == "hub_config.py":
        return source.replace("WATCHDOG_MS = 2000", "WATCHDOG_MS = 500")
    hang = "            self.scan_round()\n"
    return source.replace(hang, hang + "            while self.scans > 3:\n                pass\n")


class Chunks:
    """A port whose reads return the bytes given, one chunk a read, then nothing."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read(self, size: int) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


class Link:
    """The host's end of the link as the daemon's session reads it: one decoder for the whole connection, and what a
    read brought after the frame waited for is kept for the next wait. (A decoder per wait, returning at the frame
    it waited for, loses whatever came with it: two ACKs in one read, or a frame torn between two reads.)"""

    def __init__(self, port: serial.Serial | Chunks) -> None:
        self.port = port
        self._decoder = FrameDecoder()
        self._read: list[Message] = []

    def until(self, wanted: type, wait_s: float) -> list[Message]:
        """What the hub sends until a frame of type ``wanted``; fails after ``wait_s`` with what came."""
        messages: list[Message] = []
        deadline = time.monotonic() + wait_s
        while True:
            while self._read:
                messages.append(self._read.pop(0))
                if isinstance(messages[-1], wanted):
                    return messages
            if time.monotonic() >= deadline:
                raise AssertionError(f"no {wanted.__name__} within {wait_s:g} s; got {messages[-5:]}")
            self._read = [message for _, message in self._decoder.feed(self.port.read(4096))]
            if not self._read:
                time.sleep(0.02)


def test_link_keeps_what_came_with_the_frame_waited_for() -> None:
    """Both ACKs of two commands written at once, read together, the second torn across two reads."""
    first, second = encode_frame(4, Ack(1, ACK_OK)), encode_frame(5, Ack(2, ACK_OK))
    link = Link(Chunks(first + second[:3], second[3:]))
    assert link.until(Ack, 1.0) == [Ack(1, ACK_OK)]
    assert link.until(Ack, 1.0) == [Ack(2, ACK_OK)]


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[EmulatedHub]:
    with EmulatedHub(tmp_path, board_files(tmp_path)) as running:
        yield running


def booted(hub: EmulatedHub) -> None:
    """Wait for the firmware's first heartbeat: MicroPython has booted, run main.py and started the loops."""
    with serial.Serial(hub.path, timeout=0) as port:
        try:
            Link(port).until(Heartbeat, BOOT_S)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nemulator: {hub.diagnostics()}") from None


def test_firmware_comes_up_on_usb(hub: EmulatedHub) -> None:
    with serial.Serial(hub.path, timeout=0) as port:
        messages = Link(port).until(Heartbeat, BOOT_S)
    hellos = [m for m in messages if isinstance(m, Hello)]
    assert hellos and hellos[0].firmware == (1, 0, 0)
    # Nothing on SPI0 answers: each zone's reader is reported down, by the real port's SPI and our driver
    assert len(hellos[0].health) == len(ZONES) and all(hellos[0].health)
    assert {m.zone for m in messages if isinstance(m, ZoneError)} == set(range(len(ZONES)))


def test_daemon_backend_handshake(hub: EmulatedHub) -> None:
    booted(hub)
    info = hello(hub.path, ZONES)
    assert info.firmware == "1.0.0"
    assert info.zones == tuple(ZONES)


def after_garbage(hub: EmulatedHub) -> list[str]:
    """Line noise holding 0x03 and 0x04 on the link of a booted hub, then what went wrong, if anything: a new
    session's HELLO does not come, the hub restarted (the rp2 port resets through the watchdog, run.mjs logs it), or
    its scan loop stopped counting."""
    with serial.Serial(hub.path, timeout=0) as port:
        port.write(GARBAGE)
        port.flush()
        time.sleep(1.0)
    wrong = []
    try:
        hello(hub.path, ZONES)
    except HubUnavailable as exc:
        wrong.append(f"no HELLO: {exc}")
    if "watchdog reset" in hub.diagnostics():
        wrong.append("the hub restarted")
    with serial.Serial(hub.path, timeout=0) as port:
        try:
            beats = [m for m in Link(port).until(Heartbeat, 5.0) if isinstance(m, Heartbeat)]
        except AssertionError:
            beats = []
    if not beats or beats[-1].scans == 0:
        wrong.append("no heartbeat counting scans")
    return wrong


def test_garbage_with_ctrl_c_does_not_stop_the_hub(hub: EmulatedHub) -> None:
    # A new session after the noise: the hub still answers, without a restart, and still counts its scans
    booted(hub)
    assert after_garbage(hub) == []


def test_negative_control_ctrl_c_left_on(tmp_path: Path) -> None:
    """The check above catches the fault it is there for: with Ctrl-C left on, the real port's USB CDC takes the
    host's 0x03 as an interrupt (shared/tinyusb/mp_usbd_cdc.c). Where the interrupt lands decides what follows: in
    the port's read, the firmware survives it but loses the frame (the host's SYNC holds 0x03: no HELLO comes);
    anywhere else it ends the loops and main.py restarts the board. Either way the check fails."""
    files = board_files(tmp_path, without_ctrl_c_off)
    assert b"kbd_intr(-1)" not in files["main.py"] and b"kbd_intr(-1)" not in files["hub_app.py"]
    with EmulatedHub(tmp_path, files) as hub:
        booted(hub)
        assert after_garbage(hub) != []


async def until(events: list[HubEvent], condition: Callable[[], bool], what: str, wait_s: float = 60.0) -> None:
    for _ in range(int(wait_s / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"waited {wait_s:g} s for {what}; events: {events[-5:]}")


def test_card_laid_and_lifted_reaches_the_daemon(tmp_path: Path) -> None:
    """An NTAG213 laid on zone z2's reader and lifted: two zone scans at the daemon's back-end, in order.

    The back-end's clock is the emulated chip's: the emulator runs several times slower than a Pico, and the link's
    timeouts (a heartbeat a second) are the hub's time, not the host's."""
    readers = Readers()
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    events: list[HubEvent] = []

    def scans() -> list[tuple[bytes, ...]]:
        return [e.uids for e in events if isinstance(e, ZoneScan) and e.zone == "z2"]

    async def journey(hub: EmulatedHub) -> None:
        backend = HubBackend(ZONES, events.append, hub.path, clock=lambda: readers.now_s)
        task = asyncio.create_task(backend.run())
        try:
            await until(events, lambda: any(isinstance(e, HubOnline) for e in events), "the hub online")
            online = next(e for e in events if isinstance(e, HubOnline))
            assert online.info.health == (0,) * len(ZONES)  # every reader answered at start-up
            with readers.lock:
                readers.chips[2].field.add(Ntag213(uid))
            await until(events, lambda: (uid,) in scans(), "the card on z2")
            with readers.lock:
                readers.chips[2].field.clear()
            await until(events, lambda: scans()[-1] == (), "the card lifted from z2")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    with EmulatedHub(tmp_path, board_files(tmp_path), readers) as hub:
        booted(hub)
        asyncio.run(journey(hub))
    laid = scans().index((uid,))
    assert all(s == () for s in scans()[:laid]) and scans()[-1] == ()
    assert not any(isinstance(e, HubOffline) for e in events)
    # No other zone saw the card
    assert all(e.uids == () for e in events if isinstance(e, ZoneScan) and e.zone != "z2")


def test_watchdog_resets_a_hung_firmware(tmp_path: Path) -> None:
    """The real port's machine.WDT, fed by the scan loop only: a hung loop restarts the board, which greets the
    host again (the emulator powers the chip up again when its watchdog fires, run.mjs)."""
    files = board_files(tmp_path, hung_after_four_rounds)
    assert b"while self.scans > 3" in files["hub_app.py"] and b"WATCHDOG_MS = 500" in files["hub_config.py"]
    with EmulatedHub(tmp_path, files, Readers()) as hub, serial.Serial(hub.path, timeout=0) as port:
        link = Link(port)
        first = link.until(Hello, BOOT_S)
        again = link.until(Hello, BOOT_S)
        log = hub.diagnostics()
    assert isinstance(first[-1], Hello) and isinstance(again[-1], Hello)
    # Between the two greetings the hung board sent no heartbeat of more than 3 rounds: it hung at its fourth
    assert not any(isinstance(m, Heartbeat) and m.scans > 3 for m in again)
    assert "watchdog reset" in log


def hub_time_passes(readers: Readers, seconds: float) -> None:
    """Wait until ``seconds`` of the emulated hub's time have passed, as its SPI bytes tell the readers."""
    since = readers.now_s
    deadline = time.monotonic() + 120.0
    while readers.now_s < since + seconds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert readers.now_s >= since + seconds, "the hub's time stood still: its scan loop stopped"


def read_until(port: serial.Serial, wanted: bytes, wait_s: float, seen: bytes = b"") -> bytes:
    """Bytes from the port until ``wanted`` is among them; fails after ``wait_s`` with the last of them."""
    deadline = time.monotonic() + wait_s
    while wanted not in seen and time.monotonic() < deadline:
        seen += port.read(4096)
        time.sleep(0.05)
    assert wanted in seen, seen[-300:]
    return seen


def test_maintenance_command_restarts_into_the_repl_once(tmp_path: Path) -> None:
    """MAINTENANCE over the link: the flag file written to the real port's littlefs, the ACK, a restart into the
    REPL; the flag is removed, so the next restart is a normal one (run.mjs emulates the ROM's flash writes)."""
    with EmulatedHub(tmp_path, board_files(tmp_path), Readers()) as hub, serial.Serial(hub.path, timeout=0) as port:
        link = Link(port)
        link.until(Heartbeat, BOOT_S)
        port.write(b"\x00" + encode_frame(0, Sync(0, 0)) + encode_frame(1, Maintenance()))
        acks = [m for m in link.until(Ack, 10.0) if isinstance(m, Ack)]
        assert acks == [Ack(1, ACK_OK)]
        seen = read_until(port, b">>> ", BOOT_S)
        assert b"companion hub: maintenance mode" in seen
        port.write(b"import os; print(os.listdir())\r\n")
        listing = read_until(port, b"]\r\n", 10.0).rpartition(b"os.listdir())")[2]
        assert b"main.py" in listing and b"maintenance" not in listing  # the flag is gone again
        port.write(b"import machine; machine.reset()\r\n")
        assert any(isinstance(m, Hello) for m in Link(port).until(Heartbeat, BOOT_S))


def test_maintenance_jumper_gives_the_repl(tmp_path: Path) -> None:
    """GP22 held to ground at power-up: no scanning, no watchdog, and MicroPython's REPL on the link."""
    files = board_files(tmp_path)
    with EmulatedHub(tmp_path, files, Readers(), jumper=True) as hub, serial.Serial(hub.path, timeout=0) as port:
        seen = b""
        deadline = time.monotonic() + BOOT_S
        while b">>> " not in seen and time.monotonic() < deadline:
            seen += port.read(4096)
            time.sleep(0.05)
        port.write(b"print(6 * 7)\r\n")
        deadline = time.monotonic() + 10.0
        while b"42\r\n" not in seen and time.monotonic() < deadline:
            seen += port.read(4096)
            time.sleep(0.05)
    assert b"companion hub: maintenance mode" in seen, seen[-300:]
    assert b"42\r\n" in seen, seen[-300:]
    assert FrameDecoder().feed(seen) == []  # no frame: nothing scans, no heartbeat


def test_set_led_lights_the_ws2812_chain(tmp_path: Path) -> None:
    """SET_LED reaches the LEDs: the real port's neopixel (machine.bitstream) on GP9, decoded from the pin."""
    red, amber = COLOURS.index("red"), COLOURS.index("amber")
    steady, blink = MODES.index("steady"), MODES.index("blink")
    readers = Readers()
    with EmulatedHub(tmp_path, board_files(tmp_path), readers) as hub, serial.Serial(hub.path, timeout=0) as port:
        link = Link(port)
        link.until(Heartbeat, BOOT_S)
        port.write(b"\x00" + encode_frame(0, Sync(0, 0)))
        link.until(Snapshot, 10.0)  # the handshake's end: the daemon sends LEDs only after it, too
        # Two commands in one write, as the daemon lights two zones, both answered before the host reads again: the
        # two ACKs come in one read, and the second must not be lost with it (docs/TESTING.md, the hub on the real port)
        port.write(encode_frame(1, SetLed(3, red, steady)) + encode_frame(2, SetLed(5, amber, blink)))
        hub_time_passes(readers, 0.2)
        acks = [m for m in link.until(Ack, 10.0) if isinstance(m, Ack)]
        acks += [m for m in link.until(Ack, 10.0) if isinstance(m, Ack)]
        assert acks == [Ack(1, ACK_OK), Ack(2, ACK_OK)]
        before = len(hub.led_frames())
        for _ in range(3):  # three quarters of a second of the hub's time: three blinks of 250 ms
            link.until(Heartbeat, 10.0)
        time.sleep(0.2)  # run.mjs writes a frame down once the line has been low 50 µs, looked at every 50 ms
        frames = hub.led_frames()[before:]
    assert frames and all(len(frame) == len(ZONES) for frame in frames)
    # zone 3 red in every frame (a quarter of full power: hub_app._RGB), zone 5 amber and off in turn, the rest off
    assert all(frame[3] == (64, 0, 0) for frame in frames)
    assert {frame[5] for frame in frames} == {(64, 24, 0), (0, 0, 0)}, frames
    assert all(frame[z] == (0, 0, 0) for frame in frames for z in range(len(ZONES)) if z not in (3, 5))


def test_host_closing_the_port_neither_blocks_nor_restarts_the_hub(tmp_path: Path) -> None:
    """DTR dropped for longer than the watchdog's 2 s (the companion stopped, its port closed): the real port's
    USB CDC then takes the hub's writes without waiting for the host (shared/tinyusb/mp_usbd_cdc.c), so the scan
    loop goes on, and when the port opens again the same boot answers the handshake. (The emulated host still
    takes what TinyUSB sends meanwhile: a pulled cable, where nothing leaves, is not emulated.)"""
    readers = Readers()
    with EmulatedHub(tmp_path, board_files(tmp_path), readers) as hub:
        booted(hub)
        before = hello(hub.path, ZONES)
        hub.line_state(dtr=False)
        hub_time_passes(readers, 3.0)
        hub.line_state(dtr=True)
        after = hello(hub.path, ZONES)
    assert after.boot == before.boot  # no watchdog reset while nobody listened
    assert "watchdog reset" not in hub.diagnostics()


def garbage_of_rounds(tmp_path: Path, cards: int) -> tuple[int, int]:
    """tests/firmware/hub_garbage.py on the port, with a still NTAG213 on each of the first ``cards`` zones: the
    bytes the hub's scan loop allocated in its rounds (``gc.mem_alloc()`` with the collector off), and the rounds."""
    readers = Readers()
    for zone in range(cards):
        readers.chips[zone].field.add(Ntag213(bytes((0x04, zone, 0x5E, 0x15, 0xE5, 0x00, 0x11))))
    files = board_files(tmp_path)
    files["main.py"] = (Path(__file__).parent / "hub_garbage.py").read_bytes()
    with EmulatedHub(tmp_path, files, readers) as hub, serial.Serial(hub.path, timeout=0) as port:
        seen = b""
        deadline = time.monotonic() + BOOT_S + 60
        while time.monotonic() < deadline:
            seen += port.read(4096)
            for line in seen.split(b"\n"):
                if line.startswith(b"garbage "):
                    _, garbage, rounds = line.split()
                    return int(garbage), int(rounds)
                if b"Error" in line:
                    raise AssertionError(seen[-800:].decode(errors="replace"))
            time.sleep(0.05)
    raise AssertionError(f"no garbage count from the emulated hub: {seen[-800:]!r}\n{hub.diagnostics()}")


@pytest.mark.parametrize("cards", [0, 7])
def test_rounds_of_zones_that_stay_as_they_were_make_no_garbage(tmp_path: Path, cards: int) -> None:
    """The hub's scan loop on the real port, the collector off: rounds of empty zones, and of a still card on 7 of
    them (each selected in full on its turns, decision 003), allocate not one byte. The collector then runs only
    after changes, where the hub chooses (hub_app._COLLECT_REPORTS), never between a touch and its report."""
    garbage, rounds = garbage_of_rounds(tmp_path, cards)
    assert rounds >= 48
    assert garbage == 0


@pytest.mark.parametrize("baudrate", [1_000_000, 10_000_000])
def test_native_sequence_clocks_a_script_as_transactions_one_by_one(tmp_path: Path, baudrate: int) -> None:
    """firmware/spi_rp2.py on the port: viper code driving the SPI block's and the chip select's registers clocks a
    script's transactions as the driver's ``in_turn`` does through ``machine.SPI``, one call each: the same
    transactions (chip-select periods) and the same answers, 20 bytes through the MFRC522's FIFO and back, each
    transaction longer than the RP2040's 8-byte SPI FIFOs (tests/firmware/hub_sequence.py). At the shipped 1 MHz
    and at the MFRC522's 10 MHz, where the bytes come fastest against the loop that drains them."""

    def clocked(name: str, source: str) -> str:
        if name != "hub_config.py":
            return source
        return source.replace("SPI_BAUDRATE = 1_000_000", f"SPI_BAUDRATE = {baudrate}")

    readers = Readers()
    files = board_files(tmp_path, clocked)
    assert f"SPI_BAUDRATE = {baudrate}".encode() in files["hub_config.py"]
    files["main.py"] = (Path(__file__).parent / "hub_sequence.py").read_bytes()
    answers: dict[str, bytes] = {}
    counts = []
    with EmulatedHub(tmp_path, files, readers) as hub, serial.Serial(hub.path, timeout=0) as port:
        seen = b""
        deadline = time.monotonic() + BOOT_S + 60
        while b"done" not in seen and time.monotonic() < deadline:
            seen += port.read(4096)
            lines = seen.split(b"\n")
            seen = lines.pop()
            for line in (raw.strip().decode(errors="replace") for raw in lines):
                assert "Error" not in line and "no native" not in line, line
                if line == "ready" or line.startswith(("native ", "in turn ")):
                    counts.append(readers.transactions)  # the Pico waits for the line below: no SPI meanwhile
                    if line != "ready":
                        name, _, answer = line.rpartition(" ")
                        answers[name] = bytes.fromhex(answer)
                    port.write(b"\n")
                elif line == "done":
                    seen = b"done"
            time.sleep(0.02)
        assert seen == b"done", hub.diagnostics()
    assert [after - before for before, after in itertools.pairwise(counts)] == [3, 3]
    assert answers["native"] == answers["in turn"]
    # The read's answer: a byte clocked out by its first address, then FIFOLevelReg, then the FIFO's 20 bytes
    level, data = answers["native"][2 + 21 + 1], answers["native"][2 + 21 + 2 :]
    assert level == 20 and data == bytes(range(0xA0, 0xB4))
