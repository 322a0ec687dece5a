"""``python -m companion.documents [--lang LANG] [PINMAP]``: redraw the wiring diagrams and play mats of hardware/
and the layers' picture of docs/. The mats print their words in LANG (default: Spanish, the table's default, as
the committed ones are)."""

from __future__ import annotations

import sys

from companion.documents.drawings import draw_all
from companion.documents.layers import DOCS_DIR, write_layers
from companion.hardware import HARDWARE_DIR, load_pinmap
from companion.i18n import DEFAULT_LANGUAGE, languages


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    lang = DEFAULT_LANGUAGE
    if args[:1] == ["--lang"] and len(args) > 1 and args[1] in languages():
        lang, args = args[1], args[2:]
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]) or args[:1] == ["--lang"]:
        print(f"usage: python -m companion.documents [--lang {'|'.join(languages())}] [PINMAP]", file=sys.stderr)
        return 2
    written = draw_all(load_pinmap(args[0] if args else None), HARDWARE_DIR / "zones.toml", HARDWARE_DIR, lang)
    for path in written + write_layers(DOCS_DIR):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
