"""The zone LEDs and the status LED, from the view's :class:`ZoneLight` and :class:`StatusLight` values.

On the Pi-alone build each zone has a red/green LED pair (or an RGB LED) on GPIOs driven through gpiozero;
on the hub build the hub drives them and the Pi sends it one LED command per change. Both take the same
``apply(zone_lights, status)`` call, and switch only the zones whose light changed, so a steady LED is never
flickered by a redraw and a blinking one keeps its rhythm.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from gpiozero import LED, RGBLED, LEDBoard

from companion.hardware import ZonePins
from companion.view import StatusLight, TableView, ZoneLight

__all__ = ["BLINK", "LOOK", "HubZoneLights", "StatusLed", "ZoneLights"]

Colour = Literal["off", "green", "red", "amber"]
Mode = Literal["steady", "blink"]

# What each zone light looks like: colour and mode (the hub protocol's words too).
LOOK: dict[ZoneLight, tuple[Colour, Mode]] = {
    ZoneLight.OFF: ("off", "steady"),
    ZoneLight.PENDING_OK: ("green", "steady"),
    ZoneLight.ILLEGAL: ("red", "blink"),
    ZoneLight.UNKNOWN: ("amber", "blink"),
}
# Seconds on and off of a blink: an illegal play flashes fast to be seen at once, an unknown card slower.
BLINK: dict[ZoneLight, tuple[float, float]] = {ZoneLight.ILLEGAL: (0.25, 0.25), ZoneLight.UNKNOWN: (0.5, 0.5)}
# The status LED: steady when ready, a slow blink while the hub is lost, a fast one on an error, and long
# flashes with short gaps while a renuncio is on the screen.
STATUS_BLINK: dict[StatusLight, tuple[float, float] | None] = {
    StatusLight.READY: None,
    StatusLight.RENEGE: (0.6, 0.2),
    StatusLight.HUB_LOST: (1.0, 1.0),
    StatusLight.ERROR: (0.15, 0.15),
}
# Which of the red, green (and blue) LEDs make each colour. Amber on a red/green pair is both lit.
_RGB: dict[Colour, tuple[int, int, int]] = {
    "off": (0, 0, 0),
    "green": (0, 1, 0),
    "red": (1, 0, 0),
    "amber": (1, 1, 0),
}


class StatusLed:
    """The table's one status LED on a GPIO."""

    def __init__(self, pin: int, *, pin_factory: Any = None) -> None:
        self.led = LED(pin, pin_factory=pin_factory)
        self._status: StatusLight | None = None

    def show(self, status: StatusLight) -> None:
        if status == self._status:
            return
        self._status = status
        blink = STATUS_BLINK[status]
        if blink is None:
            self.led.on()
        else:
            self.led.blink(*blink)

    def close(self) -> None:
        self.led.close()


class _ZoneLed:
    """One zone's LED on GPIOs: a red/green pair as a gpiozero LEDBoard, or an RGBLED."""

    def __init__(self, pins: ZonePins, pin_factory: Any) -> None:
        self.device: Any
        if pins.blue is None:
            self.device = LEDBoard(red=pins.red, green=pins.green, pwm=False, pin_factory=pin_factory)
        else:
            self.device = RGBLED(pins.red, pins.green, pins.blue, pwm=False, pin_factory=pin_factory)

    def show(self, light: ZoneLight) -> None:
        colour, mode = LOOK[light]
        rgb = _RGB[colour]
        if isinstance(self.device, RGBLED):
            if mode == "blink":
                self.device.blink(*BLINK[light], on_color=rgb, off_color=(0, 0, 0))
            else:
                self.device.color = rgb
            return
        # A board blinks all its LEDs in one thread; blinking one colour of the pair is that LED's own blink.
        self.device.off()
        lit = [led for led, on in zip((self.device.red, self.device.green), rgb, strict=False) if on]
        if mode == "steady":
            for led in lit:
                led.on()
        elif len(lit) == 2:
            self.device.blink(*BLINK[light])
        else:
            lit[0].blink(*BLINK[light])

    def close(self) -> None:
        self.device.close()


class ZoneLights:
    """The zone LEDs of the Pi-alone build, on the GPIOs of the pin map, and the status LED."""

    def __init__(self, zones: Mapping[str, ZonePins], status: StatusLed, *, pin_factory: Any = None) -> None:
        self.status = status
        self._leds = {name: _ZoneLed(pins, pin_factory) for name, pins in zones.items()}
        self._shown: dict[str, ZoneLight] = {}

    def apply(self, zone_lights: Mapping[str, ZoneLight], status: StatusLight) -> None:
        """Show ``zone_lights`` (a zone left out is off) and ``status``; only changed LEDs are touched."""
        for name, light in _changes(zone_lights, self._shown, self._leds):
            self._leds[name].show(light)
        self.status.show(status)

    def show(self, view: TableView, now: float) -> None:
        """The lights of ``view``: the daemon's outputs all have this one call."""
        self.apply(view.zone_lights, view.status)

    def close(self) -> None:
        for led in self._leds.values():
            led.close()
        self.status.close()


class HubZoneLights:
    """The zone LEDs of the hub build: each change becomes ``send(zone, colour, mode)`` for the hub.

    ``colour`` is "off", "green", "red" or "amber"; ``mode`` is "steady" or "blink". The status LED stays on
    the Pi.
    """

    def __init__(self, zones: tuple[str, ...], send: Callable[[str, Colour, Mode], None], status: StatusLed) -> None:
        self.send, self.status = send, status
        self._zones = {name: None for name in zones}
        self._shown: dict[str, ZoneLight] = {}

    def apply(self, zone_lights: Mapping[str, ZoneLight], status: StatusLight) -> None:
        for name, light in _changes(zone_lights, self._shown, self._zones):
            self.send(name, *LOOK[light])
        self.status.show(status)

    def show(self, view: TableView, now: float) -> None:
        """The lights of ``view``: the daemon's outputs all have this one call."""
        self.apply(view.zone_lights, view.status)

    def forget(self) -> None:
        """The hub restarted with its LEDs off: send every zone's light again at the next apply."""
        self._shown.clear()


def _changes(
    wanted: Mapping[str, ZoneLight], shown: dict[str, ZoneLight], zones: Mapping[str, object]
) -> list[tuple[str, ZoneLight]]:
    """The zones whose light differs from the one shown (zones never shown count as off), and record them."""
    unknown = sorted(set(wanted) - set(zones))
    if unknown:
        raise KeyError(f"zone {unknown[0]!r} is not in the pin map (zones: {', '.join(zones)}); check the config")
    changes = []
    for name in zones:
        light = wanted.get(name, ZoneLight.OFF)
        if shown.get(name, ZoneLight.OFF) != light:
            changes.append((name, light))
        shown[name] = light
    return changes
