"""Bitmap fonts for the OLED (see LICENSE.txt), and what of a text they can draw.

The fonts cover Latin-1 only. Text from a tag, a deck file or the config may hold anything (emoji, a right-to-left
mark, Cyrillic), so every text is passed through :func:`drawable` before it is measured or drawn::

    >>> drawable("Erdős 🂡 ‏café…")
    'Erdos ? café\\x85'
"""

from __future__ import annotations

import unicodedata

__all__ = ["ELLIPSIS", "REPLACEMENT", "drawable"]

# Slot 0x85 is a C1 control code, never text: the fonts carry an ellipsis glyph there (see LICENSE.txt).
ELLIPSIS = "\x85"
REPLACEMENT = "?"
_GLYPHS = frozenset(map(chr, [*range(0x20, 0x7F), *range(0xA0, 0x100)]))


def drawable(text: str) -> str:
    """``text`` with only characters the fonts have a glyph for.

    A letter with an accent the fonts lack keeps its letter (ő → o, ﬁ → fi); an invisible mark (right-to-left,
    zero-width, a lone combining accent) is left out; a control character or another kind of space is a space;
    anything else (an emoji, a CJK character) is '?'. An ellipsis '…' is the fonts' own one-cell ellipsis.
    """
    out = []
    for char in unicodedata.normalize("NFC", text):
        if char in _GLYPHS:
            out.append(char)
        elif char == "…":
            out.append(ELLIPSIS)
        elif unicodedata.category(char) in ("Cf", "Mn", "Me"):
            continue
        elif unicodedata.category(char) in ("Cc", "Zs", "Zl", "Zp"):
            out.append(" ")
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", char) if c in _GLYPHS)
            out.append(base or REPLACEMENT)
    return "".join(out)
