"""Named moments of robot Seises games, for the screen's docs and tests (:mod:`companion.examples`): every
number of seats, the renuncio, a chip owed, the game's end, and the messages every game shares."""

from __future__ import annotations

from companion.config import GameConfig
from companion.decks import load_deck
from companion.events import Button
from companion.examples import NAMES, ExampleTable, message_is
from companion.games.seises import END_OF_HAND, KIND, RENEGE, SeisesView
from companion.games.seises.rules import DECKS, FIRST_CARD
from companion.referee.health import HubStatus, JournalStatus
from companion.view import Language, MessageKind, TableView

__all__ = ["examples"]

STRAY_TAG = bytes.fromhex("04A1B2C3D4E580")  # a tag that is no card of the deck (a transit card, a key fob)


def examples(language: Language) -> dict[str, TableView]:
    """Every number of seats mid-game (and seats nobody named, as the default config leaves them), the renuncio,
    a chip owed and the game's end; and the messages every game shares (a question, an illegal card, an unknown
    tag, the hub, a reader, the disk)."""

    def table(players: int, renege: float = 0.05, named: bool = True) -> ExampleTable:
        deck = next(name for name in DECKS if len(load_deck(name)) % players == 0)
        names = NAMES[:players] if named else ()
        config = GameConfig(KIND.name, players, deck, language=language, seat_names=names)
        return ExampleTable(config, lambda game, rng: KIND.robots(game, rng, renege=renege))

    views: dict[str, TableView] = {}
    for players in (2, 3, 4, 5, 6, 8):
        with table(players) as at:
            views[f"seises-{players}-seats"] = at.until(_mid_game)
    with table(5, named=False) as at:  # the default config names no seat
        views["seises-unnamed-seats"] = at.until(_mid_game)
    with table(4) as at:
        at.lay("z1", FIRST_CARD)
        at.press(Button.CONFIRM)
        views["message-question"] = at.view()
        at.press(Button.CONFIRM)
        at.lift("z1", FIRST_CARD)
        at.until(_mid_game)
        views["message-illegal"] = at.illegal()
        at.tag("z1", STRAY_TAG)
        views["message-unknown-card"] = at.view()
        at.untag("z1", STRAY_TAG)
        at.status(HubStatus(online=False))
        views["message-hub-lost"] = at.view()
        at.status(HubStatus(online=True))
        at.reader("z1", answers=False)
        views["message-reader-down"] = at.view()
        at.reader("z1", answers=True)
        at.status(JournalStatus(ok=False))
        views["message-disk-full"] = at.view()
        at.status(JournalStatus(ok=True))
        views["message-end-of-hand"] = at.until(message_is(END_OF_HAND))
    # A table that pays half the time it could play: the renuncios, the reserve run dry and a 50-point pot
    # come in the first hand.
    with table(5, renege=0.5) as at:
        views["seises-renege"] = at.until(message_is(RENEGE))
        owed = at.until(lambda view: message_is(MessageKind.INFO)(view) and _scoreboard(view).owed > 0)
        views["seises-owed"] = owed
        views["message-end-of-game"] = at.until(message_is(MessageKind.END_OF_GAME))
        at.press(Button.UNDO)  # the message read, the scoreboard shows the winner
        views["seises-game-over"] = at.view()
    return views


def _scoreboard(view: TableView) -> SeisesView:
    assert isinstance(view.game, SeisesView)
    return view.game


def _mid_game(view: TableView) -> bool:
    """The game well under way: a seat past half the target, and a round played in the hand."""
    game = _scoreboard(view)
    dealt = 40 if 40 % len(game.seats) == 0 else 48
    played = dealt - sum(seat.cards_left for seat in game.seats)
    return (
        view.message is None
        and max(seat.score for seat in game.seats) >= game.target // 2
        and played >= len(game.seats)
    )
