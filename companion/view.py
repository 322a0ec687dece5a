"""What the table shows: the referee's state as the screen and the LEDs need it.

Plain frozen values, no I/O and no clock. The daemon builds a :class:`TableView` after every event; the screen
(:mod:`companion.ui.display`) redraws only when the new view differs from the last one, and the lights
(:mod:`companion.ui.lights`) switch only the zones whose light changed. Every text in a view (seat names, message
titles) is already in the table's language::

    >>> seats = (Seat("Ana", 10, 0), Seat("Luis", 9, 3), Seat("Eva", 10, 0), Seat("Pau", 10, 1))
    >>> game = SeisesView(seats=seats, turn=2, mano=0, pot=4, reserve=46)
    >>> TableView(game=game).status
    <StatusLight.READY: 'ready'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

__all__ = [
    "Language",
    "Line",
    "MenuView",
    "Message",
    "MessageKind",
    "Output",
    "Pair",
    "Seat",
    "SeisesView",
    "SextoSetView",
    "StatusLight",
    "TableView",
    "ZoneLight",
]

Pair = Literal["A", "B"]
Language = Literal["es", "en"]


class MessageKind(StrEnum):
    """Why a message is on the screen; picks its layout and whether it covers the scoreboard."""

    ILLEGAL = "illegal"  # a card that may not be played where it lies
    UNKNOWN_CARD = "unknown_card"  # a tag that no card of the deck is bound to
    HUB_LOST = "hub_lost"  # the serial link to the reader hub is down
    READER_DOWN = "reader_down"  # one reader stopped answering
    DISK_FULL = "disk_full"  # the journal cannot be written: the game is no longer safe
    END_OF_HAND = "end_of_hand"
    END_OF_SET = "end_of_set"
    END_OF_GAME = "end_of_game"
    RENEGE = "renege"  # renuncio: a seat paid while it held a legal card
    QUESTION = "question"  # the referee asks the players something the buttons answer
    INFO = "info"  # anything else worth a line ("bolsa vacía")


@dataclass(frozen=True, slots=True)
class Message:
    """One message for the players, already in the table's language.

    ``title`` says what happened ("Jugada ilegal: el 8 no sigue al 6"); ``action`` says what to do about it
    ("Retira la carta"), or is empty when there is nothing to do.
    """

    kind: MessageKind
    title: str
    action: str = ""


class ZoneLight(StrEnum):
    """The LED of one reader zone."""

    OFF = "off"
    PENDING_OK = "pending_ok"  # steady green: a legal play lies there, waiting for CONFIRM
    ILLEGAL = "illegal"  # blinking red until the card leaves the zone
    UNKNOWN = "unknown"  # blinking amber: a tag the deck does not know


class StatusLight(StrEnum):
    """The one status LED of the table."""

    READY = "ready"
    RENEGE = "renege"  # while a renuncio is on the screen
    HUB_LOST = "hub_lost"
    ERROR = "error"  # disk full, a reader down: something a person must fix


@dataclass(frozen=True, slots=True)
class Seat:
    """A Seises seat: its name as shown (``"1"`` or a player's name), cards still in hand, score so far."""

    name: str
    cards_left: int
    score: int


@dataclass(frozen=True, slots=True)
class SeisesView:
    """The Seises scoreboard.

    ``turn``, ``mano`` and ``winner`` are indexes into ``seats`` (0 is the first seat in playing order).
    ``pot`` is the chips in the bote, ``reserve`` the chips left in the reserve, ``owed`` the chips paid while
    the reserve was empty (shown, never in the pot). ``hand`` counts hands from 1. ``winner`` is set once a
    seat reached ``target`` points and the game is over.
    """

    seats: tuple[Seat, ...]
    turn: int
    mano: int
    pot: int
    reserve: int
    owed: int = 0
    hand: int = 1
    target: int = 50
    winner: int | None = None

    @property
    def game_over(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True, slots=True)
class Line:
    """One of the 8 lines of 6º SET, headed by its master card.

    ``count_a`` and ``count_b`` are the cards each pair placed on the line; ``leader`` is the pair the master
    card would go to if the set ended now (more cards, then more points), or None on a tie.
    """

    master_id: str  # "M3B"
    master_name: str  # "maestra 3 negra", as Card.name() gives it
    count_a: int
    count_b: int
    leader: Pair | None


@dataclass(frozen=True, slots=True)
class SextoSetView:
    """The 6º SET a dobles scoreboard.

    ``masters_won``, ``sets_won`` and ``match_masters`` are (pair A, pair B). While the set runs ``masters_won``
    counts the lines each pair leads; once it ended, the master cards each pair won. ``match_masters`` counts the
    master cards won in the sets that ended (the sheet's objective). ``result`` is None while the set runs,
    then the winning pair or ``"draw"``; ``turn`` is then the pair that leads the next set.
    """

    lines: tuple[Line, ...]
    masters_won: tuple[int, int]
    draw_pile: int
    turn: Pair
    sets_won: tuple[int, int] = (0, 0)
    result: Pair | Literal["draw"] | None = None
    match_masters: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class MenuView:
    """The menu as shown: a title, the visible choices with their current values, and the highlighted one."""

    title: str
    items: tuple[str, ...]
    selected: int
    hint: str  # which button does what, e.g. "OK elegir  PASO otro"


@dataclass(frozen=True)
class TableView:
    """Everything the players see, built by the daemon after every event.

    ``game`` is the running game's scoreboard (None before a game is chosen). ``message`` is the last message,
    or None. ``zone_lights`` maps every zone name of the pin map to its light; a zone left out is off.
    ``menu`` is set while the menu is open, and then covers everything else on the screen.
    """

    game: SeisesView | SextoSetView | None = None
    message: Message | None = None
    zone_lights: Mapping[str, ZoneLight] = field(default_factory=dict)
    status: StatusLight = StatusLight.READY
    language: Language = "es"
    menu: MenuView | None = None


class Output(Protocol):
    """Anything that shows a view: the screen, the zone and status LEDs, the demo's printer."""

    def show(self, view: TableView, now: float) -> object: ...
