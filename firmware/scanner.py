"""What the hub knows about its zones: the cards on each, the health of each reader, and the numbered changes.

Pure: the readers are passed in (``RC522`` objects, or anything with ``init()`` and ``scan()``), nothing here
touches a pin or a clock, so the same code runs in CPython, in the MicroPython VM under Node and on the Pico.
"""

from protocol import MAX_UIDS, READER_DOWN, READER_UP, Snapshot, ZoneError, ZoneReport, uid_is_valid
from rc522 import NfcError, ReaderNotResponding

try:  # noqa: SIM105 (MicroPython has no contextlib; only mypy needs Any)
    from typing import Any
except ImportError:
    pass

# Changes kept for a host that reconnects: a cable pulled for a few seconds in a busy game fits in it.
HISTORY = 64
# A reader that stopped answering is re-initialised once every this many scans of its zone.
RETRY_EVERY = 50


class Scanner:
    """One scan of one zone at a time; every change of cards gets the next ``event`` number (16 bits).

    ``scan_zone(i)`` returns the messages to send: a ``ZoneReport`` when the cards on zone ``i`` changed, a
    ``ZoneError`` when its reader failed or came back. A reader that fails keeps its zone's cards as they were:
    only a clean time-out means "no card".
    """

    def __init__(self, readers: "list[Any]") -> None:
        self.readers = readers
        self.zones: list[tuple[bytes, ...]] = [() for _ in readers]
        self.health = [0 for _ in readers]
        self.event = 0
        self.garbled = 0
        self._history: list[ZoneReport] = []
        self._retry = [0 for _ in readers]

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
                return []
            self._retry[zone] = 0
            if self._init(zone) is not None:
                return []
            return [ZoneError(zone, READER_UP, "the reader answers again")]
        try:
            uids = tuple(sorted(self.readers[zone].scan()))
        except ReaderNotResponding as exc:
            self.health[zone] = READER_DOWN
            return [ZoneError(zone, READER_DOWN, str(exc))]
        except NfcError:
            self.garbled += 1  # a damaged answer means a card is there: keep what the zone had
            return []
        for uid in uids:
            if not uid_is_valid(uid):
                self.garbled += 1  # no tag has such a UID (all 00, all FF): a damaged read of something there
                return []
        uids = uids[:MAX_UIDS]  # what the protocol carries; an antenna reads one card reliably anyway
        if uids == self.zones[zone]:
            return []
        self.zones[zone] = uids
        self.event = (self.event + 1) & 0xFFFF
        report = ZoneReport(self.event, zone, uids)
        self._history.append(report)
        if len(self._history) > HISTORY:
            self._history.pop(0)
        return [report]

    def snapshot(self) -> Snapshot:
        return Snapshot(self.event, tuple(self.zones))

    def changes_after(self, event: int) -> "list[ZoneReport] | None":
        """The changes numbered after ``event``, or ``None`` when some of them are no longer kept."""
        missed = (self.event - event) & 0xFFFF
        if missed > len(self._history):
            return None
        return self._history[len(self._history) - missed :] if missed else []
