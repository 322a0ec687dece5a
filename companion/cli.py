"""The ``companion`` command: one subcommand per module of :mod:`companion.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from pathlib import Path

from companion.config import DEFAULT_PATH
from companion.files import read_text
from companion.i18n import N_, _, choose_language, language, languages, set_language

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
    "companion.commands.club",
)


# argparse's own words, as Lib/argparse.py says them through its module's ``_`` (gettext.gettext, which reads
# only compiled catalogues on disk): :func:`main` points that ``_`` at the command line's language instead. Listed
# here so that the catalogues keep them; tests/test_cli.py checks that argparse still says each one.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("ignored explicit argument %r"),
    N_("can't open '%(filename)s': %(error)s"),
)


class _IntermixedParser(argparse.ArgumentParser):
    """A subcommand parser that takes options and positionals in any order (``play GAME --json FILE``)."""

    _parsing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._parsing:  # parse_known_intermixed_args calls back here
            return super().parse_known_args(args, namespace)
        self._parsing, usage = True, self.usage
        if usage is None:
            # parse_known_intermixed_args keeps format_usage()[7:], cutting len("usage: ") in English whatever the
            # language (Lib/argparse.py): give it the usage without its translated prefix instead
            self.usage = self.format_usage().removeprefix(_("usage: "))
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing, self.usage = False, usage


def build_parser() -> argparse.ArgumentParser:
    """The command line, its help in the language :func:`companion.i18n.set_language` chose."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description=_("A table companion that referees card games played with NFC-tagged cards."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {version('companion')}",
        help=_("show the version and exit"),
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_IntermixedParser)
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    for name, each in (("", parser), *subparsers.choices.items()):
        each.add_argument(
            "--lang",
            choices=languages(),
            default=argparse.SUPPRESS,  # chosen before parsing (language_of), so that the help speaks it too
            help=_(LANG_HELP.get(name, LANG_HELP[""])),
        )
    return parser


# What --lang chooses, by command: only run and demo start a table; enroll and cards show the table's screen;
# screens draws every language whatever it is given.
LANG_HELP = {
    "": N_("the language of the command's words (default: the config's, else the system's)"),
    "run": N_("the language of the command and of the table it starts (default: the config's, else the system's)"),
    "demo": N_("the language of the story and of the demo's table (default: the config's, else the system's)"),
    "enroll": N_("the language of the command and of the screen it shows (default: the config's, else the system's)"),
    "cards": N_("the language of the command and of the screen it shows (default: the config's, else the system's)"),
    "screens": N_("the language of the command's words; the screens are drawn in every language"),
}


def language_of(words: Sequence[str], environ: Mapping[str, str]) -> str:
    """The command line's language: ``--lang``, else the ``game.language`` of the config the command reads (its
    ``--config``, else the installed one when there is one), else the environment's (docs/TRANSLATING.md)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", choices=languages())
    early.add_argument("--config", type=Path)
    known, _rest = early.parse_known_args(words)
    return choose_language(known.lang, _config_language(known.config or DEFAULT_PATH), environ)


def _config_language(path: Path) -> str | None:
    """The config's ``game.language``, if it names a language a catalogue speaks: its other problems, and this
    one, are the config check's to say (in the language chosen without it)."""
    try:
        language = tomllib.loads(read_text(path)).get("game", {}).get("language")
    except (OSError, ValueError, AttributeError):
        return None
    return language if language in languages() else None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    set_language(language_of(words, os.environ))
    argparse._ = _  # type: ignore[attr-defined]  # argparse's own words in that language (ARGPARSE_WORDS)
    parser = build_parser()
    args = parser.parse_args(words)
    args.lang = language()
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
