"""The reader hub: scans the zones' MFRC522 readers, lights their LEDs and speaks the hub protocol on USB serial.

Four asyncio tasks, kept on the ``Hub`` and cancelled by ``deinit()``: the scan loop (which alone feeds the
hardware watchdog, so a stuck loop resets the board), the heartbeat and snapshot beat, the receiver of host
commands, and the LED blinker. The port, readers, LEDs and watchdog are passed in, so the same class runs on the
Pico and, in tests, in CPython with a fake ``machine`` over the chip simulator and a pty for the USB cable.
"""

import asyncio
import gc
import os
import random
import sys
import time

import machine
import micropython
import neopixel
from protocol import (
    ACK_BAD_LED,
    ACK_BAD_ZONE,
    ACK_FAILED,
    ACK_OK,
    BAD_CONFIG,
    COLOURS,
    HUB_ZONE,
    MODES,
    Ack,
    FrameDecoder,
    Heartbeat,
    Hello,
    Maintenance,
    Message,
    SetLed,
    Sync,
    WriteTag,
    ZoneError,
    encode_frame,
)
from rc522 import FULL_SCAN_EVERY, RC522, machine_transfer
from scanner import Scanner

try:  # noqa: SIM105 (MicroPython has no contextlib; only mypy needs Any)
    from typing import Any
except ImportError:
    pass

FIRMWARE = (1, 0, 0)

# GRB levels of each colour on a WS2812B; a quarter of full power is bright enough under a card and keeps 8
# LEDs at 40 to 60 mA (hardware/hub/README.md, Power budget).
_RGB = ((0, 0, 0), (0, 64, 0), (64, 0, 0), (64, 24, 0))
_BLINK_MS = 250
# How often the receiver looks at the port when nothing scans (a configuration fault). While the zones are
# scanned, the scan loop looks between two zones instead: on the Pico a pass of asyncio's scheduler costs about
# 0.7 ms, so a task woken every 2 ms and a yield after every zone took a third of a round (docs/NFC.md).
_RX_POLL_MS = 2
_RX_POLL_SCANNING_MS = 50
# After the ACK of a MAINTENANCE command, time for it to leave on USB before the reset takes the port away.
_RESET_AFTER_MS = 100
# The RP2040's watchdog counts 24 bits at 2 ticks a microsecond: it cannot wait longer (ports/rp2/machine_wdt.c,
# WDT_TIMEOUT_MAX; the RP2350 can wait 16,777 ms, the RP2040's limit holds on both). Once started it cannot be
# stopped, so the REPL is reached through maintenance mode, chosen before it starts.
WATCHDOG_MAX_MS = 8388
# The file a MAINTENANCE command leaves on the board's flash: the next boot stays in the REPL and removes it.
MAINTENANCE_FLAG = "maintenance"

# Pins each SPI block can use on an RP2040 or RP2350 (datasheet, GPIO functions), and the GPIOs on the header.
_SPI_PINS = (
    ((2, 6, 18, 22), (3, 7, 19), (0, 4, 16, 20)),
    ((10, 14, 26), (11, 15, 27), (8, 12, 28)),
)
_GPIOS = tuple(n for n in range(29) if not 23 <= n <= 25)
MAX_ZONES = 16
# The heap (about 140 KB free on a Pico while the hub runs) is collected at quiet moments, before it runs out: a
# round after every _COLLECT_REPORTS-th report (a change of cards makes up to 5 KB of garbage: a new card's selection
# and its report), and at a heartbeat once _COLLECT_BEATS heartbeats passed without a collection (a table without
# changes: a heartbeat and its share of the snapshot make a few hundred bytes). A collection costs about 15 ms on
# a Pico; left to MicroPython it comes when an allocation finds the heap full, most often in a new card's scan,
# between the touch and its report. Counted, not measured: gc.mem_free() walks the whole heap, as long as a
# collection.
_COLLECT_REPORTS = 8
_COLLECT_BEATS = 120


def check_config(cfg: "Any") -> "list[str]":
    """Every mistake in ``hub_config``, each as a sentence that says what to change."""
    errors = []
    try:
        zones = int(cfg.ZONES)
        pins = tuple(cfg.CHIP_SELECTS)
        spi = (cfg.SCK, cfg.MOSI, cfg.MISO)
        others = (cfg.READER_RESET, cfg.LED_DATA, cfg.MAINTENANCE_PIN)
        watchdog = cfg.WATCHDOG_MS
        lift = cfg.LIFT_SCANS
        spi_id = cfg.SPI_ID
        baudrate = cfg.SPI_BAUDRATE
    except (AttributeError, TypeError, ValueError) as exc:
        return ["hub_config.py: " + str(exc) + ": copy the setting from the firmware's hub_config.py"]
    if not 1 <= zones <= MAX_ZONES:
        errors.append(f"ZONES = {zones}: the hub scans 1 to {MAX_ZONES} zones")
    if len(pins) != zones:
        errors.append(f"ZONES = {zones} but CHIP_SELECTS lists {len(pins)} pins: give one chip select per zone")
    if spi_id not in (0, 1):
        errors.append(f"SPI_ID = {spi_id}: the Pico has SPI 0 and SPI 1")
    else:
        for i, name in enumerate(("SCK", "MOSI", "MISO")):
            pin, allowed = spi[i], _SPI_PINS[spi_id][i]
            if pin not in allowed:
                errors.append(f"{name} = {pin}: SPI {spi_id} can use GP{allowed} for {name}")
    if not 100_000 <= baudrate <= 10_000_000:
        errors.append(f"SPI_BAUDRATE = {baudrate}: the MFRC522 takes 0.1 to 10 MHz (1 MHz suits 40 cm cables)")
    if not 1 <= lift <= 20:
        errors.append(f"LIFT_SCANS = {lift}: give 1 to 20 scans (3 keeps a tag at the edge of range in place)")
    if not 100 <= watchdog <= WATCHDOG_MAX_MS:
        errors.append(f"WATCHDOG_MS = {watchdog}: the Pico's watchdog takes 100 to {WATCHDOG_MAX_MS} ms")
    used = list(pins) + list(spi) + list(others)
    for pin in used:
        if pin not in _GPIOS:
            errors.append(f"pin {pin}: not a GPIO on the Pico's header (GP0-GP22, GP26-GP28)")
        elif used.count(pin) > 1:
            errors.append(f"pin {pin} is given twice in hub_config.py: each pin has one job")
            used = [p for p in used if p != pin]
    return errors


class ZoneLeds:
    """One WS2812B per zone on one data pin (``neopixel.NeoPixel``); a blinking zone alternates with off."""

    def __init__(self, pixels: "Any") -> None:
        self.pixels = pixels
        self.state = [(0, 0) for _ in range(len(pixels))]
        self.lit = True

    def set(self, zone: int, colour: int, mode: int) -> None:
        self.state[zone] = (colour, mode)
        self.show()

    def show(self) -> None:
        for zone, (colour, mode) in enumerate(self.state):
            self.pixels[zone] = _RGB[colour] if self.lit or not mode else _RGB[0]
        self.pixels.write()


class Hub:
    """The hub's link and loops. ``faults`` are configuration errors: such a hub scans nothing and says why."""

    def __init__(
        self,
        port: "Any",
        scanner: Scanner,
        leds: "ZoneLeds | None",
        wdt: "Any",
        faults: "list[str] | None" = None,
        heartbeat_ms: int = 250,
        snapshot_ms: int = 1000,
    ) -> None:
        self.port = port
        self.scanner = scanner
        self.leds = leds
        self.wdt = wdt
        self.faults = faults or []
        self.boot = random.getrandbits(16)
        self.scans = 0
        self.reports = 0  # messages the scans sent
        self.collections = 0  # of the heap's garbage, by the hub itself (collect)
        self._reports_kept = 0  # the count of reports at the last collection (those since: reports - _reports_kept)
        self._beats_kept = 0  # heartbeats since the last collection
        self.interrupts = 0  # Ctrl-Cs that reached the reader (none once start() has turned them off)
        self.rebooting = False  # into maintenance mode, once the ACK has left
        self._seq = 0
        self._decoder = FrameDecoder()
        self._tasks: list[Any] = []
        self._heartbeat_s = heartbeat_ms / 1000
        self._snapshot_every = max(1, snapshot_ms // heartbeat_ms)

    def send(self, message: Message) -> None:
        self.port.write(encode_frame(self._seq, message))
        self._seq = (self._seq + 1) & 0xFF

    def hello(self) -> None:
        """Start a session: numbering from 0, after a zero that ends whatever the host had half read."""
        self._seq = 0
        self.port.write(b"\x00")
        health = tuple(self.scanner.health) if not self.faults else ()
        self.send(Hello(FIRMWARE, self.boot, self.scanner.event, health))
        for fault in self.faults:
            self.send(ZoneError(HUB_ZONE, BAD_CONFIG, fault))

    def sync(self, request: Sync) -> None:
        self.hello()
        if request.boot == self.boot:
            for report in self.scanner.changes_after(request.event) or ():
                self.send(report)
        self.send(self.scanner.snapshot())

    def set_led(self, seq: int, command: SetLed) -> None:
        if self.leds is None or command.zone >= len(self.leds.state):
            status = ACK_BAD_ZONE
        elif command.colour >= len(COLOURS) or command.mode >= len(MODES):
            status = ACK_BAD_LED
        else:
            self.leds.set(command.zone, command.colour, command.mode)
            status = ACK_OK
        self.send(Ack(seq, status))

    def maintenance(self, seq: int) -> None:
        """Leave the flag that makes the next boot stay in the REPL, acknowledge, and restart (``_receive``)."""
        try:
            with open(MAINTENANCE_FLAG, "w") as flag:
                flag.write("the companion asked for maintenance mode\n")
        except OSError:
            self.send(Ack(seq, ACK_FAILED))
            return
        self.send(Ack(seq, ACK_OK))
        self.rebooting = True

    def receive(self, data: bytes) -> None:
        for seq, message in self._decoder.feed(data):
            if isinstance(message, Sync):
                self.sync(message)
            elif isinstance(message, SetLed):
                self.set_led(seq, message)
            elif isinstance(message, Maintenance):
                self.maintenance(seq)
            elif isinstance(message, WriteTag):
                # Between two zone scans (one task runs at a time): the write never meets a scan of its reader.
                self.send(Ack(seq, self.scanner.write_tag(message.zone, message.uid, message.page, message.data)))

    def read_port(self) -> None:
        """Take in what the host sent. On MicroPython's USB serial port, a 0x03 while Ctrl-C is on empties the
        input and raises ``KeyboardInterrupt`` (firmware/sim/usb_cdc.py): survived, at the cost of the frame it
        was in, and Ctrl-C turned off again."""
        try:
            data = self.port.read()
        except KeyboardInterrupt:
            self.interrupts += 1
            micropython.kbd_intr(-1)
            return
        if data:
            self.receive(data)

    def start(self) -> None:
        """Greet the host and start the loops (the scan loop only when the configuration is sound)."""
        # The host's frames hold 0x03 (its first SYNC does, and most heartbeats): from here it is data, not Ctrl-C.
        # main.py turns it off before anything else too; the REPL is reached through maintenance mode.
        micropython.kbd_intr(-1)
        errors = self.scanner.start() if not self.faults else []
        self.hello()
        for error in errors:
            self.send(error)
        loops = [self._beat(), self._receive(_RX_POLL_MS if self.faults else _RX_POLL_SCANNING_MS)]
        if not self.faults:
            loops.append(self._scan())
        if self.leds is not None:
            loops.append(self._blink())
        self._tasks = [asyncio.create_task(loop) for loop in loops]

    async def run(self) -> None:
        """Run until a loop fails (then the watchdog, no longer fed, resets the board) or the task is cancelled."""
        self.start()
        try:
            await asyncio.gather(*self._tasks)
        finally:
            self.deinit()

    def deinit(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks = []

    def scan_round(self) -> None:
        """Scan every zone holding a card once, and after each of them every empty zone: a card is laid on an
        empty zone, and it is then seen within one occupied zone's scan and one poll of the empty ones, not a
        round of every zone (a round of 7 still cards is about 20 ms on a Pico, an empty zone's poll 1.4 ms). With
        no card on the table a round is one poll of each zone, as before.

        A zone whose card its last scans missed (``Scanner.doubtful``) is scanned again every ``zones //
        LIFT_SCANS`` zones: the clean scans that confirm a lift then come within half a round or so of the first,
        not in up to three rounds, which keeps a lift within its 150 ms on a table with a card on every zone. A tag
        at the edge of range still needs LIFT_SCANS misses in a row to be lifted, and they span that many other
        zones' scans at least. A zone whose reader is down is tried once a round, with the zones holding cards."""
        scanner = self.scanner
        cards, health = scanner.zones, scanner.health
        zones = len(cards)
        step = max(1, zones // scanner.lift_scans)
        swept = False
        for zone in range(zones):
            if cards[zone] or health[zone]:
                self._scan_zone(zone)
                # Host commands between two scans, without a pass of the scheduler: a SET_LED waits for one
                # scan at most, and a WRITE_TAG never meets a scan of its reader.
                self.read_port()
                self._sweep()
                swept = True
            if scanner.doubtful:
                for doubtful in tuple(scanner.doubtful):
                    if doubtful != zone and (zone - doubtful) % step == 0:
                        self._scan_zone(doubtful)
        if not swept:
            self._sweep()
        self.scans += 1

    def _sweep(self) -> None:
        """One poll of every empty zone whose reader answers."""
        scanner = self.scanner
        cards, health = scanner.zones, scanner.health
        for zone in range(len(cards)):
            if not cards[zone] and not health[zone]:
                self._scan_zone(zone)
                self.read_port()

    def _scan_zone(self, zone: int) -> None:
        for message in self.scanner.scan_zone(zone):
            self.send(message)
            self.reports += 1

    def collect(self) -> None:
        """Collect the heap's garbage now, a quiet moment (see _COLLECT_REPORTS)."""
        gc.collect()
        self.collections += 1
        self._reports_kept = self.reports
        self._beats_kept = 0

    async def _scan(self) -> None:
        reports = self.reports
        while True:
            self.scan_round()
            self.wdt.feed()
            # A round of zones that stay as they were makes no garbage; a change does. The collection comes a round
            # after the report that makes it due: that report has left on USB (a collection holds up the USB stack
            # too), and the next change is most likely yet to come.
            if reports != self.reports:
                reports = self.reports
            elif reports - self._reports_kept >= _COLLECT_REPORTS:
                self.collect()
            await asyncio.sleep(0)  # once a round: the heartbeat, the blink, a restart into maintenance mode

    async def _beat(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(self._heartbeat_s)
            self.send(Heartbeat(self.scans))
            self._beats_kept += 1
            if self._beats_kept >= _COLLECT_BEATS:
                self.collect()  # a table without changes for half a minute: the heartbeats' own garbage
            self.scans = 0
            beats += 1
            if beats % self._snapshot_every == 0:
                if self.faults:
                    self.hello()  # say it again: a host that connects late must still learn what is wrong
                else:
                    self.send(self.scanner.snapshot())

    async def _receive(self, every_ms: int) -> None:
        while True:
            self.read_port()
            if self.rebooting:
                await asyncio.sleep(_RESET_AFTER_MS / 1000)
                machine.reset()
            await asyncio.sleep(every_ms / 1000)

    async def _blink(self) -> None:
        leds = self.leds
        while leds is not None:
            await asyncio.sleep(_BLINK_MS / 1000)
            leds.lit = not leds.lit
            leds.show()


class UsbPort:
    """The USB serial port of the Pico, as MicroPython's ``sys.stdin`` and ``sys.stdout`` see it."""

    def __init__(self) -> None:
        import select
        import sys

        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self) -> bytes:
        # ipoll, not poll: poll() makes a list at every call, and the port is looked at between every two zones
        # (ipoll hands back the poller itself and one tuple it keeps: no garbage; extmod/modselect.c)
        for _ in self._poll.ipoll(0):  # _ready(), inline: this runs after every zone's scan, a call saved
            break
        else:
            return b""  # the usual answer: no allocation
        data = bytearray()
        while len(data) < 256 and self._ready():
            data.extend(self._in.read(1))
        return bytes(data)

    def _ready(self) -> bool:
        for _ in self._poll.ipoll(0):
            return True
        return False

    def write(self, data: bytes) -> None:
        self._out.write(data)


def maintenance_requested(cfg: "Any") -> bool:
    """Whether this boot stays in the REPL: a MAINTENANCE command left its flag (removed, so that the next boot
    is a normal one again), or ``MAINTENANCE_PIN`` is held to ground."""
    try:
        os.remove(MAINTENANCE_FLAG)
        return True
    except OSError:
        pass
    try:
        pin = machine.Pin(cfg.MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    except (AttributeError, TypeError, ValueError):
        return False  # no such pin: check_config says so over the link
    return pin.value() == 0


def boot(cfg: "Any", port: "Any") -> "Hub | None":
    """What the board does at power-up (main.py): the hub ``cfg`` describes, or ``None`` in maintenance mode,
    where nothing scans and no watchdog starts, so that mpremote has the REPL for as long as it takes."""
    if maintenance_requested(cfg):
        port.write(b"companion hub: maintenance mode (no scanning, no watchdog); the REPL is yours\r\n")
        return None
    return build(cfg, port)


def native_sequence(spi_id: int, cs: int) -> "Any":
    """The reader's ``sequence`` in native code (firmware/spi_rp2.py) on an RP2040, whose SPI and GPIO registers
    it drives; ``None`` elsewhere (an RP2350, the tests' CPython and MicroPython VM): the driver's ``in_turn``."""
    if "RP2040" not in getattr(sys.implementation, "_machine", ""):
        return None
    from spi_rp2 import sequence

    return sequence(spi_id, cs)


def zone_readers(cfg: "Any") -> "list[RC522]":
    """The zones' readers as ``cfg`` wires them, hard-reset together, not yet initialised (``Scanner.start``)."""
    reset = machine.Pin(cfg.READER_RESET, machine.Pin.OUT, value=0)
    time.sleep(0.001)  # NRSTPD low for at least 100 ns hard-resets every reader at once
    reset.value(1)
    spi = machine.SPI(
        cfg.SPI_ID,
        baudrate=cfg.SPI_BAUDRATE,
        sck=machine.Pin(cfg.SCK),
        mosi=machine.Pin(cfg.MOSI),
        miso=machine.Pin(cfg.MISO),
    )
    readers = []
    for zone, pin in enumerate(cfg.CHIP_SELECTS):
        transfer = machine_transfer(spi, machine.Pin(pin, machine.Pin.OUT, value=1))
        readers.append(
            RC522(
                transfer,
                # a poll's 6 transactions in one call, not 6: 0.7 ms on a Pico rather than 1.5 (docs/NFC.md)
                sequence=native_sequence(cfg.SPI_ID, pin),
                timeout_ms=cfg.READER_TIMEOUT_MS,
                spi_hz=cfg.SPI_BAUDRATE,
                # A still card confirmed by one anticollision frame a scan (docs/decisions/013), its full selection
                # on a turn of its own zone: cards laid together are not all selected in full in the same round
                keep_ready=True,
                full_scan_turn=zone * FULL_SCAN_EVERY // len(cfg.CHIP_SELECTS),
            )
        )
    return readers


def build(cfg: "Any", port: "Any") -> Hub:
    """The hub described by ``cfg`` (the ``hub_config`` module); a bad pin or count becomes a reported fault."""
    faults = check_config(cfg)
    readers = []
    leds = None
    wdt = None
    if not faults:
        try:
            readers = zone_readers(cfg)
            leds = ZoneLeds(neopixel.NeoPixel(machine.Pin(cfg.LED_DATA, machine.Pin.OUT), cfg.ZONES))
        except (ValueError, OSError) as exc:
            faults.append("hub_config.py: " + str(exc) + ": check the pin numbers against hardware/hub/README.md")
            readers = []
            leds = None
    if not faults:
        # Fed by the scan loop only: a scan that hangs on a reader resets the board within WATCHDOG_MS.
        wdt = machine.WDT(timeout=cfg.WATCHDOG_MS)
    return Hub(port, Scanner(readers, cfg.LIFT_SCANS), leds, wdt, faults, cfg.HEARTBEAT_MS, cfg.SNAPSHOT_MS)
