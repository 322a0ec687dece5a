"""Stations: the table's readers, LEDs and OLED as enrollment and ``cards --identify`` use them.

* :class:`ReaderStation`: readers on the Pi's SPI (our driver, as the daemon's ``spi`` back-end), the zone LEDs
  on the pin map's GPIOs, the OLED.
* :class:`SimStation`: the same over simulated readers (``companion.sim``) on mock pins, the OLED on a fake
  I2C bus; :meth:`SimStation.lay` is a simulated hand that lays a card's tag.
* :class:`HubStation`: the zones of the reader hub over its serial link (a ``HubSession`` driven in the
  caller's thread); the hub writes the tags (WRITE_TAG, docs/PROTOCOL.md) and lights its LEDs.
* :class:`LentStation`: the running service's own readers and outputs, lent to an enrollment that a phone started
  (docs/WEB.md): the table hands it the scans its readers make.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from companion.events import ZoneScan
from companion.hub.session import TRACKER_ABSENCES, HubOffline, HubOnline, HubSession, LinkState, TagWritten
from companion.nfc.backends import ReaderBackend, SimBackend, TagMemoryReader
from companion.nfc.errors import NfcError
from companion.nfc.ndef import FIRST_PAGE, NdefError, card_id_from_ndef, card_id_pages
from companion.view import Output, TableView

__all__ = [
    "HubLost",
    "HubStation",
    "LedCommand",
    "LentStation",
    "ReaderStation",
    "SimStation",
    "SimulatedHand",
    "TagWriter",
    "write_card_id",
]

ABSENCES = 3  # the daemon's default debounce for readers it polls itself
HUB_ONLINE_S = 3.0  # from opening the port to the hub's HELLO: the session gives up after 1 s and tries again
WRITE_WAIT_S = 2.0  # for the hub's ACK of a WRITE_TAG (the session re-sends it; a write takes about 30 ms)


@runtime_checkable
class TagWriter(TagMemoryReader, Protocol):
    """A zone reader that also writes the tag it selects, page by page (NTAG21x WRITE), and reads it back: our
    MFRC522 driver is one; the ``mfrc522`` package is not (the hub writes a tag itself: :class:`HubStation`)."""

    def activate(self, uid: bytes) -> int: ...

    def write_page(self, page: int, data4: bytes) -> None: ...

    def read_pages(self, page: int) -> bytes: ...

    def halt(self) -> None: ...


def write_card_id(reader: TagWriter, uid: bytes, card_id: str) -> None:
    """Write ``card_id`` as an NDEF Text record on the tag ``uid`` in ``reader``'s field, then read it back."""
    data = card_id_pages(card_id)
    reader.activate(uid)
    for i in range(0, len(data), 4):
        reader.write_page(FIRST_PAGE + i // 4, data[i : i + 4])
    memory = b"".join(reader.read_pages(FIRST_PAGE + page) for page in range(0, len(data) // 4, 4))
    reader.halt()
    try:
        back = card_id_from_ndef(memory)
    except NdefError as exc:
        raise NfcError(f"the tag reads back no card id ({exc}), not {card_id!r}") from None
    if back != card_id:
        raise NfcError(f"the tag reads back {back!r}, not {card_id!r}")


class ReaderStation:
    """Readers the Pi polls itself (``backend``), and the outputs that show the view (LEDs, screen)."""

    absences = ABSENCES

    def __init__(
        self, backend: ReaderBackend, outputs: Sequence[Output], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.backend = backend
        self.outputs = list(outputs)
        self.clock = clock
        self.zones = backend.zones
        self._confirming = [reader for _, reader in backend.readers if isinstance(reader, TagMemoryReader)]

    def poll(self) -> list[ZoneScan]:
        for reader in self._confirming:
            reader.forget()  # what is bound must be what was read, not a lone tag confirmed by its first answer
        return self.backend.poll(self.clock())

    def write(self, zone: str, uid: bytes, card_id: str) -> None:
        reader = dict(self.backend.readers)[zone]
        if not isinstance(reader, TagWriter):
            raise NfcError("this back-end cannot write tags")
        write_card_id(reader, uid, card_id)

    def show(self, view: TableView) -> None:
        for output in self.outputs:
            output.show(view, self.clock())

    def close(self) -> None:
        for output in self.outputs:
            close = getattr(output, "close", None)
            if close is not None:
                close()
        self.backend.close()


@runtime_checkable
class SimulatedHand(Protocol):
    """A station whose tags a simulated hand lays (``enroll --auto``)."""

    def lay(self, card: str, zone: str | None = None) -> None: ...


class SimStation(ReaderStation):
    """Simulated readers, one per zone; the tags are blank NTAG213s, as they come from the shop."""

    def __init__(self, zones: Sequence[str], outputs: Sequence[Output], registry: Any = None) -> None:
        import companion.sim as sim

        self._sim = sim
        self.registry = registry
        super().__init__(SimBackend(list(zones)), outputs)
        for zone in self.zones:
            self._field(zone).clear()  # a table of its own: nothing a run before left lying
        self.backend.init()
        self._tags: dict[str, Any] = {}
        self._laid: tuple[str, Any] | None = None

    def tag(self, card: str) -> Any:
        """The tag stuck on ``card``: the one the registry binds to it, else a blank one with a UID of its own."""
        if card not in self._tags:
            bound = self.registry.uid_for(card) if self.registry is not None else None
            uid = bytes.fromhex(bound) if bound else b"\x04" + hashlib.sha256(card.encode()).digest()[:6]
            self._tags[card] = self._sim.Ntag213(uid)
        return self._tags[card]

    def lay(self, card: str, zone: str | None = None) -> None:
        """The simulated hand lifts the card it laid last and lays ``card`` on ``zone`` (the first by default)."""
        if self._laid is not None:
            self._field(self._laid[0]).remove(self._laid[1])
        zone = zone or self.zones[0]
        self._laid = (zone, self.tag(card))
        self._field(zone).add(self._laid[1])

    def _field(self, zone: str) -> Any:
        return self._sim.field(0, list(self.zones).index(zone))


class LentStation:
    """The service's readers (their scans handed over by :meth:`feed`) and its outputs, while it lends them."""

    def __init__(self, zones: Sequence[str], absences: int, outputs: Sequence[Output]) -> None:
        self.zones = list(zones)
        self.absences = absences
        self.outputs = outputs
        self.now = 0.0  # the time of the last scan handed over: what the outputs are shown at
        self._scans: list[ZoneScan] = []

    def feed(self, scan: ZoneScan, now: float) -> None:
        self._scans.append(scan)
        self.now = now

    def poll(self) -> list[ZoneScan]:
        scans, self._scans = self._scans, []
        return scans

    def write(self, zone: str, uid: bytes, card_id: str) -> None:
        raise NfcError("the service does not write tags: stop it and run companion enroll --write-tags")

    def show(self, view: TableView) -> None:
        for output in self.outputs:
            output.show(view, self.now)

    def close(self) -> None:
        """Nothing to let go of: the readers and the outputs are the service's."""


class HubLost(OSError):
    """The hub went away (or refused us) during enrollment; the message says why and what to do."""


LedCommand = Callable[[str, str, str], None]  # (zone, colour, mode): one LED command to the hub


class HubStation:
    """The reader hub's zones over its serial port, driven from the caller's thread.

    The hub lights its zones' LEDs itself: ``lights(send)`` makes what shows the view on them from the station's
    LED command (the hub's reader kind gives :class:`companion.ui.lights.HubZoneLights`). A hub lost half-way ends
    the enrollment (``HubLost``): what was enrolled is saved, and the same command goes on once the hub is back.
    """

    absences = TRACKER_ABSENCES  # the hub debounces lifts itself

    def __init__(
        self,
        zones: Sequence[str],
        port: str,
        screen: Output | None = None,
        *,
        lights: Callable[[LedCommand], Output],
        watch: Sequence[str] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        import serial

        from companion.hub.backend import USB_PID, USB_VID, find_hub

        self.zones = list(watch or zones)  # the zones enrollment looks at; the session knows every zone
        self.clock = clock
        self.screen = screen
        self.session = HubSession(list(zones))
        path = find_hub(port)
        if path is None:
            where = f"/dev/companion-hub nor any USB device {USB_VID:04X}:{USB_PID:04X}" if port == "auto" else port
            raise HubLost(f"no hub at {where}: plug it in (README, Reader hub), or give --hub-port")
        try:
            self.serial = serial.Serial(path, timeout=0.01, write_timeout=0.5, exclusive=True)
        except (serial.SerialException, OSError) as exc:
            raise HubLost(f"cannot open the hub's port {path} ({exc}): stop the service first") from None
        self.serial.reset_input_buffer()
        self._online = False
        self._reason = "is it running the companion firmware (make firmware-deploy)?"
        self._scans: list[ZoneScan] = []
        self._written: dict[int, TagWritten] = {}
        self.lights = lights(self._set_led)
        self.session.open(clock())
        self._flush()
        deadline = clock() + HUB_ONLINE_S
        while not self._online:
            if clock() > deadline:
                self.close()
                raise HubLost(f"the hub on {path} did not answer within {HUB_ONLINE_S:.0f} s: {self._reason}")
            self._pump()

    def _set_led(self, zone: str, colour: str, mode: str) -> None:
        self.session.set_led(zone, colour, mode, self.clock())
        self._flush()

    def _flush(self) -> None:
        if self.session.outbox:
            self.serial.write(bytes(self.session.outbox))
            self.session.outbox.clear()

    def _pump(self) -> None:
        import serial

        try:
            data = self.serial.read(max(1, self.serial.in_waiting))
        except (serial.SerialException, OSError) as exc:
            raise HubLost(f"the hub's serial port failed ({exc}): was its USB cable pulled?") from None
        now = self.clock()
        events = self.session.receive(data, now) + self.session.poll(now)
        self._flush()
        for event in events:
            if isinstance(event, ZoneScan):
                if event.zone in self.zones:
                    self._scans.append(event)
            elif isinstance(event, TagWritten):
                self._written[event.seq] = event
            elif isinstance(event, HubOnline):
                self._online = True
            elif isinstance(event, HubOffline):
                if self._online:
                    raise HubLost(f"hub lost: {event.reason}")
                self._reason = str(event.reason)
                if self.session.state is LinkState.CLOSED:
                    self.session.open(now)  # it did not answer SYNC in time: ask again until the deadline
                    self._flush()

    def poll(self) -> list[ZoneScan]:
        self._pump()
        scans, self._scans = self._scans, []
        return scans

    def write(self, zone: str, uid: bytes, card_id: str) -> None:
        seq = self.session.write_tag(zone, uid, FIRST_PAGE, card_id_pages(card_id), self.clock())
        self._flush()
        deadline = self.clock() + WRITE_WAIT_S
        while seq not in self._written:
            if self.clock() > deadline:
                raise NfcError("the hub did not answer the write")
            self._pump()
        result = self._written.pop(seq)
        if not result.ok:
            raise NfcError(result.reason)

    def show(self, view: TableView) -> None:
        self.lights.show(view, self.clock())
        if self.screen is not None:
            self.screen.show(view, self.clock())

    def close(self) -> None:
        if self.session.state is LinkState.ONLINE:
            for zone in self.session.zones:  # every zone, watched or not: as the service will find them
                self.session.set_led(zone, "off", "steady", self.clock())
            self._flush()
        if self.screen is not None:
            close = getattr(self.screen, "close", None)
            if close is not None:
                close()
        self.serial.close()
