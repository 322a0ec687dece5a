"""One test per Seises behaviour of docs/RULES.md (section numbers are the rule sheet's)."""

from __future__ import annotations

import pytest

from companion.decks import load_deck
from companion.rules import IllegalPlay, Pass, Pay, Play, Reason, Seises, SetupError
from companion.rules.seises import CHIPS


def play(game: Seises, *moves: str) -> None:
    """Push a sequence of moves: card ids, or "pay"."""
    for move in moves:
        game.push(Pay() if move == "pay" else Play(move))


def refused(game: Seises, move: str) -> Reason:
    action = Pay() if move == "pay" else Play(move)
    with pytest.raises(IllegalPlay) as info:
        game.push(action)
    return info.value.reason


def hand_of_one_suit(game: Seises, suit: str) -> list[str]:
    """The cards of ``suit`` in row order outwards from the six: 6, 7, 5, 10/8, 4, ..."""
    row = [card.id for card in game.deck if card.suit == suit]
    six = row.index(f"6{suit}")
    out = [row[six]]
    for step in range(1, len(row)):
        for index in (six + step, six - step):
            if 0 <= index < len(row):
                out.append(row[index])
    return out


# §2: players and deck ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("deck", "counts"), [("spanish-40", [4, 5, 8]), ("spanish-48", [4, 6, 8])])
def test_player_count_must_divide_the_deck(deck: str, counts: list[int]) -> None:
    for players in range(2, 11):
        if players in counts:
            assert Seises(players=players, deck=deck).hand_size * players == len(load_deck(deck))
        else:
            with pytest.raises(SetupError) as info:
                Seises(players=players, deck=deck)
            assert ", ".join(map(str, counts[:-1])) in str(info.value)
            assert str(counts[-1]) in str(info.value)


def test_a_squadratik_deck_is_refused_for_seises() -> None:
    with pytest.raises(SetupError, match="Spanish deck"):
        Seises(deck="squadratik")


def test_unknown_option_and_value_are_refused_by_name() -> None:
    with pytest.raises(SetupError, match="renege_penalty"):
        Seises(options={"renege": "chip"})
    with pytest.raises(SetupError, match="flag or chip"):
        Seises(options={"renege_penalty": "shout"})


# §4: the first play ----------------------------------------------------------------------------------------


def test_the_game_opens_with_the_six_of_oros() -> None:
    game = Seises()
    assert list(game.legal_actions()) == [Play("6O")]
    assert refused(game, "6C") is Reason.FIRST_PLAY_SIX_OF_OROS
    assert refused(game, "pay") is Reason.FIRST_PLAY_NO_PAY
    play(game, "6O")
    assert game.snapshot()["rows"]["O"] == [6, 6]
    assert game.snapshot()["turn"] == 2


def test_after_the_six_of_oros_its_neighbours_and_other_sixes_are_legal() -> None:
    game = Seises()
    play(game, "6O")
    assert sorted(a.card for a in game.legal_actions() if isinstance(a, Play)) == sorted(["5O", "7O", "6C", "6E", "6B"])
    assert refused(game, "5C") is Reason.SUIT_NOT_STARTED
    assert refused(game, "4O") is Reason.NOT_NEXT_IN_ROW
    assert refused(game, "6O") is Reason.ON_TABLE


def test_seven_and_ten_are_neighbours_in_the_40_card_deck() -> None:
    game = Seises(deck="spanish-40")
    play(game, "6O", "7O")
    assert game.is_legal(Play("10O"))
    play(game, "10O", "11O", "12O")
    assert game.snapshot()["rows"]["O"] == [6, 12]
    assert not game.is_legal(Play("1O"))  # rows do not wrap around


def test_eight_follows_seven_in_the_48_card_deck() -> None:
    game = Seises(deck="spanish-48")
    play(game, "6O", "7O")
    assert refused(game, "10O") is Reason.NOT_NEXT_IN_ROW
    play(game, "8O", "9O", "10O")
    assert game.snapshot()["rows"]["O"] == [6, 10]


def test_turns_pass_in_seat_order_and_wrap() -> None:
    game = Seises(players=5)
    play(game, "6O", "7O", "pay", "5O", "pay")
    assert game.snapshot()["turn"] == 1
    assert game.snapshot()["hand_sizes"] == [7, 7, 8, 7, 8]


# §4: paying ---------------------------------------------------------------------------------------------


def test_paying_moves_one_chip_from_the_reserve_to_the_pot() -> None:
    game = Seises()
    play(game, "6O", "pay", "pay")
    assert (game.pot, game.reserve) == (2, CHIPS - 2)


def test_an_empty_reserve_caps_the_pot_and_records_the_chip_as_owed() -> None:
    game = Seises()
    play(game, "6O", *["pay"] * CHIPS)
    assert (game.pot, game.reserve) == (50, 0)
    play(game, "pay", "pay")
    snapshot = game.snapshot()
    assert (snapshot["pot"], snapshot["reserve"]) == (50, 0)
    assert sum(snapshot["owed"]) == 2
    game.pop()
    assert sum(game.snapshot()["owed"]) == 1


def test_reserve_exhausted_unlimited_lets_the_pot_grow() -> None:
    game = Seises(options={"reserve_exhausted": "unlimited"})
    play(game, "6O", *["pay"] * (CHIPS + 3))
    assert (game.pot, game.reserve, sum(game.owed)) == (53, 0, 0)


# §4: winning a hand -------------------------------------------------------------------------------------


def seat_one_wins_a_hand(game: Seises, paying_rounds: int = 0) -> None:
    """Seat 1 (the mano) plays out oros from the six while the others pay; then everyone pays some rounds."""
    players = game.players
    oros = hand_of_one_suit(game, "O")[: game.hand_size]
    moves = [oros[0]] + ["pay"] * (players - 1) + ["pay"] * players * paying_rounds
    for card in oros[1:]:
        moves += [card] + ["pay"] * (players - 1)
    play(game, *moves[: -(players - 1)])  # the hand ends on seat 1's last card


def test_the_seat_that_lays_its_last_card_wins_the_hand_and_the_pot() -> None:
    game = Seises(players=4)
    seat_one_wins_a_hand(game)
    snapshot = game.snapshot()
    expected_pot = 3 * (game.hand_size - 1)
    assert snapshot["scores"] == [expected_pot, 0, 0, 0]
    assert snapshot["hand"] == 2
    assert (snapshot["pot"], snapshot["reserve"]) == (0, CHIPS)
    assert snapshot["hand_sizes"] == [game.hand_size] * 4
    assert snapshot["rows"] == {"O": None, "C": None, "E": None, "B": None}
    assert (snapshot["mano"], snapshot["turn"]) == (1, 1)


def test_a_later_hand_opens_with_any_six_or_the_mano_pays() -> None:
    game = Seises(players=4)
    seat_one_wins_a_hand(game)
    assert refused(game, "7C") is Reason.HAND_OPENS_WITH_SIX
    assert game.is_legal(Play("6E"))
    play(game, "pay")  # a mano without a six pays...
    assert refused(game, "5B") is Reason.HAND_OPENS_WITH_SIX  # ...and the next seat must open with a six
    play(game, "6B")
    assert game.snapshot()["rows"]["B"] == [6, 6]


def test_the_game_ends_at_50_points_and_refuses_further_actions() -> None:
    game = Seises(players=4)
    scores = []
    while game.winner is None:
        pot_before_last_card = 3 * (game.hand_size - 1) + 4 * 3
        seat_one_wins_a_hand(game, paying_rounds=3)
        scores.append(game.scores[0])
        assert scores[-1] == pot_before_last_card * len(scores)  # each hand adds its whole pot
    assert scores[-2] < 50 <= scores[-1]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    snapshot = game.snapshot()
    assert (snapshot["turn"], snapshot["winner"], snapshot["pot"], snapshot["reserve"]) == (None, 1, 0, CHIPS)
    assert refused(game, "pay") is Reason.GAME_OVER
    assert list(game.legal_actions()) == []


# renuncio ---------------------------------------------------------------------------------------------------


def test_a_seat_that_pays_and_then_plays_a_card_it_could_have_played_reneged() -> None:
    game = Seises()
    play(game, "6O", "pay", "7O", "pay")  # seat 2 paid while 7O/5O and the other sixes were legal
    play(game, "5O", "6C")  # seat 1 plays 5O; seat 2 now plays 6C, legal when it paid
    assert game.snapshot()["reneges"] == [{"seat": 2, "card": "6C", "hand": 1}]
    assert game.pot == 2  # flag only


def test_a_card_that_was_not_legal_when_paying_is_no_renege() -> None:
    game = Seises()
    play(game, "6O", "7O", "pay", "pay", "10O", "5O")  # seat 4 paid; 5O was legal then, but seat 2 plays it
    play(game, "pay", "11O")  # seat 3 plays... 11O: not legal when seat 3 paid (7O was top)
    assert game.reneges == []


def test_renege_penalty_chip_puts_one_more_chip_in_the_pot() -> None:
    game = Seises(options={"renege_penalty": "chip"})
    play(game, "6O", "pay", "7O", "pay", "5O", "6C")
    assert len(game.reneges) == 1
    assert (game.pot, game.reserve) == (3, CHIPS - 3)
    game.pop()
    assert (game.pot, game.reserve, game.reneges) == (2, CHIPS - 2, [])


def test_one_play_proves_only_one_payment_false() -> None:
    game = Seises()
    # seat 2 pays twice while 6C was legal, then plays 6C: one renege, the other payment still stands.
    play(game, "6O", "pay", "pay", "pay", "7O", "pay", "pay", "pay", "5O", "6C")
    assert len(game.reneges) == 1
    payments = game.snapshot()["payments"]
    assert [p["proven"] for p in payments if p["seat"] == 2] == [True, False]


# wrong input -------------------------------------------------------------------------------------------------


def test_unknown_cards_and_wrong_actions_are_refused_with_their_reason() -> None:
    game = Seises(deck="spanish-40")
    play(game, "6O")
    assert refused(game, "8O") is Reason.UNKNOWN_CARD
    with pytest.raises(IllegalPlay) as info:
        game.push(Pass())
    assert info.value.reason is Reason.WRONG_ACTION
    assert "pay" in info.value.sentence("en")
    with pytest.raises(IllegalPlay):
        game.push(Play("7O", line="M1R"))


def test_every_refusal_says_what_to_do_in_spanish_and_english() -> None:
    game = Seises()
    play(game, "6O", "7O")
    with pytest.raises(IllegalPlay) as info:
        game.push(Play("12O"))
    refusal = info.value
    assert refusal.title("es") == "Rey de oros no sigue a 6-7"
    assert refusal.todo("es") == "Retírala; vale 5 o sota de oros, o paga"
    assert refusal.title("en") == "King of coins does not follow 6-7"
    assert refusal.todo("en") == "Take it back; 5 or jack of coins fits, or pay"
    assert str(refusal) == refusal.sentence("en") == f"{refusal.title('en')}. {refusal.todo('en')}."


def test_pop_restores_the_exact_previous_state() -> None:
    game = Seises()
    snapshots = [game.snapshot()]
    for move in ["6O", "pay", "7O", "6C", "pay", "5O"]:
        play(game, move)
        snapshots.append(game.snapshot())
    for expected in reversed(snapshots[:-1]):
        game.pop()
        assert game.snapshot() == expected
    with pytest.raises(IndexError):
        game.pop()
