"""The reader hub: a Raspberry Pi Pico scanning up to 8 MFRC522 readers and driving the zone LEDs, on USB serial
(:mod:`companion.hub`). It debounces lifts itself, lights its own LEDs, writes tags for enrollment, and doctor
checks it by the same handshake the daemon makes."""

from __future__ import annotations

import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from companion.doctor.checks import Check, System
from companion.events import ZoneScan
from companion.hardware import PinMap
from companion.hub.session import TRACKER_ABSENCES, HubEvent, HubOffline, HubOnline
from companion.i18n import N_, _, language
from companion.nfc.backends import Feed
from companion.readers import ReaderKind, Readers, Setup, StationError, StationOptions
from companion.readers.registry import register
from companion.settings_schema import Key, text

if TYPE_CHECKING:
    from companion.config import Config
    from companion.hub.backend import HubBackend
    from companion.nfc.enrollment import Station
    from companion.nfc.stations import LedCommand
    from companion.ui.lights import HubZoneLights, StatusLed

__all__ = ["HubReaders", "check_hub", "hub_port"]


HUB_PORT = text(
    "hub_port", "auto", N_("The hub's serial port; auto: found by USB id (systemd/99-companion-hub.rules)"), option=True
)


class HubReaders(ReaderKind):
    name = "hub"
    summary = N_("a Raspberry Pi Pico scanning up to 8 readers, on USB serial")
    settings: ClassVar[tuple[Key[Any], ...]] = (HUB_PORT,)

    def open(self, setup: Setup) -> Readers:
        return _Hub(list(setup.config.zones), self.setting(setup.config, HUB_PORT))

    def absences(self, config: Config) -> int:
        return TRACKER_ABSENCES  # the hub debounces lifts itself

    def zone_problems(self, pinmap: PinMap, zones: Sequence[str]) -> list[str]:
        return []  # the hub drives its own LEDs, and its zones are its own (its HELLO says them)

    def file_problems(self, config: Config) -> list[str]:
        """A port that is there but no serial port (a folder, a file) is a mistake; a missing one is a hub not
        plugged in yet, which the daemon waits for."""
        port = self.setting(config, HUB_PORT)
        if port == "auto":
            return []
        try:
            info = Path(port).stat()  # follows the udev symlink to the tty
        except FileNotFoundError:
            return []
        except OSError as exc:
            return [f"{config.source}: readers.hub_port: {port}: {exc.strerror}"]
        if stat.S_ISCHR(info.st_mode):
            return []
        said = _('{port} is {what}, not a serial port: write the hub\'s port (ls /dev/ttyACM*), or "auto"')
        what = _("a folder") if stat.S_ISDIR(info.st_mode) else _("a file")
        return [f"{config.source}: readers.hub_port: {said.format(port=port, what=what)}"]

    # -- companion doctor ----------------------------------------------------------------------------------------

    def wired_zones(self, config: Config, pinmap: PinMap) -> tuple[list[str], str]:
        return (list(pinmap.hub.zones) if pinmap.hub is not None else []), _("hub zones")

    def nodes(self, system: System, config: Config, pinmap: PinMap) -> list[str]:
        return [hub_port(self.setting(config, HUB_PORT), system)]

    def device_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        assert pinmap.hub is not None  # the pin map check refused a hub config without a [hub] table
        yield check_hub(system, hub_port(self.setting(config, HUB_PORT), system), pinmap.hub.zones)

    # -- companion enroll ----------------------------------------------------------------------------------------

    def station(self, options: StationOptions) -> Station:
        from companion.nfc.stations import HubStation
        from companion.pins import board_model

        pinmap = options.pinmap
        hub_zones = list(options.zones) or (list(pinmap.hub.zones) if pinmap.hub else [])
        if not hub_zones:
            raise StationError(f"{pinmap.source}: no [hub] zones; give --config with the hub's zones")
        port = options.settings.get(HUB_PORT.name) or (pinmap.hub.serial if pinmap.hub else "auto")
        watch = options.watched(hub_zones, "on the hub")
        screen = options.screen() if board_model() is not None else None
        return HubStation(hub_zones, port, screen, lights=lambda send: _zone_lights(hub_zones, send), watch=watch)


class _Hub:
    """The daemon's hub: a :class:`~companion.hub.backend.HubBackend` on the loop (its events need no hop)."""

    def __init__(self, zones: Sequence[str], port: str) -> None:
        from companion.hub.backend import HubBackend

        self.zones = tuple(zones)
        self.backend: HubBackend = HubBackend(zones, self._event, port)
        self._feed: Feed | None = None

    async def run(self, feed: Feed) -> None:
        self._feed = feed
        await self.backend.run()

    def _event(self, event: HubEvent) -> None:
        assert self._feed is not None  # events come only while run() runs
        if isinstance(event, ZoneScan):
            self._feed.scan(event)
        elif isinstance(event, HubOnline):
            self._feed.link(True, "", None)
        elif isinstance(event, HubOffline):
            self._feed.link(False, str(event.reason), event.zones)

    def lights(self, status: StatusLed) -> HubZoneLights:
        from companion.ui.lights import HubZoneLights

        return HubZoneLights(self.zones, self.backend.set_led, status)

    def close(self) -> None:
        """The port is let go when :meth:`run` is cancelled."""


def _zone_lights(zones: Sequence[str], send: LedCommand) -> HubZoneLights:
    """The hub's zone LEDs for enrollment; the status LED is the Pi's, and enrollment leaves it alone."""
    from companion.ui.lights import HubZoneLights, StatusLed

    return HubZoneLights(tuple(zones), send, cast(StatusLed, _NoStatusLed()))


class _NoStatusLed:
    def show(self, status: object) -> None:
        pass


def hub_port(configured: str, system: System) -> str:
    """The configured port; for "auto", the udev rule's name, else (on this Pi) a Pico found by its USB ids as
    the daemon finds it."""
    from companion.hub.backend import UDEV_PORT, find_hub

    if configured != "auto":
        return configured
    if system.root != Path("/"):
        return UDEV_PORT
    return find_hub("auto") or UDEV_PORT


def check_hub(system: System, port: str, zones: Sequence[str]) -> Check:
    """The hub's port is a character device, and the hub answers SYNC with a HELLO that fits our zones."""
    from companion.hub import backend, session

    path = system.path(port)
    try:
        info = system.stat(path)  # follows the udev symlink to the tty
    except FileNotFoundError:
        return Check(
            "hub",
            False,
            _("no {port}: the hub is not plugged in, or not named").format(port=port),
            _(
                "plug the hub in by USB; if it is, sudo make install puts the udev rule that names it "
                "/dev/companion-hub, or set readers.hub_port to its port (ls /dev/ttyACM*)"
            ),
        )
    if not stat.S_ISCHR(info.st_mode):
        detail = _("{port} is not a serial port (a {kind!r} file, not a character device)")
        fix = _("set readers.hub_port to the hub's port (ls /dev/ttyACM*), or remove the file {port}")
        return Check("hub", False, detail.format(port=port, kind=stat.filemode(info.st_mode)[0]), fix.format(port=port))
    try:
        hello = system.hub_handshake(str(path), zones)
    except OSError as exc:
        said = exc.said if isinstance(exc, backend.HubUnavailable) else None  # else the system's own words
        fixes = {
            backend.BUSY: N_(
                "the daemon holds the port: sudo systemctl stop companion, run doctor, then sudo systemctl start "
                "companion"
            ),
            backend.CANNOT_OPEN: N_(
                "unplug the hub and plug it in; if the error says permission, see the user check above"
            ),
            session.OTHER_ZONES: N_(
                "flash the hub with a hub_config.py of {zones} chip selects, your table layout's (make "
                "firmware-deploy HUB_CONFIG=hardware/layouts/NAME/hub_config.py), or make [hub] zones agree"
            ),
            session.MISCONFIGURED: N_(
                "correct the hub's hub_config.py as the message says (mpremote edit :hub_config.py)"
            ),
        }
        flash = N_("flash the hub with this companion's firmware (make firmware-deploy), then unplug it and plug it in")
        fix = _(fixes.get(said.msgid, flash) if said else flash).format(zones=len(zones))
        return Check("hub", False, f"{port}: {said.text(language()) if said else exc}", fix)
    down = [
        _("{zone} (error {code})").format(zone=zone, code=code)
        for zone, code in zip(hello.zones, hello.health, strict=False)
        if code
    ]
    detail = _("{port}: firmware {firmware}, protocol {protocol}, zones {zones}").format(
        port=port, firmware=hello.firmware, protocol=hello.protocol, zones=", ".join(hello.zones)
    )
    if down:
        refused = _("{detail}; the readers of {down} did not answer at the hub's start")
        return Check(
            "hub",
            False,
            refused.format(detail=detail, down=", ".join(down)),
            _("check the wiring of those readers to the Pico (hardware/README.md), then unplug the hub and plug it in"),
        )
    return Check("hub", True, detail)


KIND = register(HubReaders())
