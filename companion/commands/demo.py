"""``companion demo``: the main job, a complete simulated game through the whole stack."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from companion.demo import Demo


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play a complete simulated game through the whole stack (no hardware needed)",
        description="Robot players lay cards on simulated readers and press mock buttons; the screens and LED "
        "changes are printed as they happen.",
    )
    parser.add_argument("--game", choices=["seises", "sexto-set", "both"], default="both")
    parser.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    parser.add_argument("--frames", type=Path, help="also write every screen as a PNG into this folder")
    parser.add_argument("--journal", type=Path, help="the journal file (default: a new temporary one)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = ["seises", "sexto-set"] if args.game == "both" else [args.game]
    try:
        if args.frames is not None:  # said before the game, not after it
            args.frames.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=args.frames).close()
    except OSError as exc:
        where = f"--frames {args.frames}"
        print(
            f"companion demo: {where}: cannot write there ({exc.strerror}); give a folder you may write to",
            file=sys.stderr,
        )
        return 2
    for game in games:
        try:
            status = Demo(game=game, seed=args.seed, frames=args.frames, journal_path=args.journal).run()
        except OSError as exc:  # the journal (a JournalError says what to do) or a frame that cannot be written
            print(f"companion demo: {exc}", file=sys.stderr)
            return 1
        if status:
            return status
    return 0
