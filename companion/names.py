"""Which text can be a name that people read: a seat's name on the screen, the page and the club's board, a table's
name on the board. One rule for every entry point (the config, the page, a phone, the club's messages).

A name is drawn and logged as it is, so it may not hold what would change how the text around it is shown: control
characters (ESC starts a terminal's escape sequence, NUL ends a C string, BEL rings, a newline forges a log line),
the line and paragraph separators, the bidirectional overrides and isolates (U+202E turns the rest of a line
around), and lone surrogates (which no UTF-8 file or socket can carry)::

    >>> refused("Maribel"), refused("Ana María 🂡")
    (None, None)
    >>> refused("Eva\\x1b[2J"), refused("\\u202eanA")
    ('U+001B', 'U+202E')
"""

from __future__ import annotations

import unicodedata

__all__ = ["refused"]

# Unicode's bidirectional formatting characters (UAX #9, "Explicit Directional Formatting Characters" and the
# implicit marks): they reorder the text drawn after them
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# control, line separator, paragraph separator, surrogate
CATEGORIES = frozenset(("Cc", "Zl", "Zp", "Cs"))


def refused(text: str) -> str | None:
    """The first character of ``text`` a name may not hold, as ``U+XXXX``; None when it may be a name."""
    for char in text:
        if char in BIDI or unicodedata.category(char) in CATEGORIES:
            return f"U+{ord(char):04X}"
    return None
