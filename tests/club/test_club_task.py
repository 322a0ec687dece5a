"""A task of ``companion club`` that dies (a fault of ours in the league's reader or the board) stops the process with
its traceback in the log, so that systemd starts it again (``Restart=always``), and the watchdog is no longer fed;
before, the dead task was never looked at and the club went on, deaf, with a healthy watchdog."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from brokers import Broker

from companion.cli import main
from companion.club.service import Club


class Fault(Exception):
    """A fault of ours in the club's code."""


def listen(notify: socket.socket, said: list[str], done: threading.Event) -> None:
    """What the club tells systemd, as systemd reads it (at once: a full socket would hold the club's sendto), until
    ``done`` and the socket is empty."""
    notify.settimeout(0.2)
    while True:
        try:
            said.append(notify.recv(100).decode())
        except TimeoutError:
            if done.is_set():
                return


def test_a_reader_that_dies_stops_the_club_and_its_watchdog(
    tmp_path: Path, broker: Broker, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    said: list[str] = []
    done = threading.Event()
    listening = threading.Thread(target=listen, args=(notify, said, done))
    listening.start()
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "100000")  # WATCHDOG=1 every 50 ms
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    began: list[float] = []

    async def dies(self: Club, client: Any) -> None:
        began.append(time.monotonic())
        while time.monotonic() - began[0] < 0.5:  # the club runs a while first, its watchdog fed
            await asyncio.sleep(0.05)
        raise Fault("a bug")

    monkeypatch.setattr(Club, "_take", dies)
    argv = ["club", "--mqtt", broker.url, "--web", "127.0.0.1:0", "--db", str(tmp_path / "club.db")]
    deadline = threading.Timer(15.0, os.kill, (os.getpid(), signal.SIGTERM))  # a club that would read on, deaf
    deadline.start()
    try:
        with caplog.at_level(logging.CRITICAL):
            code = main(argv)
        ended = time.monotonic()
    finally:
        deadline.cancel()
        done.set()
        listening.join()
        notify.close()
    assert code == 1
    assert said[0] == "READY=1" and said.count("WATCHDOG=1") >= 3
    assert "STOPPING=1" not in said, "a club that failed has not stopped as asked"
    assert ended - began[0] < 2.0, "it stopped once its reader died"
    (record,) = [r for r in caplog.records if r.levelno == logging.CRITICAL]
    assert "the league's reader stopped" in record.getMessage() and record.exc_info is not None
    assert record.exc_info[0] is Fault
