"""Named moments of a robot 6º SET match, for the screen's docs and tests (:mod:`companion.examples`)."""

from __future__ import annotations

from companion.config import GameConfig
from companion.events import Button
from companion.examples import ExampleTable, message_is
from companion.games.sexto_set import END_OF_SET, KIND, SextoSetView
from companion.view import Language, MessageKind, TableView

__all__ = ["examples"]


def examples(language: Language) -> dict[str, TableView]:
    """A set under way after one has ended, a set's end, and its result; the match's end, and its result."""
    with ExampleTable(GameConfig(KIND.name, language=language)) as table:
        views = {"sexto-set": table.until(_second_set)}
        views["message-end-of-set"] = table.until(message_is(END_OF_SET))
        table.press(Button.UNDO)
        views["sexto-set-result"] = table.view()
        views["message-end-of-match"] = table.until(message_is(MessageKind.END_OF_GAME))
        table.press(Button.UNDO)  # the message read, the scoreboard shows the match's winner
        views["sexto-set-match-over"] = table.view()
    return views


def _second_set(view: TableView) -> bool:
    """A set under way after one has ended, so the match's tallies count, with cards left on the pile."""
    game = view.game
    assert isinstance(game, SextoSetView)
    return view.message is None and sum(game.sets_won) == 1 and game.result is None and 0 < game.draw_pile < 10
