"""``companion run``: the service itself, on real hardware (systemd starts it; see systemd/)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import DEFAULT_PATH, ConfigError, load_config
from companion.daemon import Daemon, StartError
from companion.decks import DeckError
from companion.hardware import PinMapError
from companion.nfc.registry import RegistryError
from companion.rules import SetupError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run the table (the service)", description="Run the table.")
    parser.add_argument("--config", type=Path, default=DEFAULT_PATH, help=f"the config file (default {DEFAULT_PATH})")
    parser.add_argument("--verbose", action="store_true", help="log every event")
    parser.add_argument(
        "--frames",
        type=Path,
        metavar="DIR",
        help="draw the screen as PNG frames into DIR instead of on the OLED (display.frames in the config)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",  # journald adds the time
        stream=sys.stderr,
    )
    try:
        config = load_config(args.config)
        if args.frames is not None:
            config = replace(config, frames=args.frames)
        return asyncio.run(Daemon(config).run())
    except (ConfigError, StartError, PinMapError, RegistryError, DeckError, SetupError) as exc:
        logging.getLogger("companion").error("cannot start: %s", exc)
        return 2
