"""Every message the referee can put on the screen fits the 128x64 OLED, in every language, with the longest
names the decks have: a text that does not fit fails here, not on a table. Fits means: drawn with the real fonts,
every lit pixel is on the display, and the table (which cuts what does not fit) shows the whole message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum

import pytest
from PIL import Image, ImageDraw

from companion.decks import SUITS, load_deck
from companion.games import kinds
from companion.games.seises import END_OF_HAND
from companion.games.seises.rules import Seises, fitting
from companion.games.sexto_set.rules import SextoSet
from companion.i18n import languages, say, translate
from companion.referee import texts
from companion.rules import IllegalPlay, Play
from companion.rules.base import SENTENCES
from companion.ui.screens import LINE_HEIGHT, covers_scoreboard, draw_message, render
from companion.view import Message, MessageKind, TableView

LONGEST = {
    lang: max(
        (card.name(lang) for deck in ("spanish-48", "squadratik") for card in load_deck(deck)),
        key=len,
    )
    for lang in ("es", "en")
}
SUIT = {lang: max((translate(suit, lang) for suit in SUITS.values()), key=len) for lang in ("es", "en")}
KNIGHT_OF_SWORDS = load_deck("spanish-48")["11E"]


def details(lang: str) -> dict[str, object]:
    """The longest fields a refusal can have, in ``lang``."""
    return {
        "name": LONGEST[lang],
        "top": LONGEST[lang],  # the card to climb above (the toy game's, companion/games/escalera/)
        "suit": SUIT[lang],
        "row": "10-12",
        "needed": fitting([KNIGHT_OF_SWORDS, KNIGHT_OF_SWORDS]),  # longer than any two cards that fit
        "card": "CENTRAL",
        "deck": "spanish-48",
        "line": "M4B",
        "open": "* | 0 | 4B",
        "allowed": 12,
        "game": "6º SET",
        "verb": "play M4B N32",
        "hint": max((translate(game.turn_hint, lang) for game in (Seises, SextoSet)), key=len),
        "held": 20,
        "idle": 35,
    }


OnScreen = Callable[[Callable[[ImageDraw.ImageDraw], object]], Image.Image]


def fits(on_screen: OnScreen, message: Message) -> None:
    """``message`` lies on the display whole: TextOverflow if the layout finds it too long, an assertion if its
    pixels reach past the display or the table's drawing of it is not the same (cut or lost lines)."""
    drawn = on_screen(lambda draw: draw_message(draw, message))
    whole = message if covers_scoreboard(message) else replace(message, kind=MessageKind.QUESTION)  # same layout
    assert render(TableView(message=whole)).tobytes() == drawn.tobytes(), f"the table cuts {message}"


@pytest.mark.parametrize("lang", ["es", "en"])
# every reason of the package's games (the engines add theirs, the toy game too; a test's game has its own words)
@pytest.mark.parametrize("reason", [reason for reason in SENTENCES if type(reason).__module__.startswith("companion.")])
def test_every_refusal_fits_the_screen(reason: StrEnum, lang: str, on_screen: OnScreen) -> None:
    refusal = IllegalPlay(Play("X"), reason, **details(lang))
    fits(on_screen, Message(MessageKind.ILLEGAL, refusal.title(lang), refusal.todo(lang)))


# The referee's words and every game kind's, as the referee looks them up.
TEXT = {
    key: text
    for catalogue in (texts.TEXT, *(kind.texts for kind in kinds().values()))
    for key, text in catalogue.items()
}
TODO = {
    key: todo
    for catalogue in (texts.TODO, *(kind.todo for kind in kinds().values()))
    for key, todo in catalogue.items()
}

# Lines the referee puts together itself: a fragment, or a "what to do" line with another title than its own.
PIECES = {"seat", "penalty", "renege_do", "renege_hand", "new_game_names_do", "renege_points"}
TITLES = sorted(set(TEXT) - set(TODO.values()) - PIECES)
BUILT = [("renege", "renege_hand"), ("new_game", "new_game_names_do"), ("game_won", "renege_points")]


def fields(lang: str) -> dict[str, object]:
    names = "es" if lang == "es" else "en"  # the decks name cards in Spanish and English
    return {
        "zone": "z8",
        "zones": "z1, z8",
        "card": LONGEST[names],
        "suit": SUIT[names],
        "seat": "Asiento 8",
        "chips": 50,
        "hand": 12,
        "score": 99,
        "pair": "A",
        "left": 8,
        "master": "maestra 4 negra",
        "action": LONGEST[names],
        "game": "sexto-set",
        "n": 8,
        "points": 50,
        "penalty": say(TEXT["penalty"], lang, points=50),
        "leads": "B",
        "name": "Maximiliano",
        "low": 4,
        "high": 8,
        "players": 8,
        "scanned": 16,
        "named": 16,
        "who": translate("seat {seat}", lang).format(seat=8),  # whoever plays next, as a kind says it
    }


def filled(key: str, lang: str) -> str:
    return say(TEXT[key], lang, **fields(lang))


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("key", TITLES)
def test_every_referee_message_fits_the_screen(key: str, lang: str, on_screen: OnScreen) -> None:
    todo = filled(TODO[key], lang) if key in TODO else ""
    fits(on_screen, Message(MessageKind.INFO, filled(key, lang), todo))


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize(("title", "todo"), BUILT)
def test_every_message_the_referee_puts_together_fits_the_screen(
    title: str, todo: str, lang: str, on_screen: OnScreen
) -> None:
    todo_text = filled(todo, lang)
    if title == "game_won":  # a renuncio on the game's last card comes before what to do next
        todo_text = f"{todo_text}. {filled('new_game_do', lang)}"
    fits(on_screen, Message(END_OF_HAND, filled(title, lang), todo_text))


def test_a_layout_that_misjudges_the_fonts_height_fails_the_check(
    on_screen: OnScreen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check looks at the pixels: a line height smaller than the font's own lets the layout believe that a
    long message fits, and its last lines are drawn past the bottom of the display."""
    message = Message(MessageKind.QUESTION, "Title", " ".join(["quip"] * 32))  # 8 rows, descenders
    monkeypatch.setitem(LINE_HEIGHT, "body", 6)  # the 6x10 font's rows need 10
    with pytest.raises(AssertionError, match="past the 128x64 display"):
        fits(on_screen, message)
