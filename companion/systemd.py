"""What the service says to systemd, with no dependency: log priorities journald understands, and sd_notify.

**Priorities.** journald reads a ``<N>`` prefix at the start of each line of a service's stderr as the line's
syslog priority (sd-daemon(3): ``SD_ERR`` is ``"<3>"``), so ``journalctl -p err`` finds errors. systemd tells a
service its stderr is the journal by ``JOURNAL_STREAM=DEV:INODE`` (systemd.exec(5), "Environment variables in
spawned processes"): the prefix is written only when stderr is that very stream, never on a terminal or a pipe::

    >>> JournalFormatter("%(message)s").format(logging.makeLogRecord({"msg": "hub lost", "levelno": 40}))
    '<3>hub lost'

**sd_notify.** With ``Type=notify`` the unit waits for ``READY=1``; with ``WatchdogSec=`` it restarts a service
that stops sending ``WATCHDOG=1`` (sd_notify(3)). Both are datagrams to the unix socket in ``NOTIFY_SOCKET`` (a
path, or an abstract name when it starts with ``@``); ``WATCHDOG_USEC`` gives the deadline, and systemd's own
advice is to send at half of it. The daemon sends from its event loop, so a loop that is stuck is restarted.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

__all__ = ["JournalFormatter", "Notifier", "log_to", "stream_is_journal"]

# syslog priorities (sd-daemon(3), syslog(3)) of Python's levels
PRIORITIES = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6, logging.DEBUG: 7}
FORMAT = "%(levelname)s %(name)s: %(message)s"  # journald adds the time


class JournalFormatter(logging.Formatter):
    """Each line of a record prefixed with its syslog priority: a traceback's lines are errors too."""

    def format(self, record: logging.LogRecord) -> str:
        priority = next((p for level, p in sorted(PRIORITIES.items()) if record.levelno <= level), 2)
        return "\n".join(f"<{priority}>{line}" for line in super().format(record).splitlines())


def stream_is_journal(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``stream`` is the journal stream systemd named in ``JOURNAL_STREAM``."""
    try:
        device, inode = (int(part) for part in environ.get("JOURNAL_STREAM", "").split(":"))
        status = os.fstat(stream.fileno())
    except (ValueError, OSError):
        return False
    return (status.st_dev, status.st_ino) == (device, inode)


def log_to(stream: TextIO = sys.stderr, level: int = logging.INFO) -> None:
    """Send the program's log to ``stream``, with journald's priorities when it is the journal."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter(FORMAT) if stream_is_journal(stream) else logging.Formatter(FORMAT))
    logging.basicConfig(level=level, handlers=[handler])


@dataclass
class Notifier:
    """sd_notify to ``address`` (None: not started by systemd, nothing is sent); ``watchdog_s`` is the interval
    at which ``WATCHDOG=1`` is due (half the unit's ``WatchdogSec``), None without a watchdog."""

    address: str | None = None
    watchdog_s: float | None = None
    _next_watchdog: float = 0.0

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Notifier:
        address = environ.get("NOTIFY_SOCKET") or None
        watchdog_s = None
        pid = environ.get("WATCHDOG_PID")
        if environ.get("WATCHDOG_USEC", "").isdigit() and (pid is None or pid == str(os.getpid())):
            watchdog_s = int(environ["WATCHDOG_USEC"]) / 1e6 / 2
        return cls(address, watchdog_s)

    def send(self, state: str) -> None:
        """Send ``state`` (``"READY=1"``, ``"STOPPING=1"``...); a failure is logged, never fatal."""
        if self.address is None:
            return
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(state.encode(), address)
        except OSError as exc:
            logging.getLogger("companion").warning("cannot tell systemd %s (%s at %s)", state, exc, self.address)

    def tick(self, now: float) -> None:
        """``WATCHDOG=1`` when one is due at ``now`` (the loop calls this often)."""
        if self.watchdog_s is not None and now >= self._next_watchdog:
            self._next_watchdog = now + self.watchdog_s
            self.send("WATCHDOG=1")
