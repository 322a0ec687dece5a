"""6º SET said aloud (:mod:`companion.speech`): its refusals, a set won with the master cards' count, the match
won with its score, and which pair places next, as sentences to be heard."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from companion.games.kind import Voice
from companion.games.sexto_set import news
from companion.games.sexto_set.news import SetEnded
from companion.games.sexto_set.rules import SextoSetReason
from companion.i18n import N_, Plural, translate
from companion.speech.sentences import Weight

__all__ = ["NOTICES", "REFUSALS", "results", "turn"]

REFUSALS: dict[StrEnum, str] = {
    SextoSetReason.SET_OVER: N_("The set is over. Pick up the cards: the next one starts a new set."),
    SextoSetReason.UNKNOWN_LINE: N_("There is no such line. Use one of the eight."),
    SextoSetReason.MASTER_CARD: N_("The {name} heads its line and is not played. Take it back."),
    SextoSetReason.CENTRAL_CARD: N_("The central card is not played. Take it back."),
    SextoSetReason.NO_EMPTY_LEFT: Plural(
        "{allowed} empty card is played already. Take it back.",
        "{allowed} empty cards are played already. Take it back.",
        "allowed",
    ),
    SextoSetReason.NO_LINK: N_("The {name} does not link on that line. Try another card or line."),
    SextoSetReason.FIRST_ON_MASTER: N_("In your first turn, lay the {name} on a line with no cards."),
    SextoSetReason.HOLDS_A_LINKING_CARD: N_("You cannot pass: you hold a card that links."),
}

NOTICES: dict[str, tuple[Weight, str]] = {
    "ready": (Weight.NEWS, N_("Ready. {who} starts.")),
    "head_twice": (Weight.REFUSAL, N_("The {master} is already on {zone}.")),
}


def results(before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> Iterator[str]:
    """A set won or drawn, with each pair's master cards; then, when it ended the match, the match's score."""
    lang = voice.language
    masters = after["masters_won"]
    for item in news(before, after):
        if isinstance(item, SetEnded):
            if item.winner is None:
                said = translate(N_("Drawn set: master cards {a} to {b}."), lang)
                yield said.format(a=masters["A"], b=masters["B"])
            else:
                other = "B" if item.winner == "A" else "A"
                said = translate(N_("Pair {pair} wins the set, with {won} master cards to {lost}."), lang)
                yield said.format(pair=item.winner, won=masters[item.winner], lost=masters[other])
    match = after["match"]
    if match["over"] and not before["match"]["over"]:
        sets, won = match["sets"], match["master_cards"]
        if match["winner"] is None:
            said = translate(N_("Drawn match: sets {sets_a} to {sets_b}, master cards {a} to {b}."), lang)
            yield said.format(sets_a=sets["A"], sets_b=sets["B"], a=won["A"], b=won["B"])
        else:
            pair = match["winner"]
            other = "B" if pair == "A" else "A"
            said = translate(N_("Pair {pair} wins the match, {won} sets to {lost}."), lang)
            if match["decided_by"] != "sets":
                said = translate(N_("Pair {pair} wins the match on master cards, {won} to {lost}."), lang)
                sets = won
            yield said.format(pair=pair, won=sets[pair], lost=sets[other])


def turn(after: Mapping[str, Any], voice: Voice) -> str | None:
    """The pair that places next; nobody once the match is over."""
    if after["turn"] is None:
        return None
    return translate(N_("Pair {pair}, your turn."), voice.language).format(pair=after["turn"])
