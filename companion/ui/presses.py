"""The table's buttons pressed from another process, on gpiozero's mock pins: a named pipe, one press a line.

A PC has no buttons, and gpiozero's mock pins live inside the process that made them, so nothing outside the
service could press one. With mock pins (simulated readers off a Pi, or ``GPIOZERO_PIN_FACTORY=mock``) and
``COMPANION_PRESSES=PATH`` in its environment, the service makes PATH a named pipe and reads it: each line names a
button (``confirm``, ``pass``, ``undo``; ``confirm long`` holds it past the long press) and drives that button's
mock pin low, holds it and lets it go. The press then goes through gpiozero's edge callbacks, the debounce and
the long-press timing as a finger's would: nothing is handed to the referee directly. From a shell::

    echo confirm > companion-sim/presses

Presses are made one after the other, in the order written; a line that names no button is logged and skipped.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.events import Button
from companion.ui.buttons import LONG_S

__all__ = ["ENV", "HOLD_S", "PressPipe", "parse_press"]

ENV = "COMPANION_PRESSES"
HOLD_S = 0.1  # a short press: well past the 30 ms debounce, far below the long press

log = logging.getLogger("companion")


def parse_press(line: str) -> tuple[Button, float]:
    """The button a line names and how long to hold it; :class:`ValueError` says how to write one.

    >>> parse_press("confirm long")
    (<Button.CONFIRM: 'confirm'>, 1.6)
    """
    words = line.split()
    if len(words) in (1, 2) and words[1:] in ([], ["long"]) and words[0] in set(Button):
        return Button(words[0]), (LONG_S + HOLD_S if words[1:] else HOLD_S)
    raise ValueError(f"{line.strip()!r}: write a button ({', '.join(Button)}), and long after it to hold it")


class PressPipe:
    """Reads presses from the named pipe ``path`` in a thread and makes them on ``factory``'s mock pins of
    ``buttons`` (name -> GPIO, the pin map's)."""

    def __init__(self, path: Path, buttons: Mapping[Button, int], factory: Any) -> None:
        from gpiozero.pins.mock import MockFactory

        if not isinstance(factory, MockFactory):
            raise ValueError(f"{ENV}: presses from a pipe need gpiozero's mock pins, not real ones")
        if path.exists() and not stat.S_ISFIFO(path.stat().st_mode):
            raise ValueError(f"{ENV}: {path} is there and is not a named pipe; remove it or name another path")
        if not path.exists():
            os.mkfifo(path, 0o600)
        self.path = path
        self.pins = {name: factory.pin(gpio) for name, gpio in buttons.items()}
        # Open for reading and writing: the open does not wait for a writer, and a writer that closes is no EOF.
        self._fd = os.open(path, os.O_RDWR)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="presses", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        pending = b""
        while not self._stop.is_set():
            data = os.read(self._fd, 4096)
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if self._stop.is_set():
                    return
                if line.strip():
                    self._press(line.decode("utf-8", "replace"))

    def _press(self, line: str) -> None:
        try:
            button, hold_s = parse_press(line)
        except ValueError as exc:
            log.warning("presses: %s", exc)
            return
        pin = self.pins[button]
        pin.drive_low()  # active low: the button joins its GPIO to ground
        time.sleep(hold_s)
        pin.drive_high()

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            os.write(self._fd, b"\n")  # wakes the reading thread
        self._thread.join(5)
        os.close(self._fd)

    def __enter__(self) -> PressPipe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
