"""Simulated readers: our driver on the register-level MFRC522 simulator (:mod:`companion.sim`), for a PC, the demo
and the tests. A scenario file (``readers.scenario``) lays and lifts cards at set times; enrollment lays tags with
a simulated hand (``enroll --auto``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from companion.doctor.checks import Check, System
from companion.files import read_text
from companion.hardware import PinMap
from companion.i18n import N_
from companion.nfc.backends import SimBackend, Step, parse_scenario
from companion.readers import ReaderKind, Readers, Setup, StationOptions
from companion.readers.registry import register
from companion.settings_schema import Key, text

if TYPE_CHECKING:
    from companion.config import Config
    from companion.nfc.enrollment import Station

__all__ = ["SimReaders"]


SCENARIO = text("scenario", "", N_("A file of timed steps that lay and lift cards (companion.nfc.backends), for tests"))


class SimReaders(ReaderKind):
    name = "sim"
    summary = N_("simulated readers (the demo, a PC, the tests)")
    simulated = True
    settings: ClassVar[tuple[Key[Any], ...]] = (SCENARIO,)

    def open(self, setup: Setup) -> Readers:
        backend = SimBackend(list(setup.config.zones), setup.registry)
        steps = self.scenario(setup.config)
        backend.play_from_start(steps)  # its times count from when the table is ready and polling starts
        backend.prepare(setup.config.poll_interval_s, setup.clock)
        return backend

    def scenario(self, config: Config) -> list[Step]:
        """The steps of the configured scenario file; a ``ValueError`` names the key, the file and what is wrong."""
        path = self.setting(config, SCENARIO)
        if not path:
            return []
        try:
            return parse_scenario(read_text(path), path)
        except (OSError, ValueError) as exc:  # ScenarioError and UnicodeDecodeError are ValueErrors
            raise ValueError(f"readers.scenario: {exc}; fix the file or leave the key out") from None

    def file_problems(self, config: Config) -> list[str]:
        try:
            self.scenario(config)
        except ValueError as exc:
            return [f"{config.source}: {exc}"]
        return []

    def device_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        yield Check("readers", True, f"backend {self.name}: the readers are simulated, nothing to check")

    def station(self, options: StationOptions) -> Station:
        from companion.nfc.stations import SimStation
        from companion.pins import factory_for
        from companion.sim.oled import FakeI2CBus
        from companion.ui.display import Screen, make_device
        from companion.ui.lights import StatusLed, ZoneLights

        pinmap = options.pinmap
        zones = options.pi_zones()
        factory = factory_for(self)
        lights = ZoneLights(
            {z: pinmap.zones[z] for z in zones}, StatusLed(pinmap.status_led, pin_factory=factory), pin_factory=factory
        )
        screen = Screen(make_device([], bus=FakeI2CBus()))  # the panel's bytes, decoded: tests look at it
        return SimStation(zones, [lights, screen], options.registry)


KIND = register(SimReaders())
