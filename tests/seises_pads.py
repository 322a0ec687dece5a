"""Where a Seises mat says a card goes, for the tests that lay cards as the players read it: its suit's pad (or any
pad, on a mat whose pads take any card), and of a suit's two pads the one whose ranks hold the card's."""

from __future__ import annotations

from companion.hardware import Layout, Pad


def seises_pad(layout: Layout, suit: str, rank: int) -> Pad:
    """The first pad of ``layout`` that takes the card of ``suit`` and ``rank``."""
    for pad in layout.pads:
        if pad.role in ("table", suit) and (pad.ranks is None or pad.ranks[0] <= rank <= pad.ranks[1]):
            return pad
    raise ValueError(f"{layout.name}: no pad takes a card of suit {suit} and rank {rank}")
