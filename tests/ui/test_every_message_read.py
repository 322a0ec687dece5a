"""Every sentence the table can put on the OLED is read whole, as a person reads the panel: every message of the
referee's catalogue and of each game kind's, every refusal of the rules, in every language and every layout a
message takes (over the whole screen, on an alarm's inverted bar, on a game's footer a line at a time, under a
game's last screen), filled with the longest values a table reaches (pot 50, seat 8 unnamed, three-digit scores,
the longest card names); drawn by the real :class:`~companion.ui.display.Screen` through the real ssd1306 driver on
the simulated I2C bus, its pages turned by :meth:`~companion.ui.display.Screen.tick`, and read back with
:mod:`companion.ui.reading`. A word cut, hidden or left out fails here.

The messages are not listed by hand: they come from the catalogue dicts themselves, so a key added to a catalogue
is read here at once (and a field no value below fills fails the test that fills it).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import pytest

from companion.decks import BUILTIN_DECKS, SUITS, Kind, load_deck
from companion.events import Button, Press
from companion.examples import example_views
from companion.examples.contact import page_frames
from companion.games import AnyKind, kinds
from companion.games.seises.rules import Seises, fitting
from companion.games.sexto_set.rules import OpenEnds, SextoSet
from companion.i18n import Plural, languages, say, translate
from companion.menu import Menu, Settings
from companion.referee import texts
from companion.rules import IllegalPlay, Play
from companion.rules.base import SENTENCES
from companion.ui.fonts import ELLIPSIS, drawable
from companion.ui.reading import read
from companion.view import MenuView, Message, MessageKind, TableView

FOOTER_Y = 54  # the footer line's top row
GAMES = {kind.name: kind for kind in kinds().values()}
SCOREBOARDS = {"seises": "seises-8-seats", "sexto-set": "sexto-set"}  # each game's busiest example scoreboard
FINALS = {"seises": "message-end-of-game"}  # the end over a game's last screen (a game without one: the whole screen)


def test_every_game_has_a_scoreboard_to_read_its_messages_on() -> None:
    """A new game kind needs its scoreboards here, or its messages would go unread."""
    assert set(SCOREBOARDS) == set(GAMES)


def longest(words: Iterator[str]) -> str:
    return max(words, key=len)


@cache
def card_names(lang: str) -> dict[Kind, str]:
    """The longest name of each kind of card in the built-in decks, in ``lang``."""
    cards = [card for deck in BUILTIN_DECKS for card in load_deck(deck)]
    return {kind: longest(card.name(lang) for card in cards if card.kind is kind) for kind in {c.kind for c in cards}}


def seat(lang: str) -> str:
    """Seat 8 as the table names it when nobody named the seats (the default), longer than the example names."""
    return translate(texts.TEXT["seat"], lang).format(n=8)


def fields(lang: str) -> dict[str, object]:
    """The longest value of every field a catalogue's sentence has, in ``lang``."""
    card = longest(iter(card_names(lang).values()))
    suit = longest(translate(name, lang) for name in SUITS.values())
    return {
        "zone": "z8",
        "zones": "z7, z8",
        "card": card,
        "suit": suit,
        "seat": seat(lang),
        "chips": 50,  # the whole pot
        "hand": 99,
        "score": 150,  # three digits
        "pair": "B",
        "left": 8,
        "master": card_names(lang)[Kind.MASTER],
        "action": card,
        "game": longest(translate(kind.caption, lang) for kind in GAMES.values()),
        "n": 8,
        "points": 50,
        "penalty": say(GAMES["seises"].texts["penalty"], lang, points=50),
        "leads": "B",
        "name": seat(lang),
        "low": 4,
        "high": 8,
        "players": 8,
        "scanned": 16,
        "named": 16,
        "who": translate("seat {seat}", lang).format(seat=8),  # whoever plays next, as a kind says it
    }


def details(lang: str) -> dict[str, object]:
    """The longest fields a refusal can have, in ``lang``."""
    names = card_names(lang)
    knight_of_swords = load_deck("spanish-48")["11E"]
    return {
        "name": names[Kind.NORMAL],
        "top": names[Kind.SPANISH],
        "suit": longest(translate(name, lang) for name in SUITS.values()),
        "row": "10-12",
        "needed": fitting([knight_of_swords, knight_of_swords]),  # longer than any two cards that fit
        "card": "CENTRAL",
        "deck": "spanish-48",
        "line": "M4B",
        "open": OpenEnds({"4B", "3R"}),  # a card laid either way round: either end
        "allowed": 12,
        "game": "6º SET",
        "verb": "play M4B N32",
        "hint": longest(translate(game.turn_hint, lang) for game in (Seises, SextoSet)),
        "held": 20,
        "idle": 35,
    }


ONE = dict.fromkeys(("chips", "left", "points", "allowed", "scanned", "n", "held", "idle", "players"), 1)


def said(catalogue: dict[str, str], key: str, lang: str, **counts: int) -> str:
    """The sentence ``key``, as the referee says it: filled (``counts`` in place of the longest), its first letter a
    capital."""
    text = say(catalogue[key], lang, **(fields(lang) | counts))
    return text[:1].upper() + text[1:]


def messages(kind: AnyKind, lang: str) -> list[tuple[str, str]]:
    """Every (title, what to do) the table can say at a game of ``kind``: each sentence of the referee's catalogue
    and the kind's, with its line of what to do (a line of what to do also alone, and under a title: the referee
    puts some together), and every refusal of the rules. A sentence said of a count (:class:`~companion.i18n.Plural`)
    is said of one too, in its other form."""
    catalogue = {**texts.TEXT, **kind.texts}
    todo = {**texts.TODO, **kind.todo}
    found = []
    for counts in ({}, ONE):
        for key in catalogue:
            if counts and not isinstance(catalogue[key], Plural):
                continue
            found.append(
                (
                    said(catalogue, key, lang, **counts),
                    said(catalogue, todo[key], lang, **counts) if key in todo else "",
                )
            )
            found.append((said(catalogue, "stopped", lang), said(catalogue, key, lang, **counts)))
        for reason in SENTENCES:
            if type(reason).__module__.startswith("companion."):  # not a test's own game
                refusal = IllegalPlay(Play("X"), reason, **(details(lang) | counts))
                found.append((refusal.title(lang), refusal.todo(lang)))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Panel:
    """What the panel showed for a view: each page's frame read back, a line of text a line."""

    pages: list[list[tuple[int, str]]]  # each page: (top row, text) of each line read


def shown(view: TableView) -> Panel:
    """The frames the screen sends for ``view`` as its pages turn (once round), read back."""
    return Panel([[(line.y, line.text) for line in read(frame)] for frame in page_frames(view)])


def whole(*parts: str) -> str:
    """The words of a sentence as they are drawn (the fonts' own look-alikes for what they lack)."""
    return " ".join(drawable(" ".join(parts)).split())


def read_as(lines: list[tuple[int, str]]) -> str:
    return " ".join(" ".join(text for _y, text in lines).split())


def assert_read_whole(read_back: str, title: str, todo: str, layout: str) -> None:
    sentence = whole(title, todo)
    assert ELLIPSIS not in read_back, f"{layout}: {sentence!r} is cut: {read_back!r}"
    assert read_back == sentence, f"{layout}: {sentence!r} reads {read_back!r}"


def game_view(name: str, lang: str, example: dict[str, str]) -> TableView:
    return example_views(lang)[example[name]]


@pytest.mark.slow
@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("kind", [MessageKind.ILLEGAL, MessageKind.HUB_LOST])
def test_every_message_over_the_whole_screen_is_read_whole(kind: MessageKind, lang: str) -> None:
    """A message that needs the players covers the scoreboard: its title in bold (inverted for an alarm), then
    what to do."""
    said = dict.fromkeys(message for game in GAMES.values() for message in messages(game, lang))
    scoreboard = game_view("seises", lang, SCOREBOARDS).game
    for title, todo in said:
        panel = shown(TableView(scoreboard, Message(kind, title, todo), language=lang))
        assert len(panel.pages) == 1
        assert_read_whole(read_as(panel.pages[0]), title, todo, kind)


def test_a_word_cut_or_a_line_lost_fails_the_reading() -> None:
    """The check reads what the panel shows: a word wider than the screen is cut with an ellipsis, and a message
    longer than the screen loses its last lines; both fail."""
    for title, todo in (("Reader", "Unplugged" * 3), ("Reader down", " ".join(["Check its cable"] * 6))):
        panel = shown(TableView(message=Message(MessageKind.ILLEGAL, title, todo)))
        with pytest.raises(AssertionError, match=r"is cut|reads"):
            assert_read_whole(read_as(panel.pages[0]), title, todo, "test")


@pytest.mark.slow
@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_message_on_the_footer_is_read_whole_a_line_at_a_time(game: str, lang: str) -> None:
    """A message that needs nobody (news, a renuncio) takes the scoreboard's footer line, a line of it at a time."""
    scoreboard = game_view(game, lang, SCOREBOARDS).game
    for title, todo in messages(GAMES[game], lang):
        panel = shown(TableView(scoreboard, Message(MessageKind.INFO, title, todo), language=lang))
        footer = [[(y, text) for y, text in page if y >= FOOTER_Y] for page in panel.pages]
        assert all(len(page) == 1 for page in footer), f"one line a page: {footer}"
        assert_read_whole(read_as([line for page in footer for line in page]), title, todo, "footer")


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("game", sorted(FINALS))
def test_a_games_end_is_read_whole_over_its_final_standings(game: str, lang: str) -> None:
    """The end of a game tops its last screen in one line, over the standings; what to do turns on the footer.
    Every way a game's end is said, with the longest values: the real end of the examples' game, its title said
    with the longest fields."""
    final = game_view(game, lang, FINALS)
    assert final.message is not None and final.message.kind is MessageKind.END_OF_GAME
    kind = GAMES[game]
    catalogue = {**texts.TEXT, **kind.texts}
    ends = [key for key in catalogue if key in ENDS]
    assert ends, f"{game} says its end with none of {ENDS}"
    for key in ends:
        title = said(catalogue, key, lang)
        panel = shown(TableView(final.game, Message(MessageKind.END_OF_GAME, title, final.message.todo), language=lang))
        top = [text for page in panel.pages for y, text in page if y == 0]
        assert set(top) == {whole(title)}, f"{title!r} reads {top}"
        footer = [line for page in panel.pages for line in page if line[0] >= FOOTER_Y]
        assert_read_whole(read_as(footer), "", final.message.todo, "final")


ENDS = {"game_won", "match_won", "match_drawn"}  # the titles a game's end is said with (GameKind.said)


def menus(language: str) -> Iterator[MenuView]:
    """Every state of the menu the buttons reach, at a table of each game's zones, its page served or not."""
    for zones in (GAMES["seises"].default_zones(), GAMES["sexto-set"].default_zones()):
        for pairing in (False, True):
            start = Menu(Settings(language=language), pairing=pairing, zones=zones)
            waiting, seen = [start], set()
            while waiting:
                menu = waiting.pop()
                state = (menu.settings, menu.editing, menu.selected, menu.sure)
                if state in seen:
                    continue
                seen.add(state)
                yield menu.view()
                for button in (Button.PASS, Button.CONFIRM, Button.UNDO):
                    after = copy.deepcopy(menu)
                    after.press(Press(button, "short", 0.0))
                    waiting.append(after)


@pytest.mark.parametrize("language", languages())
def test_every_state_of_the_menu_is_read_whole(language: str) -> None:
    """The menu's own words (:data:`companion.view.STRINGS`) as the buttons bring them: its title, the lines shown
    around the chosen one, the hint of what the buttons do."""
    views = list(dict.fromkeys(menus(language)))  # each one drawn once
    assert len({view.title for view in views}) >= 5, "the first level and each setting's values"
    for view in views:
        lines = [text for _y, text in shown(TableView(menu=view)).pages[0]]
        assert lines[0] == whole(view.title), f"the title of {view}"
        assert lines[-1] == whole(view.hint), f"the hint of {view}"
        assert len(lines[1:-1]) == min(4, len(view.items)) and set(lines[1:-1]) <= {whole(i) for i in view.items}, (
            f"{view.items} read {lines}"
        )
