"""``companion enroll``: bind each card's tag to the card, one card after another on a zone's reader."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.decks import DeckError, load_deck
from companion.nfc.backends import ReaderBackend, SpiZone, spi_backend
from companion.nfc.enrollment import Enrollment
from companion.nfc.rc522 import RC522, NfcError
from companion.nfc.registry import Registry, RegistryError
from companion.pins import PinFactoryError

DEFAULT_REGISTRY = Path("/var/lib/companion/registry.toml")
SPI_HZ = 4_000_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help="bind each card's NFC tag to the card, one card after another",
        description="Asks for each card of the deck not yet enrolled, binds the tag laid on the reader to it and "
        "saves the registry after every card: stop any time and run it again to go on.",
    )
    parser.add_argument("--deck", required=True, help="a built-in deck (spanish-40, spanish-48, squadratik) or a path")
    parser.add_argument("--zone", help="the zone of the pin map whose reader to use (default: the first with a reader)")
    parser.add_argument("--write-tags", action="store_true", help="also write the card id on each NTAG213")
    parser.add_argument("--rebind", action="store_true", help="move a tag already bound to another card")
    parser.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY, help=f"default {DEFAULT_REGISTRY}")
    parser.add_argument("--pinmap", help="the pin map (default: /etc/companion/pinmap.toml, else the shipped one)")
    parser.add_argument("--lang", choices=("es", "en"), default="es", help="how card names are said")
    parser.set_defaults(func=run)


def zone_reader(zone: str | None, pinmap_path: str | None) -> ReaderBackend:
    """The reader the pin map gives ``zone``, through our driver, its reset line held high as the daemon does."""
    from companion.hardware import load_pinmap
    from companion.hardware import pinmap_path as installed_or_shipped
    from companion.pins import factory_for

    pinmap = load_pinmap(pinmap_path or installed_or_shipped())
    wired = {name: pins.reader for name, pins in pinmap.zones.items() if pins.reader is not None}
    if not wired:
        raise ValueError(f"{pinmap.source}: no zone has a reader on the Pi (a hub build enrolls through the hub)")
    name = zone or next(iter(wired))
    if name not in wired:
        raise ValueError(f"zone {name!r} has no reader on the Pi; zones with one: {', '.join(wired)}")
    pins = wired[name]
    zones = [SpiZone(name, pins.spi_port, pins.spi_device, reset=pins.reset)]
    return spi_backend(zones, spi_hz=SPI_HZ, pin_factory=factory_for("spi"))  # lgpio on a Pi, as the daemon


def run(args: argparse.Namespace) -> int:
    try:
        deck = load_deck(args.deck)
        registry = Registry.load(args.registry, deck=deck.name)
        backend = zone_reader(args.zone, args.pinmap)
        try:
            backend.init()
            reader = backend.readers[0][1]
            assert isinstance(reader, RC522)
            Enrollment(deck, registry, reader, write_tags=args.write_tags, rebind=args.rebind, lang=args.lang).run()
        finally:
            backend.close()
    except (DeckError, RegistryError, ValueError, NfcError, OSError, PinFactoryError) as exc:
        print(f"companion enroll: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped; the cards enrolled so far are saved: run the same command to go on", file=sys.stderr)
        return 130
    return 0
