"""Enrollment through the reader hub: the hub firmware on simulated readers at the far end of a pty, the real
``companion enroll --backend hub`` on this end. Tags are laid on any of the 8 zones, bound, written by the hub
(WRITE_TAG) and read back there; the zone's LED on the hub says green."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.decks import load_deck
from companion.hub.protocol import (
    ACK_TAG_FAILED,
    COLOURS,
    MODES,
    Ack,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    WriteTag,
    encode_frame,
)
from companion.hub.session import HubEvent, HubSession, TagWritten
from companion.hub.simulated import SimulatedHub
from companion.nfc.ndef import card_id_from_ndef, card_id_pages
from companion.nfc.registry import Registry

GREEN = (COLOURS.index("green"), MODES.index("steady"))
UID = bytes.fromhex("04a1b2c3d4e5f6")
MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")


class HubPlayer:
    """Reads what the command prints and lays the card it asks for on the next zone of the hub, lifting the one
    before; the hub holds the tags."""

    def __init__(self, hub: SimulatedHub, deck: str) -> None:
        self.hub = hub
        self.names = {card.name("en"): card.id for card in load_deck(deck)}
        self.uids: dict[str, bytes] = {}
        self.zone_of: dict[str, int] = {}
        self.lines: list[str] = []
        self.last: tuple[int, bytes] | None = None

    def write(self, text: str) -> int:
        self.lines.append(text)
        if " place " in text:
            card = self.names[text.split(" place ", 1)[1].rsplit(" (", 1)[0]]
            if self.last is not None:
                self.hub.take(*self.last)
            uid = bytes((0x04, 0xE0, len(self.uids), 0x22, 0x33, 0x44, 0x55))
            zone = len(self.uids) % 8
            self.uids[card], self.zone_of[card] = uid, zone
            self.hub.put(zone, uid)
            self.last = (zone, uid)
        return len(text)

    def flush(self) -> None:
        pass


def wait_for_green(hub: SimulatedHub, zone: int) -> list[tuple[int, int]]:
    end = time.monotonic() + 5
    while hub.status().leds[zone] != GREEN and time.monotonic() < end:
        time.sleep(0.01)
    return hub.status().leds


def test_a_deck_is_enrolled_and_written_through_the_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = SimulatedHub(tmp_path / "companion-hub", zones=8)
    hub.start()
    config = tmp_path / "config.toml"
    zones = "".join(f'z{i} = "{master}"\n' for i, master in enumerate(MASTERS, start=1))
    config.write_text(
        f'[game]\nname = "sexto-set"\n[zones]\n{zones}[readers]\nbackend = "hub"\n'
        f'hub_port = "{hub.path}"\nregistry = "{tmp_path / "registry.toml"}"\n'
    )
    player = HubPlayer(hub, "squadratik")
    leds: list[tuple[int, int]] = []
    monkeypatch.setattr(sys, "stdout", player)
    try:
        # the first 8 cards of the deck: one on each zone (Ctrl-C after the 8th, as a person stops for a break)
        def stop_at_ninth(text: str) -> int:
            if "place" in text and len(player.uids) == 8:
                leds.extend(wait_for_green(hub, 7))
                raise KeyboardInterrupt
            return HubPlayer.write(player, text)

        monkeypatch.setattr(player, "write", stop_at_ninth)
        assert main(["enroll", "--config", str(config), "--write-tags"]) == 130
        end = time.monotonic() + 5
        while hub.status().leds != [(0, 0)] * 8 and time.monotonic() < end:
            time.sleep(0.01)  # the last LED commands on their way
        status = hub.status()
        memories = {card: hub.memory(uid) for card, uid in player.uids.items()}
    finally:
        hub.stop()
    registry = Registry.load(tmp_path / "registry.toml", deck="squadratik")
    assert len(player.uids) == 8 and sorted(player.zone_of.values()) == list(range(8))
    for card, uid in player.uids.items():
        assert registry.card_for(uid) == card
        assert card_id_from_ndef(memories[card][16:160]) == card  # written by the hub and read back there
    assert leds[7] == GREEN  # the last card read, while it lay there
    assert status.leds == [(0, 0)] * 8  # enroll leaves the LEDs off for the service
    text = "".join(player.lines)
    assert "on zone z8 (card id written on the tag)" in text


def test_no_hub_is_said_with_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["enroll", "--deck", "squadratik", "--backend", "hub", "--hub-port", str(tmp_path / "nothing")]
    assert main([*args, "--registry", str(tmp_path / "r.toml")]) == 2
    assert f"no hub at {tmp_path / 'nothing'}: plug it in" in capsys.readouterr().err


def test_a_write_is_sent_again_until_answered_and_a_refusal_says_what_to_do() -> None:
    """The session alone, a scripted hub: an unanswered WRITE_TAG goes again (it writes the same bytes), the
    answer to any try settles it, and a hub that never answers is said after the third try."""
    session = HubSession(["a", "b"])
    decoder = FrameDecoder()
    session.open(0.0)
    session.receive(encode_frame(0, Hello((1, 0, 0), 7, 0, (0, 0))), 0.0)
    decoder.feed(bytes(session.outbox))
    session.outbox.clear()
    data = card_id_pages("6O")

    def sent() -> list[WriteTag]:
        frames = decoder.feed(bytes(session.outbox))
        session.outbox.clear()
        return [message for _, message in frames if isinstance(message, WriteTag)]

    seq = iter(range(1, 100))

    def hub_says(message: Message, t: float) -> list[HubEvent]:
        return session.receive(encode_frame(next(seq), message), t)

    first = session.write_tag("b", UID, 4, data, 0.5)
    assert sent() == [WriteTag(1, UID, 4, data)]
    hub_says(Heartbeat(1), 0.9)
    assert session.poll(1.1) == [] and sent() == [WriteTag(1, UID, 4, data)]  # no ACK within 0.5 s: once more
    retry = (first + 1) & 0xFF
    events = hub_says(Ack(retry, ACK_TAG_FAILED), 1.2)
    assert [(e.seq, e.zone, e.ok) for e in events if isinstance(e, TagWritten)] == [(first, "b", False)]
    assert "hold the card still on the zone" in events[0].reason  # type: ignore[union-attr]
    second = session.write_tag("a", UID, 4, data, 1.5)
    for t in (1.5, 2.0, 2.5):
        hub_says(Heartbeat(1), t)
        assert session.poll(t + 0.01) == []
    hub_says(Heartbeat(1), 3.0)
    assert [(e.seq, e.ok) for e in session.poll(3.01) if isinstance(e, TagWritten)] == [(second, False)]
    assert len([m for m in sent() if isinstance(m, WriteTag)]) == 3  # the first try and two more
