"""MFRC522 readers on the Pi's own SPI bus, one per zone (the pin map's ``reader = {spi_port, spi_device, reset}``).

Two kinds share the wiring, the doctor checks and enrollment:

* ``spi``: our driver (:mod:`companion.nfc.rc522`): 4- and 7-byte UIDs, several tags in a field, HALT, the card
  id read from a tag's memory.
* ``mfrc522``: the public ``mfrc522`` package, for makers whose cards carry 4-byte MIFARE Classic tags. Enrolling
  uses our driver on the same chips and pins: it reads (and writes) what the package cannot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from companion.doctor.checks import Check, System
from companion.hardware import HEADER_PINS, SPI_BUSES, PinMap, ReaderPins
from companion.i18n import N_, _
from companion.nfc.backends import ReaderBackend, SpiZone, mfrc522_backend, spi_backend
from companion.nfc.rc522 import KNOWN_VERSIONS, RC522, spidev_transfer
from companion.readers import ReaderKind, Readers, Setup, StationError, StationOptions
from companion.readers.registry import register

if TYPE_CHECKING:
    from companion.config import Config
    from companion.nfc.enrollment import Station

__all__ = ["PROBE_SPI_HZ", "Mfrc522Readers", "SpiReaders", "check_reader", "check_spi", "spi_nodes"]

PROBE_SPI_HZ = 1_000_000  # doctor's rate: slow enough for long jumper wires, where the daemon's 4 MHz might fail
_VERSION_NAMES = {0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0"}


def spi_zones(pinmap: PinMap, zones: Sequence[str]) -> list[SpiZone]:
    """Where each of ``zones``' readers is wired (every zone has a reader: :meth:`SpiReaders.zone_problems`)."""
    wired = []
    for zone in zones:
        pins = pinmap.zones[zone].reader
        assert pins is not None, zone
        wired.append(SpiZone(zone, pins.spi_port, pins.spi_device, reset=pins.reset))
    return wired


class SpiReaders(ReaderKind):
    name = "spi"
    summary = N_("MFRC522 readers on the Pi's SPI, read by companion's own driver")

    def open(self, setup: Setup) -> Readers:
        backend = self.backend(setup)
        backend.prepare(setup.config.poll_interval_s, setup.clock)
        return backend

    def backend(self, setup: Setup) -> ReaderBackend:
        zones = spi_zones(setup.pinmap, list(setup.config.zones))
        return spi_backend(zones, setup.registry, pin_factory=setup.pin_factory)

    def zone_problems(self, pinmap: PinMap, zones: Sequence[str]) -> list[str]:
        problems = super().zone_problems(pinmap, zones)
        for zone in zones:
            if zone in pinmap.zones and pinmap.zones[zone].reader is None:
                problems.append(f"zones.{zone}: no reader in the pin map {pinmap.source}: add reader = {{...}} there")
        return problems

    # -- companion doctor ----------------------------------------------------------------------------------------

    def wired_zones(self, config: Config, pinmap: PinMap) -> tuple[list[str], str]:
        return [zone for zone, pins in pinmap.zones.items() if pins.reader is not None], _("zones with a reader")

    def interface_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        yield check_spi(system, pinmap, list(config.zones))

    def nodes(self, system: System, config: Config, pinmap: PinMap) -> list[str]:
        return spi_nodes(pinmap, list(config.zones))

    def device_checks(self, system: System, config: Config, pinmap: PinMap) -> Iterator[Check]:
        for zone in config.zones:
            pins = pinmap.zones[zone].reader
            assert pins is not None  # the pin map check refused a zone without a reader
            yield check_reader(system, zone, pins)

    # -- companion enroll ----------------------------------------------------------------------------------------

    def station(self, options: StationOptions) -> Station:
        from companion.nfc.stations import ReaderStation
        from companion.pins import PinFactoryError, board_model, factory_for
        from companion.ui.lights import StatusLed, ZoneLights

        pinmap = options.pinmap
        zones = options.pi_zones()
        try:
            factory = factory_for(self)  # lgpio on a Pi, as the daemon
        except PinFactoryError as exc:
            if board_model() is not None:
                raise
            raise StationError(
                f"{exc}. This is not a Raspberry Pi (no /proc/device-tree/model): enroll on the table's Pi, through "
                "the reader hub (--backend hub), or try it here with simulated readers (--backend sim --auto)"
            ) from None
        backend = spi_backend(spi_zones(pinmap, zones), pin_factory=factory)
        lights = ZoneLights(
            {z: pinmap.zones[z] for z in zones}, StatusLed(pinmap.status_led, pin_factory=factory), pin_factory=factory
        )
        screen = options.screen()
        station = ReaderStation(backend, [lights] if screen is None else [lights, screen])
        try:
            backend.init()
        except BaseException:
            station.close()
            raise
        return station


class Mfrc522Readers(SpiReaders):
    name = "mfrc522"
    summary = N_("MFRC522 readers on the Pi's SPI, read by the public mfrc522 package (4-byte MIFARE Classic tags)")

    def backend(self, setup: Setup) -> ReaderBackend:
        return mfrc522_backend(spi_zones(setup.pinmap, list(setup.config.zones)), setup.registry)


def spi_nodes(pinmap: PinMap, zones: Sequence[str]) -> list[str]:
    readers = [pinmap.zones[zone].reader for zone in zones if zone in pinmap.zones]
    return [f"/dev/spidev{r.spi_port}.{r.spi_device}" for r in readers if r is not None]


def check_spi(system: System, pinmap: PinMap, zones: Sequence[str]) -> Check:
    """SPI0 on (and SPI1 with enough chip selects when a reader is on it); the readers' device nodes there."""
    from companion.doctor.pi import boot_config, interface_check, nodes_are

    nodes = spi_nodes(pinmap, zones)
    readers = [pinmap.zones[zone].reader for zone in zones]
    spi1 = [r.spi_device for r in readers if r is not None and r.spi_port == 1]
    if spi1:
        config, _params, overlays = boot_config(system)
        chip_selects = max(spi1) + 1
        have = [int(o[5]) for o in overlays if o in ("spi1-1cs", "spi1-2cs", "spi1-3cs")]
        spi1_missing = [n for n in nodes if n.startswith("/dev/spidev1.") and not system.path(n).exists()]
        if spi1_missing and max(have, default=0) < chip_selects:
            where = system.shown(config) if config else "/boot/firmware/config.txt"
            return Check(
                "SPI",
                False,
                _("a reader is on SPI1 CE{device} but {where} has no dtoverlay=spi1-{count}cs").format(
                    device=max(spi1), where=where, count=chip_selects
                )
                + f"; {nodes_are(spi1_missing)}",
                _("add dtoverlay=spi1-{count}cs to {where}, then sudo reboot").format(count=chip_selects, where=where),
            )
    return interface_check(system, "SPI", nodes, "spi", "do_spi")


def check_reader(system: System, zone: str, pins: ReaderPins) -> Check:
    """The reader's VersionReg, read without a reset: a running daemon's reader is left as it was."""
    name = _("reader {zone}").format(zone=zone)
    where = f"SPI{pins.spi_port} CE{pins.spi_device}"
    node = f"/dev/spidev{pins.spi_port}.{pins.spi_device}"
    if not system.path(node).exists():
        missing = _("{at}: {node} is missing").format(at=where, node=node)
        return Check(name, False, missing, _("switch SPI on: see the SPI check above"))
    try:
        device = system.spi_device()
        device.open(pins.spi_port, pins.spi_device)
    except PermissionError:
        refused = _("{at}: not allowed to open {node}").format(at=where, node=node)
        return Check(name, False, refused, _("run it as root: sudo companion doctor"))
    except (OSError, ImportError) as exc:
        failed = _("{at}: cannot open {node} ({error})").format(at=where, node=node, error=exc)
        return Check(name, False, failed, "sudo apt install python3-spidev")
    try:
        device.max_speed_hz = PROBE_SPI_HZ
        device.mode = 0
        version = RC522(spidev_transfer(device)).version()
    except OSError as exc:
        failed = _("{at}: the SPI transfer failed ({error})").format(at=where, error=exc)
        return Check(name, False, failed, _("sudo reboot, then run doctor again"))
    finally:
        device.close()
    register_value = f"0x{version:02X}"
    if version in KNOWN_VERSIONS:
        chip = _VERSION_NAMES.get(version) or _("a compatible clone")
        return Check(name, True, f"{where} ({node}): VersionReg {register_value}, {chip}")
    if version in (0x00, 0xFF):
        reading = _("VersionReg reads {value}: no chip answers").format(value=register_value)
    else:
        reading = _("VersionReg reads {value}: something answers, but not an MFRC522").format(value=register_value)
    fix = _("check {zone}'s reader: {wiring}").format(zone=zone, wiring=_wiring(pins))
    return Check(name, False, f"{where} ({node}): {reading}", fix)


def _wiring(pins: ReaderPins) -> str:
    """How a reader at ``pins`` is wired to the header (hardware/README.md), for the fix of one that does not
    answer: its pins from the one table of the header (:data:`companion.hardware.HEADER_PINS`)."""
    bus = SPI_BUSES[pins.spi_port]
    ce = HEADER_PINS[bus.chip_selects[pins.spi_device]]
    return _(
        "3.3 V and GND, SDA to CE{device} (pin {ce}), SCK pin {sck}, MOSI pin {mosi}, MISO pin {miso}, RST to "
        "GPIO{reset} (held low, the chip sleeps: the daemon drives it high)"
    ).format(
        device=pins.spi_device,
        ce=ce,
        sck=HEADER_PINS[bus.sclk],
        mosi=HEADER_PINS[bus.mosi],
        miso=HEADER_PINS[bus.miso],
        reset=pins.reset,
    )


SPI = register(SpiReaders())
MFRC522 = register(Mfrc522Readers())
