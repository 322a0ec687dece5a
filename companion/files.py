"""Reading the project's own files (config, scenario, deck, registry, transcript) with a bound on their size.

A path that names ``/dev/zero``, a log or a disk image by mistake must not fill the Pi's memory: every such file is
a few kilobytes, so anything larger than :data:`MAX_BYTES` is refused with an OSError that says so (``EFBIG``),
which the callers already turn into their own clear message::

    >>> read_text("/dev/zero")
    Traceback (most recent call last):
    ...
    OSError: [Errno 27] larger than 1 MiB, not a companion file: '/dev/zero'
"""

from __future__ import annotations

import errno
from pathlib import Path

__all__ = ["MAX_BYTES", "read_text"]

MAX_BYTES = 1 << 20  # the largest file the project reads (a registry of a few decks) is tens of kB


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of ``path``; OSError if it cannot be read or is larger than ``limit`` bytes,
    UnicodeDecodeError if it is not UTF-8."""
    with open(path, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit // 1024 // 1024 or 1} MiB, not a companion file", str(path))
    return data.decode("utf-8")
