"""What both games share: actions, the reasons a play is refused, outcomes and the game protocol.

Modelled on python-chess's ``Board``: a game keeps a stack of actions, ``push()`` applies one (checking it
first) and ``pop()`` takes it back, restoring exactly the previous state. Time, randomness and I/O stay outside.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from companion.decks import Deck

__all__ = [
    "Action",
    "Game",
    "IllegalPlay",
    "Outcome",
    "Pass",
    "Pay",
    "Play",
    "Reason",
    "SetupError",
    "check_options",
    "either",
]


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``card`` on the table; in 6º SET, at the end of the line headed by master card ``line``."""

    card: str
    line: str | None = None

    def __str__(self) -> str:
        return f"play {self.line} {self.card}" if self.line else f"play {self.card}"


@dataclass(frozen=True, slots=True)
class Pay:
    """Seises: the seat whose turn it is cannot play and pays one chip (a "prenda") into the pot."""

    def __str__(self) -> str:
        return "pay"


@dataclass(frozen=True, slots=True)
class Pass:
    """6º SET: the pair whose turn it is cannot link any card, and so loses the set."""

    def __str__(self) -> str:
        return "pass"


Action = Play | Pay | Pass


class Reason(StrEnum):
    """Why a play is refused. Each has a sentence in Spanish and English in ``SENTENCES``."""

    GAME_OVER = "game_over"
    SET_OVER = "set_over"
    WRONG_ACTION = "wrong_action"
    UNKNOWN_CARD = "unknown_card"
    ON_TABLE = "on_table"
    # Seises
    FIRST_PLAY_SIX_OF_OROS = "first_play_six_of_oros"
    FIRST_PLAY_NO_PAY = "first_play_no_pay"
    HAND_OPENS_WITH_SIX = "hand_opens_with_six"
    SUIT_NOT_STARTED = "suit_not_started"
    NOT_NEXT_IN_ROW = "not_next_in_row"
    HOLDS_A_PLAYABLE_CARD = "holds_a_playable_card"  # a pay the cards off the table prove false
    # 6º SET
    UNKNOWN_LINE = "unknown_line"
    MASTER_CARD = "master_card"
    CENTRAL_CARD = "central_card"
    NO_EMPTY_LEFT = "no_empty_left"
    NO_LINK = "no_link"
    FIRST_ON_MASTER = "first_on_master"
    HOLDS_A_LINKING_CARD = "holds_a_linking_card"  # a pass the unplaced cards prove false


# What happened (a title) and what to do, in Spanish and English, short enough for the 128x64 screen
# (a test draws every one). Fields come from IllegalPlay.details.
SENTENCES: dict[Reason, tuple[tuple[str, str], tuple[str, str]]] = {
    Reason.GAME_OVER: (("Partida terminada", "Empezad una nueva"), ("Game over", "Start a new one")),
    Reason.SET_OVER: (
        ("Set terminado", "Recoged: la próxima carta empieza otro"),
        ("Set over", "Gather: the next card starts a set"),
    ),
    Reason.WRONG_ACTION: (("{game}: no hay «{verb}»", "{hint_es}"), ("{game} has no «{verb}»", "{hint_en}")),
    Reason.UNKNOWN_CARD: (
        ("La carta «{card}» no es de {deck}", "Retírala; revisa la baraja o el registro"),
        ("Card «{card}» is not in {deck}", "Take it back; check the deck or the registry"),
    ),
    Reason.ON_TABLE: (
        ("{name_es}: ya en la mesa", "Retírala y juega otra"),
        ("{name_en}: already on the table", "Take it back and play another"),
    ),
    Reason.FIRST_PLAY_SIX_OF_OROS: (
        ("Se abre con el 6 de oros", "Retira {name_es}; juega el 6 de oros"),
        ("Opens with the 6 of coins", "Take back the {name_en}; play the 6 of coins"),
    ),
    Reason.FIRST_PLAY_NO_PAY: (
        ("Aún no se paga", "Quien tenga el 6 de oros, que lo juegue"),
        ("No paying yet", "Whoever holds the 6 of coins plays it"),
    ),
    Reason.HAND_OPENS_WITH_SIX: (
        ("La mano abre con un seis", "Retira {name_es}; juega un seis o paga"),
        ("A hand opens with a six", "Take back the {name_en}; play a six or pay"),
    ),
    Reason.SUIT_NOT_STARTED: (
        ("Sin hilera de {suit_es}", "Retira {name_es}; la abre el 6 de {suit_es}"),
        ("No row of {suit_en} yet", "Take back the {name_en}; the 6 of {suit_en} starts it"),
    ),
    Reason.NOT_NEXT_IN_ROW: (
        ("{name_es} no sigue a {row}", "Retírala; vale {needed_es}, o paga"),
        ("{name_en} does not follow {row}", "Take it back; {needed_en} fits, or pay"),
    ),
    Reason.HOLDS_A_PLAYABLE_CARD: (
        ("Tienes carta que vale", "Cartas fuera de la mesa que no valen: {idle}; tienes {held}"),
        ("You can play a card", "Cards off the table that cannot be played: {idle}; you hold {held}"),
    ),
    Reason.UNKNOWN_LINE: (
        ("No hay línea {line}", "Usa una de las 8 líneas"),
        ("No line {line}", "Use one of the 8 lines"),
    ),
    Reason.MASTER_CARD: (
        ("{name_es}: no se juega", "Encabeza su línea; retírala"),
        ("{name_en}: not played", "It heads its line; take it back"),
    ),
    Reason.CENTRAL_CARD: (
        ("La carta central no se juega", "Retírala"),
        ("The central card is not played", "Take it back"),
    ),
    Reason.NO_EMPTY_LEFT: (
        ("Ya van {allowed} vacías", "No quedan más en el set; retírala"),
        ("{allowed} empty cards played", "No more in this set; take it back"),
    ),
    Reason.NO_LINK: (
        ("{name_es} no enlaza con {open}", "Otra carta o línea: pasar pierde el set"),
        ("{name_en} does not link with {open}", "Another card or line: passing loses the set"),
    ),
    Reason.FIRST_ON_MASTER: (
        ("Primer turno: sobre maestra", "Pon {name_es} en una línea sin cartas"),
        ("First turn: on a master", "Put the {name_en} on a line with no cards"),
    ),
    Reason.HOLDS_A_LINKING_CARD: (
        ("Podéis enlazar", "Cartas sin colocar que no enlazan: {idle}; tenéis {held}"),
        ("You can link a card", "Unplaced cards that cannot link: {idle}; you hold {held}"),
    ),
}


class SetupError(ValueError):
    """A game that cannot be set up as asked (wrong deck, wrong number of players, unknown option).

    ``str()`` is the English sentence; :meth:`text` gives it in the language of the table or command line.
    """

    def __init__(self, english: str, spanish: str) -> None:
        super().__init__(english)
        self.spanish = spanish

    def text(self, lang: str = "es") -> str:
        return str(self) if lang == "en" else self.spanish


class IllegalPlay(ValueError):
    """A refused action: ``reason`` (a :class:`Reason`) and a sentence in Spanish and in English."""

    def __init__(self, action: Action, reason: Reason, **details: Any) -> None:
        super().__init__(action, reason)
        self.action = action
        self.reason = reason
        self.details = details

    def __str__(self) -> str:
        return self.sentence("en")

    def title(self, lang: str = "es") -> str:
        """What happened, for the screen's title: ``Rey de oros no sigue a 6-7``."""
        return _capital(self._pair(lang)[0])

    def todo(self, lang: str = "es") -> str:
        """What the player must do: ``Retírala; vale 5 o sota de oros, o paga``."""
        return _capital(self._pair(lang)[1])

    def sentence(self, lang: str = "es") -> str:
        """Both in one sentence, for logs and the command line."""
        return f"{self.title(lang)}. {self.todo(lang)}."

    def _pair(self, lang: str) -> tuple[str, str]:
        spanish, english = SENTENCES[self.reason]
        title, todo = english if lang == "en" else spanish
        return title.format(**self.details), todo.format(**self.details)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game (Seises) or a set (6º SET) ended: ``winner`` is a seat number, a pair, or None (a draw)."""

    termination: str
    winner: int | str | None


class Game(ABC):
    """The protocol both games follow. ``push`` checks; ``_apply`` trusts."""

    name: ClassVar[str]
    title: ClassVar[str]  # the game's name as players write it
    turn_hint: ClassVar[tuple[str, str]]  # what a turn is, in Spanish and English, for a wrong action
    deck: Deck

    def __init__(self) -> None:
        self.actions: list[Action] = []
        self._undo: list[Any] = []

    @abstractmethod
    def reason(self, action: Action) -> Reason | None:
        """Why ``action`` is not legal now, or None when it is. Fast: no sentence is built."""

    @abstractmethod
    def _details(self, action: Action, reason: Reason) -> dict[str, Any]:
        """What the sentence of ``reason`` needs to say about ``action``."""

    @abstractmethod
    def _apply(self, action: Action) -> Any:
        """Apply a legal action; return what ``_revert`` needs to take it back (only what changed)."""

    @abstractmethod
    def _revert(self, undo: Any) -> None: ...

    @abstractmethod
    def legal_actions(self) -> Iterator[Action]:
        """Every action that is legal now, for any card not yet on the table."""

    @abstractmethod
    def outcome(self) -> Outcome | None: ...

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON data; ``from_snapshot`` rebuilds it."""

    @classmethod
    @abstractmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> Game: ...

    def is_legal(self, action: Action) -> bool:
        return self.reason(action) is None

    def refusal(self, action: Action) -> IllegalPlay | None:
        """The :class:`IllegalPlay` that ``push`` would raise, or None when ``action`` is legal."""
        reason = self.reason(action)
        if reason is None:
            return None
        return IllegalPlay(action, reason, **self._sentence_fields(action, reason))

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalPlay` if ``action`` is not legal now."""
        reason = self.reason(action)
        if reason is not None:
            raise IllegalPlay(action, reason, **self._sentence_fields(action, reason))

    def _sentence_fields(self, action: Action, reason: Reason) -> dict[str, Any]:
        if reason is Reason.WRONG_ACTION:
            hint_es, hint_en = self.turn_hint
            return {"game": self.title, "verb": str(action), "hint_es": hint_es, "hint_en": hint_en}
        return self._details(action, reason)

    def push(self, action: Action) -> None:
        self.check(action)
        self._undo.append(self._apply(action))
        self.actions.append(action)

    def pop(self) -> Action:
        """Take back the last action; raises ``IndexError`` when there is none."""
        if not self.actions:
            raise IndexError("nothing to undo")
        self._revert(self._undo.pop())
        return self.actions.pop()


def either(choices: Iterable[object], lang: str = "en") -> str:
    """``"4, 5 or 8"``: choices as a sentence says them (``"4, 5 o 8"`` in Spanish)."""
    words = [str(c) for c in choices]
    last = " or " if lang == "en" else " o "
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])}{last}{words[-1]}"


def check_options(
    game: str, known: Mapping[str, tuple[tuple[str, ...], str]], given: Mapping[str, str]
) -> dict[str, str]:
    """The game's options with defaults filled in; an unknown option or value is refused, naming it."""
    checked = {name: default for name, (_, default) in known.items()}
    for name, value in given.items():
        if name not in known:
            have = f"its options are {either(known)}" if known else "it has no options"
            tiene = f"sus opciones son {either(known, 'es')}" if known else "no tiene opciones"
            raise SetupError(f"{game} has no option {name!r}: {have}.", f"{game} no tiene la opción {name!r}: {tiene}.")
        allowed = known[name][0]
        if value not in allowed:
            numbers = all(choice.isdigit() for choice in allowed) and len(allowed) > 2
            takes = f"a whole number from {allowed[0]} to {allowed[-1]}" if numbers else either(allowed)
            admite = f"un número entero de {allowed[0]} a {allowed[-1]}" if numbers else either(allowed, "es")
            raise SetupError(
                f"Option {name} takes {takes}, not {value!r}.", f"La opción {name} admite {admite}, no {value!r}."
            )
        checked[name] = value
    return checked


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
