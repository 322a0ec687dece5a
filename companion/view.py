"""What the table shows: the referee's state as the screen and the LEDs need it.

Plain frozen values, no I/O and no clock. The daemon builds a :class:`TableView` after every event; the screen
(:mod:`companion.ui.display`) redraws only when the new view differs from the last one, and the lights
(:mod:`companion.ui.lights`) switch only the zones whose light changed. Every text in a view (seat names, message
titles) is already in the table's language::

    >>> TableView(message=Message(MessageKind.INFO, "Bolsa vacía")).status
    <StatusLight.READY: 'ready'>

Each game's scoreboard is a :class:`Scoreboard` its game kind defines (:mod:`companion.games`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol

from companion.i18n import N_, translate

__all__ = [
    "STRINGS",
    "Language",
    "MenuView",
    "Message",
    "MessageKind",
    "Output",
    "Scoreboard",
    "StatusLight",
    "TableView",
    "ZoneLight",
    "tr",
]

Language = str  # a language a catalogue speaks (companion.i18n.languages()): "es", "en"...


@dataclass(frozen=True, slots=True)
class MessageKind:
    """Why a message is on the screen: what picks its layout and how the table's outputs treat it. An open set of
    values: the referee's own are below, and a game adds its own in its package (the end of a hand or a set, a
    penalty), so no output names a game's.

    ``covers``: it needs the players' attention and covers the scoreboard, else it takes the scoreboard's footer.
    ``ruling``: the referee ruled on what the players did (a card refused, a penalty). ``milestone``: a part of the
    game ended (a hand, a set, the game), with its result::

        >>> END_OF_HAND = MessageKind("end_of_hand", milestone=True)
        >>> END_OF_HAND.covers, MessageKind.INFO.covers, str(MessageKind.ILLEGAL)
        (True, False, 'illegal')
    """

    name: str  # what the page and the logs call it
    covers: bool = True
    ruling: bool = False
    milestone: bool = False

    ILLEGAL: ClassVar[MessageKind]  # a card that may not be played where it lies
    UNKNOWN_CARD: ClassVar[MessageKind]  # a tag that no card of the deck is bound to
    HUB_LOST: ClassVar[MessageKind]  # the serial link to the reader hub is down
    READER_DOWN: ClassVar[MessageKind]  # one reader stopped answering
    DISK_FULL: ClassVar[MessageKind]  # the journal cannot be written: the game is no longer safe
    END_OF_GAME: ClassVar[MessageKind]  # the game (a 6º SET match) is over
    QUESTION: ClassVar[MessageKind]  # the referee asks the players something the buttons answer
    INFO: ClassVar[MessageKind]  # anything else worth a line ("bolsa vacía")

    def __str__(self) -> str:
        return self.name


MessageKind.ILLEGAL = MessageKind("illegal", ruling=True)
MessageKind.UNKNOWN_CARD = MessageKind("unknown_card", ruling=True)
MessageKind.HUB_LOST = MessageKind("hub_lost")
MessageKind.READER_DOWN = MessageKind("reader_down")
MessageKind.DISK_FULL = MessageKind("disk_full")
MessageKind.END_OF_GAME = MessageKind("end_of_game", milestone=True)
MessageKind.QUESTION = MessageKind("question")
MessageKind.INFO = MessageKind("info", covers=False)


@dataclass(frozen=True, slots=True)
class Message:
    """One message for the players, already in the table's language.

    ``title`` says what happened ("Jugada ilegal: el 8 no sigue al 6"); ``todo`` says what to do about it
    ("Retira la carta"), or is empty when there is nothing to do.
    """

    kind: MessageKind
    title: str
    todo: str = ""


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
class Scoreboard:
    """A game's scoreboard: each game kind (:mod:`companion.games`) has its own, and draws it on the screen."""


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
    ``menu`` is set while the menu is open, and then covers everything else on the screen; ``pairing`` is the
    code a phone pairs with (docs/WEB.md), while the screen shows it.
    """

    game: Scoreboard | None = None
    message: Message | None = None
    zone_lights: Mapping[str, ZoneLight] = field(default_factory=dict)
    status: StatusLight = StatusLight.READY
    language: Language = "es"
    menu: MenuView | None = None
    pairing: str | None = None


class Output(Protocol):
    """Anything that shows a view: the screen, the zone and status LEDs, the demo's printer."""

    def show(self, view: TableView, now: float) -> object: ...


# ---- the few words the screens and the menu write themselves ------------------------------------------------
# Everything else on the screen (seat names, message texts, game titles) comes already translated in the view.
# Every string here is drawn by the screen tests in every language, so one that is too long fails a test, not a game.

# key -> the text, an English msgid of the catalogues (companion.i18n)
STRINGS: dict[str, str] = {
    "pot": N_("Pot"),
    "reserve": N_("Reserve"),
    "reserve_short": N_("Res."),
    "owed": N_("Owed"),
    "hand": N_("Hand"),  # the hand number: "Mano 3"
    "turn": N_("Turn"),
    "draw_pile": N_("Pile"),
    "masters": N_("Masters"),
    "masters_short": N_("Mast."),
    "leads_next": N_("Next"),  # the pair that leads the next set
    "sets": N_("Sets"),
    "winner": N_("Winner"),
    "draw": N_("Draw"),
    "menu": N_("Menu"),
    "menu_hint": N_("OK pick PASS next"),
    "game": N_("Game"),
    "players": N_("Players"),
    "deck": N_("Deck"),
    "language": N_("Language"),
    "speech": N_("Voice"),  # how much the table says aloud: its values are the three below
    "off": N_("Off"),
    "rulings": N_("Rulings"),
    "all": N_("Everything"),
    "new_game": N_("New game"),
    "close": N_("Close"),
    "new_game_sure": N_("New game?"),  # "New game" picked once: a second OK starts it
    "new_game_sure_hint": N_("OK again: this game ends"),
    "games_missing": N_("{games}: not these zones"),  # the games the table's zones cannot play
    "pair": N_("Pair a phone"),
    "pairing_title": N_("Phone code"),
    "pairing_hint": N_("Type it on the phone"),
    "pairing_close": N_("Any button: close"),
    "spanish-40": N_("Spanish 40"),
    "spanish-48": N_("Spanish 48"),
    "squadratik": N_("Squadratik"),
    "no_game": N_("No game"),
    "no_game_hint": N_("Hold OK: menu"),
}


def tr(key: str, language: str) -> str:
    """The string ``key`` in ``language`` (in English where its catalogue lacks it)."""
    return translate(STRINGS[key], language)
