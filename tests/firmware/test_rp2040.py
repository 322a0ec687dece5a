"""The hub's firmware on MicroPython's real rp2 port, in an emulated RP2040, reached by the daemon's own back-end.

No stand-in of ours runs here: MicroPython's C code (its USB CDC with its Ctrl-C byte, its littlefs, its
scheduler) boots from the UF2, our .mpy files and main.py from its filesystem, and the host opens the USB serial
port with pyserial as it opens a real Pico. No MFRC522 is attached to SPI0 yet, so every zone's reader is down.
"""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from rp2040_hub import EmulatedHub, board_files

from companion.hub.backend import HubUnavailable, hello
from companion.hub.protocol import FrameDecoder, Heartbeat, Hello, ZoneError

pytestmark = pytest.mark.rp2040

ZONES = [f"z{n}" for n in range(8)]  # firmware/hub_config.py's eight chip selects
BOOT_S = 30.0  # wall time for the emulated Pico to boot and greet (about 3 s on an idle 2-core machine)
# Garbage as a host's line noise or a stray program might write: every byte value, 0x03 (Ctrl-C) and 0x04 (Ctrl-D)
# among them, twice over
GARBAGE = bytes(range(256)) * 2


def without_ctrl_c_off(name: str, source: str) -> str:
    """The firmware as it would be without its fix: Ctrl-C left on, as MicroPython runs main.py."""
    return source.replace("micropython.kbd_intr(-1)", "pass  # Ctrl-C left on")


def frames_until(port: serial.Serial, wanted: type, wait_s: float) -> list[object]:
    """What the hub sends until a frame of type ``wanted``; fails after ``wait_s`` with what came."""
    decoder = FrameDecoder()
    messages: list[object] = []
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        for _, message in decoder.feed(port.read(4096)):
            messages.append(message)
            if isinstance(message, wanted):
                return messages
        time.sleep(0.02)
    raise AssertionError(f"no {wanted.__name__} within {wait_s:g} s; got {messages[-5:]}")


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[EmulatedHub]:
    with EmulatedHub(tmp_path, board_files(tmp_path)) as running:
        yield running


def booted(hub: EmulatedHub) -> None:
    """Wait for the firmware's first heartbeat: MicroPython has booted, run main.py and started the loops."""
    with serial.Serial(hub.path, timeout=0) as port:
        try:
            frames_until(port, Heartbeat, BOOT_S)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nemulator: {hub.diagnostics()}") from None


def test_firmware_comes_up_on_usb(hub: EmulatedHub) -> None:
    with serial.Serial(hub.path, timeout=0) as port:
        messages = frames_until(port, Heartbeat, BOOT_S)
    hellos = [m for m in messages if isinstance(m, Hello)]
    assert hellos and hellos[0].firmware == (1, 0, 0)
    # Nothing on SPI0 answers: each zone's reader is reported down, by the real port's SPI and our driver
    assert len(hellos[0].health) == len(ZONES) and all(hellos[0].health)
    assert {m.zone for m in messages if isinstance(m, ZoneError)} == set(range(len(ZONES)))


def test_daemon_backend_handshake(hub: EmulatedHub) -> None:
    booted(hub)
    info = hello(hub.path, ZONES)
    assert info.firmware == "1.0.0"
    assert info.zones == tuple(ZONES)


def test_garbage_with_ctrl_c_does_not_stop_the_hub(hub: EmulatedHub) -> None:
    booted(hub)
    with serial.Serial(hub.path, timeout=0) as port:
        port.write(GARBAGE)
        port.flush()
        time.sleep(1.0)
    # A new session after the noise: the hub still answers, and still counts its scans
    assert hello(hub.path, ZONES).zones == tuple(ZONES)
    with serial.Serial(hub.path, timeout=0) as port:
        beats = [m for m in frames_until(port, Heartbeat, 5.0) if isinstance(m, Heartbeat)]
    assert beats[-1].scans > 0


def test_negative_control_ctrl_c_left_on(tmp_path: Path) -> None:
    """The check above catches the fault it is there for: with Ctrl-C left on, the real port's USB CDC takes the
    host's 0x03 as an interrupt (shared/tinyusb/mp_usbd_cdc.c) and the hub stops answering."""
    files = board_files(tmp_path, without_ctrl_c_off)
    assert b"kbd_intr(-1)" not in files["main.py"] and b"kbd_intr(-1)" not in files["hub_app.py"]
    with EmulatedHub(tmp_path, files) as hub:
        booted(hub)
        with serial.Serial(hub.path, timeout=0) as port:
            port.write(GARBAGE)
            port.flush()
            time.sleep(1.0)
        with pytest.raises(HubUnavailable):
            hello(hub.path, ZONES)
