"""What the hub knows about its zones: the cards on each, the health of each reader, and the numbered changes.

Pure: the readers are passed in (``RC522`` objects, or anything with ``init()`` and ``scan()``), nothing here
touches a pin or a clock, so the same code runs in CPython, in the MicroPython VM under Node and on the Pico.
"""

from protocol import (
    ACK_BAD_ZONE,
    ACK_OK,
    ACK_TAG_FAILED,
    MAX_UIDS,
    READER_DOWN,
    READER_UP,
    Snapshot,
    ZoneError,
    ZoneReport,
    uid_is_valid,
)
from rc522 import NfcError, ReaderNotResponding

try:  # noqa: SIM105 (MicroPython has no contextlib; only mypy needs Any)
    from typing import Any
except ImportError:
    pass

# Changes kept for a host that reconnects: a cable pulled for a few seconds in a busy game fits in it.
HISTORY = 64
# A reader that stopped answering is re-initialised once every this many scans of its zone.
RETRY_EVERY = 50
# A card counts as lifted after this many clean scans of its zone in a row without it (hub_config.LIFT_SCANS).
LIFT_SCANS = 3
# What most scans return, made once: a new list each scan is garbage, which on the Pico is collected in tens of
# milliseconds at whatever moment the heap runs out. Read, never changed.
_QUIET: "list[ZoneReport | ZoneError]" = []


class Scanner:
    """One scan of one zone at a time; every change of cards gets the next ``event`` number (16 bits).

    ``scan_zone(i)`` returns the messages to send: a ``ZoneReport`` when the cards on zone ``i`` changed, a
    ``ZoneError`` when its reader failed or came back. A reader that fails keeps its zone's cards as they were:
    only a clean time-out means "no card". A card is there from its first read, and gone once ``lift_scans``
    clean scans in a row missed it: a tag at the edge of its antenna's range, answering one poll in two, stays
    put. The hub debounces here, where scans come every few milliseconds, so its reports are settled: the host
    takes a report of a lift as the lift (``companion.hub.session.TRACKER_ABSENCES``).
    """

    def __init__(self, readers: "list[Any]", lift_scans: int = LIFT_SCANS) -> None:
        self.readers = readers
        self.lift_scans = lift_scans
        self.zones: list[tuple[bytes, ...]] = [() for _ in readers]
        self._missed: list[dict[bytes, int]] = [{} for _ in readers]  # per zone: clean scans without each card
        self.health = [0 for _ in readers]
        self.event = 0
        self.garbled = 0
        self._history: list[ZoneReport] = []
        self._retry = [0 for _ in readers]
        # The zones whose last scans missed a card they still hold (fewer than lift_scans of them): the hub's
        # loop scans them again between the other zones (hub_app.Hub.scan_round).
        self.doubtful: list[int] = []

    def start(self) -> "list[ZoneError]":
        """Initialise every reader; the errors name the zones whose reader does not answer."""
        errors = []
        for zone in range(len(self.readers)):
            error = self._init(zone)
            if error is not None:
                errors.append(error)
        return errors

    def _init(self, zone: int) -> "ZoneError | None":
        try:
            self.readers[zone].init()
        except OSError as exc:
            self.health[zone] = READER_DOWN
            return ZoneError(zone, READER_DOWN, str(exc))
        self.health[zone] = 0
        return None

    def scan_zone(self, zone: int) -> "list[ZoneReport | ZoneError]":
        if self.health[zone]:
            self._retry[zone] += 1
            if self._retry[zone] < RETRY_EVERY:
                return _QUIET
            self._retry[zone] = 0
            if self._init(zone) is not None:
                return []
            return [ZoneError(zone, READER_UP, "the reader answers again")]
        try:
            found = self.readers[zone].scan()
        except ReaderNotResponding as exc:
            self.health[zone] = READER_DOWN
            return [ZoneError(zone, READER_DOWN, str(exc))]
        except NfcError:
            return self._garbled(zone)  # a damaged answer means a card is there: keep what the zone had
        # Most scans, in play: an empty zone still empty, or a card still there and never missed. On the Pico each
        # object built costs tens of microseconds: these build none.
        cards = self.zones[zone]
        if not found and not cards:
            return _QUIET
        if len(found) == 1 and len(cards) == 1 and found[0] == cards[0] and not self._missed[zone]:
            return _QUIET
        return self._changed(zone, found)

    def _changed(self, zone: int, found: "list[bytes]") -> "list[ZoneReport | ZoneError]":
        """A scan that found other cards than the zone holds, or missed one. Apart from ``scan_zone``: the list
        comprehension below makes its variables cells, and MicroPython makes a function's cells at every call,
        the quick returns above included (32 bytes of garbage a scan of every zone)."""
        uids = tuple(sorted(found))
        for uid in uids:
            if not uid_is_valid(uid):
                return self._garbled(zone)  # no tag has such a UID (all 00, all FF): a damaged read
        missed = self._missed[zone]
        for uid in self.zones[zone]:
            missed[uid] = 0 if uid in uids else missed.get(uid, 0) + 1
        kept = [uid for uid in self.zones[zone] if 0 < missed[uid] < self.lift_scans]
        for uid in list(missed):
            if uid not in kept:
                del missed[uid]
        self._doubt(zone, bool(missed))
        uids = tuple(sorted(list(uids) + kept))[:MAX_UIDS]  # what the protocol carries; one card reads reliably
        if uids == self.zones[zone]:
            return []
        self.zones[zone] = uids
        self.event = (self.event + 1) & 0xFFFF
        report = ZoneReport(self.event, zone, uids)
        self._history.append(report)
        if len(self._history) > HISTORY:
            self._history.pop(0)
        return [report]

    def _garbled(self, zone: int) -> "list[ZoneReport | ZoneError]":
        self.garbled += 1
        self._missed[zone] = {}  # something answered: the run of clean scans without a card starts again
        self._doubt(zone, False)
        return []

    def _doubt(self, zone: int, doubtful: bool) -> None:
        if doubtful and zone not in self.doubtful:
            self.doubtful.append(zone)
        elif not doubtful and zone in self.doubtful:
            self.doubtful.remove(zone)

    def write_tag(self, zone: int, uid: bytes, page: int, data: bytes) -> int:
        """Write ``data`` from ``page`` on the tag ``uid`` in ``zone``'s field, read it back: an ACK status."""
        if zone >= len(self.readers):
            return ACK_BAD_ZONE
        if self.health[zone]:
            return ACK_TAG_FAILED  # its reader is down
        reader = self.readers[zone]
        try:
            reader.activate(uid)
            for i in range(0, len(data), 4):
                reader.write_page(page + i // 4, data[i : i + 4])
            back = b""
            while len(back) < len(data):
                back += reader.read_pages(page + len(back) // 4)  # 4 pages a READ
            reader.halt()
        except NfcError:
            return ACK_TAG_FAILED  # not on the zone any more, or it slid off half-way: the host asks again
        return ACK_OK if back[: len(data)] == bytes(data) else ACK_TAG_FAILED

    def snapshot(self) -> Snapshot:
        return Snapshot(self.event, tuple(self.zones))

    def changes_after(self, event: int) -> "list[ZoneReport] | None":
        """The changes numbered after ``event``, or ``None`` when some of them are no longer kept."""
        missed = (self.event - event) & 0xFFFF
        if missed > len(self._history):
            return None
        return self._history[len(self._history) - missed :] if missed else []
