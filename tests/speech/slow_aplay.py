"""A sound card that is busy: stands in for ``aplay -q -D DEVICE -`` at the ALSA boundary.

aplay reads the WAV on its standard input only as fast as the card plays it (aplay(1); alsa-utils
``aplay/aplay.c``, ``playback_go``: one period per ``pcm_write``, which blocks until the card has room), so whoever
writes to it waits once the pipe's buffer is full (64 KiB on Linux, pipe(7)): a sentence of espeak-ng's is 50 to
300 KiB. Here the card plays nothing until the test opens the gate (a file appears), which makes "the voice is
busy" exact rather than timed: it reads a first period, notes the play began, waits for the gate, then reads the
rest and notes a digest of the whole WAV.

Usage: python slow_aplay.py LOG GATE
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

PERIOD = 4096


def main(log: Path, gate: Path) -> int:
    first = sys.stdin.buffer.read(PERIOD)
    with log.open("a", encoding="utf-8") as out:
        out.write("started\n")
    deadline = time.monotonic() + 30  # a test that forgot the gate fails rather than hangs
    while not gate.exists():
        if time.monotonic() > deadline:
            print("aplay: the gate never opened", file=sys.stderr)
            return 1
        time.sleep(0.01)
    wav = first + sys.stdin.buffer.read()
    with log.open("a", encoding="utf-8") as out:
        out.write(hashlib.sha1(wav).hexdigest() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
