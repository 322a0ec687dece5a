"""The Seises scoreboard on the 128x64 OLED: the pot and the reserve, a cell per seat, whose turn it is.

Registered with the screens (:mod:`companion.ui.screens`) by its view, :class:`~companion.games.seises.SeisesView`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PIL import ImageDraw

from companion.games.seises import SeisesView
from companion.ui.screens import (
    CELL_W,
    LINE_HEIGHT,
    WIDTH,
    Slot,
    card_icon,
    cell,
    first_fitting,
    footer,
    header_footer,
    put,
    put_on,
    register_screen,
    shorten,
    text_width,
)
from companion.view import tr

__all__ = ["MANO", "draw_final", "draw_scoreboard", "seat_labels"]

MANO = "*"  # after the mano's label: the seat that leads the hand


@dataclass(frozen=True, slots=True)
class _SeatCell:
    """The layout of a seat's cell for one number of grid rows: the fewer the rows, the taller the cell and
    the larger the cards left and the score, to be read across the table."""

    name: Slot
    icon_x: int  # the card outline beside the cards left, as tall as their digits
    cards: Slot
    score: Slot


# Grid rows -> cell layout. Each one is drawn by the tests with 8-character names, two-digit cards left and
# three-character scores (-45), in both languages. Up to 4 seats the cell has room for a second line.
_SEAT_CELLS: dict[int, _SeatCell] = {
    1: _SeatCell(Slot(1, 62, "bold", 11), 1, Slot(9, 18, "bold", 34), Slot(31, 31, "big", 34)),
    2: _SeatCell(Slot(1, 31, "body", 7), 1, Slot(8, 18, "body", 16), Slot(32, 30, "big", 16)),
    3: _SeatCell(Slot(1, 22, "small", 9), 25, Slot(31, 12, "body", 9), Slot(44, 18, "bold", 9)),
    4: _SeatCell(Slot(1, 22, "small", 7), 25, Slot(31, 12, "body", 7), Slot(44, 18, "body", 7)),
}


def draw_scoreboard(draw: ImageDraw.ImageDraw, view: SeisesView, *, language: str = "es", message: str = "") -> None:
    """Bote and reserve, then one cell per seat, then whose turn (or the last message).

    A seat's cell shows its name, its cards left and its score, with a bar under it that fills towards the
    target (50). The seat whose turn it is is drawn inverted; the mano's label is followed by '*'
    (:func:`seat_labels`). The fewer the seats, the taller the cells and the larger the numbers (see ``_SEAT_CELLS``).
    """
    if not 2 <= len(view.seats) <= 8:
        raise ValueError(f"a Seises table has 2 to 8 seats, this view has {len(view.seats)}")
    pot = f"{tr('pot', language)} {view.pot}"
    reserve = [f"{tr(key, language)} {view.reserve}" for key in ("reserve", "reserve_short")]
    if view.owed:
        owed = f"{tr('owed', language)} {view.owed}"
        reserve = [*(f"{text} {owed}" for text in reserve), owed]
    right = first_fitting(reserve, "body", WIDTH - text_width(pot, "body") - 4)
    hand = f"{tr('hand', language)} {view.hand}"
    rows = (len(view.seats) + 1) // 2
    layout = _SEAT_CELLS[rows]
    labels = seat_labels(view, layout.name)
    shown = view.turn if view.winner is None else view.winner
    label = tr("turn" if view.winner is None else "winner", language)
    room = WIDTH - text_width(hand, "body") - 4
    named = [f"{label}: {view.seats[shown].name}", f"{label}: {labels[shown].rstrip(MANO)}"]
    whose = first_fitting(named, "body", room)
    whose = shorten(whose, "body", room)  # a cell's label wider than the footer's room (the largest cells)
    header_footer(draw, (pot, right), footer(whose, hand, message))

    highlighted = view.winner if view.winner is not None else view.turn
    for index, seat in enumerate(view.seats):
        x, y, height = cell(index, rows)
        fill = 1
        if index == highlighted:
            draw.rectangle((x, y, x + CELL_W - 2, y + height - 1), fill=1)
            fill = 0
        put_on(draw, (x, y), layout.name, labels[index], fill, "left")
        card_icon(draw, x + layout.icon_x, y + layout.cards.baseline, layout.cards.size, fill)
        put_on(draw, (x, y), layout.cards, str(seat.cards_left), fill, "right" if rows > 2 else "left")
        put_on(draw, (x, y), layout.score, str(seat.score), fill, "right")
        filled = round(min(max(seat.score, 0), view.target) / view.target * (CELL_W - 4))
        if filled:
            draw.line((x + 1, y + height - 2, x + filled, y + height - 2), fill=fill)


def seat_labels(view: SeisesView, slot: Slot) -> list[str]:
    """Each seat's label in its cell: the player's name as far as it fits the slot, else the seat's number, and
    the mano's mark after it, always. Cut names are not marked with a '.': "Mari" reads as Maribel. Two names cut
    to the same letters are told apart by their seats' numbers in front ("3Mar", "5Mar")::

        >>> from companion.games.seises import Seat
        >>> seats = tuple(Seat(name, 10, 0, n) for n, name in enumerate(("Ana", "Mariano", "Maribel"), start=1))
        >>> seat_labels(SeisesView(seats, turn=0, mano=2, pot=0, reserve=50), Slot(1, 22, "small", 7))
        ['Ana', '2Mar', '3Ma*']
        >>> seats = tuple(Seat(f"Seat {n}", 10, 0, n, named=False) for n in range(1, 4))
        >>> seat_labels(SeisesView(seats, turn=0, mano=0, pot=0, reserve=50), Slot(1, 22, "small", 7))
        ['1*', '2', '3']
    """

    def kept(text: str, mark: str) -> str:  # the letters of ``text`` that fit with ``mark`` after them (one at least)
        while text[1:] and text_width(text + mark, slot.size) > slot.width:
            text = text[:-1]
        return text

    marks = [MANO if index == view.mano else "" for index in range(len(view.seats))]
    names = [seat.name if seat.named else str(seat.number) for seat in view.seats]
    labels = [kept(name, mark) for name, mark in zip(names, marks, strict=True)]

    def ambiguous(index: int) -> bool:  # another seat's name begins with the letters this label kept
        return any(other.startswith(labels[index]) for at, other in enumerate(names) if at != index)

    return [
        (kept(f"{seat.number}{seat.name}", mark) if seat.named and ambiguous(index) else labels[index]) + mark
        for index, (seat, mark) in enumerate(zip(view.seats, marks, strict=True))
    ]


# The last screen's standings: two columns of four seats, best first: the seat's name, then its score.
_STANDING = (Slot(1, 45, "small", 7), Slot(47, 15, "small", 7))
_STANDINGS_Y, _STANDING_H, _FOOTER_RULE_Y = 16, 9, 52


def draw_final(draw: ImageDraw.ImageDraw, view: SeisesView, *, language: str, title: str, footer: str) -> None:
    """The game's end over the final standings: who won (``title``), then every seat by its score, best first
    (ties in playing order), the winner inverted, then a line of what to do on the footer. A seat nobody named
    is written in full here ("Asiento 3"): there is room."""
    put(draw, (0, 0), title, "bold", WIDTH, align="center")
    draw.line((0, LINE_HEIGHT["bold"] + 1, WIDTH - 1, LINE_HEIGHT["bold"] + 1), fill=1)
    seats = tuple(replace(seat, named=True) for seat in view.seats)
    labels = seat_labels(replace(view, seats=seats, mano=-1), _STANDING[0])
    ranked = sorted(range(len(view.seats)), key=lambda index: -view.seats[index].score)
    for place, index in enumerate(ranked):
        x, y = (place // 4) * CELL_W, _STANDINGS_Y + (place % 4) * _STANDING_H
        fill = 1
        if index == view.winner:  # the top of the standings: a margin of a row around its text, to be read
            draw.rectangle((x, y - 1, x + CELL_W - 3, y + _STANDING_H - 1), fill=1)
            fill = 0
        put_on(draw, (x, y), _STANDING[0], labels[index], fill, "left")
        put_on(draw, (x, y), _STANDING[1], str(view.seats[index].score), fill, "right")
    draw.line((0, _FOOTER_RULE_Y, WIDTH - 1, _FOOTER_RULE_Y), fill=1)
    put(draw, (0, _FOOTER_RULE_Y + 2), footer, "body", WIDTH)


register_screen(SeisesView, draw_scoreboard, final=draw_final)
