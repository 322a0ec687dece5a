"""6º SET a dobles at the table: the kind that glues the rules engine (:mod:`companion.games.sexto_set.rules`) to the
referee, the screen and the robots.

Each of the 8 zones is a line, headed by its master card: the config names it (``"M1R"``) or the zone learns it
(``"auto"``) from the first master card laid on it when a game starts. A card laid on a zone is
``Play(card, line)``; the PASS button says the pair cannot link (and loses the set). A set's end is the engine's
``result``; the match goes on until its last set (option ``match_sets``), whose end is the engine's outcome: the
journal's game is then closed, as a Seises game's at 50.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from companion.decks import Deck, Kind, load_deck
from companion.games.kind import Ending, GameKind, Result, Voice, ending
from companion.games.sexto_set.news import News, SetEnded, SetStarted
from companion.games.sexto_set.robots import SextoSetRobots
from companion.games.sexto_set.rules import DECK, OPTIONS, PAIRS, SextoSet
from companion.i18n import N_, Plural, Said, translate
from companion.rules.base import Action, Pass, Play
from companion.view import Message, MessageKind, Scoreboard

__all__ = ["END_OF_SET", "KIND", "Line", "Pair", "SextoSetKind", "SextoSetView", "match_verdict", "news"]

Pair = Literal["A", "B"]
LINES = 8  # one zone per master card


@dataclass(frozen=True, slots=True)
class Line:
    """One of the 8 lines, headed by its master card.

    ``count_a`` and ``count_b`` are the cards each pair placed on the line; ``leader`` is the pair the master
    card would go to if the set ended now (more cards, then more points), or None on a tie.
    """

    master_id: str  # "M3B"
    count_a: int
    count_b: int
    leader: Pair | None


@dataclass(frozen=True, slots=True)
class SextoSetView(Scoreboard):
    """The 6º SET a dobles scoreboard.

    ``masters_won``, ``sets_won`` and ``match_masters`` are (pair A, pair B). While the set runs ``masters_won``
    counts the lines each pair leads; once it ended, the master cards each pair won. ``match_masters`` counts the
    master cards won in the sets that ended (the sheet's objective). ``result`` is None while the set runs,
    then the winning pair or ``"draw"``; ``turn`` is then the pair that leads the next set. Once the match is
    over, ``match_result`` is its winner or ``"draw"`` and ``decided_by`` the rule that named it, in words.
    """

    lines: tuple[Line, ...]
    masters_won: tuple[int, int]
    draw_pile: int
    turn: Pair
    sets_won: tuple[int, int] = (0, 0)
    result: Pair | Literal["draw"] | None = None
    match_masters: tuple[int, int] = (0, 0)
    match_result: Pair | Literal["draw"] | None = None
    decided_by: str = ""


# 6º SET's own message: a set won (its master cards counted, the cards gathered for the next) covers the scoreboard
END_OF_SET = MessageKind("end_of_set", milestone=True)

# The referee's words for 6º SET: key -> its text (an English msgid), filled with str.format.
TEXTS: dict[str, str] = {
    "confirm_pass": N_("Cannot link? You lose the set"),
    "set_won": N_("Pair {pair} wins the set"),
    "set_drawn": N_("Drawn set"),
    "match_won": N_("Pair {pair} wins the match"),
    "match_drawn": N_("Drawn match"),
    "on_sets": N_("on sets"),
    "on_masters": N_("on masters"),
    "next_set": N_("Pick up the cards: pair {leads} leads next"),
    "register": Plural("A master on each zone: {left} left", "A master on each zone: {left} left", "left"),
    "register_do": N_("Lay the master card on {zone}"),
    "registered": N_("{master} on {zone}"),
    "head_twice": N_("{master} is already on {zone}"),
    "ready": N_("Ready: {who} starts"),
    "pair": N_("Pair {pair}"),
    "pair_head": N_("Pair"),
    "sets_head": N_("Sets"),
    "masters_head": N_("Masters"),
}

TODO: dict[str, str] = {
    "confirm_pass": "confirm_do",
    "register": "register_do",
    "set_won": "next_set",
    "set_drawn": "next_set",
}


def news(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[News]:
    """A set that started (the first card after a set ended) or ended (its winner, and who leads the next)."""
    found: list[News] = []
    if after["set"] != before["set"]:
        found.append(SetStarted(after["set"]))
    if after["result"] is not None and before["result"] is None:
        found.append(SetEnded(after["result"]["winner"], after["turn"]))
    return found


class SextoSetKind(GameKind[SextoSet, SextoSetView]):
    name = SextoSet.name
    caption = N_("6º SET")
    decks = (DECK,)
    options = OPTIONS
    grammar = N_("play <master-id> <card>, pass or undo")
    texts = TEXTS
    todo = TODO
    confirm_pass_key = "confirm_pass"

    def player_counts(self, deck: Deck) -> tuple[int, ...]:
        return (4,)  # two pairs

    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> SextoSet:
        return SextoSet(deck=deck, options=dict(options))

    # ---- zones ------------------------------------------------------------------------------------------------

    def default_zones(self) -> dict[str, str]:
        return {f"z{i}": "auto" for i in range(1, LINES + 1)}

    def zone_problem(self, role: str) -> Said | None:
        if role == "auto" or (len(role) == 3 and role[0] == "M"):
            return None
        return Said(N_('{role}: a 6º SET zone is "auto" or a master card id such as M1R'), role=repr(role))

    def zones_problem(self, zones: Mapping[str, str], deck: Deck | None = None) -> Said | None:
        """Every way the zones fail to give each line one zone: their count, a master card that heads two zones or
        that the deck has not, lines that neither a zone names nor an ``"auto"`` zone is left to learn."""
        masters = [card.id for card in (deck or load_deck(self.default_deck)).of_kind(Kind.MASTER)]
        problems: list[Said] = []
        if len(zones) != LINES:
            said = N_("6º SET needs one zone per master card: {lines} zones, not {zones}")
            problems.append(Said(said, lines=LINES, zones=len(zones)))
        named: dict[str, list[str]] = {}
        malformed = False
        for zone, role in zones.items():
            if self.zone_problem(role) is not None:
                malformed = True  # a role that is no master card id nor "auto" is zone_problem's to say
            elif role != "auto":
                named.setdefault(role, []).append(zone)
        for master, where in named.items():
            if master not in masters:
                said = N_("{zone} = {master}: no master card of the deck is {master} (its master cards: {masters})")
                problems.append(Said(said, zone=where[0], master=master, masters=", ".join(masters)))
            elif len(where) > 1:
                said = N_("{master} heads {zones}: give each line one zone")
                problems.append(Said(said, master=master, zones=", ".join(where)))
        missing = [master for master in masters if master not in named]
        autos = sum(role == "auto" for role in zones.values())
        if len(zones) >= LINES and len(missing) > autos and not malformed:  # fewer zones: the count says it
            said = N_('no zone for the lines of {masters}: name each on a zone, or leave zones "auto" to learn them')
            problems.append(Said(said, masters=", ".join(missing)))
        return _each(problems)

    def zone_head(self, role: str) -> str | None:
        return None if role == "auto" else role

    def heads(self, game: SextoSet) -> list[str]:
        return list(game.masters)

    def card_on_zone(self, game: SextoSet, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
        return Play(card, head)

    def pass_action(self) -> Action:
        return Pass()

    # ---- what the table says and shows ------------------------------------------------------------------------

    def said(self, before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> tuple[Message | None, bool]:
        match = after["match"]
        if match["over"] and not before["match"]["over"]:
            pair = match["winner"]
            title = voice.text("match_drawn") if pair is None else voice.text("match_won", pair=pair)
            verdict = match_verdict(match).text(voice.language)
            todo = f"{verdict[:1].upper()}{verdict[1:]}. {voice.text('new_game_do')}"
            return Message(MessageKind.END_OF_GAME, title, todo), False
        for item in news(before, after):
            if isinstance(item, SetEnded):
                title = voice.text("set_drawn") if item.winner is None else voice.text("set_won", pair=item.winner)
                return Message(END_OF_SET, title, voice.text("next_set", leads=item.leads_next)), False
        return None, False

    def who(self, turn: int | str | None, lang: str) -> str:
        return translate("pair {pair}", lang).format(pair=turn)

    def whose_turn(self, game: SextoSet, voice: Voice) -> str:
        return voice.text("pair", pair=game.turn)

    def view(self, game: SextoSet, voice: Voice) -> SextoSetView:
        lines = []
        for master in game.masters:
            count_a, count_b = game.counts(master)
            lines.append(Line(master, count_a, count_b, _pair(game.leader(master))))
        won = game.masters_won()
        result: Pair | Literal["draw"] | None = None
        if game.result is not None:
            result = _pair(game.result["winner"]) or "draw"
        end = ending(game)
        match_result: Pair | Literal["draw"] | None = None
        decided_by = ""
        if end is not None:
            match_result = _pair(end.winner if isinstance(end.winner, str) else None) or "draw"
            decided_by = {"sets": voice.text("on_sets"), "master_cards": voice.text("on_masters")}.get(end.rule, "")
        return SextoSetView(
            lines=tuple(lines),
            masters_won=(won["A"], won["B"]),
            draw_pile=game.draw_pile,
            turn=_pair(game.turn) or "A",
            sets_won=(game.sets_won["A"], game.sets_won["B"]),
            result=result,
            match_masters=(game.match_masters["A"], game.match_masters["B"]),
            match_result=match_result,
            decided_by=decided_by,
        )

    def tally(self, game: SextoSet) -> Said:
        sets, masters = game.sets_won, game.match_masters
        return Said(
            N_("sets A {sets_a} B {sets_b}, master cards A {masters_a} B {masters_b}"),
            sets_a=sets["A"],
            sets_b=sets["B"],
            masters_a=masters["A"],
            masters_b=masters["B"],
        )

    def verdict(self, game: SextoSet, end: Ending, voice: Voice | None = None) -> Said:
        return match_verdict(
            {"sets": game.sets_won, "master_cards": game.match_masters, "winner": end.winner, "decided_by": end.rule}
        )

    def results(self, game: SextoSet, finished: bool) -> list[Result]:
        """Each pair's master cards over the match (the sheet's objective), and whether :func:`ending` names it."""
        end = ending(game, ended=finished)
        return [Result(pair, game.match_masters[pair], 0, end is not None and pair == end.winner) for pair in PAIRS]

    def robots(self, game: SextoSet, rng: random.Random) -> SextoSetRobots:
        return SextoSetRobots(game, rng)


def _each(problems: list[Said]) -> Said | None:
    """The problems in one sentence, each after the other; None when there are none."""
    if not problems:
        return None
    said = problems[-1]
    for problem in reversed(problems[:-1]):
        said = Said(N_("{problem}; {more}"), problem=problem, more=said)
    return said


def match_verdict(match: Mapping[str, Any]) -> Said:
    """The match's end in words, from the snapshot's ``match``: the winner's figures first, by the rule that named
    it (sets; on equal sets, master cards; else a draw, with both figures)."""
    sets, masters, pair = match["sets"], match["master_cards"], match["winner"]
    if pair is None:
        said = N_("drawn match: sets {sets_a}-{sets_b}, master cards {masters_a}-{masters_b}")
        return Said(said, sets_a=sets["A"], sets_b=sets["B"], masters_a=masters["A"], masters_b=masters["B"])
    other = "B" if pair == "A" else "A"
    if match["decided_by"] == "sets":
        return Said(N_("pair {pair}, sets {won}-{lost}"), pair=pair, won=sets[pair], lost=sets[other])
    said = N_("pair {pair}, master cards {won}-{lost} (sets {sets}-{sets})")
    return Said(said, pair=pair, won=masters[pair], lost=masters[other], sets=sets[pair])


def _pair(value: str | None) -> Pair | None:
    return "A" if value == "A" else "B" if value == "B" else None


KIND = SextoSetKind()
