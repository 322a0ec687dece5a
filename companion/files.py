"""Reading the project's own files (config, scenario, deck, registry, transcript) with a bound on their size.

A path that names ``/dev/zero``, a named pipe, a log or a disk image by mistake must neither fill the Pi's memory
nor wait for ever: every such file is a few kilobytes of a regular file, so anything else is refused with an
OSError that says what it is, and anything larger than :data:`MAX_BYTES` with one that says so (``EFBIG``), which
the callers already turn into their own clear message::

    >>> read_text("/dev/zero")
    Traceback (most recent call last):
    ...
    OSError: [Errno 22] a device, not a companion file: '/dev/zero'
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["MAX_BYTES", "read_bytes", "read_text"]

MAX_BYTES = 1 << 20  # the largest file the project reads (a registry of a few decks) is tens of kB


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``; OSError if it cannot be read, is no regular file or is larger
    than ``limit`` bytes, UnicodeDecodeError if it is not UTF-8."""
    data = read_bytes(path, limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit // 1024 // 1024 or 1} MiB, not a companion file", str(path))
    return data.decode("utf-8")


def read_bytes(path: str | Path, most: int) -> bytes:
    """At most ``most`` bytes from the start of the regular file ``path``; OSError if it cannot be read or is no
    regular file (a folder, a named pipe, a socket, a device)."""
    # O_NONBLOCK: opening a named pipe waits for a writer, which may never come; the file's type is known first.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{_kind(mode)}, not a companion file", str(path))
    with open(fd, "rb") as file:
        return file.read(most)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"
