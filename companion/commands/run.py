"""``companion run``: the service itself, on real hardware (systemd starts it; see systemd/).

``--check`` reads the config and the pin map it uses, names every problem found (file, key, reason) and exits
0 or 2 without starting anything: no GPIO, no bus, no journal is opened.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import DEFAULT_PATH, Config, ConfigError, load_config
from companion.daemon import Daemon, StartError
from companion.decks import DeckError, load_deck
from companion.hardware import PinMapError, load_pinmap, pinmap_path
from companion.i18n import _
from companion.nfc.registry import Registry, RegistryError
from companion.readers import kind
from companion.rules import SetupError
from companion.systemd import log_to
from companion.ui.display import parse_options


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help=_("run the table (the service)"), description=_("Run the table."))
    parser.add_argument(
        "--config",
        type=Path,
        default=DEFAULT_PATH,
        help=_("the config file (default {path})").format(path=DEFAULT_PATH),
    )
    parser.add_argument("--verbose", action="store_true", help=_("log every event"))
    parser.add_argument(
        "--frames",
        type=Path,
        metavar="DIR",
        help=_("draw the screen as PNG frames into DIR instead of on the OLED (display.frames in the config)"),
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=_("check the config and its pin map, name every problem, start nothing (exit 0: fine, 2: problems)"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.check:
        return check(args.config)
    log_to(sys.stderr, logging.DEBUG if args.verbose else logging.INFO)
    try:
        config = load_config(args.config)
        if args.frames is not None:
            config = replace(config, frames=args.frames)
        return asyncio.run(Daemon(config).run())
    except (ConfigError, StartError, PinMapError, RegistryError, DeckError, SetupError) as exc:
        for line in str(exc).splitlines():
            logging.getLogger("companion").error("cannot start: %s", line)
        return 2


def check(path: Path) -> int:
    """``run --check``: every problem of the config at ``path`` on stderr (exit 2), or a summary (exit 0)."""
    try:
        config = load_config(path)
        problems = problems_beyond_the_file(config)
    except ConfigError as exc:
        problems = list(exc.problems)
        if exc.config is not None:  # the file read, with problems: the pin map and the rest are still checked
            problems += problems_beyond_the_file(exc.config)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        said = _("{path}: {count} problem(s); nothing was started").format(path=path, count=len(problems))
        print(said, file=sys.stderr)
        return 2
    said = _("{path}: ok: {game}, {players} players, deck {deck}, zones {zones}, readers {readers}, pin map {pinmap}")
    print(
        said.format(
            path=path,
            game=config.game.name,
            players=config.game.players,
            deck=config.game.deck_name,
            zones=", ".join(config.zones),
            readers=config.backend,
            pinmap=pinmap_path(config.pinmap),
        )
    )
    return 0


def problems_beyond_the_file(config: Config) -> list[str]:
    """What the daemon would refuse at start in the files a well-formed config names: the pin map and the zones
    it wires, the display options, the registry, the files the reader kind's own settings name."""
    readers = kind(config.backend)
    problems = []
    try:
        pinmap = load_pinmap(pinmap_path(config.pinmap))
    except PinMapError as exc:
        problems.append(f"{config.source}: pins.map: {exc}")
    else:
        problems += [f"{config.source}: {problem}" for problem in readers.zone_problems(pinmap, list(config.zones))]
    if config.display:
        try:
            parse_options(config.display)
        except ValueError as exc:
            problems.append(f"{config.source}: display.options: {exc}")
    try:
        Registry.load(config.registry, deck=load_deck(config.game.deck_name).name)
    except RegistryError as exc:
        problems.append(f"{config.source}: readers.registry: {exc}")
    return problems + readers.file_problems(config)
