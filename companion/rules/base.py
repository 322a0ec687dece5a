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
    "Sentences",
    "SetupError",
    "add_sentences",
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
    """Why a play is refused, in every game. Each has a sentence in Spanish and English in ``SENTENCES``.

    A game adds the reasons of its own rules as a ``StrEnum`` of its own (``SeisesReason``), and their sentences
    with :func:`add_sentences`; a refusal's ``reason`` is any of them, and its value is the code ``companion play``
    and the recorded games write."""

    GAME_OVER = "game_over"
    WRONG_ACTION = "wrong_action"
    UNKNOWN_CARD = "unknown_card"
    ON_TABLE = "on_table"


# What happened (a title) and what to do, in Spanish and English, short enough for the 128x64 screen
# (a test draws every one). Fields come from IllegalPlay.details.
Sentences = tuple[tuple[str, str], tuple[str, str]]  # (Spanish title, todo), (English title, todo)
SENTENCES: dict[StrEnum, Sentences] = {
    Reason.GAME_OVER: (("Partida terminada", "Empezad una nueva"), ("Game over", "Start a new one")),
    Reason.WRONG_ACTION: (("{game}: no hay «{verb}»", "{hint_es}"), ("{game} has no «{verb}»", "{hint_en}")),
    Reason.UNKNOWN_CARD: (
        ("La carta «{card}» no es de {deck}", "Retírala; revisa la baraja o el registro"),
        ("Card «{card}» is not in {deck}", "Take it back; check the deck or the registry"),
    ),
    Reason.ON_TABLE: (
        ("{name_es}: ya en la mesa", "Retírala y juega otra"),
        ("{name_en}: already on the table", "Take it back and play another"),
    ),
}


def add_sentences(sentences: Mapping[StrEnum, Sentences]) -> None:
    """A game's own refusal reasons, with their sentences (its module calls it once, when imported)."""
    SENTENCES.update(sentences)


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

    def __init__(self, action: Action, reason: StrEnum, **details: Any) -> None:
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
    def reason(self, action: Action) -> StrEnum | None:
        """Why ``action`` is not legal now, or None when it is. Fast: no sentence is built."""

    @abstractmethod
    def _details(self, action: Action, reason: StrEnum) -> dict[str, Any]:
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

    def _sentence_fields(self, action: Action, reason: StrEnum) -> dict[str, Any]:
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
