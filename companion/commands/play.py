"""``companion play``: run a transcript through a rules engine and say each line's verdict."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TextIO, TypeVar

from companion.decks import DeckError, load_deck
from companion.files import read_text
from companion.games import AnyKind, ending, find_kind, game_module, kinds
from companion.i18n import N_, Said, SaidError, _, translate
from companion.rules import Action, Game, IllegalPlay, SetupError
from companion.rules.transcript import UNDO, TranscriptError, parse_line, state
from companion.rules.words import describe, undone_words

T = TypeVar("T")

USAGE_ERROR = 2
ILLEGAL = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help=_("replay a game transcript through the rules"),
        description=_("Read one action per line (play/pay/pass/undo) and print each line's verdict."),
    )
    parser.add_argument("game", choices=list(kinds()))
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help=_("the transcript, or - for standard input")
    )
    parser.add_argument("--players", type=int, help=_("number of players, in a game that has a choice (default 4)"))
    parser.add_argument("--deck", help=_("a built-in deck name or the path of a deck file"))
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help=_("a rule option (see docs/RULES.md)")
    )
    parser.add_argument(
        "--json", action="store_true", help=_("end with the final state and the refused lines as one JSON object")
    )
    parser.add_argument("--keep-going", action="store_true", help=_("skip illegal lines instead of stopping"))
    parser.set_defaults(func=run)


class UsageError(SaidError):
    """A command line or a file that cannot be used."""


def run(args: argparse.Namespace) -> int:
    out: TextIO = sys.stdout
    lang = args.lang
    kind = find_kind(args.game)
    try:
        if args.players is not None and not kind.has_player_choice():
            said = N_("{game} has no choice of players: --players is only for a game that has one")
            raise UsageError(Said(said, game=Said(kind.caption)))
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
    if (note := kind.players_note(players or 4)) is not None:  # a note beside the verdicts, not one of them
        print(f"companion play: {note.text(lang)}", file=sys.stderr)
    status = 0
    refused: list[dict[str, Any]] = []  # the refused lines, for --json
    for number, text in enumerate(lines, start=1):
        try:
            action = parse_line(text, kind.grammar)
        except TranscriptError as exc:
            said = translate("line {number}: {problem}", lang).format(number=number, problem=exc.text(lang))
            print(f"companion play: {said}", file=sys.stderr)
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


def _step(kind: AnyKind, game: Game, action: Action | Literal["undo"], lang: str) -> tuple[str, str | None]:
    """Apply one transcript action: the verdict in words, and the reason code when it was refused."""
    if action == UNDO:
        try:
            undone = game.pop()
        except IndexError:
            return translate("nothing to undo", lang), "nothing_to_undo"
        return translate("undone: {action}", lang).format(action=undone_words(game, undone, lang)), None
    before = game.snapshot()
    who = kind.who(before["turn"], lang)
    try:
        game.push(action)
    except IllegalPlay as exc:
        refused = translate("{who} {action} — refused: {why}", lang)
        return refused.format(who=who, action=describe(game, action, lang), why=exc.sentence(lang)), exc.reason
    return (
        f"{who} {describe(game, action, lang)}{''.join(f'; {note}' for note in _notes(kind, game, before, lang))}",
        None,
    )


def _notes(kind: AnyKind, game: Game, before: Mapping[str, Any], lang: str) -> Iterable[str]:
    """What the action did beyond laying its card: the game's own words of its news (its package's ``transcript``
    module), else, for a game without them, who won when the action ended it."""
    transcript = game_module(kind, "transcript")
    if transcript is not None:
        notes: Iterable[str] = transcript.notes(before, game.snapshot(), lang)
        return notes
    end = ending(game)
    if end is None or end.winner is None:
        return ()
    return [translate("the game is over: {verdict}", lang).format(verdict=kind.verdict(game, end).text(lang))]


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(Said(N_("--option takes KEY=VALUE, not {text}"), text=repr(text)))
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
    said = N_(
        "the command line says {name} {given} but the file's first line says {header}: give the file's settings or "
        "leave them out"
    )
    return UsageError(Said(said, name=name, given=given, header=header))


def _read(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        return read_text(path).splitlines()
    except FileNotFoundError:
        raise UsageError(Said(N_("{path}: no such file"), path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(Said(N_("{path}: cannot read it ({reason})"), path=path, reason=reason)) from None
