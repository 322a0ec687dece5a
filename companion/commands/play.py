"""``companion play``: run a transcript through a rules engine and say each line's verdict."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, Literal, TextIO, TypeVar

from companion.decks import DeckError, load_deck
from companion.files import read_text
from companion.rules import Action, Game, IllegalPlay, Pass, Pay, Seises, SetupError, SextoSet, find_game
from companion.rules.news import ChipOwed, GameWon, HandWon, Reneged, SetStarted, SomebodyReneged, news
from companion.rules.transcript import UNDO, TranscriptError, parse_line

T = TypeVar("T")

USAGE_ERROR = 2
ILLEGAL = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="replay a game transcript through the rules",
        description="Read one action per line (play/pay/pass/undo) and print each line's verdict.",
    )
    parser.add_argument("game", choices=["seises", "sexto-set"])
    parser.add_argument("file", nargs="?", default="-", help="the transcript, or - for standard input")
    parser.add_argument("--players", type=int, help="Seises: number of players (default 4)")
    parser.add_argument("--deck", help="a built-in deck name or the path of a deck file")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (see docs/RULES.md)"
    )
    parser.add_argument(
        "--json", action="store_true", help="end with the final state and the refused lines as one JSON object"
    )
    parser.add_argument("--keep-going", action="store_true", help="skip illegal lines instead of stopping")
    parser.add_argument("--lang", choices=["es", "en"], default="es", help="language of the verdicts")
    parser.set_defaults(func=run)


def new_game(name: str, players: int, deck: str | None, options: dict[str, str]) -> Game:
    """A game as the command line and the config name it; raises SetupError or DeckError."""
    game_class = find_game(name)
    if game_class is Seises:
        return Seises(players=players, deck=load_deck(deck or "spanish-40"), options=options)
    return SextoSet(deck=load_deck(deck or "squadratik"), options=options)


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
    try:
        if args.players is not None and args.game != "seises":
            raise UsageError(
                "6º SET is played by two pairs: --players is for Seises only",
                "El 6º SET lo juegan dos parejas: --players es solo para el Seises",
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
        game = new_game(args.game, players or 4, deck, options)
    except (SetupError, UsageError, DeckError) as exc:
        print(f"companion play: {exc.text(lang)}", file=sys.stderr)
        return USAGE_ERROR
    status = 0
    refused: list[dict[str, Any]] = []  # the refused lines, for --json
    for number, text in enumerate(lines, start=1):
        try:
            action = parse_line(args.game, text)
        except TranscriptError as exc:
            line = "line" if lang == "en" else "línea"
            print(f"companion play: {line} {number}: {exc.text(lang)}", file=sys.stderr)
            if args.json:  # the state after the lines before it, as when an illegal line stops the run
                print(final_json(game, refused), file=out)
            return USAGE_ERROR
        if action is None:
            continue
        verdict, reason = _step(game, action, args.lang)
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
    return json.dumps({**game.snapshot(), "refused": refused}, ensure_ascii=False)


def _step(game: Game, action: Action | Literal["undo"], lang: str) -> tuple[str, str | None]:
    """Apply one transcript action: the verdict in words, and the reason code when it was refused."""
    es = lang != "en"
    if action == UNDO:
        try:
            undone = game.pop()
        except IndexError:
            return ("nada que deshacer" if es else "nothing to undo"), "nothing_to_undo"
        return f"{'deshecho' if es else 'undone'}: {undone_words(game, undone, lang)}", None
    before = game.snapshot()
    who = _who(game, before["turn"], es)
    try:
        game.push(action)
    except IllegalPlay as exc:
        return f"{who} {describe(game, action, lang)} — {'no' if es else 'refused'}: {exc.sentence(lang)}", exc.reason
    notes = "".join(f"; {note}" for note in _notes(before, game.snapshot(), es))
    return f"{who} {describe(game, action, lang)}{notes}", None


def describe(game: Game, action: Action, lang: str = "es") -> str:
    """An action in words: ``juega 6 de oros``, ``coloca N07 en la línea de la maestra 2 negra``."""
    es = lang != "en"
    if isinstance(action, Pay):
        return "paga una ficha" if es else "pays one chip"
    if isinstance(action, Pass):
        return "pasa: no puede enlazar" if es else "passes: cannot link"
    name = _name(game, action.card, lang)
    if action.line is None:
        return f"juega {name}" if es else f"plays the {name}"
    line = _name(game, action.line, lang)
    return f"coloca {name} en la línea de la {line}" if es else f"places {name} on the line of {line}"


def undone_words(game: Game, action: Action, lang: str = "es") -> str:
    """What an undo took back, as the table says it: ``6 de oros``, ``el pago de una ficha``."""
    es = lang != "en"
    if isinstance(action, Pay):
        return "el pago de una ficha" if es else "the chip paid"
    if isinstance(action, Pass):
        return "el paso" if es else "the pass"
    return _name(game, action.card, lang)


def _name(game: Game, card_id: str, lang: str) -> str:
    """A card's name in the deck, or its id as typed when the deck has no such card."""
    card = game.deck.get(card_id)
    return card.name(lang) if card is not None else card_id


def _who(game: Game, turn: int | str | None, es: bool) -> str:
    if isinstance(game, Seises):
        return f"{'asiento' if es else 'seat'} {turn}" if turn else ("fin:" if es else "over:")
    return f"{'pareja' if es else 'pair'} {turn}"


def _notes(before: dict[str, Any], after: dict[str, Any], es: bool) -> Iterable[str]:
    """What else the action did: a hand or set won, a renege caught, a chip owed."""
    for item in news(before, after):
        if isinstance(item, Reneged):
            penalty = (f" (-{item.points} puntos)" if es else f" (-{item.points} points)") if item.points else ""
            yield ("¡renuncio!" if es else "renege!") + penalty
        elif isinstance(item, SomebodyReneged):
            yield (
                "¡renuncio!: todos han pagado y quedan cartas que valen"
                if es
                else "renege!: every seat paid while playable cards are in hands"
            )
        elif isinstance(item, ChipOwed):
            yield "bolsa vacía: la ficha queda debida" if es else "reserve empty: the chip is owed"
        elif isinstance(item, HandWon):
            yield (
                f"el asiento {item.seat} gana la mano y el bote ({item.chips} fichas)"
                if es
                else f"seat {item.seat} wins the hand and the pot ({item.chips} chips)"
            )
        elif isinstance(item, GameWon):
            yield f"el asiento {item.seat} gana la partida" if es else f"seat {item.seat} wins the game"
        elif isinstance(item, SetStarted):
            yield f"empieza el set {item.number}" if es else f"set {item.number} begins"
        else:
            if item.winner is None:
                yield "set empatado" if es else "drawn set"
            else:
                yield f"la pareja {item.winner} gana el set" if es else f"pair {item.winner} wins the set"
            yield (
                f"la pareja {item.leads_next} empieza el siguiente"
                if es
                else f"pair {item.leads_next} leads the next one"
            )


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--option takes KEY=VALUE, not {text!r}", f"--option se escribe CLAVE=VALOR, no {text!r}")
    return key.strip(), value.strip()


def _header(lines: list[str]) -> argparse.Namespace | None:
    """The game and its settings in a first line such as ``# seises --players 4``, as ``companion export`` writes
    it; None when the first line is no such header (any other comment)."""
    words = lines[0].removeprefix("#").split() if lines and lines[0].startswith("#") else []
    if not words or words[0] not in ("seises", "sexto-set"):
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
