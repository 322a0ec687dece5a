"""The host's side of one hub link, without I/O: bytes and the time in, events and bytes to send out.

``HubSession`` is what the back-end drives: ``open()`` on a fresh connection, ``receive()`` with whatever the
port read, ``poll()`` a few times a second, ``close()`` when the port failed. It turns hub messages into the
daemon's ``ZoneScan`` events, watches the heartbeat, keeps LED commands until the hub acknowledges them, and
resumes after a reconnection from the last change it passed on, so that no change is lost or passed on twice.
``Backoff`` spaces out the reconnection attempts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from companion.events import ZoneScan
from companion.hub import protocol
from companion.hub.protocol import (
    COLOURS,
    MODES,
    PROTOCOL_VERSION,
    Ack,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    SetLed,
    Snapshot,
    Sync,
    WriteTag,
    ZoneError,
    ZoneReport,
    encode_frame,
)
from companion.i18n import N_, Said

log = logging.getLogger(__name__)

# The hub reports a card lifted only once several of its scans in a row missed it (hub_config.LIFT_SCANS, a few
# milliseconds each); its ZONE reports and snapshots are settled, so a tracker of hub zones takes the first
# ZoneScan without a card as the lift. (Counting absences here, in reports and once-a-second snapshots, made a
# lift wait 1 to 3 s.)
TRACKER_ABSENCES = 1
HEARTBEAT_TIMEOUT_S = 1.0  # no heartbeat for this long: the hub is lost
HANDSHAKE_TIMEOUT_S = 1.0  # from SYNC to HELLO
KEEPALIVE_S = 0.5  # the host's own heartbeat: it keeps Ctrl-C off on the hub while we talk
LED_ACK_TIMEOUT_S = 0.2
LED_TRIES = 3
WRITE_ACK_TIMEOUT_S = 0.5  # a WRITE_TAG takes the hub about 30 ms (an NTAG page programs in 4.1 ms)
LOG_EVERY_S = 5.0  # link faults are summed up in the log at most this often
# A change number further ahead than this is a jump: more changes than the hub keeps for a replay (64) cannot
# have been lost between two frames of one connection. Its cards are passed on, its number is not followed.
MAX_STEP = 64
# What MicroPython's REPL says where the companion firmware would answer SYNC: its banner and prompts
# (shared/runtime/pyexec.c: "MicroPython v...", ">>> ", "raw REPL; CTRL-B to exit") and the hub's own line at a
# maintenance start (firmware/hub_app.py). The hub is then in maintenance mode, not unplugged.
# Why a hub went offline (HubOffline.reason's msgid): doctor chooses its fix by which it is.
MAINTENANCE = N_(
    "the hub is in maintenance mode (MicroPython's REPL answered, not the companion firmware): take the cap off its "
    "maintenance jumper (GP22) if it is on and replug the hub (after a deploy, mpremote reset)"
)
NO_SYNC = N_("the hub did not answer SYNC within 1 s: is it running the companion firmware?")
NO_HEARTBEAT = N_("no heartbeat from the hub for 1 s: check its USB cable")
MISCONFIGURED = N_("the hub's configuration is wrong: {detail}")
OTHER_PROTOCOL = N_(
    "the hub runs firmware {firmware} with protocol {protocol}; this companion speaks protocol {ours}: flash the "
    "hub with this companion's firmware (make firmware-deploy)"
)
OTHER_ZONES = N_(
    "hub has {hub} zones, config names {count} ({zones}): flash the hub with your table layout's hub_config.py, one "
    "chip select a zone (make firmware-deploy HUB_CONFIG=hardware/layouts/NAME/hub_config.py), or name the hub's "
    "zones in the config's [zones]"
)
REPL_SAYS = (b"companion hub: maintenance mode", b"MicroPython v", b"raw REPL; CTRL-B to exit", b">>> ")
HEARD_BYTES = 512  # what is kept of the bytes heard during a handshake, to tell a REPL from silence


@dataclass(frozen=True)
class HubInfo:
    """What the hub said in its HELLO."""

    firmware: str
    protocol: int
    boot: int
    zones: tuple[str, ...]
    health: tuple[int, ...]  # per zone: 0, or the ERROR code of a reader that did not answer at start-up


@dataclass(frozen=True)
class HubOnline:
    info: HubInfo
    t: float


@dataclass(frozen=True)
class HubOffline:
    """The hub is lost (unplugged, silent) or refused (wrong protocol or configuration); ``reason`` says what to do.
    ``zones`` is set when it was refused for its zone count: (the hub's zones, the config's)."""

    reason: Said  # its msgid is the kind of failure (doctor picks its fix by it); str() is English, for the log
    t: float
    zones: tuple[int, int] | None = None


@dataclass(frozen=True)
class TagWritten:
    """The hub's answer to ``write_tag`` number ``seq``: ``ok``, or ``reason`` says what to do."""

    seq: int
    zone: str
    ok: bool
    reason: str
    t: float


HubEvent = ZoneScan | HubOnline | HubOffline | TagWritten

# What the hub's refusal of a WRITE_TAG means, by ACK status.
_WRITE_REFUSED = {
    protocol.ACK_BAD_ZONE: "the hub has no such zone",
    protocol.ACK_TAG_FAILED: "the tag did not take the write or read back otherwise: hold the card still on the zone",
}


class LinkState(Enum):
    CLOSED = "closed"
    HANDSHAKE = "handshake"  # SYNC sent, waiting for HELLO
    ONLINE = "online"
    REFUSED = "refused"  # the hub speaks another protocol or reports a bad configuration


@dataclass
class _PendingLed:
    zone: int
    deadline: float
    tries: int


@dataclass
class _PendingWrite:
    write: WriteTag
    deadline: float
    tries: int


def printable(text: str) -> str:
    """``text`` with each character that is not printable as its Python escape: a newline, a carriage return, ESC
    (a terminal's colours and cursor), a bidi override from the hub's ERROR detail cannot forge a log line or
    redraw a terminal::

        >>> printable("zone 1 down\\n<3>hub: all well \\x1b[2J")
        'zone 1 down\\\\n<3>hub: all well \\\\x1b[2J'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


@dataclass
class HubSession:
    """One hub, across as many connections as it takes. ``zones`` names the hub's zones 0 to N-1."""

    zones: Sequence[str]
    state: LinkState = LinkState.CLOSED
    counts: dict[str, int] = field(default_factory=dict)
    outbox: bytearray = field(default_factory=bytearray)
    info: HubInfo | None = None
    _decoder: FrameDecoder = field(default_factory=FrameDecoder)
    _seq: int = 0
    _boot: int = -1  # unknown until a HELLO
    _event: int = 0  # number of the last change passed on
    _uids: list[tuple[bytes, ...]] = field(default_factory=list)
    _down: list[str | None] = field(default_factory=list)  # per zone: why its reader is down, or None
    _leds: dict[int, tuple[int, int]] = field(default_factory=dict)
    _pending: dict[int, _PendingLed] = field(default_factory=dict)
    _writes: dict[int, _PendingWrite] = field(default_factory=dict)  # by the seq write_tag returned
    _write_seqs: dict[int, int] = field(default_factory=dict)  # the seq of each try, to the first one
    _deadline: float = 0.0  # when the hub is lost unless a HELLO or a heartbeat comes first
    _next_keepalive: float = 0.0
    _announced: bool | None = None  # the last state told to the daemon: online, offline, or nothing yet
    _logged: dict[str, int] = field(default_factory=dict)
    _heard: bytearray = field(default_factory=bytearray)  # the last bytes heard while waiting for HELLO
    _next_log: float = 0.0

    def __post_init__(self) -> None:
        self._uids = [() for _ in self.zones]
        self._down = [None for _ in self.zones]

    @property
    def unacknowledged(self) -> int:
        """LED commands the hub has not acknowledged yet (each is sent again until it is, ``LED_TRIES`` times)."""
        return len(self._pending)

    # -- driven by the back-end ------------------------------------------------------------------------------

    def open(self, now: float) -> None:
        """A fresh connection: ask the hub for HELLO and the changes since the last one we passed on."""
        self._fold_counts()
        self._decoder = FrameDecoder()
        self._pending.clear()
        self._writes.clear()
        self._write_seqs.clear()
        self.state = LinkState.HANDSHAKE
        self._heard.clear()
        self._deadline = now + HANDSHAKE_TIMEOUT_S
        self._next_keepalive = now + KEEPALIVE_S
        self._seq = 0
        self.outbox += b"\x00"  # ends whatever the hub had half read before this connection
        self._send(Sync(max(self._boot, 0), self._event))

    def receive(self, data: bytes, now: float) -> list[HubEvent]:
        if self.state is LinkState.HANDSHAKE:
            self._heard += data
            del self._heard[:-HEARD_BYTES]
        events: list[HubEvent] = []
        for seq, message in self._decoder.feed(data):
            events += self._message(seq, message, now)
        return events

    def poll(self, now: float) -> list[HubEvent]:
        """Time passes: the watchdog, LED retries, the host's keepalive and the fault log."""
        self._log_faults(now)
        if self.state is LinkState.HANDSHAKE and now >= self._deadline:
            if any(said in self._heard for said in REPL_SAYS):
                return self.close(Said(MAINTENANCE), now)
            return self.close(Said(NO_SYNC), now)
        if self.state is not LinkState.ONLINE:
            return []
        if now >= self._deadline:
            return self.close(Said(NO_HEARTBEAT), now)
        for seq, pending in list(self._pending.items()):
            if now >= pending.deadline:
                del self._pending[seq]
                if pending.tries >= LED_TRIES:
                    self._count("led_unacknowledged")
                    log.error("hub: no answer to %d LED commands for zone %s", LED_TRIES, self.zones[pending.zone])
                else:
                    self._send_led(pending.zone, now, pending.tries + 1)
        events: list[HubEvent] = []
        for first, write in list(self._writes.items()):
            if now < write.deadline:
                continue
            if write.tries >= LED_TRIES:
                del self._writes[first]
                self._write_seqs = {seq: f for seq, f in self._write_seqs.items() if f != first}
                reason = f"the hub did not answer {LED_TRIES} writes of the tag: check its USB cable"
                events.append(TagWritten(first, self.zones[write.write.zone], False, reason, now))
            else:  # a write is the same bytes again: safe to repeat
                self._write_seqs[self._send(write.write)] = first
                write.tries += 1
                write.deadline = now + WRITE_ACK_TIMEOUT_S
        if now >= self._next_keepalive:
            self._send(Heartbeat(0))
            self._next_keepalive = now + KEEPALIVE_S
        return events

    def close(self, reason: Said, now: float) -> list[HubEvent]:
        """The connection is gone (or must go): tell the daemon once, then wait for ``open()``."""
        if self.state is not LinkState.REFUSED:
            self.state = LinkState.CLOSED
        self.outbox.clear()
        return self._announce(False, now, reason)

    def set_led(self, zone: str, colour: str, mode: str, now: float) -> None:
        """Light a zone's LED (``colour`` in ``COLOURS``, ``mode`` in ``MODES``); re-sent after a reconnection."""
        if zone not in self.zones:
            raise ValueError(f"LED of zone {zone!r}: the hub's zones are {', '.join(self.zones)}")
        if colour not in COLOURS or mode not in MODES:
            raise ValueError(f"LED {colour!r} {mode!r}: use a colour of {COLOURS} and a mode of {MODES}")
        index = list(self.zones).index(zone)
        self._leds[index] = (COLOURS.index(colour), MODES.index(mode))
        if self.state is LinkState.ONLINE:
            self._send_led(index, now, 1)

    def write_tag(self, zone: str, uid: bytes, page: int, data: bytes, now: float) -> int:
        """Ask the hub to write ``data`` from ``page`` on the tag ``uid`` lying on ``zone`` and read it back; a
        ``TagWritten`` with the returned number answers (re-sent twice without an answer, never kept across a
        reconnection: the caller asks again)."""
        if zone not in self.zones:
            raise ValueError(f"zone {zone!r}: the hub's zones are {', '.join(self.zones)}")
        if self.state is not LinkState.ONLINE:
            raise ValueError("the hub is not connected")
        write = WriteTag(list(self.zones).index(zone), uid, page, data)
        seq = self._send(write)
        self._writes[seq] = _PendingWrite(write, now + WRITE_ACK_TIMEOUT_S, 1)
        self._write_seqs[seq] = seq
        return seq

    # -- messages --------------------------------------------------------------------------------------------

    def _message(self, seq: int, message: Message, now: float) -> list[HubEvent]:
        if isinstance(message, ZoneError):  # its detail reaches the log, the screen and the page: never raw
            message = ZoneError(message.zone, message.code, printable(message.detail))
        if isinstance(message, Hello):
            return self._hello(message, now)
        if isinstance(message, ZoneError) and message.zone == protocol.HUB_ZONE:
            self.state = LinkState.REFUSED
            return self._announce(False, now, Said(MISCONFIGURED, detail=message.detail))
        if self.state is not LinkState.ONLINE:
            self._count("before_hello")  # left over from before this connection's HELLO
            return []
        if isinstance(message, Heartbeat):
            self._deadline = now + HEARTBEAT_TIMEOUT_S
        elif isinstance(message, ZoneReport):
            return self._report(message, now)
        elif isinstance(message, Snapshot):
            return self._snapshot(message, now)
        elif isinstance(message, ZoneError):
            return self._zone_error(message, now)
        elif isinstance(message, Ack):
            return self._ack(message, now)
        else:
            self._count("unexpected")
        return []

    def _hello(self, hello: Hello, now: float) -> list[HubEvent]:
        firmware = ".".join(str(part) for part in hello.firmware)
        if hello.protocol != PROTOCOL_VERSION:
            self.state = LinkState.REFUSED
            said = Said(OTHER_PROTOCOL, firmware=firmware, protocol=hello.protocol, ours=PROTOCOL_VERSION)
            return self._announce(False, now, said)
        if not hello.health:
            return []  # a hub with a bad configuration: its ERROR frames follow and say what is wrong
        if len(hello.health) != len(self.zones):
            self.state = LinkState.REFUSED
            return self._announce(
                False,
                now,
                Said(OTHER_ZONES, hub=len(hello.health), count=len(self.zones), zones=", ".join(self.zones)),
                zones=(len(hello.health), len(self.zones)),
            )
        if hello.boot != self._boot:
            # A new boot numbers its changes afresh: what happened before it is in the snapshot that follows.
            self._boot = hello.boot
            self._event = hello.event
        elif 0 < (self._event - hello.event) & 0xFFFF < 0x8000:
            # We hold a number the hub never reached: it cannot replay from there, and its snapshot follows.
            self._jump(self._event, hello.event)
            self._event = hello.event
        self.info = HubInfo(firmware, hello.protocol, hello.boot, tuple(self.zones), hello.health)
        self.state = LinkState.ONLINE
        self._deadline = now + HEARTBEAT_TIMEOUT_S
        for zone in sorted(self._leds):
            self._send_led(zone, now, 1)
        events = self._announce(True, now, Said(""))
        for zone, (name, health) in enumerate(zip(self.zones, hello.health, strict=True)):
            self._down[zone] = f"the reader of zone {name} did not answer at start-up" if health else None
            if health:
                events.append(self._scan(zone, now))
        return events

    def _zone(self, zone: int) -> str | None:
        if zone < len(self.zones):
            return self.zones[zone]
        self._count("bad_zone")
        return None

    def _report(self, report: ZoneReport, now: float) -> list[HubEvent]:
        step = (report.event - self._event) & 0xFFFF
        name = self._zone(report.zone)
        if name is None:
            return []
        if step == 0 or step >= 0x8000:
            self._count("stale_changes")  # already passed on (a replay after reconnecting, or a repeat)
            return []
        if step > MAX_STEP:
            self._jump(self._event, report.event)  # the cards are news; the number is not trusted
        else:
            if step > 1:
                self._count("missed_changes", step - 1)  # the snapshot after them puts the zones right
            self._event = report.event
        self._uids[report.zone] = report.uids
        return [self._scan(report.zone, now)]

    def _snapshot(self, snapshot: Snapshot, now: float) -> list[HubEvent]:
        """Every zone as the hub sees it now: the truth, whatever number we held (one sender, in order)."""
        if len(snapshot.zones) != len(self.zones):
            self._count("bad_snapshot")
            return []
        if (snapshot.event - self._event) & 0xFFFF > MAX_STEP:  # back, or further ahead than a few lost frames
            self._jump(self._event, snapshot.event)
        self._event = snapshot.event
        self._uids = list(snapshot.zones)
        return [self._scan(zone, now) for zone in range(len(self.zones))]

    def _zone_error(self, error: ZoneError, now: float) -> list[HubEvent]:
        name = self._zone(error.zone)
        if name is None:
            return []
        if error.code == protocol.READER_UP:
            log.info("hub: the reader of zone %s answers again", name)
            self._down[error.zone] = None
            return [self._scan(error.zone, now)]
        log.error("hub: the reader of zone %s failed: %s", name, error.detail)
        if error.code == protocol.READER_DOWN:
            self._down[error.zone] = error.detail
            return [self._scan(error.zone, now)]
        return [ZoneScan(name, self._uids[error.zone], now, error=error.detail)]

    def _scan(self, zone: int, now: float) -> ZoneScan:
        """What the hub last said of ``zone``: its cards, and whether its reader is down (a snapshot or a report
        of other zones does not bring a dead reader back)."""
        down = self._down[zone]
        return ZoneScan(self.zones[zone], self._uids[zone], now, error=down, reader_down=down is not None)

    def _ack(self, ack: Ack, now: float) -> list[HubEvent]:
        first = self._write_seqs.pop(ack.seq, None)
        if first is not None:
            write = self._writes.pop(first)
            self._write_seqs = {seq: f for seq, f in self._write_seqs.items() if f != first}
            ok = ack.status == protocol.ACK_OK
            reason = "" if ok else _WRITE_REFUSED.get(ack.status, f"the hub refused the write (status {ack.status})")
            return [TagWritten(first, self.zones[write.write.zone], ok, reason, now)]
        pending = self._pending.pop(ack.seq, None)
        if pending is None:
            self._count("stray_acks")
        elif ack.status != protocol.ACK_OK:
            self._count("led_refused")
            log.error("hub: refused the LED command for zone %s (status %d)", self.zones[pending.zone], ack.status)
        return []

    # -- helpers ---------------------------------------------------------------------------------------------

    def _jump(self, held: int, told: int) -> None:
        self._count("event_jumps")
        log.warning("hub: change number jumped from %d to %d; the snapshots put the zones right", held, told)

    def _send(self, message: Message) -> int:
        seq = self._seq
        self.outbox += encode_frame(seq, message)
        self._seq = (seq + 1) & 0xFF
        return seq

    def _send_led(self, zone: int, now: float, tries: int) -> None:
        colour, mode = self._leds[zone]
        seq = self._send(SetLed(zone, colour, mode))
        self._pending[seq] = _PendingLed(zone, now + LED_ACK_TIMEOUT_S, tries)

    def _announce(self, online: bool, now: float, reason: Said, zones: tuple[int, int] | None = None) -> list[HubEvent]:
        if self._announced is online:
            return []
        self._announced = online
        if online:
            assert self.info is not None
            log.info("hub online: firmware %s, zones %s", self.info.firmware, ", ".join(self.zones))
            return [HubOnline(self.info, now)]
        log.error("hub offline: %s", reason)
        return [HubOffline(reason, now, zones)]

    def _count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def _fold_counts(self) -> None:
        for name, n in self._decoder.counts.items():
            if n and name != "frames":
                self._count(name, n)
        self._decoder.counts = dict.fromkeys(self._decoder.counts, 0)

    def faults(self) -> dict[str, int]:
        """Every fault counted on this hub's links so far, by kind (``protocol.COUNTS`` and the session's own)."""
        self._fold_counts()
        return {name: n for name, n in self.counts.items() if n}

    def _log_faults(self, now: float) -> None:
        if now < self._next_log:
            return
        faults = self.faults()
        if faults != self._logged:
            news = {name: n - self._logged.get(name, 0) for name, n in faults.items() if n != self._logged.get(name)}
            log.warning("hub link faults since the last report: %s", news)
            self._logged = faults
            self._next_log = now + LOG_EVERY_S


class Backoff:
    """Delays between reconnection attempts: short after a blip, longer while the hub stays away."""

    DELAYS_S = (0.1, 0.25, 0.5, 1.0, 2.0)

    def __init__(self) -> None:
        self.failures = 0

    def next_delay(self) -> float:
        delay = self.DELAYS_S[min(self.failures, len(self.DELAYS_S) - 1)]
        self.failures += 1
        return delay

    def reset(self) -> None:
        self.failures = 0
