"""The voice's programs, their bytes passed whole: a program that hangs is ended at its time, one that stops
reading early is no crash, and what it says on its errors is kept for the log."""

from __future__ import annotations

import sys

import pytest

from companion.speech.process import run


def test_the_bytes_go_through_whole() -> None:
    copy = "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read()[::-1])"
    data = bytes(range(256)) * 1000  # more than a pipe holds: the write waits for the reader
    done = run([sys.executable, "-c", copy], data)
    assert (done.returncode, done.stdout, done.killed) == (0, data[::-1], False)


def test_a_program_that_hangs_is_ended_at_its_time() -> None:
    done = run([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert done.killed and done.returncode < 0


def test_a_program_that_stops_reading_early_says_why() -> None:
    quits = "import sys; sys.stdin.buffer.read(10); print('no card', file=sys.stderr); sys.exit(1)"
    done = run([sys.executable, "-c", quits], bytes(1_000_000))
    assert (done.returncode, done.stderr.strip(), done.killed) == (1, b"no card", False)


def test_a_missing_program_is_said_as_such() -> None:
    with pytest.raises(FileNotFoundError):
        run(["/nonexistent/aplay"])
