"""The ``companion`` command: one subcommand per module of :mod:`companion.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from importlib.metadata import version

# What a shell reports for a program that SIGPIPE ended (128 + 13), as when `seq 1000000 | head` stops seq.
BROKEN_PIPE_STATUS = 141

# Each module defines ``register(subparsers)``, which adds its subcommand and sets ``func`` to
# a callable taking the parsed arguments and returning the exit status.
COMMANDS: tuple[str, ...] = (
    "companion.commands.play",
    "companion.commands.screens",
    "companion.commands.enroll",
    "companion.commands.cards",
    "companion.commands.demo",
    "companion.commands.history",
    "companion.commands.run",
    "companion.commands.doctor",
)


class _IntermixedParser(argparse.ArgumentParser):
    """A subcommand parser that takes options and positionals in any order (``play GAME --json FILE``)."""

    _parsing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._parsing:  # parse_known_intermixed_args calls back here
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A table companion that referees card games played with NFC-tagged cards.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('companion')}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_IntermixedParser)
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
        sys.stdout.flush()  # here, while a closed pipe can still be caught
    except BrokenPipeError:
        # The reader left (`companion play ... | head`): stop quietly, as a program that SIGPIPE ended does.
        # Python flushes stdout again at exit; pointing it at /dev/null keeps that flush from failing too
        # (the Python docs' recipe, library/signal.html "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    return status


if __name__ == "__main__":
    sys.exit(main())
