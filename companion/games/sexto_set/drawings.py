"""6º SET's own pictures for ``hardware/``: a turn at the table, one line and its pad in four steps, with the
referee's own words. ``python -m companion.documents`` writes each game's pictures (:data:`DRAWINGS`) beside the
assembly drawings (:mod:`companion.documents.assembly`)."""

from __future__ import annotations

from collections.abc import Callable

from companion.decks import load_deck
from companion.documents.drawings import COLOURS, Drawing, Label, Rect, circle
from companion.documents.sketches import GREEN_LIGHT, RED_LIGHT, Shape, arrow, card, screen
from companion.games.sexto_set import KIND
from companion.games.sexto_set.rules import DECK
from companion.i18n import translate
from companion.referee.texts import TEXT

__all__ = ["DRAWINGS", "turn"]


def turn(lang: str = "en") -> Drawing:
    """One line of 6º SET beside its pad, in four steps: the master card at the line's head and the pad empty;
    the card laid on the pad (green: OK); the card lifted to the line's end; a card laid on one left there
    (red: the referee names the card to lift). The words are the referee's own, in ``lang``."""

    deck = load_deck(DECK)

    def say(key: str, **fields: str) -> str:  # as the referee says it: the kind's text, else its own
        text = translate(KIND.texts.get(key) or TEXT[key], lang).format(**fields)
        return text[:1].upper() + text[1:]

    steps = [
        ("1. Before the set", "the master card heads its line beside", "the pad; the pad is empty", None, [], None),
        ("2. A turn: lay the card", "on its line's pad; green: OK", "(nothing else lies on the reader)", "N01",
         [], GREEN_LIGHT),
        ("3. Lift it to the line", "the card goes after the line's last", "card, off the pad: the pad is empty", None,
         ["N01"], None),
        ("4. Forgot to lift?", "a card laid on one left there: red;", "lift the old one: the new one plays", "N14",
         [], RED_LIGHT),
    ]  # fmt: skip
    shapes: list[Shape] = [Label(10, 10, "6º SET at the table: one line and its pad", size=2)]
    column = 270
    for index, (title, first, second, on_pad, line, light) in enumerate(steps):
        x = 20 + index * column
        shapes += [Label(x, 50, title), Label(x, 66, first, colour=COLOURS["pad"])]
        shapes.append(Label(x, 80, second, colour=COLOURS["pad"]))
        # the pad (the mat's rectangle, the reader's square under it), its LED, the line growing away from it
        shapes.append(Rect(x + 10, 110, 64, 90, COLOURS["ink"]))
        shapes.append(Rect(x + 22, 140, 40, 40, COLOURS["pad"], dashed=True))
        shapes.append(circle(x + 42, 100, 5, light or COLOURS["pad"]))
        shapes.append(Label(x + 42, 204, "z1", centred=True, colour=COLOURS["pad"]))
        shapes += card(x + 90, 124, "M1R")
        for offset, laid in enumerate(line, start=1):
            shapes += card(x + 90 + offset * 50, 124, laid)
        if on_pad is not None:
            shapes += card(x + 20, 124, on_pad, COLOURS["led"] if light == RED_LIGHT else GREEN_LIGHT)
            if index == 3:
                shapes.append(Label(x + 10, 214, "N01 still under it", colour=COLOURS["led"]))
        if index == 2:
            shapes += arrow(x + 42, 112, x + 158, 112, COLOURS["ink"])
        shapes.append(Label(x + 90, 192, "the line grows away ->"))
    # the referee's words at each step
    shapes += [Label(20, 240, "The screen says:", colour=COLOURS["pad"])]
    shapes += screen(20, 256, say("registered", master=deck["M1R"].name(lang), zone="z1"), say("registered_do"))
    shapes.append(Label(20, 300, '(zones "auto": each master card laid', colour=COLOURS["pad"]))
    shapes.append(Label(20, 314, "once on its pad, then lifted)", colour=COLOURS["pad"]))
    shapes.append(Label(20 + column, 262, "the scoreboard; the pad is green", colour=COLOURS["pad"]))
    shapes.append(Label(20 + 2 * column, 262, "the scoreboard: the line counts it", colour=COLOURS["pad"]))
    shapes += screen(
        20 + 3 * column, 256, say("lift_first", card=deck["N01"].name(lang), zone="z1"), say("lift_first_do")
    )
    return Drawing(width=20 + 4 * column, height=340, px_per_unit=2, shapes=shapes)


# file name (without its extension) in hardware/ -> the drawing, in English as the README's walkthrough quotes it
DRAWINGS: dict[str, Callable[[], Drawing]] = {"sexto-set-turn": turn}
