"""Buttons pressed from another process through a named pipe: each line drives a mock pin low and lets it go, so
the press comes out of gpiozero's Buttons and the debounce as a finger's would."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.events import Button, Press
from companion.hardware import load_pinmap
from companion.ui.buttons import LONG_S, Buttons
from companion.ui.presses import HOLD_S, PressPipe, parse_press

PINS = load_pinmap().buttons


def test_a_line_names_a_button_and_long_holds_it_past_the_long_press() -> None:
    assert parse_press("pass") == (Button.PASS, HOLD_S)
    assert parse_press("  undo long \n") == (Button.UNDO, LONG_S + HOLD_S)
    for line in ("", "ok", "confirm twice", "long confirm"):
        with pytest.raises(ValueError, match=r"write a button \(confirm, pass, undo\), and long after it"):
            parse_press(line)


def test_presses_written_to_the_pipe_come_out_of_the_buttons_in_order(
    mock_factory: MockFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    presses: list[Press] = []
    buttons = Buttons(PINS, presses.append, lambda call: call(), pin_factory=mock_factory)
    pipe = PressPipe(tmp_path / "presses", PINS, mock_factory)
    try:
        with (tmp_path / "presses").open("w") as writer:  # another process would do just this
            writer.write("pass\nnothing\nconfirm\nundo long\n")
        end = time.monotonic() + 10
        while len(presses) < 3 and time.monotonic() < end:
            buttons.tick(time.monotonic())  # the daemon's ticker: long presses are seen while held
            time.sleep(0.01)
    finally:
        pipe.close()
        buttons.close()
    assert [(press.button, press.kind) for press in presses] == [
        ("pass", "short"),
        ("confirm", "short"),
        ("undo", "long"),
    ]
    assert "presses: 'nothing': write a button (confirm, pass, undo)" in caplog.text
    assert caplog.records[0].levelno == logging.WARNING


def test_the_pipe_needs_mock_pins_and_will_not_take_a_file_for_a_pipe(
    mock_factory: MockFactory, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="COMPANION_PRESSES: presses from a pipe need gpiozero's mock pins"):
        PressPipe(tmp_path / "presses", PINS, object())
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"notes.txt is there and is not a named pipe"):
        PressPipe(tmp_path / "notes.txt", PINS, mock_factory)
    assert (tmp_path / "notes.txt").read_text() == "keep me"
