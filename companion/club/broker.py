"""A broker of the club's own on this machine (``companion club --broker``): Debian's mosquitto, to try a club on
one computer without setting up the system's broker.

It listens on the loopback address only, lets anyone in (nobody else can reach it), keeps its persistence and
log in ``folder``, and keeps enough queued messages for the club (the sample config's ``max_queued_messages``:
mosquitto's default of 1,000 drops what the club has not taken yet). A club of several computers runs the
system's mosquitto with ``systemd/mosquitto-companion.conf`` instead (docs/CLUB.md).
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["BrokerError", "LocalBroker"]

START_S = 10.0  # how long mosquitto may take to listen
QUEUED = 100_000  # as the sample config: a night of 100 tables for a club that is away
OWN = f"allow_anonymous true\nmax_queued_messages {QUEUED}\n"  # who may connect, and what waits for them


class BrokerError(RuntimeError):
    """The broker cannot start; the message says why and what to do."""


class LocalBroker:
    """mosquitto on the loopback address, its config, persistence (saved after every change) and log in ``folder``;
    ``settings`` are the config's lines on who may connect and what is kept for them (the tests give others)."""

    def __init__(self, port: int, folder: Path, settings: str = OWN) -> None:
        self.port, self.folder, self.settings = port, folder, settings
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        program = shutil.which("mosquitto", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
        if program is None:
            raise BrokerError("mosquitto is not installed: sudo apt install mosquitto (or give --mqtt a broker's url)")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "mosquitto.log"
        config = self.folder / "mosquitto.conf"
        config.write_text(
            f"listener {self.port} 127.0.0.1\n{self.settings}"
            f"persistence true\npersistence_location {self.folder}/\nautosave_on_changes true\nautosave_interval 1\n"
            f"log_dest file {log}\n"
            # as root, mosquitto would become the user mosquitto, who may not write the folder; as another user
            # this line is ignored
            f"user {getpass.getuser()}\n"
        )
        self.process = subprocess.Popen(
            [program, "-c", str(config)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        end = time.monotonic() + START_S
        while True:
            if self.process.poll() is not None:
                said = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                said += self.log()
                self.process = None
                raise BrokerError(
                    f"mosquitto stopped at once on port {self.port} ({said.strip().splitlines()[-1:] or 'no log'}): "
                    "is another broker on that port? Then leave out --broker, or give --mqtt another port"
                )
            if self._answers() and self.process.poll() is None:
                time.sleep(0.1)  # another broker on the port answers too, and ours stops soon after it tried
                if self.process.poll() is None:
                    return
                continue
            if time.monotonic() > end:
                self.stop()
                raise BrokerError(f"mosquitto does not listen on port {self.port} after {START_S:g} s: see {log}")
            time.sleep(0.02)

    def _answers(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
            return True
        return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def log(self) -> str:
        """What mosquitto has logged so far ("" before it has)."""
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""
