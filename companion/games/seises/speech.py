"""Seises said aloud (:mod:`companion.speech`): its refusals, the results its news bring (:func:`.news`: a
renuncio and its penalty, a hand won with its pot, the game won) and whose turn it is, as sentences to be heard."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from companion.games.kind import Voice
from companion.games.seises import news
from companion.games.seises.news import ChipOwed, GameWon, HandWon, Reneged, SomebodyReneged
from companion.games.seises.rules import SeisesReason
from companion.i18n import N_, translate, translate_n
from companion.speech.sentences import Weight

__all__ = ["NOTICES", "REFUSALS", "results", "turn"]

REFUSALS: dict[StrEnum, str] = {
    SeisesReason.FIRST_PLAY_SIX_OF_OROS: N_("The first card is the 6 of coins. Take back the {name}."),
    SeisesReason.FIRST_PLAY_NO_PAY: N_("No paying yet: whoever holds the 6 of coins plays it."),
    SeisesReason.HAND_OPENS_WITH_SIX: N_("A hand opens with a six. Take back the {name}, and play a six or pay."),
    SeisesReason.SUIT_NOT_STARTED: N_(
        "There is no row of {suit} yet: the 6 of {suit} starts it. Take back the {name}."
    ),
    SeisesReason.NOT_NEXT_IN_ROW: N_("The {name} does not follow the row of {suit}. {needed} fits, or pay."),
    SeisesReason.HOLDS_A_PLAYABLE_CARD: N_("You cannot pay: you hold a card that can be played."),
}


NOTICES: dict[str, tuple[Weight, str]] = {
    "ask_first_seat": (Weight.NEWS, N_("Who laid the 6 of coins? Is it {name}?")),
}


def results(before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> Iterator[str]:
    """The news of one action, said in the order they happened: a renuncio before the hand it ends."""
    lang = voice.language
    for item in news(before, after):
        if isinstance(item, Reneged):
            seat, card = voice.seat_name(item.seat - 1), voice.card_name(item.card)
            said = translate(N_("Renuncio! {seat} paid holding the {card}."), lang).format(seat=seat, card=card)
            if item.points:
                penalty = translate_n("Minus {points} point.", "Minus {points} points.", item.points, lang)
                said = f"{said} {penalty.format(points=item.points)}"
            yield said
        elif isinstance(item, SomebodyReneged):
            yield translate(N_("Renuncio! Everybody paid, yet cards in hands could be played."), lang)
        elif isinstance(item, ChipOwed):
            yield translate(N_("The reserve is empty: the chip is owed."), lang)
        elif isinstance(item, HandWon) and after["winner"] is None:
            seat = voice.seat_name(item.seat - 1)
            chips = translate_n(
                "{seat} wins the hand and {chips} chip.", "{seat} wins the hand and {chips} chips.", item.chips, lang
            ).format(seat=seat, chips=item.chips)
            score = after["scores"][item.seat - 1]
            points = translate_n("{seat} has {score} point.", "{seat} has {score} points.", score, lang)
            yield f"{chips} {points.format(seat=seat, score=score)}"
        elif isinstance(item, GameWon):
            said = translate_n(
                "{seat} wins the game with {score} point!",
                "{seat} wins the game with {score} points!",
                item.score,
                lang,
            )
            yield said.format(seat=voice.seat_name(item.seat - 1), score=item.score)


def turn(after: Mapping[str, Any], voice: Voice) -> str | None:
    """Whose turn it is, by the seat's name once the players said who is seat 1; nobody's once the game is won."""
    if after["turn"] is None or after["winner"] is not None:
        return None
    return translate(N_("{seat}, your turn."), voice.language).format(seat=voice.seat_name(after["turn"] - 1))
