"""A program that serves a page, run as a person runs it: started on a free port, its page's JSON asked while it
runs, stopped with Ctrl-C. What the tests of ``companion demo --web`` (tests/web/test_web_demo.py) and the README's
journeys (tests/journey/) share; on sys.path through pyproject.toml's pytest ``pythonpath``."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# The README's commands off the Pi run the checkout's own program: `make demo` and `make test` put it in .venv/bin,
# which is not on a person's PATH.
README_COMPANION = ".venv/bin/companion"


def as_typed(words: list[str]) -> list[str]:
    """A README command's words as a process runs them from any folder: its ``.venv/bin/companion`` is the
    environment's running the tests (that checkout's .venv). A bare ``companion`` fails here, as in a person's
    shell after ``make demo``."""
    assert words[0] == README_COMPANION, f"{' '.join(words)}: after make demo the program is {README_COMPANION}"
    return [str(Path(sys.executable).parent / "companion"), *words[1:]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def post(url: str, body: object) -> Any:
    """POST ``body`` as JSON, as the page's script does; the answer's JSON."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


@contextmanager
def started(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    """``argv`` running, its stdout and stderr in one pipe; killed on the way out if the test left it running."""
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def answers(process: subprocess.Popen[str], url: str, awaited: str, timeout: float = 120) -> Iterator[Any]:
    """``url``'s JSON, asked every 50 ms while ``process`` runs, from when it listens, until the caller stops
    asking; it fails saying what was ``awaited`` once ``timeout`` seconds pass, and with the output if the process
    ends."""
    end = time.monotonic() + timeout
    while True:
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < end, awaited
        try:
            answer = get(url)
        except (urllib.error.URLError, ConnectionError):
            answer = None  # not listening yet
        if answer is not None:
            yield answer
        time.sleep(0.05)


def interrupted(process: subprocess.Popen[str]) -> str:
    """Ctrl-C: SIGINT, then what the process printed once it has ended."""
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=20)[0]
