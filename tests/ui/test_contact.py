"""The contact sheet of a whole game, read back frame by frame: a game of each kind, in every language, with the
default config's unnamed seats, from the scoreboard before the first card to the game's end, every sentence whole."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest

from companion.config import GameConfig
from companion.examples import ExampleTable, message_is
from companion.examples.contact import GAP, contact_sheet, game_frames
from companion.games import kinds
from companion.i18n import languages
from companion.ui.fonts import ELLIPSIS
from companion.ui.reading import words
from companion.ui.screens import HEIGHT, WIDTH
from companion.view import MessageKind


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("game", sorted(kinds()))
def test_a_whole_game_is_read_from_its_first_screen_to_its_end(
    game: str, language: str, example_table: Callable[..., ExampleTable]
) -> None:
    frames = game_frames(game, language)
    read = [words(frame) for frame in frames]
    assert len(read) >= 10 and all(ELLIPSIS not in text for text in read), read
    table = example_table(GameConfig(game, language=language))  # the same seed: the same game
    first = kinds()[game].who(table.referee.current_game.snapshot()["turn"], language)  # "seat 1", "pair A"
    end = table.until(message_is(MessageKind.END_OF_GAME)).message
    assert end is not None and read[-1].startswith(end.title), f"the game's end, last: {read[-1]!r}"
    assert first.lower() in "\n".join(read).lower(), "nobody named the seats: the table says them by number"
    assert all(before != after for before, after in pairwise(read)), "each frame another"


def test_the_sheet_lays_the_frames_in_rows_as_they_came() -> None:
    frames = game_frames("sexto-set", "en")[:6]
    sheet = contact_sheet(frames, columns=4)
    assert sheet.size == (GAP + 4 * (WIDTH + GAP), GAP + 2 * (HEIGHT + GAP))
    fifth = sheet.crop((GAP, 2 * GAP + HEIGHT, GAP + WIDTH, 2 * (GAP + HEIGHT)))
    assert fifth.tobytes() == frames[4].convert("1").tobytes()
