"""The 6º SET scoreboard on the 128x64 OLED: whose turn and the draw pile, the 8 lines, the match's tallies.

Registered with the screens (:mod:`companion.ui.screens`) by its view,
:class:`~companion.games.sexto_set.SextoSetView`.
"""

from __future__ import annotations

from PIL import ImageDraw

from companion.decks import said_end
from companion.games.sexto_set import LINES, SextoSetView
from companion.i18n import Said
from companion.ui.screens import (
    CELL_W,
    WIDTH,
    Slot,
    cell,
    first_fitting,
    footer,
    header_footer,
    put_on,
    register_screen,
    text_width,
)
from companion.view import tr

__all__ = ["draw_scoreboard", "line_label"]

# A line's cell: its master card, the cards each pair placed (up to 12:12), the pair that leads it.
_LINE_CELL = (Slot(1, 16, "small", 7), Slot(18, 30, "body", 7), Slot(52, 10, "body", 7))


def draw_scoreboard(draw: ImageDraw.ImageDraw, view: SextoSetView, *, language: str = "es", message: str = "") -> None:
    """Whose turn and the draw pile (once a set ended: its result, master cards won, and the pair that leads
    the next set; once the match is over: its winner and the rule that named it), then the 8 lines, then the
    match: sets won and master cards won over the match (pair A - pair B), or the last message.

    A line's cell shows its master card, the cards each pair placed (A:B) and the pair that leads it; a
    line led by pair A is drawn inverted, so the split of the table reads at a glance.
    """
    if len(view.lines) != LINES:
        raise ValueError(f"6º SET has {LINES} lines, this view has {len(view.lines)}")
    header = (f"{tr('turn', language)}: {view.turn}", f"{tr('draw_pile', language)} {view.draw_pile}")
    if view.result is not None:
        result = tr("draw", language) if view.result == "draw" else f"{tr('winner', language)}: {view.result}"
        won = f"{view.masters_won[0]}-{view.masters_won[1]}"
        header = (f"{result} {won}", f"{tr('leads_next', language)}: {view.turn}")
    if view.match_result is not None:
        winner = view.match_result
        said = tr("draw", language) if winner == "draw" else f"{tr('winner', language)}: {winner}"
        header = (said, view.decided_by)
    sets = f"{tr('sets', language)} {view.sets_won[0]}-{view.sets_won[1]}"
    tally = f"{view.match_masters[0]}-{view.match_masters[1]}"
    masters = first_fitting(  # last, the word's initial, as the lines' master cards are named (M1R)
        [f"{tr(label, language)} {tally}" for label in ("masters", "masters_short")]
        + [f"{tr('masters', language)[:1]} {tally}"],
        "body",
        WIDTH - text_width(sets, "body") - 4,
    )
    header_footer(draw, header, footer(sets, masters, message))

    for index, line in enumerate(view.lines):
        x, y, height = cell(index, 4)
        fill = 1
        if line.leader == "A":
            draw.rectangle((x, y, x + CELL_W - 2, y + height - 1), fill=1)
            fill = 0
        put_on(draw, (x, y), _LINE_CELL[0], line_label(line.master_id, language), fill, "left")
        put_on(draw, (x, y), _LINE_CELL[1], f"{line.count_a}:{line.count_b}", fill, "center")
        put_on(draw, (x, y), _LINE_CELL[2], line.leader or "-", fill, "right")


def line_label(master_id: str, language: str) -> str:
    """A line as players name it, by its master card's end (a Spanish player reads "M4B" as blanco, not negro)::

    >>> line_label("M4B", "es"), line_label("M4B", "en"), line_label("M2R", "es"), line_label("X9", "es")
    ('M4N', 'M4B', 'M2R', 'X9')
    """
    end = said_end(master_id[1:]) if master_id[:1] == "M" and master_id[1:-1].isdigit() else master_id[1:]
    return master_id[:1] + (end.text(language) if isinstance(end, Said) else end)


register_screen(SextoSetView, draw_scoreboard)
