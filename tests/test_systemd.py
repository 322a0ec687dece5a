"""What the service tells systemd: journald priorities on its stderr when that is the journal (so `journalctl -p
err` finds errors), and sd_notify READY=1, WATCHDOG=1 from the event loop, STOPPING=1 (Type=notify,
WatchdogSec=). systemd's side is played by the test: a unix datagram socket in NOTIFY_SOCKET, and a pipe named in
JOURNAL_STREAM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Service = Callable[..., subprocess.Popen[str]]

ROOT = Path(__file__).resolve().parents[1]
COMPANION = Path(sys.executable).parent / "companion"
UNIT = ROOT / "systemd/companion.service"


def test_log_lines_carry_journald_priorities_when_stderr_is_the_journal(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[readers]\nbackend = "usb"\n')  # refused at start: an error line
    for journal in (True, False):
        read, write = os.pipe()
        status = os.fstat(write)
        env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
        if journal:
            env["JOURNAL_STREAM"] = f"{status.st_dev}:{status.st_ino}"
        done = subprocess.run([COMPANION, "run", "--config", config], stderr=write, env=env, timeout=60, check=False)
        os.close(write)
        with os.fdopen(read) as stream:
            said = stream.read().splitlines()
        assert done.returncode == 2
        error = f"ERROR companion: cannot start: {config}: readers.backend: 'usb' is not one of spi, hub, mfrc522, sim"
        assert said == [f"<3>{error}" if journal else error]


def test_the_service_notifies_systemd_from_its_event_loop(tmp_path: Path, service: Service) -> None:
    folder = tempfile.mkdtemp(prefix="notify-", dir="/tmp")  # a unix socket's path is at most 107 bytes
    address = os.path.join(folder, "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        sock.settimeout(10)
        env = {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "200000"}  # WATCHDOG=1 every 0.1 s
        process = service(
            ROOT / "systemd/sim.toml", cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            heard = [sock.recv(256).decode()]
            assert heard == ["READY=1"], "READY=1 once the table is up, before any watchdog ping"
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                heard.append(sock.recv(256).decode())
            pings = heard.count("WATCHDOG=1")
            assert 5 <= pings <= 15, heard  # every 0.1 s for about a second
        finally:
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=15)
        assert process.returncode == 0, err
        while True:
            message = sock.recv(256).decode()
            if message != "WATCHDOG=1":
                break
        assert message == "STOPPING=1"
    os.unlink(address)
    os.rmdir(folder)


def test_the_unit_waits_for_ready_and_watches_the_loop() -> None:
    text = UNIT.read_text()
    assert "Type=notify" in text and "WatchdogSec=" in text
    assert "NotifyAccess=main" in text  # only the daemon itself, never a child, may speak for it
