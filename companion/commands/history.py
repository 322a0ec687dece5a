"""``companion history`` lists the games in the journal; ``companion export GAME_ID`` writes one as a transcript
that ``companion play`` replays to the same final state."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from companion.config import ConfigError, load_config
from companion.journal import GameRecord, Journal, JournalError

DEFAULT_CONFIG = Path("/etc/companion/config.toml")


def register(subparsers: Any) -> None:
    for name, helptext, func in (
        ("history", "list the games in the journal", run_history),
        ("export", "write a game of the journal as a companion play transcript", run_export),
    ):
        parser = subparsers.add_parser(name, help=helptext, description=helptext)
        parser.add_argument("--journal", type=Path, help="the journal file (default: the config's)")
        parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="the config naming the journal")
        if name == "export":
            parser.add_argument("game_id", type=int, help="the game's number, as companion history lists it")
            parser.add_argument("--out", type=Path, help="write to this file instead of standard output")
        parser.set_defaults(func=func)


def _journal(args: argparse.Namespace) -> Journal:
    path = args.journal
    if path is None:
        path = load_config(args.config).journal
    if not Path(path).exists():
        raise JournalError(f"journal {path}: no such file; give --journal PATH or check journal.path in the config")
    return Journal(path)


def _journal_or_say(args: argparse.Namespace, command: str) -> Journal | None:
    try:
        return _journal(args)
    except (ConfigError, JournalError) as exc:
        print(f"companion {command}: {exc}", file=sys.stderr)
        return None


def run_history(args: argparse.Namespace) -> int:
    journal = _journal_or_say(args, "history")
    if journal is None:
        return 2
    for game in journal.games():
        print(_line(game))
    return 0


def run_export(args: argparse.Namespace) -> int:
    journal = _journal_or_say(args, "export")
    if journal is None:
        return 2
    game = journal.game(args.game_id)
    if game is None:
        print(
            f"companion export: no game {args.game_id} in {journal.path}; companion history lists them", file=sys.stderr
        )
        return 2
    text = transcript(game, journal)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


def play_arguments(settings: dict[str, Any]) -> list[str]:
    """The ``companion play`` arguments that set a game up as the journal recorded it."""
    args = [str(settings["game"])]
    if settings["game"] == "seises":
        args += ["--players", str(settings.get("players", 4))]
    if settings.get("deck"):
        args += ["--deck", str(settings["deck"])]
    for key, value in sorted(dict(settings.get("options") or {}).items()):
        args += ["--option", f"{key}={value}"]
    return args


def transcript(game: GameRecord, journal: Journal) -> str:
    """The game as ``companion play`` reads it: its arguments on the first line, then one action per line."""
    lines = [f"# {' '.join(play_arguments(game.settings))}", f"# game {game.id}, started {_when(game.started)}"]
    for entry in journal.entries(game.id):
        if entry.kind == "action":
            lines.append(entry.text)
        elif entry.kind == "undo":
            lines.append("undo")
        else:
            lines.append(f"# zone {entry.text}")
    return "\n".join(lines) + "\n"


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t > 1e9 else f"t={t:.0f}s"


def _line(game: GameRecord) -> str:
    settings = game.settings
    outcome = "in play" if game.outcome is None else f"won by {game.outcome.get('winner')}"
    return f"{game.id:4d}  {_when(game.started)}  {settings['game']:<9}  {game.entries:5d} entries  {outcome}"
