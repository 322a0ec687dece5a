"""One test per 6º SET behaviour of docs/RULES.md (section numbers are the rule sheet's)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.decks import load_deck
from companion.games.seises.rules import Pay
from companion.games.sexto_set.robots import SextoSetRobots
from companion.games.sexto_set.rules import SextoSet, SextoSetReason
from companion.rules import IllegalPlay, Pass, Play, Reason, SetupError


def place(game: SextoSet, *moves: str) -> None:
    """Push placements written ``"M1R N01"`` (line, card), or ``"pass"``."""
    for move in moves:
        if move == "pass":
            game.push(Pass())
        else:
            line, card = move.split()
            game.push(Play(card, line))


def refused(game: SextoSet, move: str) -> Reason:
    action = Pass() if move == "pass" else Play(*reversed(move.split()))
    with pytest.raises(IllegalPlay) as info:
        game.push(action)
    return info.value.reason


def robots_until_they_pass(seed: int = 0, **options: str) -> SextoSet:
    """A robot set played until the pair whose turn it is holds no card that links (before its pass)."""
    for attempt in range(seed, seed + 100):
        game = SextoSet(options=options)
        table = SextoSetRobots(game, random.Random(attempt))
        while game.result is None:
            action, hand = table.choose()
            if isinstance(action, Pass):
                return game
            game.push(action)
            table.played(action, hand)
    raise AssertionError("no robot set ended in a pass")


def card_with(ends: tuple[str, str]) -> str:
    """The id of the squadratik normal card with these ends (either order)."""
    for card in load_deck("squadratik"):
        if card.ends in (ends, (ends[1], ends[0])):
            return card.id
    raise LookupError(ends)


R12, R23, R22, R11 = card_with(("1R", "2R")), card_with(("2R", "3R")), card_with(("2R", "2R")), card_with(("1R", "1R"))
B13, B34 = card_with(("1B", "3B")), card_with(("3B", "4B"))
BLANK_R1, BLANK_R2, BLANK_B1 = card_with(("0", "1R")), card_with(("0", "2R")), card_with(("0", "1B"))
BLANK_BLANK = card_with(("0", "0"))


# set-up (§1-4, "Cartas que se eliminan") -----------------------------------------------------------------------


def test_the_central_card_and_five_empties_leave_the_game() -> None:
    game = SextoSet()
    deck = game.deck
    empties = sum(1 for c in deck if c.kind == "empty")
    normals = sum(1 for c in deck if c.kind == "normal")
    assert game.empty_allowance == empties - 5
    assert game.in_play == normals + empties - 5
    assert game.draw_pile == game.in_play - 16


def test_eight_lines_each_open_on_its_master_card() -> None:
    game = SextoSet()
    assert game.masters == ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
    assert {m: sorted(e) for m, e in game.open_ends.items()} == {m: [m[1:]] for m in game.masters}


def test_a_deck_without_eight_masters_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "small.toml"
    path.write_text('name = "small"\n[[cards]]\nid = "M1R"\nkind = "master"\ndots = 1\ncolor = "red"\n')
    with pytest.raises(SetupError, match="8 master cards"):
        SextoSet(deck=load_deck(path))


# turns and the draw pile (§3, §7) --------------------------------------------------------------------------------


def test_pairs_alternate_a_first_and_the_pile_shrinks_per_placement() -> None:
    game = SextoSet()
    pile = game.draw_pile
    assert game.turn == "A"
    place(game, f"M1R {R12}")
    assert (game.turn, game.draw_pile) == ("B", pile - 1)
    place(game, f"M2R {R23}")
    assert (game.turn, game.draw_pile) == ("A", pile - 2)


# linking (§5, §8, §9) ------------------------------------------------------------------------------------------


def test_a_card_links_by_dots_and_colour() -> None:
    game = SextoSet()
    assert refused(game, f"M1R {R23}") is SextoSetReason.NO_LINK  # 2R|3R has no 1R end
    assert refused(game, f"M1B {R12}") is SextoSetReason.NO_LINK  # right dots, wrong colour
    place(game, f"M1R {R12}")
    assert sorted(game.open_ends["M1R"]) == ["2R"]


def test_a_blank_end_links_only_to_blank_and_is_the_way_to_change_colour() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    place(game, f"M1R {BLANK_R1}")  # 0|1R on 1R: the blank end is open
    assert sorted(game.open_ends["M1R"]) == ["0"]
    assert refused(game, f"M1R {B13}") is SextoSetReason.NO_LINK
    place(game, f"M1R {BLANK_B1}")  # 0|1B on the blank: the line is black now
    assert sorted(game.open_ends["M1R"]) == ["1B"]
    place(game, f"M1R {B13}")
    assert sorted(game.open_ends["M1R"]) == ["3B"]


def test_an_empty_card_links_to_anything_and_anything_links_to_it() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    place(game, "M3B V1")
    assert sorted(game.open_ends["M3B"]) == ["*"]
    place(game, f"M3B {R23}")  # laid either way round after an empty card
    assert sorted(game.open_ends["M3B"]) == ["2R", "3R"]


def test_a_card_laid_either_way_keeps_both_open_ends_until_a_later_card_settles_it() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    place(game, f"M1R {BLANK_R1}", f"M1R {BLANK_BLANK}")  # open: blank
    place(game, f"M1R {BLANK_R2}")  # 0|2R touching blank: open 2R; 2R cannot touch blank
    assert sorted(game.open_ends["M1R"]) == ["2R"]
    game2 = SextoSet(options={"first_turn_on_master": "false"})
    place(game2, "M2R V1", f"M2R {BLANK_R2}")  # after an empty card: 0 or 2R may be open
    assert sorted(game2.open_ends["M2R"]) == ["0", "2R"]
    place(game2, f"M2R {R22}")  # only the 2R end fits 2R|2R: the 0|2R card was laid blank side first
    assert sorted(game2.open_ends["M2R"]) == ["2R"]
    game2.pop()
    place(game2, f"M2R {BLANK_BLANK}")  # or it was laid 2R side first
    assert sorted(game2.open_ends["M2R"]) == ["0"]


# first turn of each pair (§6) -------------------------------------------------------------------------------


def test_each_pairs_first_card_goes_on_a_master_card() -> None:
    game = SextoSet()
    place(game, f"M1R {R12}")
    assert refused(game, f"M1R {R22}") is SextoSetReason.FIRST_ON_MASTER
    place(game, f"M2R {R22}")
    place(game, f"M1R {R23}")  # from then on, any line
    assert game.lines["M1R"] == [(R12, "A"), (R23, "A")]


# refusals --------------------------------------------------------------------------------------------------


def test_masters_central_tabled_unknown_and_extra_empties_are_refused_with_their_reason() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    assert refused(game, "M1R M2R") is SextoSetReason.MASTER_CARD
    assert refused(game, "M1R CENTRAL") is SextoSetReason.CENTRAL_CARD
    assert refused(game, "M9X V1") is SextoSetReason.UNKNOWN_LINE
    assert refused(game, "M1R 6O") is Reason.UNKNOWN_CARD
    place(game, f"M1R {R12}")
    assert refused(game, f"M2R {R12}") is Reason.ON_TABLE
    place(game, "M2R V1", "M3R V2")
    assert refused(game, "M4R V3") is SextoSetReason.NO_EMPTY_LEFT
    with pytest.raises(IllegalPlay) as info:
        game.push(Pay())
    assert info.value.reason is Reason.WRONG_ACTION


def test_refusals_say_what_to_do_in_both_languages() -> None:
    game = SextoSet()
    with pytest.raises(IllegalPlay) as info:
        game.push(Play(R23, "M1R"))
    assert info.value.title("es") == f"Carta {R23} (2R|3R) no enlaza con 1R"
    assert info.value.title("en") == f"Card {R23} (2R|3R) does not link with 1R"
    assert info.value.todo("en") == "Another card or line: passing loses the set"


# winning (§10-13) ----------------------------------------------------------------------------------------------


def test_each_line_is_led_by_more_cards_then_more_points_else_nobody() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    place(game, f"M1R {R12}", f"M1B {B13}")
    assert (game.leader("M1R"), game.leader("M1B"), game.leader("M2R")) == ("A", "B", None)
    place(game, f"M1R {R22}", f"M1R {R23}")  # line M1R: A has 2 cards, B 1
    assert game.leader("M1R") == "A"
    place(game, "M2R V1", f"M2R {BLANK_BLANK}")  # one card each; empty 0 points vs 0|0's points
    assert game.deck[BLANK_BLANK].points > 0
    assert game.leader("M2R") == "B"


def test_a_tie_on_cards_and_points_leaves_the_master_unwon() -> None:
    game = SextoSet(options={"first_turn_on_master": "false"})
    place(game, "M4B V1", "M4B V2")
    assert game.leader("M4B") is None
    assert game.masters_won() == {"A": 0, "B": 0}


def test_a_pair_that_cannot_link_passes_and_loses_the_set() -> None:
    game = robots_until_they_pass()
    loser = game.turn
    winner = "B" if loser == "A" else "A"
    masters = game.snapshot()["masters"]
    place(game, "pass")
    assert game.result == {"winner": winner, "reason": "pass"}
    assert game.sets_won == {winner: 1, loser: 0}
    assert game.outcome() is None, "the set is over, the match of 3 sets goes on"
    assert game.snapshot()["masters"] == masters  # the master cards are still shown
    assert refused(game, "pass") is SextoSetReason.SET_OVER


def test_a_pass_the_unplaced_cards_prove_false_is_refused() -> None:
    game = SextoSet()
    # the very first turn: pair A holds 8 cards, and only the 4 blank-blank cards link to no master card
    assert (game.held("A"), game.snapshot()["held"]) == (8, {"A": 8, "B": 8})
    assert refused(game, "pass") is SextoSetReason.HOLDS_A_LINKING_CARD
    assert Pass() not in list(game.legal_actions())
    refusal = game.refusal(Pass())
    assert refusal is not None
    assert refusal.sentence("en") == "You can link a card. Unplaced cards that cannot link: 4; you hold 8."
    # a line ending in an empty card takes anything: no pair holding a card may pass
    place(game, f"M1R {R12}", "M2R V1", f"M3R {R23}")
    assert refused(game, "pass") is SextoSetReason.HOLDS_A_LINKING_CARD


def test_a_pass_stands_when_the_pair_may_hold_only_cards_that_cannot_link() -> None:
    game = robots_until_they_pass()
    assert game.is_legal(Pass()) and Pass() in list(game.legal_actions())


def test_each_pair_holds_four_cards_a_player_and_draws_while_the_pile_lasts() -> None:
    game = robots_until_they_pass()
    dry = len(game.placed) - (game.in_play - 16)  # placements made after the pile ran out
    assert dry > 0
    assert game.held("A") + game.held("B") == 16 - dry


def test_robot_hands_are_what_the_engine_counts() -> None:
    for seed in range(20):
        game = SextoSet()
        table = SextoSetRobots(game, random.Random(seed))
        while game.set_number < 2 or game.result is None:
            action, hand = table.choose()
            game.push(action)
            table.played(action, hand)
            if game.result is None:
                for pair in "AB":
                    assert game.held(pair) == sum(len(h) for h in table.hands[pair])


def test_the_next_set_starts_with_the_first_card_placed_led_by_the_other_pair() -> None:
    game = robots_until_they_pass()
    place(game, "pass")
    assert game.turn == "B"  # set 2 is led by pair B: the screen names it
    firsts = list(game.legal_actions())  # the first cards of the next set
    assert Play(R12, "M1R") in firsts and Pass() not in firsts
    assert all(game.is_legal(action) for action in firsts)
    assert len(firsts) == len(game.placements(card.id for card in game.deck))
    place(game, f"M1R {R12}")  # a card placed in set 1 may start set 2
    assert (game.set_number, game.lines["M1R"], game.turn) == (2, [(R12, "B")], "A")
    game.pop()
    assert (game.set_number, game.turn, game.result["reason"]) == (1, "B", "pass")  # type: ignore[index]


def test_master_cards_won_are_counted_over_the_match() -> None:
    game = SextoSet()
    table = SextoSetRobots(game, random.Random(5))
    tally = {"A": 0, "B": 0}
    for _ in range(3):
        table.step()  # the set's first card (after a set has ended, it starts the next)
        while game.result is None:
            table.step()
        for pair, won in game.masters_won().items():
            tally[pair] += won
    assert game.set_number == 3 and sum(tally.values()) > 8
    assert game.match_masters == game.snapshot()["match_masters"] == tally


def test_the_set_ends_when_every_card_is_placed() -> None:
    for seed in range(200):
        game = SextoSet()
        table = SextoSetRobots(game, random.Random(seed))
        while game.result is None:
            table.step()
        if game.result == {"winner": game.result["winner"], "reason": "all_placed"}:
            break
    else:
        pytest.fail("no robot game placed every card")
    assert len(game.placed) == game.in_play and game.draw_pile == 0
    won = game.masters_won()
    expected = None if won["A"] == won["B"] else max(won, key=lambda pair: won[pair])
    assert game.result["winner"] == expected


# the match (GAMES.md, "The match") -------------------------------------------------------------------------------


def play_sets(game: SextoSet, seed: int, sets: int) -> SextoSetRobots:
    """Robots play ``sets`` sets of ``game`` from where it stands."""
    table = SextoSetRobots(game, random.Random(seed))
    for _ in range(sets):
        table.step()  # the set's first card (after a set has ended, it starts the next)
        while game.result is None:
            table.step()
    return table


def test_match_sets_is_a_whole_number_from_1_to_15() -> None:
    assert SextoSet().match_sets == 3
    assert SextoSet(options={"match_sets": "15"}).match_sets == 15
    for wrong in ("0", "16", "three"):
        with pytest.raises(SetupError) as info:
            SextoSet(options={"match_sets": wrong})
        assert info.value.text("en") == f"Option match_sets takes a whole number from 1 to 15, not '{wrong}'."


def test_a_match_ends_after_its_last_set_and_refuses_every_action_after_it() -> None:
    game = SextoSet(options={"match_sets": "2"})
    play_sets(game, 3, 1)
    assert game.result is not None and game.outcome() is None, "one set of two: the match goes on"
    assert game.snapshot()["match"]["over"] is False and game.snapshot()["match"]["winner"] is None
    play_sets(game, 4, 1)
    outcome = game.outcome()
    assert outcome is not None and game.set_number == 2
    assert game.snapshot()["match"] == {
        "sets": game.sets_won,
        "master_cards": game.match_masters,
        "sets_to_play": 2,
        "over": True,
        "winner": outcome.winner,
        "decided_by": outcome.termination,
    }
    assert refused(game, f"M1R {R12}") is Reason.GAME_OVER  # no third set
    assert refused(game, "pass") is Reason.GAME_OVER
    assert list(game.legal_actions()) == []


def test_the_match_goes_to_more_sets_then_more_master_cards_else_it_is_drawn() -> None:
    game = SextoSet(options={"match_sets": "1"})
    play_sets(game, 0, 1)
    for sets, masters, expected in (
        ({"A": 2, "B": 1}, {"A": 10, "B": 12}, ("sets", "A")),  # sets first, whatever the master cards
        ({"A": 0, "B": 1}, {"A": 12, "B": 3}, ("sets", "B")),
        ({"A": 1, "B": 1}, {"A": 10, "B": 12}, ("master_cards", "B")),  # equal sets: master cards
        ({"A": 1, "B": 1}, {"A": 11, "B": 11}, ("drawn", None)),
    ):
        game.sets_won, game.match_masters = sets, masters
        outcome = game.outcome()
        assert outcome is not None and (outcome.termination, outcome.winner) == expected
        assert game.as_it_stands() == outcome


def test_a_match_ended_early_ends_as_it_stands() -> None:
    game = SextoSet()
    play_sets(game, 5, 1)
    winner = game.result["winner"]  # type: ignore[index]
    assert game.outcome() is None
    stands = game.as_it_stands()
    # one set played: its winner leads on sets; a drawn set had equal master cards, so the match is drawn
    assert (stands.termination, stands.winner) == (("sets", winner) if winner is not None else ("drawn", None))


def test_a_set_lost_by_a_pass_still_counts_the_master_cards_each_pair_led() -> None:
    """§13 decides the set (the pair that passes loses it, even leading more lines); the lines each pair led
    when it ended count in the match's master cards, as in a set played out."""
    for seed in range(100):
        game = robots_until_they_pass(seed)
        loser = game.turn
        if game.masters_won()[loser] > game.masters_won()["B" if loser == "A" else "A"]:
            break
    else:
        pytest.fail("no robot pair passed while leading more lines")
    led = game.masters_won()
    place(game, "pass")
    winner = "B" if loser == "A" else "A"
    assert game.result == {"winner": winner, "reason": "pass"} and game.sets_won[winner] == 1
    assert game.masters_won() == led == game.match_masters, "the lines led at the pass count"
    snapshot = game.snapshot()
    assert snapshot["match"]["master_cards"] == snapshot["match_masters"] == led


def test_undoing_the_last_sets_end_reopens_the_match_and_another_end_may_follow() -> None:
    game = SextoSet(options={"match_sets": "1"})
    table = SextoSetRobots(game, random.Random(2))
    while game.outcome() is None:
        table.step()
    ended = game.snapshot()
    last = game.pop()
    assert game.outcome() is None and game.snapshot()["match"]["over"] is False, "the match is in play again"
    game.push(last)
    assert game.snapshot() == ended, "and the same play ends it the same way"
    assert type(game).from_snapshot(ended).outcome() == game.outcome(), "the end is read from the state"
