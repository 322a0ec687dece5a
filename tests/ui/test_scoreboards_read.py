"""The scoreboards with the longest values a table reaches, read back from the frames the real ssd1306 driver sent,
in every language, with the default config's unnamed seats: every number is on the panel whole (pot 50, scores of
three characters, 99 and -45, as the layouts are drawn for; 8 seats, two-digit hands and cards left; a long match's
sets and three-digit master cards), no text cut."""

from __future__ import annotations

import pytest

from companion.decks import load_deck
from companion.games import find_kind
from companion.games.seises import Seat, SeisesView
from companion.games.sexto_set import Line, SextoSetView
from companion.i18n import languages, translate
from companion.referee.texts import TEXT
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.fonts import ELLIPSIS
from companion.ui.reading import read
from companion.view import TableView, tr

SEISES = find_kind("seises")
COUNTS = sorted({n for deck in SEISES.decks for n in SEISES.player_counts(load_deck(deck))})


def lines_read(view: TableView) -> list[str]:
    bus = FakeI2CBus()
    Screen(make_device([], bus=bus)).show(view, now=0.0)
    return [line.text for line in read(bus.last_image())]


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("players", COUNTS)
def test_a_seises_scoreboard_at_its_longest_is_read_whole(players: int, language: str) -> None:
    cards = 48 // players  # a full hand: two digits up to 4 seats
    seats = tuple(
        Seat(translate(TEXT["seat"], language).format(n=n), cards, 106 - 7 * n if n % 2 else 7 * n - 59, n, named=False)
        for n in range(1, players + 1)
    )
    every = {str(seat.score) for seat in seats}  # 99, -45, 92, -31...: three characters, two digits
    scores = []
    for turn in (0, players - 1):  # the turn's cell is inverted, its score against the cell's edge: read elsewhere
        game = SeisesView(seats, turn=turn, mano=0, pot=50, reserve=50, hand=99)
        shown = lines_read(TableView(game, language=language))
        assert not [text for text in shown if ELLIPSIS in text], shown
        assert f"{tr('pot', language)} 50" in shown, "the whole pot"
        assert any(text.endswith(" 50") and text != f"{tr('pot', language)} 50" for text in shown), "the reserve"
        assert f"{tr('hand', language)} 99" in " ".join(shown), "the hand"
        assert all(str(seat.number) in " ".join(shown) for seat in seats), "every seat's number"
        scores.append({text for text in shown if text in every} | {str(seats[turn].score)})
    assert scores[0] == scores[1] == every, f"every score, {sorted(every)}: {scores}"


@pytest.mark.parametrize("language", languages())
def test_a_long_matchs_6_set_scoreboard_is_read_whole(language: str) -> None:
    """The last set of a 15-set match: two-digit sets, three-digit master cards, 12 cards a pair on a line."""
    masters = [card.id for card in load_deck("squadratik") if card.kind.value == "master"]
    lines = tuple(Line(master, 12, 12 - index, "A" if index % 2 else "B") for index, master in enumerate(masters))
    game = SextoSetView(lines, (4, 4), draw_pile=26, turn="B", sets_won=(14, 0), match_masters=(112, 0))
    shown = lines_read(TableView(game, language=language))
    assert not [text for text in shown if ELLIPSIS in text], shown
    said = " ".join(shown)
    assert f"{tr('sets', language)} 14-0" in said and "112-0" in said, said
    assert all(f"12:{12 - index}" in said for index in range(len(masters))), said
    assert f"{tr('draw_pile', language)} 26" in said, said
