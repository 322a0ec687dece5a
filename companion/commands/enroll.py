"""``companion enroll``: bind each card's tag to the card, one card after another on the table's own readers.

The readers are the service's: those of its config (``/etc/companion/config.toml`` when there is one), a reader
on the Pi, the zones of the reader hub, or simulated ones (``--backend sim``, to try it anywhere).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from companion.config import DEFAULT_PATH as CONFIG_PATH
from companion.config import ConfigError, load_config
from companion.decks import Deck, DeckError, load_deck
from companion.hardware import PinMap, PinMapError
from companion.nfc.enrollment import Enrollment
from companion.nfc.rc522 import NfcError
from companion.nfc.registry import Registry, RegistryError
from companion.nfc.stations import HubStation, ReaderStation, SimStation
from companion.pins import PinFactoryError

DEFAULT_REGISTRY = Path("/var/lib/companion/registry.toml")
SPI_HZ = 4_000_000
STATION_BACKENDS = ("spi", "mfrc522", "hub", "sim")

Station = ReaderStation | HubStation


class StationError(ValueError):
    """The readers cannot be opened as asked; the message says what to do."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help="bind each card's NFC tag to the card, one card after another",
        description="Asks for each card of the deck not yet enrolled, binds the tag laid on a zone to it and "
        "saves the registry after every card: stop any time and run it again to go on.",
    )
    add_station_arguments(parser)
    parser.add_argument("--write-tags", action="store_true", help="also write the card id on each NTAG213")
    parser.add_argument("--rebind", action="store_true", help="move a tag already bound to another card")
    parser.add_argument("--auto", action="store_true", help="with --backend sim: lay each card's tag in turn")
    parser.set_defaults(func=run)


def add_station_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which deck, registry and readers: shared by ``enroll`` and ``cards --identify``."""
    parser.add_argument(
        "--deck",
        help="a built-in deck (spanish-40, spanish-48, squadratik) or a path (default: the config's game deck)",
    )
    parser.add_argument(
        "--config",
        help=f"the service's config, for its readers, zones, registry and deck (default: {CONFIG_PATH} when it exists)",
    )
    parser.add_argument(
        "--backend",
        choices=STATION_BACKENDS,
        help="the readers: spi (a reader on the Pi), hub, "
        "or sim (simulated, to try it anywhere); default: the config's, else spi",
    )
    parser.add_argument("--zone", help="enroll on this zone only (default: any zone)")
    parser.add_argument("--hub-port", help="the hub's serial port (default: the config's, else auto)")
    parser.add_argument("--registry", type=Path, help=f"default: the config's, else {DEFAULT_REGISTRY}")
    parser.add_argument(
        "--pinmap", help="the pin map (default: the config's, else /etc/companion/pinmap.toml, else the shipped one)"
    )
    parser.add_argument("--lang", choices=("es", "en"), default="es", help="how card names are said")


def settings(args: argparse.Namespace) -> argparse.Namespace:
    """The options with what the command line leaves out taken from the config (named, or the installed one)."""
    config = None
    if args.config or CONFIG_PATH.is_file():
        config = load_config(args.config or CONFIG_PATH)
    deck = args.deck or (config.game.deck_name if config else None)
    if deck is None:
        raise StationError("which deck? give --deck NAME (spanish-40, spanish-48, squadratik) or --config FILE")
    return argparse.Namespace(
        deck=deck,
        backend=args.backend or (config.backend if config else "spi"),
        zones=list(config.zones) if config else [],
        zone=args.zone,
        hub_port=args.hub_port or (config.hub_port if config else ""),
        registry=args.registry or (config.registry if config else DEFAULT_REGISTRY),
        pinmap=args.pinmap or (config.pinmap if config else ""),
    )


def _pinmap(configured: str) -> PinMap:
    from companion.hardware import load_pinmap, pinmap_path

    return load_pinmap(pinmap_path(configured))


def _watched(zones: list[str], zone: str | None, where: str) -> list[str]:
    if zone is None:
        return zones
    if zone not in zones:
        raise StationError(f"zone {zone!r} has no reader {where}; zones with one: {', '.join(zones)}")
    return [zone]


def _screen(pinmap: PinMap, out: Any) -> Any:
    """The OLED of the pin map, or None (said once): enrollment works without it, the terminal says it all."""
    import luma.core.error

    from companion.ui.display import Screen, make_device

    try:
        return Screen(make_device(pinmap.oled), dim_after_s=3600)
    except (OSError, ValueError, ImportError, luma.core.error.Error) as exc:
        out(f"(no OLED: {exc}; the terminal says it all)")
        return None


def open_station(options: argparse.Namespace, registry: Registry, out: Any = print) -> Station:
    """The readers ``options`` name (see :func:`settings`), with the LEDs and the OLED that show the result."""
    from companion.pins import board_model, factory_for
    from companion.ui.lights import StatusLed, ZoneLights

    pinmap = _pinmap(options.pinmap)
    if options.backend == "hub":
        hub_zones = options.zones or (list(pinmap.hub.zones) if pinmap.hub else [])
        if not hub_zones:
            raise StationError(f"{pinmap.source}: no [hub] zones; give --config with the hub's zones")
        port = options.hub_port or (pinmap.hub.serial if pinmap.hub else "auto")
        watch = _watched(hub_zones, options.zone, "on the hub")
        screen = _screen(pinmap, out) if board_model() is not None else None
        return HubStation(hub_zones, port, screen, watch=watch)
    wired = [name for name, pins in pinmap.zones.items() if pins.reader is not None]
    if options.zones:
        wired = [zone for zone in options.zones if zone in wired]
    if not wired:
        raise StationError(f"{pinmap.source}: no zone has a reader on the Pi (a hub build: use --backend hub)")
    zones = _watched(wired, options.zone, "on the Pi")
    if options.backend == "sim":
        from companion.ui.display import FakeI2CBus, Screen, make_device

        factory = factory_for("sim")
        lights = ZoneLights(
            {z: pinmap.zones[z] for z in zones}, StatusLed(pinmap.status_led, pin_factory=factory), pin_factory=factory
        )
        screen = Screen(make_device([], bus=FakeI2CBus()))  # the panel's bytes, decoded: tests look at it
        return SimStation(zones, [lights, screen], registry)
    from companion.nfc.backends import SpiZone, spi_backend

    try:
        factory = factory_for("spi")  # lgpio on a Pi, as the daemon
    except PinFactoryError as exc:
        if board_model() is not None:
            raise
        raise StationError(
            f"{exc}. This is not a Raspberry Pi (no /proc/device-tree/model): enroll on the table's Pi, through "
            "the reader hub (--backend hub), or try it here with simulated readers (--backend sim --auto)"
        ) from None
    # The mfrc522 back-end's wiring is the same chip on the same pins: our driver enrolls (and writes) there too.
    readers = []
    for zone in zones:
        pins = pinmap.zones[zone].reader
        assert pins is not None  # zones are those with a reader
        readers.append(SpiZone(zone, pins.spi_port, pins.spi_device, reset=pins.reset))
    backend = spi_backend(readers, spi_hz=SPI_HZ, pin_factory=factory)
    lights = ZoneLights(
        {z: pinmap.zones[z] for z in zones}, StatusLed(pinmap.status_led, pin_factory=factory), pin_factory=factory
    )
    outputs: list[Any] = [lights]
    screen = _screen(pinmap, out)
    if screen is not None:
        outputs.append(screen)
    station = ReaderStation(backend, outputs)
    try:
        backend.init()
    except BaseException:
        station.close()
        raise
    return station


def load(options: argparse.Namespace) -> tuple[Deck, Registry]:
    deck = load_deck(options.deck)
    return deck, Registry.load(options.registry, deck=deck.name)


ERRORS = (
    DeckError,
    RegistryError,
    ConfigError,
    PinMapError,
    StationError,
    NfcError,
    OSError,
    PinFactoryError,
)


def run(args: argparse.Namespace) -> int:
    station: Station | None = None
    try:
        if args.auto and (args.backend or "sim") != "sim":
            raise StationError("--auto lays simulated tags: it goes with --backend sim")
        options = settings(args)
        if args.auto:
            options.backend = "sim"
        deck, registry = load(options)
        station = open_station(options, registry)
        enrollment = Enrollment(deck, registry, station, write_tags=args.write_tags, rebind=args.rebind, lang=args.lang)
        if isinstance(station, SimStation):
            sim = station
            enrollment.pause = lambda: None  # simulated readers: the hand is as quick as the program
            if args.auto:
                enrollment.on_ask = lambda card: sim.lay(card.id)
            else:
                print("simulated readers: lay each card's tag with companion.sim, or add --auto to watch it")
        enrollment.run()
    except ERRORS as exc:
        print(f"companion enroll: {exc}", file=sys.stderr)
        if isinstance(exc, OSError) and station is not None:
            print("the cards enrolled so far are saved: run the same command to go on", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped; the cards enrolled so far are saved: run the same command to go on", file=sys.stderr)
        return 130
    finally:
        if station is not None:
            with suppress(Exception):
                station.close()
    return 0
