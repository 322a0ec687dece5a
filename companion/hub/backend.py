"""The hub back-end: a ``HubSession`` on a real serial port (pyserial), read by the asyncio loop on its descriptor.

The daemon builds one with its zone names and an ``emit`` callback, runs ``run()`` as a task, and calls
``set_led()`` from the loop::

    hub = HubBackend(["z1", "z2", ...], emit=queue.put_nowait, port="auto")
    task = asyncio.create_task(hub.run())
    hub.set_led("z3", "red", "blink")

``emit`` receives ``ZoneScan``, ``HubOnline`` and ``HubOffline`` events, in the order the hub sent them.
:func:`hello` connects the same way once, for ``companion doctor``, and gives the hub's HELLO.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import time
from collections.abc import Callable, Sequence

import serial
from serial.tools import list_ports

from companion.hub.session import Backoff, HubEvent, HubInfo, HubOffline, HubOnline, HubSession, LinkState
from companion.i18n import N_, Said

log = logging.getLogger(__name__)

# MicroPython on a Raspberry Pi Pico or Pico 2 (systemd/99-companion-hub.rules names it /dev/companion-hub).
USB_VID = 0x2E8A
USB_PID = 0x0005
UDEV_PORT = "/dev/companion-hub"
TICK_S = 0.05  # how often time is passed to the session: the watchdog's resolution
HELLO_WAIT_S = 2.0  # the session gives up after 1 s without HELLO; this only bounds a port that never reads


class HubUnavailable(OSError):
    """The hub did not come online: its port would not open or the handshake failed; ``said`` says why (its msgid
    is the kind of failure), ``str()`` in English."""

    def __init__(self, said: Said) -> None:
        super().__init__(str(said))
        self.said = said


# Why the port gave no hub (HubOffline.reason's msgid), beside the session's reasons (companion.hub.session).
ABSENT = N_("no hub at {where}: plug it in (and see README, Reader hub)")
ABSENT_WHERE = N_("{port} nor any USB device {usb}")
BUSY = N_("{port} is held by another program: {error}")
CANNOT_OPEN = N_("cannot open {port}: {error}")
PORT_FAILED = N_("the hub's serial port failed ({error}): was its USB cable pulled?")
WRITE_FAILED = N_("writing to the hub failed ({error}): was its USB cable pulled?")
NO_HELLO = N_("no HELLO from {port} within {seconds} s")


def find_hub(port: str = "auto") -> str | None:
    """The hub's serial port: ``port`` if it is a path that exists; with ``"auto"``, the udev rule's name, else the
    first serial port with the USB ids of MicroPython on a Pico. ``None`` when there is none."""
    if port != "auto":
        return port if os.path.exists(port) else None
    if os.path.exists(UDEV_PORT):
        return UDEV_PORT
    for info in list_ports.comports():
        if info.vid == USB_VID and info.pid == USB_PID:
            return str(info.device)
    return None


class HubBackend:
    """Connects, reconnects with back-off, and passes the session's events to ``emit``."""

    def __init__(
        self,
        zones: Sequence[str],
        emit: Callable[[HubEvent], None],
        port: str = "auto",
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = HubSession(zones)
        self.port = port
        self._emit = emit
        self._clock = clock
        self._backoff = Backoff()
        self._serial: serial.Serial | None = None
        self._lost = asyncio.Event()

    def set_led(self, zone: str, colour: str, mode: str = "steady") -> None:
        """Light ``zone``'s LED (colour: off, green, red, amber; mode: steady, blink); kept across reconnections."""
        self.session.set_led(zone, colour, mode, self._clock())
        self._flush()

    async def run(self) -> None:
        """Keep the hub connected until cancelled."""
        try:
            while True:
                if self._connect():
                    await self._serve()
                await asyncio.sleep(self._backoff.next_delay())
        finally:
            self._disconnect()

    def _connect(self) -> bool:
        path = find_hub(self.port)
        now = self._clock()
        if path is None:
            usb = f"{USB_VID:04X}:{USB_PID:04X}"
            where = Said(ABSENT_WHERE, port=UDEV_PORT, usb=usb) if self.port == "auto" else self.port
            self._deliver(self.session.close(Said(ABSENT, where=where), now))
            return False
        try:
            self._serial = serial.Serial(path, timeout=0, write_timeout=0.5, exclusive=True)
            self._serial.reset_input_buffer()  # bytes from before this connection belong to no session of ours
        except (serial.SerialException, OSError) as exc:
            held = getattr(exc, "errno", None) in (errno.EAGAIN, errno.EBUSY)  # the daemon's exclusive lock
            self._deliver(self.session.close(Said(BUSY if held else CANNOT_OPEN, port=path, error=str(exc)), now))
            return False
        log.info("hub: connected on %s", path)
        self._lost.clear()
        asyncio.get_running_loop().add_reader(self._serial.fileno(), self._readable)
        self.session.open(now)
        self._flush()
        return True

    async def _serve(self) -> None:
        while not self._lost.is_set():
            self._deliver(self.session.poll(self._clock()))
            if self.session.state is LinkState.ONLINE:
                self._backoff.reset()
            elif self.session.state is not LinkState.HANDSHAKE:
                break
            self._flush()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), TICK_S)
        self._disconnect()

    def _readable(self) -> None:
        assert self._serial is not None
        try:
            data = self._serial.read(self._serial.in_waiting or 1)
        except (serial.SerialException, OSError) as exc:
            self._fail(Said(PORT_FAILED, error=str(exc)))
            return
        self._deliver(self.session.receive(data, self._clock()))
        self._flush()

    def _flush(self) -> None:
        if self._serial is None or not self.session.outbox:
            self.session.outbox.clear()
            return
        try:
            self._serial.write(bytes(self.session.outbox))
        except (serial.SerialException, OSError) as exc:
            self._fail(Said(WRITE_FAILED, error=str(exc)))
        self.session.outbox.clear()

    def _fail(self, reason: Said) -> None:
        self._deliver(self.session.close(reason, self._clock()))
        self._lost.set()

    def _deliver(self, events: list[HubEvent]) -> None:
        for event in events:
            try:
                self._emit(event)
            except Exception:
                log.exception("hub: the daemon's handler failed on %r", event)

    def _disconnect(self) -> None:
        if self._serial is None:
            return
        # RuntimeError: no loop any more (the daemon is shutting down).
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().remove_reader(self._serial.fileno())
        self._serial.close()
        self._serial = None


def hello(port: str, zones: Sequence[str], wait_s: float = HELLO_WAIT_S) -> HubInfo:
    """Connect to the hub on ``port`` once, exactly as the daemon does, and give its HELLO; :class:`HubUnavailable`
    with the session's reason when it does not come. Runs an event loop of its own (``companion doctor``)."""
    return asyncio.run(_hello(port, zones, wait_s))


async def _hello(port: str, zones: Sequence[str], wait_s: float) -> HubInfo:
    events: asyncio.Queue[HubEvent] = asyncio.Queue()
    backend = HubBackend(zones, events.put_nowait, port)
    serving = asyncio.create_task(backend._serve()) if backend._connect() else None
    try:
        async with asyncio.timeout(wait_s):
            while True:
                event = await events.get()
                if isinstance(event, HubOnline):
                    return event.info
                if isinstance(event, HubOffline):
                    raise HubUnavailable(event.reason)
    except TimeoutError:
        raise HubUnavailable(Said(NO_HELLO, port=port, seconds=f"{wait_s:g}")) from None
    finally:
        if serving is not None:
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
        backend._disconnect()
