"""``companion demo``: the main job, a complete simulated game through the whole stack."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image

from companion.demo import Demo, save_gif
from companion.games import kinds


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play a complete simulated game through the whole stack (no hardware needed)",
        description="Robot players lay cards on simulated readers and press mock buttons. By default the demo "
        "tells the story (the first plays, the illegal attempt, the undo, each hand or set won, the standings and "
        "the final screen); --verbose prints every event as it happens.",
    )
    parser.add_argument(
        "--game", choices=[*kinds(), "all"], default="all", help="one game, or every game in turn (the default)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    parser.add_argument("--frames", type=Path, help="also write every screen as a PNG into this folder")
    parser.add_argument(
        "--journal", type=Path, help="the journal file, kept (default: a temporary one, removed at the end)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (registry and journal)")
    parser.add_argument("--lang", choices=["es", "en"], default="es", help="the table's language (default es)")
    parser.add_argument("--verbose", action="store_true", help="print every card laid, press, LED change and message")
    parser.add_argument("--gif", type=Path, help="also write the screens as an animated GIF to this file")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = list(kinds()) if args.game == "all" else [args.game]
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
    screens: list[tuple[float, Image.Image]] | None = [] if args.gif is not None else None
    for game in games:
        demo = Demo(
            game=game,
            seed=args.seed,
            frames=args.frames,
            journal_path=args.journal,
            language=args.lang,
            verbose=args.verbose,
            keep=args.keep,
            screens=screens,
        )
        try:
            status = demo.run()
        except OSError as exc:  # the journal (a JournalError says what to do) or a frame that cannot be written
            print(f"companion demo: {exc}", file=sys.stderr)
            return 1
        if status:
            return status
    if args.gif is not None and screens:
        try:
            count = save_gif(screens, args.gif)
        except OSError as exc:
            print(
                f"companion demo: --gif {args.gif}: cannot write it ({exc.strerror}); give another file",
                file=sys.stderr,
            )
            return 1
        print(f"{args.gif}: {count} screens")
    return 0
