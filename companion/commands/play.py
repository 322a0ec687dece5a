"""``companion play``: run a transcript through a rules engine and say each line's verdict."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal, TextIO, TypeVar

from companion.decks import DeckError, load_deck
from companion.files import read_text
from companion.games import GameKind, find_kind, kinds
from companion.rules import Action, Game, IllegalPlay, SetupError
from companion.rules.transcript import UNDO, TranscriptError, parse_line, state
from companion.rules.words import describe, undone_words

T = TypeVar("T")

USAGE_ERROR = 2
ILLEGAL = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="replay a game transcript through the rules",
        description="Read one action per line (play/pay/pass/undo) and print each line's verdict.",
    )
    parser.add_argument("game", choices=list(kinds()))
    parser.add_argument("file", nargs="?", default="-", help="the transcript, or - for standard input")
    parser.add_argument("--players", type=int, help="number of players, in a game that has a choice (default 4)")
    parser.add_argument("--deck", help="a built-in deck name or the path of a deck file")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (see docs/RULES.md)"
    )
    parser.add_argument(
        "--json", action="store_true", help="end with the final state and the refused lines as one JSON object"
    )
    parser.add_argument("--keep-going", action="store_true", help="skip illegal lines instead of stopping")
    parser.set_defaults(func=run)


class UsageError(ValueError):
    """A command line or a file that cannot be used, said in both languages."""

    def __init__(self, english: str, spanish: str) -> None:
        super().__init__(english)
        self.spanish = spanish

    def text(self, lang: str) -> str:
        return str(self) if lang == "en" else self.spanish


def run(args: argparse.Namespace) -> int:
    out: TextIO = sys.stdout
    lang = args.lang
    kind = find_kind(args.game)
    try:
        if args.players is not None and not kind.has_player_choice():
            raise UsageError(
                f"{kind.title('en')} has no choice of players: --players is only for a game that has one",
                f"El {kind.title('es')} no admite otro número de jugadores: --players es solo para los que lo admiten",
            )
        options = dict(_option(text) for text in args.option)
        lines = _read(args.file)
        players, deck = args.players, args.deck
        header = _header(lines)
        if header is not None:
            players = _agree("--players", players, header.players)
            deck = _agree("--deck", deck, header.deck)
            for key, value in (_option(text) for text in header.option):
                _agree(f"--option {key}", options.get(key), value)
                options.setdefault(key, value)
            if header.game != args.game:
                raise _contradiction("game", args.game, header.game)
        game = kind.new_game(players or 4, load_deck(deck or kind.default_deck), options)
    except (SetupError, UsageError, DeckError) as exc:
        print(f"companion play: {exc.text(lang)}", file=sys.stderr)
        return USAGE_ERROR
    status = 0
    refused: list[dict[str, Any]] = []  # the refused lines, for --json
    for number, text in enumerate(lines, start=1):
        try:
            action = parse_line(text, kind.grammar)
        except TranscriptError as exc:
            line = "line" if lang == "en" else "línea"
            print(f"companion play: {line} {number}: {exc.text(lang)}", file=sys.stderr)
            if args.json:  # the state after the lines before it, as when an illegal line stops the run
                print(final_json(game, refused), file=out)
            return USAGE_ERROR
        if action is None:
            continue
        verdict, reason = _step(kind, game, action, args.lang)
        print(f"{number}: {verdict}", file=out)
        if reason is not None:
            refused.append({"line": number, "action": str(action), "reason": reason})
            status = ILLEGAL
            if not args.keep_going:
                break
    if args.json:
        print(final_json(game, refused), file=out)
    return status


def final_json(game: Game, refused: list[dict[str, Any]]) -> str:
    """What ``--json`` ends with: the game's state, and each refused line with its reason code."""
    return json.dumps(state(game, refused), ensure_ascii=False)


def _step(kind: GameKind, game: Game, action: Action | Literal["undo"], lang: str) -> tuple[str, str | None]:
    """Apply one transcript action: the verdict in words, and the reason code when it was refused."""
    es = lang != "en"
    if action == UNDO:
        try:
            undone = game.pop()
        except IndexError:
            return ("nada que deshacer" if es else "nothing to undo"), "nothing_to_undo"
        return f"{'deshecho' if es else 'undone'}: {undone_words(game, undone, lang)}", None
    before = game.snapshot()
    who = kind.who(before["turn"], lang)
    try:
        game.push(action)
    except IllegalPlay as exc:
        return f"{who} {describe(game, action, lang)} — {'no' if es else 'refused'}: {exc.sentence(lang)}", exc.reason
    notes = "".join(f"; {note}" for note in kind.notes(before, game.snapshot(), lang))
    return f"{who} {describe(game, action, lang)}{notes}", None


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--option takes KEY=VALUE, not {text!r}", f"--option se escribe CLAVE=VALOR, no {text!r}")
    return key.strip(), value.strip()


def _header(lines: list[str]) -> argparse.Namespace | None:
    """The game and its settings in a first line such as ``# <game> --players 4``, as ``companion export`` writes
    it; None when the first line is no such header (any other comment)."""
    words = lines[0].removeprefix("#").split() if lines and lines[0].startswith("#") else []
    if not words or words[0] not in kinds():
        return None
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("game")
    parser.add_argument("--players", type=int)
    parser.add_argument("--deck")
    parser.add_argument("--option", action="append", default=[])
    try:
        header, rest = parser.parse_known_args(words)
    except argparse.ArgumentError:
        return None
    return None if rest else header


def _agree(name: str, given: T | None, header: T | None) -> T | None:
    """The command line's value, or the header's when the command line gives none; both must agree."""
    if given is not None and header is not None and given != header:
        raise _contradiction(name, given, header)
    return header if given is None else given


def _contradiction(name: str, given: object, header: object) -> UsageError:
    return UsageError(
        f"the command line says {name} {given} but the file's first line says {header}: "
        "give the file's settings or leave them out",
        f"la línea de órdenes dice {name} {given} pero la primera línea del fichero dice {header}: "
        "da los ajustes del fichero o no los des",
    )


def _read(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        return read_text(path).splitlines()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file", f"{path}: no existe el fichero") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"{path}: cannot read it ({reason})", f"{path}: no se puede leer ({reason})") from None
