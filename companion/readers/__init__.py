"""Reader kinds: each type of NFC reader the table can read cards with, registered once.

A kind (:class:`ReaderKind`) is one module that says everything the rest of companion needs to know about a type
of reader: its name in the config (``readers.backend``), its own ``[readers]`` keys, which zones of the pin map it
can read, how the daemon opens and runs it, what ``companion doctor`` checks for it, and whether ``companion
enroll`` can bind tags through it. The daemon, ``run --check``, doctor and enroll ask :func:`kind` for the
configured one and never name a type themselves (Mopidy's back-ends work the same way: an extension registered
once, a core that never names it)::

    >>> kind("sim").simulated, type(kind("mfrc522")).__name__
    (True, 'Mfrc522Readers')

Adding a reader type is one module with its :class:`ReaderKind` subclass that ends with
``KIND = register(MyKind())`` (:mod:`companion.readers.registry`), and an entry point of the ``companion.readers``
group that names it (companion's own are in ``pyproject.toml``; a kind that lives outside companion is in its own
package's metadata, found once installed). docs/EXTENDING.md, "Adding a reader", walks through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from companion.i18n import _
from companion.readers.registry import names, registered
from companion.settings_schema import Key

if TYPE_CHECKING:
    from companion.config import Config
    from companion.doctor.checks import Check, System
    from companion.hardware import PinMap
    from companion.nfc.backends import Feed
    from companion.nfc.enrollment import Station
    from companion.nfc.registry import Registry
    from companion.ui.lights import StatusLed
    from companion.view import Output

T = TypeVar("T")

__all__ = ["ReaderKind", "Readers", "Setup", "StationError", "StationOptions", "kind"]


@dataclass(frozen=True)
class Setup:
    """What the daemon gives a kind to open its readers with."""

    config: Config
    pinmap: PinMap
    registry: Registry
    pin_factory: Any  # gpiozero's
    clock: Callable[[], float]


class Readers(Protocol):
    """Readers the daemon runs: opened by :meth:`ReaderKind.open`, run as a task until it is cancelled."""

    async def run(self, feed: Feed) -> None:
        """Read until cancelled, handing every scan (and link change) to ``feed`` on the running loop."""

    def lights(self, status: StatusLed) -> Output | None:
        """The zone LEDs when the readers drive them (the hub lights its own); None: the pin map's LEDs on the Pi."""

    def close(self) -> None:
        """Let go of every line and device the readers hold."""


@dataclass(frozen=True)
class StationOptions:
    """What ``companion enroll`` (and ``cards --identify``) was asked for, with the config's values filled in."""

    zones: Sequence[str]  # the config's zones; empty without a config
    zone: str | None  # enroll on this zone only
    pinmap: PinMap
    settings: Mapping[str, str]  # the kind's own [readers] keys (the command line's, else the config's)
    registry: Registry
    out: Callable[[str], None]
    screen: Callable[[], Output | None]  # the pin map's OLED, or None when it cannot be opened (said on out)

    def pi_zones(self) -> list[str]:
        """The zones to watch among those with a reader on the Pi in the pin map (and the config, if one)."""
        wired = [name for name, pins in self.pinmap.zones.items() if pins.reader is not None]
        if self.zones:
            wired = [zone for zone in self.zones if zone in wired]
        if not wired:
            raise StationError(f"{self.pinmap.source}: no zone has a reader on the Pi (a hub build: use --backend hub)")
        return self.watched(wired, "on the Pi")

    def watched(self, zones: Sequence[str], where: str) -> list[str]:
        """``zones``, or only :attr:`zone` when one was asked for (it must be among them)."""
        if self.zone is None:
            return list(zones)
        if self.zone not in zones:
            raise StationError(f"zone {self.zone!r} has no reader {where}; zones with one: {', '.join(zones)}")
        return [self.zone]


class StationError(ValueError):
    """The readers cannot be opened for enrollment as asked; the message says what to do."""


class ReaderKind:
    """A type of NFC reader. Subclasses set :attr:`name` and override what differs from these defaults: readers
    wired to no pins of the Pi, the zone LEDs on the Pi's GPIOs, nothing for doctor to probe, no enrollment."""

    name: ClassVar[str]
    summary: ClassVar[str]  # what it is, for the sample config and enroll's --help (an English msgid: mark it N_)
    simulated: ClassVar[bool] = False  # True: off a Pi its pins are gpiozero's mock pins (companion.pins.choose)
    settings: ClassVar[tuple[Key[Any], ...]] = ()  # its own [readers] keys (companion.settings_schema), by name there

    def setting(self, config: Config, key: Key[T]) -> T:
        """The config's value of ``key``, one of :attr:`settings`, or its default."""
        value: T = config.reader_settings.get(key.name, key.default)
        return value

    # -- the daemon ----------------------------------------------------------------------------------------------

    def open(self, setup: Setup) -> Readers:
        """Open the readers of ``setup.config``'s zones; an ``OSError`` or a :class:`StartError`-worthy
        ``ValueError`` says what to do."""
        raise NotImplementedError

    def absences(self, config: Config) -> int:
        """Clean scans without a tag before the tracker takes it as lifted."""
        return config.absences

    def zone_problems(self, pinmap: PinMap, zones: Sequence[str]) -> list[str]:
        """What keeps the config's ``zones`` from being wired on ``pinmap``: each zone's LEDs are the pin map's."""
        return [
            f"zones.{zone}: no LEDs for it in the pin map {pinmap.source} (it has {', '.join(pinmap.zones)}): "
            "add them there, or use the hub back-end for more zones"
            for zone in zones
            if zone not in pinmap.zones
        ]

    def file_problems(self, config: Config) -> list[str]:
        """What the daemon would refuse in the files the kind's own settings name (``run --check``)."""
        return []

    # -- companion doctor ----------------------------------------------------------------------------------------

    def wired_zones(self, config: Config, pinmap: PinMap) -> tuple[list[str], str]:
        """The zones it can read on ``pinmap`` and what the pin map calls them (for doctor's pin map check)."""
        return list(config.zones), _("zones")

    def interface_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        """The kernel interfaces the readers need switched on (SPI), before the device nodes are checked."""
        return iter(())

    def nodes(self, system: System, config: Config, pinmap: PinMap) -> list[str]:
        """The device nodes the service user must be able to open for these readers."""
        return []

    def device_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        """Each reader answering (or why there is nothing to probe)."""
        raise NotImplementedError

    # -- companion enroll ----------------------------------------------------------------------------------------

    def station(self, options: StationOptions) -> Station:
        """The readers to enroll on, with the LEDs and screen that show the result; :class:`StationError` when
        this kind cannot enroll (the message says which can)."""
        enrolling = ", ".join(name for name in names() if type(kind(name)).station is not ReaderKind.station)
        raise StationError(f"{self.name} readers cannot enroll tags; enroll with --backend {enrolling}")


def kind(name: str) -> ReaderKind:
    """The kind the config's ``readers.backend`` names; a ``KeyError`` names the known ones."""
    found = registered(name)
    if not isinstance(found, ReaderKind):
        raise TypeError(f"reader kind {name!r} is a {type(found).__name__}, not a companion.readers.ReaderKind")
    return found
