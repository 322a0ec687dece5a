"""``companion doctor [--config FILE] [--root DIR]``: check this Pi can run the table, and say how to fix what fails.

Exit status: 0 when every check passes, 1 when one fails, 2 when the config cannot be read (the other checks
still run, with what could be read of it or the defaults: an empty SD card still has its interfaces checked).
The output speaks the command line's language (docs/TRANSLATING.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from companion.doctor.checks import Check, System
from companion.doctor.diagnose import CONFIG, diagnose
from companion.i18n import _


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help=_("check SPI, I2C, the pin factory, device permissions, the readers, the display, the hub and the config"),
        description=_(
            "Check that this Pi can run the table: SPI and I2C switched on (I2C at 400 kHz), the device nodes there "
            "and open to the service user, the pin factory (lgpio on a Pi) and why, each reader's version register, "
            "the display's I2C address, the hub's handshake and the config. Each failure comes with the exact fix."
        ),
    )
    parser.add_argument(
        "--config", type=Path, help=_("the daemon's config file (default: /etc/companion/config.toml under --root)")
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("/"),
        help=_("look for /dev, /boot and /etc under this folder instead of / (an SD card mounted on another machine)"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, system: System | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up now: a test's capture replaces sys.stdout after import
    if not args.root.is_dir():
        print(
            _("--root {root}: no such folder; give the folder the Pi's / is mounted on").format(root=args.root),
            file=out,
        )
        return 2
    system = system or System(root=args.root.resolve())
    status = 0
    for check in diagnose(args.config, system):
        print(render(check), file=out, flush=True)
        if not check.ok:
            status = max(status, 2 if check.name == _(CONFIG) else 1)
    return status


def render(check: Check) -> str:
    """``✓ name: detail``, or ``✗ name: detail`` with ``fix: ...`` on the next line; a detail of several lines (a
    pin map's every mistake) goes on indented under its check, so that each line starts with a mark or a space.

    >>> print(render(Check("readers", True, "z1: MFRC522 v2.0\\nz2: MFRC522 v2.0", "")))
    ✓ readers: z1: MFRC522 v2.0
      z2: MFRC522 v2.0
    """
    first, *more = check.detail.splitlines() or [""]
    line = "\n".join([f"{'✓' if check.ok else '✗'} {check.name}: {first}", *(f"  {each.lstrip()}" for each in more)])
    return line if check.ok else f"{line}\n    {_('fix:')} {check.fix}"
