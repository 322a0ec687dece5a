"""``companion demo``: the main job, a complete simulated game through the whole stack."""

from __future__ import annotations

import argparse
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
    for game in games:
        status = Demo(game=game, seed=args.seed, frames=args.frames, journal_path=args.journal).run()
        if status:
            return status
    return 0
