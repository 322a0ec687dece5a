"""Put the hub into maintenance mode before a deploy: ``python -m companion.hub.deploy [PORT]``.

In normal running the hub's watchdog cannot be stopped and Ctrl-C is off (the link's frames hold 0x03), so
mpremote cannot take the REPL. This asks the hub over its link to restart into maintenance mode (the REPL, no
scanning, no watchdog), waits until it is back on USB and silent, and exits 0: then mpremote can copy files
(``make firmware-deploy`` does all of it). A hub that does not answer the link (in maintenance mode already, or
running something else) is left to mpremote as it is. Stop the companion service first: it holds the port.
"""

from __future__ import annotations

import argparse
import sys
import time

import serial

from companion.hub.backend import UDEV_PORT, find_hub
from companion.hub.protocol import ACK_OK, Ack, FrameDecoder, Hello, Maintenance, Sync, encode_frame

ANSWER_S = 1.5  # for HELLO, then for the ACK
BACK_S = 15.0  # for the Pico to restart and come back on USB
QUIET_S = 1.0  # a hub back in normal mode says something within this (4 heartbeats a second)
# For a hub whose firmware does not get far enough to answer: maintenance mode chosen by hand, at power-up.
JUMPER_HINT = "fit the cap on its maintenance jumper (GP22 to GND as shipped) and replug it: hardware/hub/README.md"


class DeployError(RuntimeError):
    """Why the hub could not be put into maintenance mode, and what to do."""


def _frames(port: serial.Serial, decoder: FrameDecoder, seconds: float) -> list[object]:
    """Messages that arrive within ``seconds`` (stops early at the first ACK)."""
    out: list[object] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        data = port.read(port.in_waiting or 1)
        out += [message for _, message in decoder.feed(data)]
        if any(isinstance(m, Ack) for m in out):
            break
    return out


def _open(path: str) -> serial.Serial:
    try:
        return serial.Serial(path, timeout=0.05, write_timeout=1, exclusive=True)
    except (serial.SerialException, OSError) as exc:
        raise DeployError(
            f"cannot open {path} ({exc}): stop the companion service first (sudo systemctl stop companion)"
        ) from exc


def enter_maintenance(port: str = "auto", *, back_s: float = BACK_S) -> str:
    """Ask the hub on ``port`` to restart into maintenance mode and wait for it; returns what happened."""
    path = find_hub(port)
    if path is None:
        where = UDEV_PORT if port == "auto" else port
        raise DeployError(f"no hub at {where}: plug it in (a hub that does not start: {JUMPER_HINT})")
    with _open(path) as link:
        link.reset_input_buffer()
        decoder = FrameDecoder()
        link.write(b"\x00" + encode_frame(0, Sync(0, 0)))
        if not any(isinstance(m, Hello) for m in _frames(link, decoder, ANSWER_S)):
            return f"{path}: no hub firmware answers (in maintenance mode already?): leaving it to mpremote"
        link.write(encode_frame(1, Maintenance()))
        acks = [m for m in _frames(link, decoder, ANSWER_S) if isinstance(m, Ack) and m.seq == 1]
    if not acks:  # a firmware from before maintenance mode ignores the command
        raise DeployError(
            f"{path}: the hub did not answer the maintenance command: its firmware predates maintenance mode "
            "(it turns Ctrl-C back on 2 s after the host is silent): wait 2 s, run `mpremote rm :main.py`, "
            "replug it, then make firmware-deploy"
        )
    if acks[0].status != ACK_OK:
        raise DeployError(f"{path}: the hub could not write its maintenance flag (status {acks[0].status})")
    time.sleep(0.5)  # the hub restarts 0.1 s after its ACK; its old port goes away
    deadline = time.monotonic() + back_s
    while time.monotonic() < deadline:
        path = find_hub(port)
        if path is not None:
            try:
                with serial.Serial(path, timeout=0.05, exclusive=True) as link:
                    heard = _frames(link, FrameDecoder(), QUIET_S)
            except (serial.SerialException, OSError):
                heard = None  # still coming up
            if heard == []:
                return f"{path}: the hub is in maintenance mode"
            if heard:
                raise DeployError(f"{path}: the hub restarted into normal running, not maintenance mode")
        time.sleep(0.2)
    raise DeployError(f"the hub did not come back on USB within {back_s:.0f} s: unplug it and plug it in again")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.hub.deploy", description=__doc__.splitlines()[0])
    parser.add_argument("port", nargs="?", default="auto", help="the hub's serial port (default: find it)")
    args = parser.parse_args(argv)
    try:
        print(enter_maintenance(args.port))
    except DeployError as exc:
        print(f"hub: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
