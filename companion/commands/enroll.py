"""``companion enroll``: bind each card's tag to the card, one card after another on the table's own readers.

The readers are the service's: those of its config (``/etc/companion/config.toml`` when there is one), a reader
on the Pi, the zones of the reader hub, or simulated ones (``--backend sim``, to try it anywhere).
"""

from __future__ import annotations

import argparse
import errno
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from companion.config import DEFAULT_PATH as CONFIG_PATH
from companion.config import DEFAULT_REGISTRY, ConfigError, load_config
from companion.decks import Deck, DeckError, load_deck
from companion.hardware import PinMap, PinMapError
from companion.i18n import N_, Said, SaidError, _, language, os_reason
from companion.nfc.enrollment import Enrollment, Station
from companion.nfc.errors import NfcError
from companion.nfc.registry import Registry, RegistryError
from companion.nfc.stations import SimulatedHand
from companion.pins import PinFactoryError
from companion.readers import StationError, StationOptions, kind
from companion.readers.registry import DEFAULT as DEFAULT_READERS
from companion.readers.registry import names
from companion.settings_schema import Key


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help=_("bind each card's NFC tag to the card, one card after another"),
        description=_(
            "Asks for each card of the deck not yet enrolled, binds the tag laid on a zone to it and saves the "
            "registry after every card: stop any time and run it again to go on."
        ),
    )
    add_station_arguments(parser)
    parser.add_argument("--write-tags", action="store_true", help=_("also write the card id on each NTAG213"))
    parser.add_argument("--rebind", action="store_true", help=_("move a tag already bound to another card"))
    parser.add_argument(
        "--auto",
        action="store_true",
        help=_(
            "lay each card's tag in turn on simulated readers: the config's when they are simulated, else {backends}"
        ).format(backends=_simulated()),
    )
    parser.set_defaults(func=run)


def add_station_arguments(
    parser: argparse.ArgumentParser, zone_help: str = N_("enroll on this zone only (default: any zone)")
) -> None:
    """The options that say which deck, registry and readers: shared by ``enroll`` and ``cards --identify``
    (``zone_help``: what ``--zone`` does in that command)."""
    parser.add_argument(
        "--deck",
        help=_("a built-in deck (spanish-40, spanish-48, squadratik) or a path (default: the config's game deck)"),
    )
    parser.add_argument(
        "--config",
        help=_(
            "the service's config, for its readers, zones, registry and deck (default: {path} when it exists)"
        ).format(path=CONFIG_PATH),
    )
    parser.add_argument(
        "--backend",
        choices=names(),
        help=_("the readers: {kinds} (default: the config's, else {default})").format(
            kinds="; ".join(f"{name}: {_(kind(name).summary)}" for name in names()), default=DEFAULT_READERS
        ),
    )
    parser.add_argument("--zone", help=_(zone_help))
    for key in _options():
        parser.add_argument(
            f"--{key.name.replace('_', '-')}", help=_("{about} (default: the config's)").format(about=_(key.help))
        )
    parser.add_argument(
        "--registry", type=Path, help=_("default: the config's, else {path}").format(path=DEFAULT_REGISTRY)
    )
    parser.add_argument(
        "--pinmap",
        help=_("the pin map (default: the config's, else /etc/companion/pinmap.toml, else the shipped one)"),
    )


def _options() -> list[Key[Any]]:
    """The reader kinds' settings that the command line takes too."""
    return [key for name in names() for key in kind(name).settings if key.option]


def _simulated() -> str:
    return " or ".join(name for name in names() if kind(name).simulated)


def settings(args: argparse.Namespace) -> argparse.Namespace:
    """The options with what the command line leaves out taken from the config (named, or the installed one)."""
    config = None
    if args.config or CONFIG_PATH.is_file():
        config = load_config(args.config or CONFIG_PATH)
    deck = args.deck or (config.game.deck_name if config else None)
    if deck is None:
        raise StationError(_("which deck? give --deck NAME (spanish-40, spanish-48, squadratik) or --config FILE"))
    given = {key.name: getattr(args, key.name) for key in _options() if getattr(args, key.name, None)}
    return argparse.Namespace(
        deck=deck,
        backend=args.backend or (config.backend if config else DEFAULT_READERS),
        zones=list(config.zones) if config else [],
        zone=args.zone,
        reader_settings={**(config.reader_settings if config else {}), **given},
        registry=args.registry or (config.registry if config else DEFAULT_REGISTRY),
        pinmap=args.pinmap or (config.pinmap if config else ""),
    )


def _pinmap(configured: str) -> PinMap:
    from companion.hardware import load_pinmap, pinmap_path

    return load_pinmap(pinmap_path(configured))


def _screen(pinmap: PinMap, out: Any) -> Any:
    """The OLED of the pin map, or None (said once): enrollment works without it, the terminal says it all."""
    import luma.core.error

    from companion.ui.display import Screen, make_device

    try:
        return Screen(make_device(pinmap.oled), dim_after_s=3600)
    except (OSError, ValueError, ImportError, luma.core.error.Error) as exc:
        out(_("(no OLED: {error}; the terminal says it all)").format(error=oled_trouble(exc, pinmap)))
        return None


def oled_trouble(exc: BaseException, pinmap: PinMap) -> str:
    """Why the OLED cannot be used, in the command line's language: luma says it in English, from the system's
    error (its ``__context__``), which names the bus's device node or, when nothing answers, the I2C address.

    >>> import errno
    >>> from companion.hardware import load_pinmap
    >>> missing = OSError(errno.ENOENT, "No such file or directory", "/dev/i2c-1")
    >>> oled_trouble(missing, load_pinmap())
    '/dev/i2c-1: no such file'
    >>> oled_trouble(OSError(errno.EREMOTEIO, "Remote I/O error"), load_pinmap())
    'nothing answers at the I2C address 0x3C'
    """
    import luma.core.error

    cause = exc.__context__ if isinstance(exc, luma.core.error.Error) else exc
    if isinstance(cause, OSError) and cause.errno in (errno.EREMOTEIO, errno.EIO):
        said = _("nothing answers at the I2C address {address}")
        return said.format(address=pinmap.oled.get("i2c_address", "0x3C"))
    if isinstance(cause, OSError):
        reason = os_reason(cause)
        text = reason.text(language()) if isinstance(reason, Said) else reason
        return f"{cause.filename}: {text}" if cause.filename else text
    return str(exc)


def open_station(options: argparse.Namespace, registry: Registry, out: Any = print) -> Station:
    """The readers ``options`` name (see :func:`settings`), with the LEDs and the OLED that show the result."""
    pinmap = _pinmap(options.pinmap)
    return kind(options.backend).station(
        StationOptions(
            zones=options.zones,
            zone=options.zone,
            pinmap=pinmap,
            settings=options.reader_settings,
            registry=registry,
            out=out,
            screen=lambda: _screen(pinmap, out),
        )
    )


def auto_backend(configured: str) -> str:
    """``--auto``'s readers: the configured kind when it is simulated, else the first simulated kind."""
    if kind(configured).simulated:
        return configured
    return next(name for name in names() if kind(name).simulated)


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


def refused(command: str, exc: BaseException) -> None:
    """Say on stderr why ``companion COMMAND`` cannot go on: a pin map's or a deck's error in the command line's
    language, each line (a pin map's every mistake) with the command's name."""
    said = exc.text(language()) if isinstance(exc, SaidError) else str(exc)
    for line in said.splitlines():
        print(f"companion {command}: {line}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    station: Station | None = None
    try:
        if args.auto and args.backend and not kind(args.backend).simulated:
            raise StationError(
                _("--auto lays simulated tags: it goes with --backend {backends}").format(backends=_simulated())
            )
        options = settings(args)
        if args.auto:
            options.backend = auto_backend(options.backend)
        deck, registry = load(options)
        station = open_station(options, registry)
        enrollment = Enrollment(deck, registry, station, write_tags=args.write_tags, rebind=args.rebind, lang=args.lang)
        if isinstance(station, SimulatedHand):
            hand = station
            enrollment.pause = lambda: None  # simulated readers: the hand is as quick as the program
            if args.auto:
                enrollment.on_ask = lambda card: hand.lay(card.id)
            else:
                print(_("simulated readers: lay each card's tag with companion.sim, or add --auto to watch it"))
        enrollment.run()
    except ERRORS as exc:
        refused("enroll", exc)
        if isinstance(exc, OSError) and station is not None:
            print(_("the cards enrolled so far are saved: run the same command to go on"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\n" + _("stopped; the cards enrolled so far are saved: run the same command to go on"), file=sys.stderr)
        return 130
    finally:
        if station is not None:
            with suppress(Exception):
                station.close()
    return 0
