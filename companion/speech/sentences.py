"""What the table says aloud: the referee's news (:mod:`companion.referee.news`) worded as short sentences, written
to be heard (not the screen's abbreviations), in the table's language. Pure: news and a voice in, utterances out.

The generic news are worded here: a refusal by its reason code (a game adds its own reasons' sentences in its
``speech`` module's ``REFUSALS``), an undo, a card on the wrong zone, the few of the referee's messages worth
saying. An action's news are the game's own: its ``companion/games/<game>/speech.py`` (found with
:func:`~companion.games.game_module`) words the results it brought (``results(before, after, voice)``) and whose
turn it is next (``turn(after, voice)``), so a new game adds its sentences without touching this module; a game with
none is heard only through its refusals.

Each utterance says what it is (:class:`Weight`): the level chooses which are said (``rulings``: refusals and
results; ``all``: the turns and the rest too), and the queue which goes first (:mod:`companion.speech.queue`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from types import ModuleType
from typing import Any, cast

from companion.config import SPEECH_LEVELS
from companion.games import AnyKind, Voice, game_module
from companion.i18n import N_, Said, say, translate
from companion.referee.news import Acted, Misplaced, News, Noticed, Refused, Undone
from companion.rules import Reason
from companion.rules.base import Play

__all__ = ["LEVELS", "REFUSALS", "Utterance", "Weight", "capital", "refusal_sentence", "utterances"]

LEVELS = SPEECH_LEVELS  # how much the table says: nothing; refusals and results; everything


class Weight(IntEnum):
    """What an utterance is, heaviest last: the queue says a ruling (a refusal, a result) before any chatter."""

    TURN = 0  # whose turn it is: stale as soon as anything newer is said
    NEWS = 1  # an undo, a notice: said at ``all``
    REFUSAL = 2  # a play refused: a newer refusal replaces it
    RESULT = 3  # a renuncio proven, a hand, set, game or match won: never dropped

    @property
    def ruling(self) -> bool:
        return self >= Weight.REFUSAL


@dataclass(frozen=True, slots=True)
class Utterance:
    """One sentence to say, already in its language (``lang``: which voice says it)."""

    text: str
    weight: Weight
    lang: str


# Why every game refuses a play, said aloud (a game's own reasons are in its speech module). Fields come from the
# refusal's details (IllegalPlay.details), said in the sentence's language.
REFUSALS: dict[StrEnum, str] = {
    Reason.GAME_OVER: N_("The game is over. Hold OK for a new one."),
    Reason.WRONG_ACTION: N_("This game has no such move."),
    Reason.UNKNOWN_CARD: N_("That card is not in this deck. Take it back."),
    Reason.ON_TABLE: N_("The {name} is already on the table. Take it back and play another."),
}

# The referee's own messages worth saying, by text key (:mod:`companion.referee.texts`; a game adds its own in
# its speech module's ``NOTICES``): the weight each is said with, and its sentence.
NOTICES: dict[str, tuple[Weight, str]] = {
    "unknown_card": (Weight.REFUSAL, N_("Unknown card. Take it back and enroll it.")),
    "two_tags": (Weight.REFUSAL, N_("Two tags claim the {card}. Take the copy away.")),
    "two_cards": (Weight.REFUSAL, N_("Two cards on one zone. Leave only one.")),
    "same_card": (Weight.REFUSAL, N_("The {card} is on two zones. Take it off one.")),
    "lift_first": (Weight.REFUSAL, N_("Lift the {card} first, then the new card counts.")),
    "nothing_pending": (Weight.NEWS, N_("Nothing to confirm. Lay a card or press pass.")),
    "nothing_to_undo": (Weight.NEWS, N_("Nothing to take back.")),
    "hub_lost": (Weight.NEWS, N_("The reader hub is lost. Check its cable.")),
    "reader_down": (Weight.NEWS, N_("Reader {zone} does not answer. Check its cable.")),
    "disk_full": (Weight.NEWS, N_("The disk is full: plays are not being saved.")),
    "new_game": (Weight.NEWS, N_("New game: {game}.")),
    "new_game_undone": (Weight.NEWS, N_("New game undone. The game before goes on.")),
}


def utterances(news: Sequence[News], kind: AnyKind, voice: Voice, level: str) -> list[Utterance]:
    """What to say about ``news`` (one event's, in order) at ``level`` (one of :data:`LEVELS`), in the voice's
    language; the turn is said once, after everything else the event brought, and an action's results are one
    utterance (the queue says the newest ruling first: their order within one action is kept so).

    >>> from companion.config import GameConfig
    >>> from companion.events import CardArrived
    >>> from companion.referee import Referee
    >>> referee = Referee(GameConfig(language="en"), {"z1": "table"})  # the default game
    >>> _ = referee.handle(CardArrived("z1", "7O"), 0.0)
    >>> [u.text for u in utterances(referee.told, referee.game_kind, referee, "rulings")]
    ['The first card is the 6 of coins. Take back the 7 of coins.']
    >>> utterances(referee.told, referee.game_kind, referee, "off")
    []
    """
    if level == "off":
        return []
    speech = game_module(kind, "speech")
    said: list[Utterance] = []
    turn: str | None = None
    for item in news:
        if isinstance(item, Acted):
            results = _results(speech, item, voice)  # one utterance, in order: a renuncio, then the hand it ends
            if results:
                said.append(Utterance(" ".join(results), Weight.RESULT, voice.language))
            turn = _turn(speech, item, voice)
        elif isinstance(item, Refused):
            said.append(
                Utterance(refusal_sentence(item.refusal, speech, voice.language), Weight.REFUSAL, voice.language)
            )
        elif isinstance(item, Misplaced):
            text = translate(N_("The {card} does not go on this zone."), voice.language)
            said.append(Utterance(text.format(card=voice.card_name(item.card)), Weight.REFUSAL, voice.language))
        elif isinstance(item, Undone):
            said.append(Utterance(_undone(item, voice), Weight.NEWS, voice.language))
        elif isinstance(item, Noticed):
            notice = _notice(speech, item, voice)
            if notice is not None:
                said.append(notice)
    if turn is not None:
        said.append(Utterance(turn, Weight.TURN, voice.language))
    return [utterance for utterance in said if level == "all" or utterance.weight.ruling]


def refusal_sentence(refusal: Any, speech: ModuleType | None, lang: str) -> str:
    """A refused play, pay or pass said aloud: the game's sentence for its reason, else every game's, else the
    screen's title and what to do."""
    sentences: Mapping[StrEnum, str] = {**REFUSALS, **getattr(speech, "REFUSALS", {})}
    sentence = sentences.get(refusal.reason)
    if sentence is None:
        return cast(str, refusal.sentence(lang))
    fields = {key: value.text(lang) if isinstance(value, Said) else value for key, value in refusal.details.items()}
    return capital(say(sentence, lang, **fields))


def _results(speech: ModuleType | None, acted: Acted, voice: Voice) -> list[str]:
    results = cast(Callable[..., Iterable[str]] | None, getattr(speech, "results", None))
    return [] if results is None else [capital(text) for text in results(acted.before, acted.after, voice)]


def _turn(speech: ModuleType | None, acted: Acted, voice: Voice) -> str | None:
    turn = cast(Callable[..., str | None] | None, getattr(speech, "turn", None))
    said = None if turn is None else turn(acted.after, voice)
    return None if said is None else capital(said)


def _undone(undone: Undone, voice: Voice) -> str:
    action = undone.action
    what = voice.card_name(action.card) if isinstance(action, Play) else translate(action.taken_back, voice.language)
    return capital(translate(N_("Taken back: {what}."), voice.language).format(what=what))


def _notice(speech: ModuleType | None, notice: Noticed, voice: Voice) -> Utterance | None:
    known: Mapping[str, tuple[Weight, str]] = {**NOTICES, **getattr(speech, "NOTICES", {})}
    if notice.key not in known:
        return None  # the screen's alone: a question's prompt, a pairing code's news
    weight, sentence = known[notice.key]
    return Utterance(capital(translate(sentence, voice.language).format(**notice.fields)), weight, voice.language)


def capital(text: str) -> str:
    """A sentence starts with a capital (a field such as a card's name may begin it)."""
    return text[:1].upper() + text[1:]
