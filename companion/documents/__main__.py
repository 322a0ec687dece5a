"""``python -m companion.documents [PINMAP]``: redraw the wiring diagrams, assembly pictures and play mats of
hardware/ (each mat in every language of the catalogues, one file each: mats/LANG/NAME.svg), write each table
layout's files (hardware/layouts/NAME/), the layers' picture of docs/ and their table in docs/EXTENDING.md, and the
sample config, systemd/config.toml (from the config's schema, :func:`companion.config.sample_config`)."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.config import sample_config
from companion.documents.assembly import write_assembly
from companion.documents.drawings import draw_all
from companion.documents.layers import DOCS_DIR, write_layer_table, write_layers
from companion.hardware import HARDWARE_DIR, LAYOUTS, load_pinmap

SAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "systemd" / "config.toml"  # the checkout's


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]) or args[:1] == ["--lang"]:
        print("usage: python -m companion.documents [PINMAP]", file=sys.stderr)
        return 2
    pinmap = load_pinmap(args[0] if args else None)
    written = draw_all(pinmap, LAYOUTS, HARDWARE_DIR) + write_assembly(pinmap, HARDWARE_DIR)
    SAMPLE_CONFIG.write_text(sample_config(), "utf-8")
    for path in [*written, *write_layers(DOCS_DIR), write_layer_table(DOCS_DIR / "EXTENDING.md"), SAMPLE_CONFIG]:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
