"""``companion screens --out DIR``: every screen, for example table states, as PNG files."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image

from companion.examples import example_views
from companion.examples.contact import contact_sheets
from companion.i18n import _, languages, ngettext
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "screens",
        help=_("draw every OLED screen for example states into PNG files"),
        description=_(
            "Draw every OLED screen, in every language, for example table states, through the real SSD1306 driver, "
            "and write each frame as <language>-<screen>.png, and a whole game of each kind on one sheet as "
            "<language>-<game>-whole-game.png."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help=_("folder for the PNG files (created if missing)"))
    parser.add_argument(
        "--scale", type=int, default=1, help=_("pixels per OLED pixel (1 gives the 128x64 frames themselves)")
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.scale < 1:
        said = _("--scale {scale}: give a whole number of at least 1").format(scale=args.scale)
        print(f"companion screens: {said}", file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=args.out).close()
    except OSError as exc:
        said = _("--out {folder}: cannot write there ({error}); give a folder you may write to")
        print("companion screens: " + said.format(folder=args.out, error=exc.strerror or exc), file=sys.stderr)
        return 2
    frames = render_examples() | contact_sheets()
    for name, image in frames.items():
        if args.scale > 1:
            image = image.resize((image.width * args.scale, image.height * args.scale), Image.Resampling.NEAREST)
        image.save(args.out / f"{name}.png")
    wrote = ngettext("wrote {count} PNG file to {folder}", "wrote {count} PNG files to {folder}", len(frames))
    print("companion screens: " + wrote.format(count=len(frames), folder=args.out))
    return 0


def render_examples() -> dict[str, Image.Image]:
    """Each example screen as the panel shows it: drawn by the ssd1306 driver, decoded from its I2C bytes."""
    bus = FakeI2CBus()
    screen = Screen(make_device([], bus=bus))
    frames: dict[str, Image.Image] = {}
    for language in languages():
        for name, view in example_views(language).items():
            screen.show(view, now=0.0)
            frames[f"{language}-{name}"] = bus.last_image()
    return frames
