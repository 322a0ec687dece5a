"""The small figures the assembly drawings and a game's own pictures share: an arrow, a card, the OLED's message,
the LEDs' two lights. Shapes of :class:`~companion.documents.drawings.Drawing`, nothing drawn here."""

from __future__ import annotations

import math

from companion.documents.drawings import COLOURS, Label, Rect, Wire

__all__ = ["GREEN_LIGHT", "RED_LIGHT", "Shape", "arrow", "card", "screen"]

Shape = Rect | Wire | Label
GREEN_LIGHT = "#3cb043"  # a zone's LED: a legal play waits for OK
RED_LIGHT = "#d62728"  # a zone's LED: the card there is refused


def arrow(x0: float, y0: float, x1: float, y1: float, colour: str) -> list[Shape]:
    """A line from (x0, y0) to (x1, y1) with its head at the end."""
    angle = math.atan2(y1 - y0, x1 - x0)
    head = tuple((x1 - 8 * math.cos(angle + side), y1 - 8 * math.sin(angle + side)) for side in (0.5, -0.5))
    return [Wire(((x0, y0), (x1, y1)), colour), Wire((head[0], (x1, y1), head[1]), colour)]


def card(x: float, y: float, name: str, colour: str = COLOURS["ink"]) -> list[Shape]:
    """A card seen from above, its id written on it."""
    return [Rect(x, y, 44, 62, colour, fill="#ffffff"), Label(x + 22, y + 26, name, centred=True)]


def screen(x: float, y: float, title: str, todo: str) -> list[Shape]:
    """The OLED's message, as the referee says it (its first line, then what to do)."""
    return [
        Rect(x, y, 236, 40, COLOURS["ink"], fill="#111111"),
        Label(x + 6, y + 6, title, colour="#ffffff"),
        Label(x + 6, y + 22, todo, colour="#bbbbbb"),
    ]
