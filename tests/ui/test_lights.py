"""Zone and status LEDs on gpiozero's mock pins: the exact on/off history of each pin, and its length."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware import ZonePins
from companion.ui import lights
from companion.ui.lights import HubZoneLights, StatusLed, ZoneLights
from companion.view import StatusLight, ZoneLight

ZONES = {
    "z1": ZonePins("Mesa 1", red=17, green=27, blue=None, reader=None),
    "z2": ZonePins("Mesa 2", red=22, green=23, blue=None, reader=None),
    "rgb": ZonePins("RGB", red=12, green=16, blue=20, reader=None),
}
BLINK_S = 0.03
STATUS_LOOKS = dict(lights.STATUS_BLINK)  # the real rhythms, before the quick ones replace them


@pytest.fixture(autouse=True)
def quick_blinks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same blinking code, at a rhythm a test can watch in a fraction of a second."""
    monkeypatch.setattr(lights, "BLINK", {light: (BLINK_S, BLINK_S) for light in lights.BLINK})
    monkeypatch.setattr(
        lights,
        "STATUS_BLINK",
        {status: None if t is None else (BLINK_S, BLINK_S) for status, t in lights.STATUS_BLINK.items()},
    )


@pytest.fixture
def table(mock_factory: MockFactory) -> Iterator[ZoneLights]:
    lights = ZoneLights(ZONES, StatusLed(26, pin_factory=mock_factory), pin_factory=mock_factory)
    yield lights
    lights.close()


def states(factory: MockFactory, pin: int) -> list[bool]:
    return [bool(state.state) for state in factory.pin(pin).states]


def gaps(factory: MockFactory, pin: int) -> list[float]:
    """Seconds between each change of the pin and the one before (mock pins stamp each state that way)."""
    return [state.timestamp for state in factory.pin(pin).states[2:]]


def test_a_pending_legal_play_is_steady_green_until_it_goes(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"z1": ZoneLight.PENDING_OK}, StatusLight.READY)
    assert states(mock_factory, 27) == [False, True]
    assert states(mock_factory, 17) == [False]
    table.apply({}, StatusLight.READY)
    assert states(mock_factory, 27) == [False, True, False]
    assert states(mock_factory, 17) == [False]


def test_only_the_zones_that_changed_are_touched(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"z1": ZoneLight.PENDING_OK, "z2": ZoneLight.PENDING_OK}, StatusLight.READY)
    table.apply({"z1": ZoneLight.PENDING_OK, "z2": ZoneLight.PENDING_OK}, StatusLight.READY)
    table.apply({"z1": ZoneLight.OFF, "z2": ZoneLight.PENDING_OK}, StatusLight.READY)
    assert states(mock_factory, 27) == [False, True, False]
    assert states(mock_factory, 23) == [False, True]
    assert states(mock_factory, 22) == [False]


def test_an_illegal_play_blinks_red_until_the_card_leaves(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"z2": ZoneLight.ILLEGAL}, StatusLight.READY)
    time.sleep(BLINK_S * 10)
    table.apply({}, StatusLight.READY)
    red = states(mock_factory, 22)
    assert len(red) >= 6
    assert red == [False] + [True, False] * ((len(red) - 1) // 2), red
    assert states(mock_factory, 23) == [False]
    assert all(BLINK_S * 0.5 < gap < BLINK_S * 8 for gap in gaps(mock_factory, 22)[:-1])
    time.sleep(BLINK_S * 3)
    assert len(states(mock_factory, 22)) == len(red), "the blink went on after the card left"


def test_an_unknown_card_blinks_amber_both_leds_together(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"z1": ZoneLight.UNKNOWN}, StatusLight.READY)
    time.sleep(BLINK_S * 5)
    table.apply({"z1": ZoneLight.OFF}, StatusLight.READY)
    red, green = mock_factory.pin(17).states, mock_factory.pin(27).states
    assert len(red) == len(green) >= 4
    assert [s.state for s in red] == [s.state for s in green] == [False] + [True, False] * ((len(red) - 1) // 2)


def test_an_illegal_play_after_a_pending_one_switches_green_off(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"z1": ZoneLight.PENDING_OK}, StatusLight.READY)
    table.apply({"z1": ZoneLight.ILLEGAL}, StatusLight.READY)
    time.sleep(BLINK_S / 2)
    table.apply({"z1": ZoneLight.OFF}, StatusLight.READY)
    assert states(mock_factory, 27) == [False, True, False]
    assert states(mock_factory, 17) == [False, True, False]


def test_an_rgb_led_shows_the_same_lights(table: ZoneLights, mock_factory: MockFactory) -> None:
    table.apply({"rgb": ZoneLight.PENDING_OK}, StatusLight.READY)
    assert (states(mock_factory, 12), states(mock_factory, 16), states(mock_factory, 20)) == (
        [False],
        [False, True],
        [False],
    )
    table.apply({"rgb": ZoneLight.UNKNOWN}, StatusLight.READY)
    time.sleep(BLINK_S * 3)
    table.apply({}, StatusLight.READY)
    red, green = states(mock_factory, 12), states(mock_factory, 16)
    assert red[:3] == [False, True, False] and len(red) >= 3
    assert green[:4] == [False, True, False, True] and green[-1] is False
    assert states(mock_factory, 20) == [False]


def test_the_status_led_is_steady_when_ready_and_blinks_on_trouble(
    table: ZoneLights, mock_factory: MockFactory
) -> None:
    table.apply({}, StatusLight.READY)
    table.apply({}, StatusLight.READY)
    assert states(mock_factory, 26) == [False, True]
    table.apply({}, StatusLight.HUB_LOST)
    time.sleep(BLINK_S * 4)
    table.apply({}, StatusLight.READY)
    status = states(mock_factory, 26)
    assert status[:4] == [False, True, True, False] or status[:4] == [False, True, False, True]
    assert status[-1] is True and len(status) >= 5


def test_a_renuncio_gives_the_status_led_a_look_of_its_own(table: ZoneLights, mock_factory: MockFactory) -> None:
    looks = [look for look in STATUS_LOOKS.values() if look is not None]
    assert STATUS_LOOKS[StatusLight.RENEGE] is not None and len(set(looks)) == len(looks)
    table.apply({}, StatusLight.READY)
    table.apply({}, StatusLight.RENEGE)
    time.sleep(BLINK_S * 4)
    table.apply({}, StatusLight.READY)
    status = states(mock_factory, 26)
    assert status.count(False) >= 2 and status[-1] is True  # it blinked, then steady again


def test_a_zone_missing_from_the_pin_map_is_named(table: ZoneLights) -> None:
    with pytest.raises(KeyError, match="'z9' is not in the pin map"):
        table.apply({"z9": ZoneLight.ILLEGAL}, StatusLight.READY)


def test_the_hub_gets_one_led_command_per_change(mock_factory: MockFactory) -> None:
    sent: list[tuple[str, str, str]] = []
    status = StatusLed(26)
    hub = HubZoneLights(("z1", "z2", "z3"), lambda zone, colour, mode: sent.append((zone, colour, mode)), status)
    hub.apply({"z2": ZoneLight.ILLEGAL}, StatusLight.READY)
    hub.apply({"z2": ZoneLight.ILLEGAL, "z3": ZoneLight.UNKNOWN}, StatusLight.READY)
    hub.apply({"z1": ZoneLight.PENDING_OK}, StatusLight.READY)
    assert sent == [
        ("z2", "red", "blink"),
        ("z3", "amber", "blink"),
        ("z1", "green", "steady"),
        ("z2", "off", "steady"),
        ("z3", "off", "steady"),
    ]
    hub.forget()
    hub.apply({"z1": ZoneLight.PENDING_OK}, StatusLight.HUB_LOST)
    assert sent[-1] == ("z1", "green", "steady") and len(sent) == 6
    with pytest.raises(KeyError, match="'z4'"):
        hub.apply({"z4": ZoneLight.OFF}, StatusLight.READY)
    time.sleep(BLINK_S * 2)
    status.close()
    assert states(mock_factory, 26)[:2] == [False, True] and len(states(mock_factory, 26)) >= 3
