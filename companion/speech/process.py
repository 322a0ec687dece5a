"""A program run by the voice's thread, its bytes passed whole: one write of the input, one read of the output.

:func:`subprocess.run` with ``input`` and ``capture_output`` moves the bytes through a Python loop of
``select`` and 512-byte writes (``Popen._communicate``): some four hundred turns for one sentence's WAV, each
taking the GIL back from the table's loop. Here each pipe is passed in one call, which drops the GIL for as long as
the kernel takes the bytes (the pace of the sound card, for ``aplay``): the table's thread runs meanwhile.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Done", "run"]


@dataclass(frozen=True, slots=True)
class Done:
    returncode: int
    stdout: bytes
    stderr: bytes
    killed: bool  # it took over its time, and was ended


def run(command: Sequence[str], input: bytes | None = None, timeout: float = 60.0) -> Done:
    """Run ``command`` with ``input`` on its standard input (none: nothing), its output and errors kept; ended after
    ``timeout`` seconds. FileNotFoundError when the program is not installed."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        assert process.stdout is not None and process.stderr is not None
        if input is not None:
            assert process.stdin is not None
            try:
                process.stdin.write(input)
                process.stdin.close()
            except BrokenPipeError:  # it ended before reading it all: its status and errors say why
                pass
        stdout = process.stdout.read()  # a program that says little on stderr: read after the output, no deadlock
        stderr = process.stderr.read()
        returncode = process.wait()
    finally:
        killed = not timer.is_alive() and timer.finished.is_set()
        timer.cancel()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    return Done(returncode, stdout, stderr, killed and returncode < 0)
