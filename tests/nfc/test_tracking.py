"""The table tracker: presence debounce and UID-to-card, under injected noise (property-based)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.events import CardArrived, CardLeft, SameCardTwice, UnknownTag, ZoneScan
from companion.nfc.tracking import TableTracker

SIX = bytes.fromhex("04A1B2C3D4E5F6")
SEVEN = bytes.fromhex("04A1B2C3D4E5F7")
STRANGER = bytes.fromhex("0499999999999999"[:14])


class Bindings:
    def __init__(self, cards: dict[bytes, str]) -> None:
        self.cards = cards

    def card_for(self, uid: bytes) -> str | None:
        return self.cards.get(uid)

    def uid_for(self, card_id: str) -> str | None:
        return next((uid.hex().upper() for uid, card in self.cards.items() if card == card_id), None)


REGISTRY = Bindings({SIX: "6O", SEVEN: "7O"})

# What one zone read at one poll: the card, nothing (a clean absence), or a garbled exchange.
Read = st.sampled_from(["card", "none", "garbled"])


def scan(what: str, t: float, zone: str = "O") -> ZoneScan:
    return ZoneScan(zone, (SIX,) if what == "card" else (), t, error="CRC error" if what == "garbled" else None)


@given(st.lists(Read, max_size=80), st.integers(min_value=1, max_value=6))
def test_events_follow_the_debounce_rule_exactly(polls: list[str], absences: int) -> None:
    tracker = TableTracker(REGISTRY, absences=absences)
    here, missed = False, 0
    for t, what in enumerate(polls):
        expected: list[object] = []
        if what == "card":
            if not here:
                expected = [CardArrived("O", "6O", t)]
            here, missed = True, 0
        elif what == "garbled":
            missed = 0
        elif here:
            missed += 1
            if missed == absences:
                expected = [CardLeft("O", "6O", t)]
                here, missed = False, 0
        assert tracker.feed(scan(what, t)) == expected


@st.composite
def flapping(draw: st.DrawFn) -> tuple[int, list[str]]:
    """A card laid down, then any mix of reads and noise in which clean absences never run ``absences`` long."""
    absences = draw(st.integers(min_value=2, max_value=6))
    polls = ["card"]
    for _ in range(draw(st.integers(min_value=0, max_value=25))):
        gap = draw(st.lists(st.sampled_from(["none", "garbled"]), max_size=2 * absences))
        while gap.count("none") >= absences:
            gap.remove("none")
        polls += [*gap, "card"]
    return absences, polls


@given(flapping())
def test_flaps_shorter_than_the_debounce_never_make_an_event(case: tuple[int, list[str]]) -> None:
    absences, polls = case
    tracker = TableTracker(REGISTRY, absences=absences)
    events = [event for t, what in enumerate(polls) for event in tracker.feed(scan(what, t))]
    assert events == [CardArrived("O", "6O", 0)]
    assert tracker.cards_on("O") == ["6O"]


@given(st.lists(st.sampled_from(["none", "garbled"]), max_size=40))
def test_only_three_clean_absences_in_a_row_lose_a_card(polls: list[str]) -> None:
    tracker = TableTracker(REGISTRY, absences=3)
    tracker.feed(scan("card", 0))
    run = 0
    for t, what in enumerate(polls, start=1):
        events = tracker.feed(scan(what, t))
        run = run + 1 if what == "none" else 0
        assert (CardLeft("O", "6O", t) in events) == (run == 3)
        if run == 3:
            break


def test_a_tag_the_registry_does_not_know_is_named_by_its_memory_or_reported() -> None:
    tracker = TableTracker(REGISTRY, known=lambda card: card in {"6O", "7O", "1C"})
    named = ZoneScan("C", (STRANGER,), 1.0, tag_cards=((STRANGER, "1C"),))
    assert tracker.feed(named) == [CardArrived("C", "1C", 1.0)]
    foreign = ZoneScan("E", (SEVEN[:6] + b"\x01",), 2.0, tag_cards=((SEVEN[:6] + b"\x01", "9Z"),))
    assert tracker.feed(foreign) == [UnknownTag("E", SEVEN[:6] + b"\x01", 2.0)]
    assert tracker.tags_on("E") == {SEVEN[:6] + b"\x01"}
    assert tracker.cards_on("E") == []


def test_the_registry_wins_over_what_the_tag_says() -> None:
    tracker = TableTracker(REGISTRY)
    assert tracker.feed(ZoneScan("O", (SIX,), 0.0, tag_cards=((SIX, "1C"),))) == [CardArrived("O", "6O", 0.0)]


def test_one_card_on_two_zones_is_reported() -> None:
    tracker = TableTracker(REGISTRY)
    tracker.feed(ZoneScan("O", (SIX,), 0.0))
    assert tracker.feed(ZoneScan("C", (SIX,), 0.1)) == [
        CardArrived("C", "6O", 0.1),
        SameCardTwice("6O", ("C", "O"), 0.1),
    ]


def test_several_cards_on_one_zone_come_and_go_separately() -> None:
    tracker = TableTracker(REGISTRY, absences=1)
    assert tracker.feed(ZoneScan("O", (SIX, SEVEN), 0.0)) == [CardArrived("O", "6O", 0.0), CardArrived("O", "7O", 0.0)]
    assert tracker.feed(ZoneScan("O", (SEVEN,), 1.0)) == [CardLeft("O", "6O", 1.0)]


def test_a_debounce_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TableTracker(REGISTRY, absences=0)
