"""Reader back-ends: the zones' MFRC522 readers, polled one after the other, each poll a ``ZoneScan``.

* ``spi``: our driver (:mod:`companion.nfc.rc522`) on the Pi's SPI bus, one chip select per zone (a spidev
  device, or a GPIO for more than two readers) and a shared reset pin. See :func:`spi_backend`.
* ``mfrc522``: the public ``mfrc522`` package, for makers whose cards carry 4-byte MIFARE Classic tags. It reads
  one tag per zone and cannot halt it, so a card lying still is seen every other poll: the tracker's debounce
  absorbs that. See :func:`mfrc522_backend`.
* ``sim``: simulated chips driven by a scenario, for the demo and the tests. See :class:`SimBackend`.

A back-end reads the card id stored on a tag (:mod:`companion.nfc.ndef`), only for NTAG tags the registry does not
know, while the inventory has the tag selected: each time the tag arrives on a zone, and again at every scan
while the read fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from companion.events import ZoneScan
from companion.i18n import DEFAULT_LANGUAGE, N_, Said, SaidError
from companion.nfc.errors import NfcError, NfcProtocolError, ReaderNotResponding
from companion.nfc.ndef import (
    CARD_PAGE,
    FIRST_PAGE,
    LAST_USER_PAGE,
    NdefError,
    card_id_from_text_pages,
    card_id_pages,
)
from companion.nfc.rc522 import RC522, spidev_transfer
from companion.nfc.tracking import CardNames

__all__ = [
    "Feed",
    "ReaderBackend",
    "ScenarioError",
    "SimBackend",
    "SpiZone",
    "Step",
    "TagMemoryReader",
    "ZoneReader",
    "gpio_cs_transfer",
    "mfrc522_backend",
    "parse_scenario",
    "spi_backend",
]

log = logging.getLogger(__name__)

SPI_HZ = 4_000_000  # the readers' SPI clock: well inside the MFRC522's 10 Mbit/s (datasheet 8.1.2)
_TYPE_2_SAK = 0x00  # NTAG21x and other type 2 tags


class ReadersDown(ReaderNotResponding, SaidError):
    """Readers that did not answer when they were set up, by zone: ``str()`` is the drivers' English (the log),
    :meth:`text` a line a zone in the command line's language, saying what to check::

        >>> down = ReadersDown({"z1": "no MFRC522 answers on this chip select (VersionReg reads 0x00)"})
        >>> down.text("es").startswith("zona z1: su lector no responde")
        True
    """

    def __init__(self, failed: Mapping[str, str]) -> None:
        said = Said(_READER_DOWN, zone=", ".join(failed))
        SaidError.__init__(self, said)
        self.args = ("; ".join(f"zone {zone}: {why}" for zone, why in failed.items()),)
        self.zones = tuple(failed)

    def text(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return "\n".join(Said(_READER_DOWN, zone=zone).text(lang) for zone in self.zones)

    def __str__(self) -> str:
        return str(self.args[0])


_READER_DOWN = N_("zone {zone}: its reader does not answer: check its wiring, its power and its chip select")


@dataclass(frozen=True)
class Feed:
    """Where running readers hand their news (:meth:`ReaderBackend.run`, the hub's kind), on the daemon's loop."""

    scan: Callable[[ZoneScan], None]  # one zone's scan
    # Readers behind a link (the hub) came up (True) or were lost (False, why); the last argument is set when the
    # hub was refused for its zone count: (the hub's zones, the config's).
    link: Callable[[bool, str, tuple[int, int] | None], None]


class ZoneReader(Protocol):
    def init(self) -> None: ...

    def scan(self, on_select: Callable[[bytes, int], None] | None = None) -> list[bytes]: ...


@runtime_checkable
class TagMemoryReader(ZoneReader, Protocol):
    """A zone reader that can also read the memory of the tag it has just selected (NTAG21x FAST_READ), so the
    back-end reads the card id a tag carries; our MFRC522 driver is one, the ``mfrc522`` package is not."""

    def fast_read(self, first: int, last: int) -> bytes: ...

    def forget(self) -> None:
        """Select every tag at the next scan, not only confirm the lone one of the last."""


class ReaderBackend:
    """Zones and their readers, polled in order. ``poll(t)`` scans each zone once; ``start(emit)`` does it in a
    thread until ``stop()``."""

    def __init__(self, readers: Sequence[tuple[str, ZoneReader]], registry: CardNames | None = None) -> None:
        zones = [zone for zone, _ in readers]
        if len(set(zones)) != len(zones):
            raise ValueError(f"zones {zones}: each zone needs its own reader")
        self.readers = list(readers)
        self.registry = registry
        # Per zone, the card id read from the memory of each tag lying there (None: the tag holds none). A tag
        # is read again whenever it arrives (a copy of a UID may say another card), and at every scan while its
        # read fails (it slid off half-way): those wait in _unread.
        self._tag_ids: dict[str, dict[bytes, str | None]] = {}
        self._unread: dict[str, set[bytes]] = {}
        self.devices: list[Any] = []  # GPIO outputs (reset lines, chip selects) held while the readers run
        self._down: set[str] = set()  # zones whose reader must be set up again before it is read
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.interval_s = 0.0  # the daemon's pause between two polls (readers.poll_interval_ms)
        self.clock: Callable[[], float] = time.monotonic

    def prepare(self, interval_s: float, clock: Callable[[], float]) -> None:
        """Set every reader up for the daemon, polling every ``interval_s`` on ``clock``. A reader that does not
        answer is logged, not fatal: polling sets it up as soon as it answers."""
        self.interval_s, self.clock = interval_s, clock
        try:
            self.init()
        except ReaderNotResponding as exc:
            log.error("%s: that zone is out until its reader answers; companion doctor helps", exc)

    async def run(self, feed: Feed) -> None:
        """Poll in the readers' thread until cancelled; each scan is handed to ``feed`` on the running loop."""
        loop = asyncio.get_running_loop()

        def emit(scan: ZoneScan) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(feed.scan, scan)

        self.start(emit, self.interval_s, self.clock)
        try:
            await asyncio.Event().wait()  # the thread polls; this task only marks how long
        finally:
            self.stop()

    def lights(self, status: Any) -> None:
        """None: the zone LEDs are the pin map's, on the Pi's GPIOs."""
        return None

    @property
    def zones(self) -> list[str]:
        return [zone for zone, _ in self.readers]

    def init(self) -> None:
        """Set every reader up. Readers that do not answer are named by their zones, after all the others are
        set up; polling sets them up as soon as they answer."""
        failed: dict[str, str] = {}
        for zone, reader in self.readers:
            try:
                reader.init()
            except ReaderNotResponding as exc:
                self._down.add(zone)
                failed[zone] = str(exc)
        if failed:
            raise ReadersDown(failed)

    def _read_card_id(self, zone: str, reader: ZoneReader, uid: bytes, sak: int) -> None:
        ids = self._tag_ids.setdefault(zone, {})
        if sak != _TYPE_2_SAK or uid in ids or not isinstance(reader, TagMemoryReader):
            return
        if self.registry is not None and self.registry.card_for(uid) is not None:
            return
        unread = self._unread.setdefault(zone, set())
        try:
            data = reader.fast_read(CARD_PAGE, CARD_PAGE)
            while data[0] not in (0x00, 0xFE) and 0xFE not in data and CARD_PAGE + len(data) // 4 <= LAST_USER_PAGE:
                page = CARD_PAGE + len(data) // 4
                data += reader.fast_read(page, min(page + 3, LAST_USER_PAGE))
        except NfcError:
            unread.add(uid)
            return
        unread.discard(uid)
        try:
            ids[uid] = card_id_from_text_pages(data)
        except NdefError:
            ids[uid] = None

    def scan(self, zone: str, reader: ZoneReader, t: float) -> ZoneScan:
        try:
            if zone in self._down:  # it lost power or never answered: its set-up is gone
                reader.init()
                self._down.discard(zone)
            if self._unread.get(zone) and isinstance(reader, TagMemoryReader):
                reader.forget()  # select every tag this time, not only confirm the lone one: its read failed
            uids = reader.scan(lambda uid, sak: self._read_card_id(zone, reader, uid, sak))
        except ReaderNotResponding as exc:
            self._down.add(zone)
            return ZoneScan(zone, (), t, error=f"reader not responding: {exc}", reader_down=True)
        except NfcError as exc:
            return ZoneScan(zone, (), t, error=str(exc) or type(exc).__name__)
        ids = self._tag_ids.setdefault(zone, {})
        for uid in set(ids) - set(uids):  # gone: read again if it comes back, whatever tag it is then
            del ids[uid]
        self._unread[zone] = self._unread.get(zone, set()) & set(uids)
        cards = tuple((uid, card) for uid in uids if (card := ids.get(uid)))
        return ZoneScan(zone, tuple(uids), t, tag_cards=cards)

    def poll(self, t: float) -> list[ZoneScan]:
        """One scan of every zone, all stamped ``t``."""
        return [self.scan(zone, reader, t) for zone, reader in self.readers]

    def start(
        self, emit: Callable[[ZoneScan], None], interval_s: float = 0.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """Poll in a thread of its own, handing every scan to ``emit`` (from that thread)."""
        if self._thread is not None:
            raise RuntimeError("the readers are already being polled; stop() first")
        self._stopping.clear()

        def run() -> None:
            while not self._stopping.is_set():
                for scan in self.poll(clock()):  # poll, not scan: the sim back-end plays its steps there
                    emit(scan)
                self._stopping.wait(interval_s)

        self._thread = threading.Thread(target=run, name="nfc-readers", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def close(self) -> None:
        """Stop polling and let go of the GPIO lines."""
        self.stop()
        for device in self.devices:
            device.close()
        self.devices.clear()


# -- spi -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpiZone:
    """Where a zone's reader is wired: spidev ``bus``/``device``, or a GPIO (BCM number) as chip select, and
    its reset line."""

    zone: str
    bus: int = 0
    device: int = 0
    cs_gpio: int | None = None
    reset: int | None = None  # the reader's NRSTPD line (BCM number); readers may share one


@contextlib.contextmanager
def _naming_missing_spidev(zone: SpiZone) -> Iterator[None]:
    """spidev's ``open`` says only "No such file or directory": name the device and what to do."""
    try:
        yield
    except FileNotFoundError:
        raise FileNotFoundError(
            f"/dev/spidev{zone.bus}.{zone.device}: no such device (zone {zone.zone}). Enable SPI (sudo raspi-config "
            "nonint do_spi 0, or dtparam=spi=on in /boot/firmware/config.txt) and reboot; SPI0 has CE0 and CE1 only "
            "(no overlay adds a third): wire another reader's chip select to a GPIO (cs_gpio), or put it on SPI1 "
            "(dtoverlay=spi1-3cs); companion doctor checks the wiring"
        ) from None


def gpio_cs_transfer(dev: Any, cs: Any) -> Callable[[bytes], bytes]:
    """A transfer through ``dev`` (opened with ``no_cs``) framed by ``cs``, a gpiozero output that is active
    (pulled low, ``active_high=False``) while the transaction lasts."""

    def transfer(data: bytes) -> bytes:
        cs.on()
        try:
            return bytes(dev.xfer2(list(data)))
        finally:
            cs.off()

    return transfer


def spi_backend(
    zones: Sequence[SpiZone],
    registry: CardNames | None = None,
    *,
    spi_hz: int = SPI_HZ,
    timeout_ms: float = 1.0,
    gain: int = 48,
    pin_factory: Any = None,
) -> ReaderBackend:
    """Our driver on the Pi's SPI bus; every reset line of ``zones`` is pulsed low, then held high."""
    import spidev  # late: off a Pi the tests put companion.sim.spidev in its place

    devices: list[Any] = []  # GPIO outputs the back-end holds for as long as it runs
    resets = sorted({zone.reset for zone in zones if zone.reset is not None})
    if resets or any(z.cs_gpio is not None for z in zones):
        from gpiozero import DigitalOutputDevice
    for pin in resets:
        devices.append(DigitalOutputDevice(pin, initial_value=False, pin_factory=pin_factory))
    if resets:
        # NRSTPD low for a hard reset (the datasheet asks 100 ns), then high; each reader's init() then waits
        # for its oscillator (the crystal's start-up plus 37.74 us, datasheet 8.8.2).
        time.sleep(0.001)
        for reset in devices:
            reset.on()
    readers: list[tuple[str, ZoneReader]] = []
    try:
        for zone in zones:
            dev = spidev.SpiDev()
            with _naming_missing_spidev(zone):
                dev.open(zone.bus, zone.device)
            dev.max_speed_hz = spi_hz
            dev.mode = 0
            if zone.cs_gpio is None:
                transfer = spidev_transfer(dev)
            else:
                dev.no_cs = True
                cs = DigitalOutputDevice(zone.cs_gpio, active_high=False, initial_value=False, pin_factory=pin_factory)
                devices.append(cs)
                transfer = gpio_cs_transfer(dev, cs)
            readers.append((zone.zone, RC522(transfer, timeout_ms=timeout_ms, gain=gain, spi_hz=spi_hz)))
    except BaseException:
        for device in devices:
            device.close()
        raise
    backend = ReaderBackend(readers, registry)
    backend.devices = devices
    return backend


# -- mfrc522 ---------------------------------------------------------------------------------------------------


class _PackageReader:
    """One zone read through the public ``mfrc522`` package: WUPA and level-1 anticollision, nothing more."""

    def __init__(self, zone: str, bus: int, device: int, spi_hz: int, reset_pin: int) -> None:
        from mfrc522 import MFRC522  # late: it imports RPi.GPIO, which fails off a Pi

        # pin_mode 11 is RPi.GPIO's BCM numbering, the pin map's; the package's default is the header's.
        with _naming_missing_spidev(SpiZone(zone, bus, device)):
            self.chip = MFRC522(bus=bus, device=device, spd=spi_hz, pin_mode=11, pin_rst=reset_pin)

    def init(self) -> None:
        """The package sets the chip up in its constructor."""

    def scan(self, on_select: Callable[[bytes, int], None] | None = None) -> list[bytes]:
        chip = self.chip
        status, _ = chip.MFRC522_Request(chip.PICC_REQALL)
        if status != chip.MI_OK:
            return []  # the package cannot tell a time-out from a damaged answer
        status, uid = chip.MFRC522_Anticoll()
        if status != chip.MI_OK:
            raise NfcProtocolError("the mfrc522 package could not read the UID")
        return [bytes(uid[:4])]


def mfrc522_backend(
    zones: Sequence[SpiZone], registry: CardNames | None = None, *, spi_hz: int = SPI_HZ
) -> ReaderBackend:
    """The public ``mfrc522`` package on each zone (spidev chip selects only; each zone's reset in BCM numbering,
    25 when none is given, as the package's wiring guides have it)."""
    for zone in zones:
        if zone.cs_gpio is not None:
            raise ValueError(f"zone {zone.zone}: the mfrc522 back-end takes spidev chip selects only, not a GPIO")
    return ReaderBackend(
        [(z.zone, _PackageReader(z.zone, z.bus, z.device, spi_hz, 25 if z.reset is None else z.reset)) for z in zones],
        registry,
    )


# -- sim -------------------------------------------------------------------------------------------------------


class ScenarioError(ValueError):
    """A scenario line that cannot be played; the message gives the line and the form it should take."""


@dataclass(frozen=True)
class Step:
    """One thing that happens at the table at time ``t``: ``on`` (card onto zone), ``off`` (card lifted),
    ``noise`` (``count`` damaged receive windows on zone), ``edge`` (card at the edge of range: answers one
    poll in ``count``)."""

    t: float
    action: str
    card: str = ""
    zone: str = ""
    count: int = 1


_SCENARIO_FORMS = {
    "on": "T on CARD ZONE",
    "off": "T off CARD",
    "noise": "T noise ZONE [FRAMES]",
    "edge": "T edge CARD N",
}


def parse_scenario(text: str, source: str = "scenario") -> list[Step]:
    """Steps from text, one per line (``#`` starts a comment)::

    0.5  on    6O O
    1.2  noise O 2
    1.3  edge  6O 3
    2.0  off   6O
    """
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source}, line {number}"
        forms = "; ".join(_SCENARIO_FORMS.values())
        if len(words) < 3 or words[1] not in _SCENARIO_FORMS:
            raise ScenarioError(f"{where}: {line.strip()!r} is not a step ({forms})")
        try:
            t = float(words[0])
            action, args = words[1], words[2:]
            if action == "on" and len(args) == 2:
                steps.append(Step(t, action, card=args[0], zone=args[1]))
            elif action == "off" and len(args) == 1:
                steps.append(Step(t, action, card=args[0]))
            elif action == "noise" and len(args) in (1, 2):
                steps.append(Step(t, action, zone=args[0], count=int(args[1]) if len(args) == 2 else 1))
            elif action == "edge" and len(args) == 2:
                steps.append(Step(t, action, card=args[0], count=int(args[1])))
            else:
                raise ValueError
        except ValueError:
            raise ScenarioError(f"{where}: {line.strip()!r}: write it as {_SCENARIO_FORMS[words[1]]}") from None
    return sorted(steps, key=lambda step: step.t)


class SimBackend(ReaderBackend):
    """Zones backed by simulated MFRC522 chips (``companion.sim``), read by our driver through the simulated
    ``spidev``: the whole stack from the SPI bytes up runs.

    A card is an NTAG213 carrying its card id; its UID is the one the registry binds to the card (so enrolled
    cards read as enrolled), or a UID made from the card id. Drive it directly (``put``, ``take``, ``noise``,
    ``edge``) or through timed steps (``play(steps)``, applied by ``poll(t)`` once ``t`` is reached)::

        backend = SimBackend(["O", "C", "E", "B"], registry)
        backend.init()
        backend.play(parse_scenario("0.5 on 6O O\\n2.0 off 6O"))
        backend.poll(0.6)   # [ZoneScan('O', (uid,), 0.6), ZoneScan('C', (), 0.6), ...]
    """

    def __init__(
        self,
        zones: Sequence[str],
        registry: Any = None,
        *,
        bus: int = 0,
        spi_hz: int = SPI_HZ,
        timeout_ms: float = 1.0,
    ) -> None:
        import companion.sim as sim

        self._sim = sim
        readers: list[tuple[str, ZoneReader]] = []
        self._fields: dict[str, Any] = {}
        for device, zone in enumerate(zones):
            dev = sim.spidev.SpiDev(bus, device)
            dev.max_speed_hz = spi_hz
            readers.append((zone, RC522(spidev_transfer(dev), timeout_ms=timeout_ms, spi_hz=spi_hz)))
            self._fields[zone] = sim.field(bus, device)
        super().__init__(readers, registry)
        self._tags: dict[str, Any] = {}
        self._where: dict[str, str] = {}
        self._steps: list[Step] = []
        self._from_start: list[Step] = []  # a scenario whose times count from when the daemon starts polling

    def _field(self, zone: str) -> Any:
        if zone not in self._fields:
            raise ScenarioError(f"zone {zone!r} has no reader here; the zones are {', '.join(self._fields)}")
        return self._fields[zone]

    def tag(self, card: str) -> Any:
        """The NTAG213 stuck on ``card``: the registry's UID for it, else one derived from the card id."""
        if card not in self._tags:
            uid_for = getattr(self.registry, "uid_for", None)
            uid_hex = uid_for(card) if uid_for is not None else None
            uid = bytes.fromhex(uid_hex) if uid_hex else b"\x04" + hashlib.sha256(card.encode()).digest()[:6]
            tag = self._sim.Ntag213(uid)
            data = card_id_pages(card)
            tag.memory[4 * FIRST_PAGE : 4 * FIRST_PAGE + len(data)] = data
            self._tags[card] = tag
        return self._tags[card]

    def put(self, card: str, zone: str) -> None:
        """The card is laid on ``zone`` (taken off wherever it was)."""
        field = self._field(zone)
        self.take(card)
        field.add(self.tag(card))
        self._where[card] = zone

    def take(self, card: str) -> None:
        zone = self._where.pop(card, None)
        if zone is not None:
            self._fields[zone].remove(self.tag(card))

    def lying(self) -> dict[str, str]:
        """Each card in a field now, and its zone."""
        return dict(self._where)

    def noise(self, zone: str, frames: int = 1) -> None:
        self._field(zone).noise(frames)

    def edge(self, card: str, polls: int) -> None:
        self.tag(card).answer_one_in(polls)

    def play_from_start(self, steps: Sequence[Step]) -> None:
        """Queue steps whose times count from when the daemon starts polling (:meth:`run`: the table is ready), not
        from now: the time the table takes to start (the journal replayed) plays no card unseen."""
        for step in steps:
            if step.zone:
                self._field(step.zone)
        self._from_start = [*self._from_start, *steps]

    async def run(self, feed: Feed) -> None:
        start = self.clock()
        self.play([replace(step, t=start + step.t) for step in self._from_start])
        self._from_start = []
        await super().run(feed)

    def play(self, steps: Sequence[Step]) -> None:
        """Queue timed steps; ``poll(t)`` applies those due by ``t`` before it scans."""
        for step in steps:
            if step.zone:
                self._field(step.zone)
        self._steps = sorted([*self._steps, *steps], key=lambda step: step.t)

    def apply(self, step: Step) -> None:
        if step.action == "on":
            self.put(step.card, step.zone)
        elif step.action == "off":
            self.take(step.card)
        elif step.action == "noise":
            self.noise(step.zone, step.count)
        elif step.action == "edge":
            self.edge(step.card, step.count)
        else:
            raise ScenarioError(f"step {step}: unknown action (use {', '.join(_SCENARIO_FORMS)})")

    def poll(self, t: float) -> list[ZoneScan]:
        while self._steps and self._steps[0].t <= t:
            self.apply(self._steps.pop(0))
        return super().poll(t)
