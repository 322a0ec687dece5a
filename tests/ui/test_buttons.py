"""Presses: the pure classifier with timed presses and contact bounce, then gpiozero Buttons on mock pins."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from companion.events import Press
from companion.ui.buttons import BOUNCE_S, LONG_S, Buttons, PressClassifier


def run(edges: list[tuple[str, bool, float]], until: float, step: float = 0.01) -> list[Press]:
    """Feed ``edges`` in time order with a tick every ``step`` seconds, as the daemon does."""
    classifier = PressClassifier()
    presses: list[Press] = []
    pending = sorted(edges, key=lambda edge: edge[2])
    t = 0.0
    while t <= until:
        while pending and pending[0][2] <= t:
            presses += classifier.edge(*pending.pop(0))
        presses += classifier.tick(t)
        t = round(t + step, 6)
    return presses


def test_a_short_press_is_reported_on_release() -> None:
    assert run([("pass", True, 0.10), ("pass", False, 0.30)], until=1.0) == [Press("pass", "short", 0.3)]


def test_a_long_press_is_reported_while_held_and_its_release_says_nothing() -> None:
    classifier = PressClassifier()
    assert classifier.edge("undo", True, 5.0) == []
    assert classifier.tick(5.0 + LONG_S - 0.01) == []
    assert classifier.tick(5.0 + LONG_S) == [Press("undo", "long", 5.0 + LONG_S)]
    assert classifier.tick(5.0 + LONG_S + 1) == []
    assert classifier.edge("undo", False, 9.0) == []
    assert classifier.tick(9.5) == []


def test_bounces_on_press_and_release_make_one_press() -> None:
    chatter = [("confirm", i % 2 == 0, 0.100 + i * 0.002) for i in range(7)]  # down, up, down... ends down
    chatter += [("confirm", i % 2 == 1, 0.400 + i * 0.003) for i in range(6)]  # up, down, up... ends up
    assert run(chatter, until=1.0) == [Press("confirm", "short", 0.4)]


def test_a_tap_shorter_than_the_bounce_window_still_counts_once() -> None:
    presses = run([("pass", True, 0.100), ("pass", False, 0.110)], until=0.5, step=0.005)
    assert len(presses) == 1 and presses[0].kind == "short"
    assert 0.100 + BOUNCE_S <= presses[0].t <= 0.100 + BOUNCE_S + 0.005


def test_two_quick_deliberate_presses_are_two_presses() -> None:
    edges = [("pass", True, 0.1), ("pass", False, 0.2), ("pass", True, 0.3), ("pass", False, 0.4)]
    assert run(edges, until=1.0) == [Press("pass", "short", 0.2), Press("pass", "short", 0.4)]


def test_buttons_are_classified_apart() -> None:
    edges = [("confirm", True, 0.1), ("undo", True, 0.15), ("confirm", False, 0.2), ("undo", False, 2.0)]
    assert run(edges, until=2.5) == [Press("confirm", "short", 0.2), Press("undo", "long", 0.15 + LONG_S)]


def test_an_unknown_button_is_named() -> None:
    with pytest.raises(KeyError, match="no button 'ok'; the buttons are confirm, pass, undo"):
        PressClassifier().edge("ok", True, 0.0)


@given(
    st.lists(
        st.tuples(st.floats(0.05, 0.6), st.floats(0.1, 0.5), st.integers(0, 5), st.integers(0, 5)),
        min_size=1,
        max_size=6,
    )
)
def test_any_bouncing_short_presses_count_exactly(presses: list[tuple[float, float, int, int]]) -> None:
    """Each press: held ``hold`` s after ``gap`` s of rest, with some bounces (< 3 ms apart) at each end."""
    edges: list[tuple[str, bool, float]] = []
    t = 0.0
    for gap, hold, down_bounces, up_bounces in presses:
        t += gap
        edges += [("pass", i % 2 == 0, t + i * 0.003) for i in range(2 * down_bounces + 1)]
        t += hold
        edges += [("pass", i % 2 == 1, t + i * 0.003) for i in range(2 * up_bounces + 1)]
    found = run(edges, until=t + 0.2)
    assert [press.kind for press in found] == ["short"] * len(presses)


@pytest.fixture
def wired(mock_factory: MockFactory) -> Iterator[tuple[Buttons, list[Press], list[Callable[[], None]], list[float]]]:
    presses: list[Press] = []
    queued: list[Callable[[], None]] = []
    now = [100.0]
    buttons = Buttons({"confirm": 5, "pass": 6, "undo": 13}, presses.append, queued.append, clock=lambda: now[0])
    yield buttons, presses, queued, now
    buttons.close()


def test_gpiozero_buttons_are_active_low_with_pull_ups(
    wired: tuple[Buttons, list[Press], list[Callable[[], None]], list[float]], mock_factory: MockFactory
) -> None:
    buttons, _, _, _ = wired
    for name, pin in (("confirm", 5), ("pass", 6), ("undo", 13)):
        assert mock_factory.pin(pin).pull == "up"
        assert buttons.devices[name].is_pressed is False
        mock_factory.pin(pin).drive_low()
        assert buttons.devices[name].is_pressed is True


def test_edges_from_gpiozero_threads_are_classified_on_the_daemons_side(
    wired: tuple[Buttons, list[Press], list[Callable[[], None]], list[float]], mock_factory: MockFactory
) -> None:
    buttons, presses, queued, now = wired
    mock_factory.pin(6).drive_low()
    now[0] = 100.25
    mock_factory.pin(6).drive_high()
    assert presses == [] and len(queued) == 2, "nothing is classified in gpiozero's thread"
    for call in queued:
        call()
    assert presses == [Press("pass", "short", 100.25)]
    queued.clear()
    now[0] = 101.0
    mock_factory.pin(13).drive_low()
    queued.pop()()
    buttons.tick(101.0 + LONG_S)
    assert presses[-1] == Press("undo", "long", 101.0 + LONG_S) and len(presses) == 2
