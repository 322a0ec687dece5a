"""The three buttons' driver: from the edges of CONFIRM, PASS and UNDO to presses, short or long.

:class:`PressClassifier` is pure: raw edges come in with their time, presses come out. It debounces (a contact
that bounces within ``bounce_s`` of a change is ignored, and the level it settles on is taken when the bounce
window ends) and tells a short press, reported on release, from a long one, reported the moment the button
has been held ``long_s`` seconds::

    >>> presses = PressClassifier()
    >>> undo = Button.UNDO
    >>> presses.edge(undo, True, 10.0), presses.edge(undo, False, 10.002), presses.edge(undo, True, 10.004)
    ([], [], [])
    >>> presses.tick(11.6)
    [Press(button=<Button.UNDO: 'undo'>, kind='long', t=11.6)]

:class:`Buttons` wires it to gpiozero Buttons (active low, internal pull-ups). gpiozero calls back from its
own threads, so each edge is stamped there and handed to ``call_soon`` (the daemon passes
``loop.call_soon_threadsafe``); classification then runs on the daemon's side. The presses themselves are
input events (:mod:`companion.events`), so the referee takes them without loading gpiozero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import gpiozero

from companion.events import Button, Press

__all__ = ["Buttons", "PressClassifier"]

LONG_S = 1.5
# Tactile switches settle within a few ms; 30 ms is far below the fastest deliberate double press (~100 ms).
BOUNCE_S = 0.03


@dataclass
class _State:
    stable: bool = False  # the debounced level: pressed or not
    raw: bool = False  # the last level the pin reported
    settled_at: float = float("-inf")  # edges before this time are contact bounce
    pressed_at: float = 0.0
    long_sent: bool = False


class PressClassifier:
    """Debounces raw edges and turns them into short and long presses; time is always an argument."""

    def __init__(
        self, buttons: Iterable[Button] = tuple(Button), *, long_s: float = LONG_S, bounce_s: float = BOUNCE_S
    ) -> None:
        self.long_s, self.bounce_s = long_s, bounce_s
        self._states = {name: _State() for name in buttons}

    def edge(self, button: Button, pressed: bool, t: float) -> list[Press]:
        """The pin of ``button`` went down (``pressed``) or up at ``t``; return the presses this completes."""
        state = self._state(button)
        state.raw = pressed
        if t < state.settled_at or pressed == state.stable:
            return []  # a bounce: the level is looked at again when the window ends (tick)
        return self._change(button, state, t)

    def tick(self, t: float) -> list[Press]:
        """Call often (every 50 ms or so): reports long presses as they happen and ends bounce windows."""
        presses: list[Press] = []
        for button, state in self._states.items():
            if t >= state.settled_at and state.raw != state.stable:
                presses += self._change(button, state, t)
            if state.stable and not state.long_sent and t - state.pressed_at >= self.long_s:
                state.long_sent = True
                presses.append(Press(button, "long", t))
        return presses

    def _state(self, button: Button) -> _State:
        try:
            return self._states[button]
        except KeyError:
            raise KeyError(f"no button {button!r}; the buttons are {', '.join(self._states)}") from None

    def _change(self, button: Button, state: _State, t: float) -> list[Press]:
        state.stable = state.raw
        state.settled_at = t + self.bounce_s
        if state.stable:
            state.pressed_at, state.long_sent = t, False
            return []
        if state.long_sent:
            return []
        return [Press(button, "short", t)]


class Buttons:
    """CONFIRM, PASS and UNDO as gpiozero Buttons on the pin map's GPIOs (button to ground, pull-up on).

    Presses reach ``on_press`` on the side of ``call_soon``; the daemon calls :meth:`tick` every ~50 ms so a
    long press is reported while the button is still held.
    """

    def __init__(
        self,
        pins: Mapping[Button, int],
        on_press: Callable[[Press], None],
        call_soon: Callable[[Callable[[], None]], Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        pin_factory: Any = None,
    ) -> None:
        self.classifier = PressClassifier(tuple(pins))
        self.on_press, self.call_soon, self.clock = on_press, call_soon, clock
        # gpiozero's own bounce_time is left off: the classifier debounces, identically on every pin factory.
        self.devices = {name: gpiozero.Button(pin, pull_up=True, pin_factory=pin_factory) for name, pin in pins.items()}
        for name, device in self.devices.items():
            device.when_pressed = self._handler(name, True)
            device.when_released = self._handler(name, False)

    def _handler(self, name: Button, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:  # runs in a gpiozero thread: stamp now, classify on the daemon's side
            t = self.clock()
            self.call_soon(lambda: self._emit(self.classifier.edge(name, pressed, t)))

        return on_edge

    def tick(self, t: float) -> None:
        self._emit(self.classifier.tick(t))

    def _emit(self, presses: list[Press]) -> None:
        for press in presses:
            self.on_press(press)

    def close(self) -> None:
        for device in self.devices.values():
            device.close()
