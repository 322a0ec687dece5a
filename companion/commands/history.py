"""``companion history`` lists the games in the journal; ``companion export GAME_ID`` writes one as a transcript
that ``companion play`` replays to the same final state.

Both open the journal read-only (SQLite ``mode=ro``): they never change the file, whatever it is. A row they
cannot read is reported and skipped, never a traceback. ``export --out`` refuses to write onto the journal, and
onto any file that exists unless ``--force`` is given.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from companion.config import ConfigError, load_config
from companion.games import kinds
from companion.i18n import N_, Said, _, language, ngettext, translate
from companion.journal import GameRecord, Journal, JournalError
from companion.referee.history import standing

DEFAULT_CONFIG = Path("/etc/companion/config.toml")


def register(subparsers: Any) -> None:
    for name, helptext, func in (
        ("history", _("list the games in the journal, each with its score and winner"), run_history),
        ("export", _("write a game of the journal as a companion play transcript"), run_export),
    ):
        parser = subparsers.add_parser(name, help=helptext, description=helptext)
        parser.add_argument("--journal", type=Path, help=_("the journal file (default: the config's)"))
        parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help=_("the config naming the journal"))
        if name == "export":
            parser.add_argument("game_id", type=int, help=_("the game's number, as companion history lists it"))
            parser.add_argument("--out", type=Path, help=_("write to this file instead of standard output"))
            parser.add_argument("--force", action="store_true", help=_("write over --out if it exists"))
        parser.set_defaults(func=func)


def _journal(args: argparse.Namespace) -> Journal:
    path = args.journal
    if path is None:
        path = load_config(args.config).journal
    if not Path(path).is_file():
        said = N_("journal {path}: no such file; give --journal PATH or check journal.path in the config")
        raise JournalError(Said(said, path=path))
    return Journal.read_only(path)


def _journal_or_say(args: argparse.Namespace, command: str) -> Journal | None:
    try:
        return _journal(args)
    except ConfigError as exc:
        print(f"companion {command}: {exc}", file=sys.stderr)
        return None
    except JournalError as exc:
        print(f"companion {command}: {exc.text(language())}", file=sys.stderr)
        return None


def run_history(args: argparse.Namespace) -> int:
    journal = _journal_or_say(args, "history")
    if journal is None:
        return 2
    try:
        games = journal.games()
    except JournalError as exc:
        print(f"companion history: {exc.text(language())}", file=sys.stderr)
        return 1
    for game in games:
        print(_line(game, journal))
    return 0


def run_export(args: argparse.Namespace) -> int:
    refusal = _refuse_out(args)
    if refusal:
        print(f"companion export: {refusal}", file=sys.stderr)
        return 2
    journal = _journal_or_say(args, "export")
    if journal is None:
        return 2
    try:
        game = journal.game(args.game_id)
        if game is None:
            said = _("no game {number} in {path}; companion history lists them")
            print(f"companion export: {said.format(number=args.game_id, path=journal.path)}", file=sys.stderr)
            return 2
        text, damaged = transcript(game, journal, language())
    except JournalError as exc:
        print(f"companion export: {exc.text(language())}", file=sys.stderr)
        return 1
    for problem in damaged:
        print(f"companion export: {_('skipped: {problem}').format(problem=problem.text(language()))}", file=sys.stderr)
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            with args.out.open("w" if args.force else "x", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            said = _("cannot write {path} ({error})").format(path=args.out, error=exc.strerror or exc)
            print(f"companion export: {said}", file=sys.stderr)
            return 2
    return 1 if damaged else 0


def _refuse_out(args: argparse.Namespace) -> str:
    """Why ``--out`` must not be written, or "" when it may."""
    out: Path | None = args.out
    if out is None or not out.exists():
        return ""
    journal = args.journal
    if journal is None:
        try:
            journal = load_config(args.config).journal
        except ConfigError:
            journal = None
    if journal is not None:
        for suffix in ("", "-wal", "-shm"):
            twin = Path(f"{journal}{suffix}")
            if twin.exists() and out.samefile(twin):
                return _("--out {path} is the journal itself: give another file").format(path=out)
    if not args.force:
        return _("--out {path} exists: give another file, or --force to write over it").format(path=out)
    return ""


def play_arguments(settings: dict[str, Any]) -> list[str]:
    """The ``companion play`` arguments that set a game up as the journal recorded it."""
    args = [str(settings["game"])]
    kind = kinds().get(str(settings["game"]))  # a game no kind knows is said as it is; play refuses it
    if kind is None or kind.has_player_choice():
        args += ["--players", str(settings.get("players", 4))]
    if settings.get("deck"):
        args += ["--deck", str(settings["deck"])]
    for key, value in sorted(dict(settings.get("options") or {}).items()):
        args += ["--option", f"{key}={value}"]
    return args


def transcript(game: GameRecord, journal: Journal, lang: str = "en") -> tuple[str, list[Said]]:
    """The game as ``companion play`` reads it (its arguments on the first line, then one action per line), and
    what is wrong with the rows that could not be read (each also a comment where it was); the comments a person
    reads are in ``lang``, the lines ``companion play`` reads are its grammar's."""
    damaged = [Said(N_("game {game}: {damage}"), game=game.id, damage=game.damage)] if game.damage else []
    unreadable_settings = translate("settings unreadable", lang)
    head = unreadable_settings if "settings" in game.damage else " ".join(play_arguments(game.settings))
    started = translate("game {game}, started {when}", lang).format(game=game.id, when=_when(game))
    lines = [f"# {head}", f"# {started}"]
    entries, unreadable = journal.readable_entries(game.id)
    damaged += unreadable
    lines += [f"# {translate('skipped: {problem}', lang).format(problem=problem.text(lang))}" for problem in unreadable]
    for entry in entries:
        if entry.kind == "action":
            lines.append(entry.text)
        elif entry.kind == "undo":
            lines.append("undo")
        else:  # a zone's master card, a game reopened: what the table did besides the actions
            lines.append(f"# {entry.kind} {entry.text}")
    return "\n".join(lines) + "\n", damaged


def _when(game: GameRecord) -> str:
    """The date it started, in local time; journals older than the wall column only have the table's clock."""
    if game.wall is not None:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(game.wall))
    return _("t={seconds:.0f}s after boot").format(seconds=game.started)


# How a game ended without a winner, by the journal's ``termination``; another is said as "ended". A winner is
# named by its game's rules (companion.games.ending), with the rule: "won by pair B, sets 2-1".
ENDED = {"replaced": N_("left for a new game"), "damaged": N_("ended, damaged"), "drawn": N_("drawn match")}


def _line(game: GameRecord, journal: Journal) -> str:
    name = str(game.settings.get("game", "?"))
    if name in kinds():  # the game as players write it (its caption), not as the config names it
        name = kinds()[name].title(language())
    entries = ngettext("{count:5d} entry", "{count:5d} entries", game.entries).format(count=game.entries)
    return f"{game.id:4d}  {_when(game):<16}  {name:<9}  {entries}  {_score(game, journal)}"


def _score(game: GameRecord, journal: Journal) -> str:
    """The score and the winner, or why the game cannot be replayed."""
    where = standing(game, journal)
    if where.score is None:
        return _("damaged: {damage}").format(damage=where.damage)
    lang = language()
    if where.winner is not None:
        return _("{score}  won by {winner}").format(score=where.score.text(lang), winner=where.winner.text(lang))
    if game.outcome is None:
        return _("{score}  in play").format(score=where.score.text(lang))
    ended = ENDED.get(str(game.outcome.get("termination")), N_("ended"))
    return f"{where.score.text(lang)}  {_(ended)}"
