"""6º SET's ends and lines as the sheet names them, in the table's language: a Spanish player reads "B" as blanco
(the sheet's blank end), so a black end is "N" (negro) in Spanish and "B" (black) in English; read back from the
frames the real ssd1306 driver sent."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from companion.config import GameConfig
from companion.events import CardArrived, CardLeft
from companion.examples import ExampleTable, example_views
from companion.games import find_kind
from companion.games.sexto_set.rules import SextoSetReason
from companion.i18n import languages
from companion.referee import Referee
from companion.rules import Play
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.reading import words

BLACK = {"es": "N", "en": "B"}


def panel(view: object) -> str:
    bus = FakeI2CBus()
    Screen(make_device([], bus=bus)).show(view, now=0.0)  # type: ignore[arg-type]  # a TableView
    return words(bus.last_image())


@pytest.mark.parametrize("language", languages())
def test_the_scoreboard_names_each_line_by_its_master_cards_dots_and_colour(language: str) -> None:
    read = panel(example_views(language)["sexto-set"])
    labels = re.findall(r"\bM\d[A-Z]\b", read)
    assert len(labels) == 8, read
    assert {label[-1] for label in labels} == {"R", BLACK[language]}, f"red and black lines: {labels}"


@pytest.mark.parametrize("language", languages())
def test_a_card_that_does_not_link_says_the_ends_in_the_tables_letters(
    language: str, example_table: Callable[..., ExampleTable]
) -> None:
    """A black card laid on a black line it cannot link to, at a real table: the refusal on the screen reads its
    ends and the line's open end with the table's letter for black, never a "B" a Spanish player reads as blank."""
    table = example_table(GameConfig("sexto-set", language=language))
    game = table.referee.current_game
    card, zone = next(
        (card.id, zone)
        for card in game.deck
        if card.ends and any(end.endswith("B") for end in card.ends)
        for zone, line in table.referee.zone_heads.items()
        if game.reason(Play(card.id, line)) is SextoSetReason.NO_LINK and min(game.open_ends[line]).endswith("B")
    )
    table.lay(zone, card)
    read = panel(table.view())
    letters = re.findall(r"\d([A-Z])\b", read)
    assert len(letters) >= 3 and set(letters) == {BLACK[language]}, f"the card's two ends and the line's: {read!r}"


@pytest.mark.parametrize(
    ("laid", "said"), [(7, "Maestra en cada zona: falta 1"), (6, "Maestra en cada zona: faltan 2")]
)
def test_the_master_cards_left_to_lay_are_counted_in_their_form(laid: int, said: str) -> None:
    """A card laid while master cards are awaited: the count still to lay says "falta" for one, "faltan" for more
    (the catalogue's plural forms)."""
    kind = find_kind("sexto-set")
    referee = Referee(GameConfig("sexto-set", language="es"), kind.default_zones())
    zones = list(kind.default_zones())
    for time, (zone, master) in enumerate(zip(zones[:laid], kind.heads(referee.current_game), strict=False)):
        referee.handle(CardArrived(zone, master), float(2 * time))
        referee.handle(CardLeft(zone, master), float(2 * time + 1))
    referee.handle(CardArrived(zones[laid], "N01"), 100.0)  # a card to play, while master cards are awaited
    message = referee.view().message
    assert message is not None and message.title == said
