"""The host's side of the link, without I/O: a scripted hub's frames in, the daemon's events out, time passed in."""

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.events import ZoneScan
from companion.hub.protocol import (
    ACK_BAD_ZONE,
    ACK_OK,
    BAD_CONFIG,
    HUB_ZONE,
    READER_DOWN,
    READER_UP,
    Ack,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    SetLed,
    Snapshot,
    Sync,
    ZoneError,
    ZoneReport,
    encode_frame,
)
from companion.hub.session import Backoff, HubOffline, HubOnline, HubSession, LinkState
from companion.i18n import N_, Said

ZONES = ["a", "b", "c"]
UID1 = bytes.fromhex("04a1b2c3d4e5f6")
UID2 = bytes.fromhex("de0badf0")


class ScriptedHub:
    """Numbers and frames messages as the firmware does; reads what the host sent."""

    def __init__(self, session: HubSession) -> None:
        self.session = session
        self.seq = 0
        self.decoder = FrameDecoder()

    def frames(self, *messages: Message) -> bytes:
        out = b""
        for message in messages:
            if isinstance(message, Hello):
                self.seq = 0
            out += encode_frame(self.seq, message)
            self.seq = (self.seq + 1) & 0xFF
        return out

    def say(self, now: float, *messages: Message) -> list[object]:
        return list(self.session.receive(self.frames(*messages), now))

    def heard(self) -> list[tuple[int, Message]]:
        frames = self.decoder.feed(bytes(self.session.outbox))
        self.session.outbox.clear()
        return frames


def online(boot: int = 7, event: int = 0) -> tuple[HubSession, ScriptedHub]:
    session = HubSession(ZONES)
    hub = ScriptedHub(session)
    session.open(0.0)
    assert [m for _, m in hub.heard()] == [Sync(0, 0)]
    events = hub.say(0.1, Hello((1, 0, 0), boot, event, (0, 0, 0)))
    assert [type(e) for e in events] == [HubOnline]
    return session, hub


def test_reports_and_snapshots_become_zone_scans() -> None:
    _, hub = online()
    assert hub.say(0.2, ZoneReport(1, 0, (UID1,))) == [ZoneScan("a", (UID1,), 0.2)]
    assert hub.say(0.3, Snapshot(1, ((UID1,), (), (UID2,)))) == [
        ZoneScan("a", (UID1,), 0.3),
        ZoneScan("b", (), 0.3),
        ZoneScan("c", (UID2,), 0.3),
    ]


def test_a_change_seen_twice_is_passed_on_once() -> None:
    session, hub = online()
    hub.say(0.2, ZoneReport(1, 0, (UID1,)), ZoneReport(2, 0, ()))
    assert hub.say(0.3, ZoneReport(1, 0, (UID1,))) == []  # a replay of what we have
    assert session.faults() == {"stale_changes": 1}


def test_missed_changes_are_counted_and_healed_by_the_snapshot() -> None:
    session, hub = online()
    assert hub.say(0.2, ZoneReport(3, 1, (UID2,))) == [ZoneScan("b", (UID2,), 0.2)]
    assert session.faults() == {"missed_changes": 2}
    assert hub.say(0.3, Snapshot(4, ((UID1,), (UID2,), ()))) == [
        ZoneScan("a", (UID1,), 0.3),
        ZoneScan("b", (UID2,), 0.3),
        ZoneScan("c", (), 0.3),
    ]


def test_a_change_number_far_ahead_does_not_freeze_the_table() -> None:
    """A frame with a valid checksum but a wild change number (noise that passed the CRC, a hub bug) costs at
    most its own report: the changes after it, and the snapshots, still reach the daemon."""
    session, hub = online()
    assert hub.say(0.2, ZoneReport(0x7FFF, 0, (UID1,))) == [ZoneScan("a", (UID1,), 0.2)]
    assert hub.say(0.3, ZoneReport(1, 1, (UID2,))) == [ZoneScan("b", (UID2,), 0.3)]
    assert hub.say(0.4, ZoneReport(2, 1, ())) == [ZoneScan("b", (), 0.4)]
    assert hub.say(0.5, Snapshot(2, ((), (), ()))) == [ZoneScan(z, (), 0.5) for z in ZONES]
    assert session.faults() == {"event_jumps": 1}


def test_snapshots_are_the_truth_whatever_number_was_held() -> None:
    session, hub = online()
    hub.say(0.2, Snapshot(0x7000, ((UID1,), (), ())))  # a wild number in a snapshot: followed, and counted
    assert hub.say(0.3, Snapshot(3, ((), (UID2,), ()))) == [
        ZoneScan("a", (), 0.3),
        ZoneScan("b", (UID2,), 0.3),
        ZoneScan("c", (), 0.3),
    ]
    assert hub.say(0.4, ZoneReport(4, 1, ())) == [ZoneScan("b", (), 0.4)]
    assert session.faults() == {"event_jumps": 2}  # there and back


def test_a_reconnection_forgets_a_number_the_hub_never_reached() -> None:
    session, hub = online(boot=7)
    hub.say(0.2, Snapshot(0x7000, ((UID1,), (), ())))
    session.close("unplugged", 0.3)
    session.open(1.0)
    assert [m for _, m in hub.heard()] == [Sync(7, 0x7000)]
    hub.say(1.1, Hello((1, 0, 0), 7, 5, (0, 0, 0)))  # the same boot, at change 5: our 0x7000 meant nothing
    assert hub.say(1.2, ZoneReport(6, 0, ())) == [ZoneScan("a", (), 1.2)]
    assert session.faults() == {"event_jumps": 2}


def test_reconnection_asks_for_the_changes_since_the_last_one() -> None:
    session, hub = online(boot=7)
    hub.say(0.2, ZoneReport(1, 0, (UID1,)), ZoneReport(2, 1, (UID2,)))
    (closed,) = session.close(Said(N_("no heartbeat from the hub for 1 s: check its USB cable")), 0.3)
    assert isinstance(closed, HubOffline) and (str(closed.reason), closed.t) == (
        "no heartbeat from the hub for 1 s: check its USB cable",
        0.3,
    )
    assert session.close("still unplugged", 0.4) == []  # told once
    session.open(1.0)
    assert [m for _, m in hub.heard()] == [Sync(7, 2)]
    events = hub.say(1.1, Hello((1, 0, 0), 7, 3, (0, 0, 0)), ZoneReport(2, 1, (UID2,)), ZoneReport(3, 0, ()))
    assert [type(e) for e in events] == [HubOnline, ZoneScan]
    assert events[1] == ZoneScan("a", (), 1.1)


def test_a_rebooted_hub_starts_from_its_snapshot() -> None:
    session, hub = online(boot=7)
    hub.say(0.2, ZoneReport(9, 0, (UID1,)))
    session.close("unplugged", 0.3)
    session.open(1.0)
    hub.heard()
    hub.say(1.1, Hello((1, 0, 0), 8, 0, (0, 0, 0)))
    assert hub.say(1.2, Snapshot(0, ((), (), ()))) == [ZoneScan(z, (), 1.2) for z in ZONES]
    assert hub.say(1.3, ZoneReport(1, 2, (UID2,))) == [ZoneScan("c", (UID2,), 1.3)]


def test_no_heartbeat_for_a_second_is_offline() -> None:
    session, hub = online()
    hub.say(0.9, Heartbeat(40))
    assert session.poll(1.8) == []
    [event] = session.poll(1.95)
    assert isinstance(event, HubOffline) and "heartbeat" in str(event.reason)
    assert session.state is LinkState.CLOSED


def test_a_hub_that_never_answers_is_reported() -> None:
    session = HubSession(ZONES)
    session.open(0.0)
    [event] = session.poll(1.0)
    assert isinstance(event, HubOffline) and "did not answer SYNC" in str(event.reason)


def test_another_protocol_version_is_refused_with_a_clear_message() -> None:
    session = HubSession(ZONES)
    hub = ScriptedHub(session)
    session.open(0.0)
    [event] = hub.say(0.1, Hello((2, 4, 0), 0, 0, (), protocol=2))
    assert isinstance(event, HubOffline)
    assert "firmware 2.4.0 with protocol 2" in str(event.reason) and "speaks protocol 1" in str(event.reason)
    assert "make firmware-deploy" in str(event.reason)
    assert session.state is LinkState.REFUSED
    assert hub.say(0.2, Heartbeat(1), ZoneReport(1, 0, (UID1,))) == []


def test_a_zone_count_mismatch_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    session = HubSession(ZONES)
    hub = ScriptedHub(session)
    session.open(0.0)
    with caplog.at_level(logging.ERROR, "companion.hub.session"):
        [event] = hub.say(0.1, Hello((1, 0, 0), 1, 0, (0,) * 8))
    assert isinstance(event, HubOffline) and event.zones == (8, 3)
    assert str(event.reason).startswith("hub has 8 zones, config names 3 (a, b, c): flash the hub with your table")
    assert "make firmware-deploy HUB_CONFIG=hardware/layouts/NAME/hub_config.py" in str(event.reason)
    assert "USB cable" not in str(event.reason)
    assert [record.getMessage() for record in caplog.records] == [f"hub offline: {event.reason}"]
    assert session.state is LinkState.REFUSED


def test_a_bad_configuration_is_reported_by_its_sentence() -> None:
    session = HubSession(ZONES)
    hub = ScriptedHub(session)
    session.open(0.0)
    events = hub.say(0.1, Hello((1, 0, 0), 1, 0, ()), ZoneError(HUB_ZONE, BAD_CONFIG, "pin 40: not a GPIO"))
    assert [(type(e), str(e.reason), e.t) for e in events if isinstance(e, HubOffline)] == [
        (HubOffline, "the hub's configuration is wrong: pin 40: not a GPIO", 0.1)
    ] and len(events) == 1


def test_reader_errors_keep_the_cards_and_say_why() -> None:
    _, hub = online()
    hub.say(0.2, ZoneReport(1, 1, (UID2,)))
    assert hub.say(0.3, ZoneError(1, READER_DOWN, "VersionReg reads 0x00")) == [
        ZoneScan("b", (UID2,), 0.3, error="VersionReg reads 0x00", reader_down=True)
    ]
    assert hub.say(0.4, ZoneError(1, READER_UP, "")) == [ZoneScan("b", (UID2,), 0.4)]


def test_led_commands_are_retried_until_acknowledged_and_resent_on_reconnection() -> None:
    session = HubSession(ZONES)
    hub = ScriptedHub(session)
    session.set_led("b", "amber", "blink", 0.0)  # before the hub is there: kept
    session.open(0.0)
    hub.heard()
    hub.say(0.1, Hello((1, 0, 0), 1, 0, (0, 0, 0)))
    [(seq, command)] = hub.heard()
    assert command == SetLed(1, 3, 1)
    session.poll(0.35)  # no ACK within 0.2 s: sent again under a new number
    [(retry, again)] = [f for f in hub.heard() if isinstance(f[1], SetLed)]
    assert again == command and retry != seq
    hub.say(0.36, Heartbeat(1), Ack(retry, ACK_OK))
    session.poll(0.7)
    assert [m for _, m in hub.heard() if isinstance(m, SetLed)] == []
    hub.say(0.8, Ack(99, ACK_BAD_ZONE))
    assert session.faults() == {"stray_acks": 1}


def test_led_arguments_are_checked() -> None:
    session = HubSession(ZONES)
    for args, message in [(("z", "red", "steady"), "zones are a, b, c"), (("a", "blue", "steady"), "colour")]:
        try:
            session.set_led(*args, now=0.0)
        except ValueError as exc:
            assert message in str(exc)
        else:
            raise AssertionError(f"set_led{args} was accepted")


def test_backoff_grows_and_resets() -> None:
    backoff = Backoff()
    delays = [backoff.next_delay() for _ in range(7)]
    assert delays == sorted(delays) and delays[0] == 0.1 and delays[-1] == Backoff.DELAYS_S[-1]
    backoff.reset()
    assert backoff.next_delay() == 0.1


@given(st.lists(st.binary(max_size=64), max_size=30))
def test_random_bytes_make_no_phantom_card(chunks: list[bytes]) -> None:
    """Any garbage between real frames: the daemon sees exactly the cards of the real frames, nothing else."""
    session, hub = online()
    real = [ZoneReport(1, 0, (UID1,)), ZoneReport(2, 0, ()), ZoneReport(3, 2, (UID2,))]
    events = []
    for i, chunk in enumerate(chunks):
        events += session.receive(chunk, 1.0)
        if i < len(real):
            events += session.receive(b"\x00" + hub.frames(real[i]), 1.0)
    for message in real[len(chunks) :]:
        events += session.receive(b"\x00" + hub.frames(message), 1.0)
    scans = [(e.zone, e.uids) for e in events if isinstance(e, ZoneScan)]
    assert scans == [("a", (UID1,)), ("a", ()), ("c", (UID2,))]


@pytest.mark.parametrize(
    "heard",
    [
        b"companion hub: maintenance mode (no scanning, no watchdog); the REPL is yours\r\n",
        b'\r\nMicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\nType "help()" for more information.',
        b"\x05\x02\r\n>>> ",  # the SYNC's bytes echoed, then the prompt
        b"raw REPL; CTRL-B to exit\r\n>",
    ],
)
def test_a_hub_in_maintenance_mode_is_named_so(heard: bytes) -> None:
    """A hub in maintenance mode runs MicroPython's REPL, which answers SYNC with its own words: the reason says
    maintenance mode and how to leave it, not "is it running the companion firmware?"."""
    session = HubSession(ZONES)
    session.open(0.0)
    for start in range(0, len(heard), 7):  # as the port reads it, in pieces
        assert session.receive(heard[start : start + 7], 0.1) == []
    [event] = session.poll(1.0)
    assert isinstance(event, HubOffline) and str(event.reason).startswith("the hub is in maintenance mode")
    assert "jumper" in str(event.reason)


def test_a_hub_that_answers_garbage_is_not_taken_for_maintenance_mode() -> None:
    session = HubSession(ZONES)
    session.open(0.0)
    session.receive(b"AT\r\n\xff\xfe>> ", 0.1)  # a modem probe's leftovers: no REPL words
    [event] = session.poll(1.0)
    assert isinstance(event, HubOffline) and "did not answer SYNC" in str(event.reason)


FORGED = "VersionReg reads 0x00\n2026-12-01 20:00:00 INFO companion: hub online \x1b[2J\x1b[31m\u202e\r"
ESCAPED = "VersionReg reads 0x00\\n2026-12-01 20:00:00 INFO companion: hub online \\x1b[2J\\x1b[31m\\u202e\\r"


def test_an_error_detail_is_logged_and_passed_on_escaped(caplog: pytest.LogCaptureFixture) -> None:
    """A hub's ERROR detail is its firmware's text, or anybody's who holds the USB port: a newline in it would
    start a log line of its own (a forged "hub online"), ESC sequences would clear or colour the terminal of
    whoever reads the log, and the screen and the page show it too."""
    _, hub = online()
    with caplog.at_level(logging.INFO, logger="companion"):
        [scan] = hub.say(0.3, ZoneError(1, READER_DOWN, FORGED))
    assert scan == ZoneScan("b", (), 0.3, error=ESCAPED, reader_down=True)
    [line] = [record.getMessage() for record in caplog.records]
    assert line == f"hub: the reader of zone b failed: {ESCAPED}"
    assert line.isprintable()
    session = HubSession(ZONES)
    refused = ScriptedHub(session)
    session.open(0.0)
    with caplog.at_level(logging.INFO, logger="companion"):
        events = refused.say(0.1, Hello((1, 0, 0), 1, 0, ()), ZoneError(HUB_ZONE, BAD_CONFIG, FORGED))
    assert [(type(e), str(e.reason), e.t) for e in events if isinstance(e, HubOffline)] == [
        (HubOffline, f"the hub's configuration is wrong: {ESCAPED}", 0.1)
    ] and len(events) == 1
    assert all(record.getMessage().isprintable() for record in caplog.records)
