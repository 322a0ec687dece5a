"""``python -m companion.documents [PINMAP]``: redraw the wiring diagrams, assembly pictures and play mats of
hardware/ (each mat in every language of the catalogues, one file each: mats/LANG/NAME.svg), write each table
layout's files (hardware/layouts/NAME/), the layers' picture of docs/ and their table in docs/EXTENDING.md, and the
sample config, systemd/config.toml (from the config's schema, :func:`companion.config.sample_config`).

Installed (``sudo make install``: the package in ``/opt/companion/venv``, with no checkout's hardware/ and docs/
beside it), it draws what the pin map alone makes, the wiring diagrams of ``PINMAP`` (the owner's
``/etc/companion/pinmap.toml``), into the current folder, and says that the rest is redrawn in a checkout. A pin
map with mistakes is refused with every one of them (exit 2), as ``companion run --check`` names them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from companion.config import sample_config
from companion.documents.assembly import write_assembly
from companion.documents.drawings import draw_all, wiring_hub, wiring_pi, write_drawings
from companion.documents.layers import DOCS_DIR, write_layer_table, write_layers
from companion.hardware import HARDWARE_DIR, LAYOUTS, PinMap, PinMapError, load_pinmap
from companion.i18n import N_, Said, _, choose_language, language, os_reason, set_language

SAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "systemd" / "config.toml"  # the checkout's


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    set_language(choose_language(None, None, os.environ))
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]) or args[:1] == ["--lang"]:
        print(_("usage: python -m companion.documents [PINMAP]"), file=sys.stderr)
        return 2
    try:
        pinmap = load_pinmap(args[0] if args else None)
    except PinMapError as exc:
        print(exc.text(language()), file=sys.stderr)
        return 2
    if not LAYOUTS.is_file():
        return draw_installed(pinmap)
    written = draw_all(pinmap, LAYOUTS, HARDWARE_DIR) + write_assembly(pinmap, HARDWARE_DIR)
    SAMPLE_CONFIG.write_text(sample_config(), "utf-8")
    for path in [*written, *write_layers(DOCS_DIR), write_layer_table(DOCS_DIR / "EXTENDING.md"), SAMPLE_CONFIG]:
        print(path)
    return 0


def draw_installed(pinmap: PinMap) -> int:
    """Outside a checkout: the wiring diagrams of ``pinmap`` into the current folder, each file named."""
    drawings = {"wiring-pi": wiring_pi(pinmap)}
    if pinmap.hub is not None:
        drawings["wiring-hub"] = wiring_hub(pinmap)
    try:
        written = write_drawings(drawings, Path.cwd())
    except OSError as exc:
        refused = Said(
            N_("cannot write the wiring diagrams into {folder} ({reason}): run it in a folder of yours (cd ~)"),
            folder=Path.cwd(),
            reason=os_reason(exc),
        )
        print(refused.text(language()), file=sys.stderr)
        return 2
    for path in written:
        print(path)
    said = _(
        "above: the wiring diagrams of {pinmap}. The play mats, the layouts' files and the documents are redrawn in "
        "a checkout of companion's source, with .venv/bin/python -m companion.documents (this one is installed: "
        "no {folder})"
    )
    print(said.format(pinmap=pinmap.source, folder=HARDWARE_DIR))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
