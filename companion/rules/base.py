"""What both games share: actions, the reasons a play is refused, outcomes and the game protocol.

Modelled on python-chess's ``Board``: a game keeps a stack of actions, ``push()`` applies one (checking it
first) and ``pop()`` takes it back, restoring exactly the previous state. Time, randomness and I/O stay outside.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from companion.decks import Deck
from companion.i18n import N_, Said, SaidError, say

A = TypeVar("A", bound="Action")

__all__ = [
    "ACTIONS",
    "Action",
    "Game",
    "IllegalPlay",
    "Outcome",
    "Pass",
    "Play",
    "Reason",
    "Sentences",
    "SetupError",
    "add_sentences",
    "check_options",
    "either",
    "register_action",
]


class Action:
    """What a player does at their turn, as a game's transcript line says it: ``verb`` and its arguments.

    Every game plays cards (:class:`Play`) and most can pass (:class:`Pass`); a game adds actions of its own (a
    Seises pay) in its rules module, registered with :func:`register_action`, so the transcripts, the journal and
    ``companion play`` read them as they read these. ``deed`` and ``taken_back`` (English msgids) say an action
    without a card in words: the table's "pays one chip", the undo's "the chip paid"."""

    __slots__ = ()
    verb: ClassVar[str]
    deed: ClassVar[str] = ""
    taken_back: ClassVar[str] = ""

    @classmethod
    def parse(cls, args: Sequence[str]) -> Action | None:
        """The action a transcript line with ``args`` after the verb means, or None when they fit none: by
        default, the verb alone."""
        return None if args else cls()

    def __str__(self) -> str:
        return self.verb


ACTIONS: dict[str, type[Action]] = {}  # verb -> its action, for the transcripts (companion.rules.transcript)


def register_action(action: type[A]) -> type[A]:
    """Make ``action`` known by its verb (a class decorator); a verb taken by another action is refused."""
    if ACTIONS.setdefault(action.verb, action) is not action:
        raise ValueError(f"the verb {action.verb!r} is already an action")
    return action


@register_action
@dataclass(frozen=True, slots=True)
class Play(Action):
    """Lay ``card`` on the table; in a game of lines (6º SET), at the end of the line headed by the card ``line``."""

    verb: ClassVar[str] = "play"
    card: str
    line: str | None = None

    @classmethod
    def parse(cls, args: Sequence[str]) -> Play | None:
        if len(args) == 1:
            return cls(args[0])
        return cls(args[1], line=args[0]) if len(args) == 2 else None

    def __str__(self) -> str:
        return f"play {self.line} {self.card}" if self.line else f"play {self.card}"


@register_action
@dataclass(frozen=True, slots=True)
class Pass(Action):
    """The side whose turn it is cannot play (in 6º SET, a pair that cannot link, and so loses the set)."""

    verb: ClassVar[str] = "pass"
    deed: ClassVar[str] = N_("passes: cannot link")
    taken_back: ClassVar[str] = N_("the pass")


class Reason(StrEnum):
    """Why a play is refused, in every game. Each has a sentence in Spanish and English in ``SENTENCES``.

    A game adds the reasons of its own rules as a ``StrEnum`` of its own (``SeisesReason``), and their sentences
    with :func:`add_sentences`; a refusal's ``reason`` is any of them, and its value is the code ``companion play``
    and the recorded games write."""

    GAME_OVER = "game_over"
    WRONG_ACTION = "wrong_action"
    UNKNOWN_CARD = "unknown_card"
    ON_TABLE = "on_table"


# What happened (a title) and what to do, English msgids of the catalogues (companion.i18n), short enough for the
# 128x64 screen in every language (a test draws every one). Fields come from IllegalPlay.details.
Sentences = tuple[str, str]  # (title, todo)
SENTENCES: dict[StrEnum, Sentences] = {
    Reason.GAME_OVER: (N_("Game over"), N_("Start a new one")),
    Reason.WRONG_ACTION: (N_("{game} has no “{verb}”"), N_("{hint}")),
    Reason.UNKNOWN_CARD: (N_("Card “{card}” is not in {deck}"), N_("Take it back; check the deck or the registry")),
    Reason.ON_TABLE: (N_("{name}: already on the table"), N_("Take it back and play another")),
}


def add_sentences(sentences: Mapping[StrEnum, Sentences]) -> None:
    """A game's own refusal reasons, with their sentences (its module calls it once, when imported)."""
    SENTENCES.update(sentences)


class SetupError(SaidError):
    """A game that cannot be set up as asked (wrong deck, wrong number of players, unknown option).

    ``str()`` is the English sentence; :meth:`text` gives it in the language of the table or command line.
    """


class IllegalPlay(ValueError):
    """A refused action: ``reason`` (a :class:`Reason`) and its sentence, said in any language.

    ``details`` fill the sentence. A detail said in words is a :class:`~companion.i18n.Said` (a card's name, a
    suit, the cards that would fit), said in the sentence's language."""

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
        title, todo = SENTENCES[self.reason]
        fields = {key: value.text(lang) if isinstance(value, Said) else value for key, value in self.details.items()}
        return say(title, lang, **fields), say(todo, lang, **fields)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended (a Seises game at 50, a 6º SET match after its last set): ``termination`` is the rule
    that named ``winner``, a seat number, a pair, or None (a draw)."""

    termination: str
    winner: int | str | None


class Game(ABC):
    """The protocol both games follow. ``push`` checks; ``_apply`` trusts."""

    name: ClassVar[str]
    title: ClassVar[str]  # the game's name as players write it
    turn_hint: ClassVar[str]  # what a turn is, for a wrong action (an English msgid)
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
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is in play; read from the state, so ``pop()`` un-ends it."""

    def as_it_stands(self) -> Outcome | None:
        """The outcome of the game if the players ended it now (they start a new one): a game that has a winner
        only at its goal, as Seises at 50, has none before it."""
        return self.outcome()

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
            return {"game": self.title, "verb": str(action), "hint": Said(self.turn_hint)}
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


def either(choices: Iterable[object]) -> Said | str:
    """``"4, 5 or 8"``: choices as a sentence says them, in the language it is said in (``"4, 5 o 8"``).

    >>> str(either([4, 5, 8])), either([4, 5, 8]).text("es"), either(["flag"])
    ('4, 5 or 8', '4, 5 o 8', 'flag')
    """
    words = [str(c) for c in choices]
    if len(words) == 1:
        return words[0]
    return Said(N_("{choices} or {last}"), choices=", ".join(words[:-1]), last=words[-1])


def check_options(
    game: str, known: Mapping[str, tuple[tuple[str, ...], str]], given: Mapping[str, str]
) -> dict[str, str]:
    """The game's options with defaults filled in; an unknown option or value is refused, naming it."""
    checked = {name: default for name, (_, default) in known.items()}
    for name, value in given.items():
        if name not in known:
            have = (
                Said(N_("its options are {options}"), options=either(known)) if known else Said(N_("it has no options"))
            )
            raise SetupError(Said(N_("{game} has no option {name}: {have}."), game=game, name=repr(name), have=have))
        allowed = known[name][0]
        if value not in allowed:
            numbers = all(choice.isdigit() for choice in allowed) and len(allowed) > 2
            takes = Said(N_("a whole number from {low} to {high}"), low=allowed[0], high=allowed[-1])
            said = Said(N_("Option {name} takes {takes}, not {value}."), name=name, value=repr(value))
            said.fields["takes"] = takes if numbers else either(allowed)
            raise SetupError(said)
        checked[name] = value
    return checked


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
