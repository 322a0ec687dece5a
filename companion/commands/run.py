"""``companion run``: the service itself, on real hardware (systemd starts it; see systemd/).

``--check`` reads the config and the pin map it uses, names every problem found (file, key, reason) and exits
0 or 2 without starting anything: no GPIO, no bus, no journal is opened. A real start checks the same, and
refuses the same problems in the same words (exit 2) before it opens anything.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import stat
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import DEFAULT_PATH, Config, ConfigError, load_config
from companion.daemon import Daemon, StartError
from companion.decks import Deck, DeckError, load_deck
from companion.games import find_kind
from companion.hardware import PinMapError, load_pinmap, pinmap_path
from companion.i18n import _, language, ngettext
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
    log = logging.getLogger("companion")
    try:
        config, problems = read_and_check(args.config)
        if config is None or problems:
            for problem in problems:
                log.error("cannot start: %s", problem)
            return 2
        for note in notes(config):
            log.warning("%s", note)
        if args.frames is not None:
            config = replace(config, frames=args.frames)
        return asyncio.run(Daemon(config).run())
    except (ConfigError, StartError, PinMapError, RegistryError, DeckError, SetupError) as exc:
        for line in str(exc).splitlines():
            log.error("cannot start: %s", line)
        return 2


def check(path: Path) -> int:
    """``run --check``: every problem of the config at ``path`` on stderr (exit 2), or a summary (exit 0)."""
    config, problems = read_and_check(path)
    for problem in problems:
        print(problem, file=sys.stderr)
    if config is None or problems:
        said = ngettext(
            "{path}: {count} problem; nothing was started",
            "{path}: {count} problems; nothing was started",
            len(problems),
        ).format(path=path, count=len(problems))
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
    for note in notes(config):
        print(note)
    return 0


def notes(config: Config) -> list[str]:
    """What a start that may go ahead still says (``--check`` after its summary, the service as warnings): the
    rule sheet's advice on the players, a broker password that every user of the machine can read."""
    said = []
    if (note := find_kind(config.game.name).players_note(config.game.players)) is not None:
        said.append(f"{config.source}: game.players: {note.text(language())}")
    if config.mqtt is not None and config.mqtt.password:
        try:
            readable = Path(config.source).stat().st_mode & stat.S_IROTH
        except OSError:
            readable = 0
        if readable:
            warning = _(
                "every user of this machine can read the broker's password in this file: "
                "sudo chmod 0640 {path} && sudo chgrp companion {path}"
            )
            said.append(f"{config.source}: mqtt.password: {warning.format(path=config.source)}")
    return said


def read_and_check(path: Path) -> tuple[Config | None, list[str]]:
    """The config at ``path`` and every problem that would stop the table at start (none: it may start): the
    config's own, then those of the files it names. The config is None when the file could not be read."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        if exc.config is None:
            return None, list(exc.problems)
        # the file read, with problems: the pin map and the rest are still checked
        return exc.config, [*exc.problems, *problems_beyond_the_file(exc.config)]
    return config, problems_beyond_the_file(config)


def problems_beyond_the_file(config: Config) -> list[str]:
    """What the daemon would refuse at start in the files a well-formed config names: the pin map and the zones
    it wires, the display options, the registry, the files the reader kind's own settings name."""
    readers = kind(config.backend)
    problems = []
    try:
        pinmap = load_pinmap(pinmap_path(config.pinmap))
    except PinMapError as exc:  # every mistake of the file, each on its own line
        problems += [f"{config.source}: pins.map: {line}" for line in exc.text(language()).splitlines()]
    else:
        problems += [f"{config.source}: {problem}" for problem in readers.zone_problems(pinmap, list(config.zones))]
    if config.display:
        try:
            parse_options(config.display)
        except ValueError as exc:
            problems.append(f"{config.source}: display.options: {exc}")
    try:
        deck = load_deck(config.game.deck_name)
    except DeckError:
        pass  # the config's own check said so (game.deck)
    else:
        problems += [f"{config.source}: readers.registry: {problem}" for problem in registry_problems(config, deck)]
    return problems + readers.file_problems(config)


def registry_problems(config: Config, deck: Deck) -> list[str]:
    """What the registry would make the table do wrong with ``deck``: a file that cannot be read, a tag bound to
    a card the deck has not (the table would call the card unknown all evening)."""
    try:
        registry = Registry.load(config.registry, deck=deck.name)  # bindings are kept under the deck's own name
    except RegistryError as exc:
        return [str(exc)]
    said = _(
        "{path}: tag {uid} is bound to {card}, which the deck {deck} has not: enroll the tag again, or delete its line"
    )
    return [
        said.format(path=config.registry, uid=uid, card=repr(card), deck=deck.name)
        for uid, card in sorted(registry.bindings().items())
        if card not in deck
    ]
