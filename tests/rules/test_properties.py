"""Properties over random games of both engines: every step is checked against invariants a bug would break."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.decks import load_deck
from companion.games.seises.rules import CHIPS, Pay, Seises
from companion.games.sexto_set.rules import ANY, SextoSet, _after
from companion.rules import Action, Game, Pass, Play

SPANISH_40 = load_deck("spanish-40")
SPANISH_48 = load_deck("spanish-48")
SQUADRATIK = load_deck("squadratik")


def any_action(game: Game, data: st.DataObject) -> Action:
    """An action that may well be illegal: any card of the deck (or not), any line, pay or pass."""
    cards = [card.id for card in game.deck] + ["XX"]
    kind = data.draw(st.sampled_from(["play", "play", "pay", "pass"]))
    if kind == "pay":
        return Pay()
    if kind == "pass":
        return Pass()
    card = data.draw(st.sampled_from(cards))
    line = None if isinstance(game, Seises) else data.draw(st.sampled_from([*game.masters, "M9X"]))  # type: ignore[attr-defined]
    return Play(card, line)


def legal_action(game: Game, data: st.DataObject) -> Action | None:
    actions = list(game.legal_actions())
    if not actions:
        return None
    plays = [a for a in actions if isinstance(a, Play)]
    if plays and data.draw(st.integers(0, 5)) > 0:  # mostly plays, so hands and sets end
        return data.draw(st.sampled_from(plays))
    return data.draw(st.sampled_from(actions))


def step(game: Game, data: st.DataObject) -> bool:
    """One random step with its checks; False when the game is over."""
    before = game.snapshot()
    wild = any_action(game, data)
    if not game.is_legal(wild):
        refusal = game.refusal(wild)
        assert refusal is not None and refusal.sentence("es") and refusal.sentence("en")
        try:
            game.push(wild)
        except ValueError:
            pass
        else:
            raise AssertionError(f"an illegal action was accepted: {wild}")
        assert game.snapshot() == before
    action = legal_action(game, data) if not game.is_legal(wild) else wild
    if action is None:
        return False
    game.push(action)
    after = game.snapshot()
    game.pop()
    assert game.snapshot() == before, f"undo of {action} did not restore the state"
    game.push(action)
    assert game.snapshot() == after
    assert json.loads(json.dumps(after)) == after
    assert type(game).from_snapshot(json.loads(json.dumps(after))).snapshot() == after
    return True


def check_seises(game: Seises, before: dict[str, Any]) -> None:
    snapshot = game.snapshot()
    on_table = 0
    for row in snapshot["rows"].values():
        if row is not None:
            low, high = row
            ranks = sorted({card.rank for card in game.deck if card.rank is not None})
            on_table += ranks.index(high) - ranks.index(low) + 1
    assert sum(snapshot["hand_sizes"]) + on_table == len(game.deck), "cards are conserved"
    assert snapshot["pot"] + snapshot["reserve"] == CHIPS, "chips are conserved within a hand"
    reneged = {r["seat"] - 1: r["points"] for r in snapshot["reneges"][len(before["reneges"]) :]}
    for seat, (now, was) in enumerate(zip(snapshot["scores"], before["scores"], strict=True)):
        penalty = reneged.get(seat, 0)  # a score falls only by a renuncio penalty, and never below 0
        assert now >= was - penalty >= 0, "a score fell by more than a renuncio penalty"
        assert penalty <= int(game.options["renege_points"]) and (
            penalty == 0 or game.options["renege_penalty"] == "points"
        )
    assert all(0 <= size <= game.hand_size for size in snapshot["hand_sizes"])


def check_sexto_set(game: SextoSet, before: dict[str, Any]) -> None:
    snapshot = game.snapshot()
    placed = [entry["card"] for line in snapshot["lines"].values() for entry in line]
    assert len(placed) == len(set(placed)) == len(game.placed), "a card lies on one line at most"
    assert snapshot["draw_pile"] == max(0, game.in_play - 16 - len(placed)), "the pile shrinks by one a placement"
    for master, entries in snapshot["lines"].items():
        opens = frozenset((game.deck[master].master_end,))
        for entry in entries:
            card = game.deck[entry["card"]]
            assert card.kind == "empty" or ANY in opens or set(card.ends or ()) & opens, "every card links"
            opens = _after(opens, card)
        assert sorted(opens) == snapshot["open_ends"][master]
    for pair in "AB":
        assert snapshot["sets_won"][pair] >= before["sets_won"][pair], "sets won never fall"
    assert sum(snapshot["masters_won"].values()) <= 8
    match, ended = snapshot["match"], snapshot["result"] is not None and before["result"] is None
    if ended:  # a set's master cards count in the match whatever ended it, a pass too
        for pair in "AB":
            assert match["master_cards"][pair] == before["match"]["master_cards"][pair] + snapshot["masters_won"][pair]
    assert match["over"] == (snapshot["result"] is not None and snapshot["set"] == game.match_sets)
    assert match["over"] == (game.outcome() is not None)
    if match["over"]:  # more sets, then more master cards, else a draw
        sets, masters = match["sets"], match["master_cards"]
        rule = "sets" if sets["A"] != sets["B"] else "master_cards" if masters["A"] != masters["B"] else "drawn"
        counts = sets if rule == "sets" else masters
        winner = None if rule == "drawn" else max("AB", key=lambda pair: counts[pair])
        assert (match["decided_by"], match["winner"]) == (rule, winner)
        assert not list(game.legal_actions()), "a match over takes no action"


@settings(max_examples=40)
@given(
    st.sampled_from(
        [(2, SPANISH_40), (4, SPANISH_40), (5, SPANISH_40), (8, SPANISH_40), (3, SPANISH_48), (6, SPANISH_48)]
    ),
    st.data(),
)
def test_random_seises_games_keep_every_invariant(setup: tuple[int, Any], data: st.DataObject) -> None:
    players, deck = setup
    penalty = data.draw(st.sampled_from(["flag", "points"]))
    points = str(data.draw(st.integers(1, 50)))
    game = Seises(players=players, deck=deck, options={"renege_penalty": penalty, "renege_points": points})
    for _ in range(data.draw(st.integers(1, 250))):
        before = game.snapshot()
        if not step(game, data):
            break
        check_seises(game, before)


@settings(max_examples=40)
@given(st.booleans(), st.integers(1, 3), st.data())
def test_random_sexto_set_games_keep_every_invariant(first_on_master: bool, sets: int, data: st.DataObject) -> None:
    options = {"first_turn_on_master": str(first_on_master).lower(), "match_sets": str(sets)}
    game = SextoSet(SQUADRATIK, options=options)
    for _ in range(data.draw(st.integers(1, 150))):
        before = game.snapshot()
        if not step(game, data):
            break
        check_sexto_set(game, before)
