"""The ``companion`` command: one subcommand per module of :mod:`companion.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module defines ``register(subparsers)``, which adds its subcommand and sets ``func`` to
# a callable taking the parsed arguments and returning the exit status.
COMMANDS: tuple[str, ...] = ("companion.commands.play", "companion.commands.screens")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A table companion that referees card games played with NFC-tagged cards.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
