"""A broker of the club's own on this machine (``companion club --broker``): Debian's mosquitto, to try a club on
one computer without setting up the system's broker.

It listens on the loopback address only, lets anyone in (nobody else can reach it), keeps its persistence and
log in ``folder``, and keeps enough queued messages for the club (the sample config's ``max_queued_messages``:
mosquitto's default of 1,000 drops what the club has not taken yet). A club of several computers runs the
system's mosquitto with ``systemd/mosquitto-companion.conf`` instead (docs/CLUB.md).

On a stock Debian, ``apt install mosquitto`` already runs the system's broker on 1883, the README's port: before it
starts one, ``companion club --broker`` asks the port (:func:`listening`), uses a broker that answers there, and
names the port taken by a program that is no broker.
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

from companion.i18n import N_, Said

__all__ = ["BrokerError", "LocalBroker", "listening"]

START_S = 10.0  # how long mosquitto may take to listen
QUEUED = 100_000  # as the sample config: a night of 100 tables for a club that is away
OWN = f"allow_anonymous true\nmax_queued_messages {QUEUED}\n"  # who may connect, and what waits for them


class BrokerError(RuntimeError):
    """The broker cannot start: ``said`` says why and what to do, in any language (``str()``: English)."""

    def __init__(self, said: Said) -> None:
        super().__init__(str(said))
        self.said = said


# MQTT 3.1.1's CONNECT (OASIS MQTT 3.1.1, section 3.1): protocol "MQTT" level 4, a clean session, a 10 s keep-alive
# and a client id of its own; a broker answers with CONNACK (section 3.2, first byte 0x20), whatever its verdict.
_PROBE_ID = b"companion-club-probe"
_CONNECT = bytes((0x10, 12 + len(_PROBE_ID))) + b"\x00\x04MQTT\x04\x02\x00\x0a" + bytes((0, len(_PROBE_ID))) + _PROBE_ID
_CONNACK, _DISCONNECT = 0x20, b"\xe0\x00"


def listening(port: int, timeout: float = 2.0) -> str | None:
    """What answers on the loopback address's ``port``: ``"mqtt"`` (a broker: it answered CONNECT with CONNACK),
    ``"other"`` (a program that is no broker) or None (nothing listens).

    >>> import socket
    >>> with socket.socket() as free:
    ...     free.bind(("127.0.0.1", 0))
    ...     listening(free.getsockname()[1])  # bound, not listening: nothing answers
    """
    try:
        connection = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return None
    with connection:
        try:
            connection.sendall(_CONNECT)
            answer = connection.recv(4)
            if answer[:1] == bytes((_CONNACK,)):
                connection.sendall(_DISCONNECT)
                return "mqtt"
        except OSError:
            pass
    return "other"


class LocalBroker:
    """mosquitto on the loopback address, its config, persistence (saved after every change) and log in ``folder``;
    ``settings`` are the config's lines on who may connect and what is kept for them (the tests give others)."""

    def __init__(self, port: int, folder: Path, settings: str = OWN) -> None:
        self.port, self.folder, self.settings = port, folder, settings
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        program = shutil.which("mosquitto", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
        if program is None:
            raise BrokerError(
                Said(N_("mosquitto is not installed: sudo apt install mosquitto (or give --mqtt a broker's url)"))
            )
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
                last = said.strip().splitlines()[-1:]
                raise BrokerError(
                    Said(
                        N_("mosquitto stopped at once on port {port} ({said}): give --mqtt another port"),
                        port=self.port,
                        said=last[0] if last else Said(N_("no log")),
                    )
                )
            if self._answers() and self.process.poll() is None:
                time.sleep(0.1)  # another broker on the port answers too, and ours stops soon after it tried
                if self.process.poll() is None:
                    return
                continue
            if time.monotonic() > end:
                self.stop()
                said = N_("mosquitto does not listen on port {port} after {seconds} s: see {log}")
                raise BrokerError(Said(said, port=self.port, seconds=f"{START_S:g}", log=log))
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
