"""One test per Seises behaviour of docs/RULES.md (section numbers are the rule sheet's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion.decks import load_deck
from companion.games.seises import news
from companion.games.seises.news import SomebodyReneged
from companion.games.seises.rules import CHIPS, Pay, Seises, SeisesReason
from companion.rules import IllegalPlay, Pass, Play, Reason, SetupError


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


@pytest.mark.parametrize(("deck", "counts"), [("spanish-40", [2, 4, 5, 8]), ("spanish-48", [2, 3, 4, 6, 8])])
def test_player_count_must_divide_the_deck(deck: str, counts: list[int]) -> None:
    for players in range(1, 11):
        if players in counts:
            assert Seises(players=players, deck=deck).hand_size * players == len(load_deck(deck))
        else:
            with pytest.raises(SetupError) as info:
                Seises(players=players, deck=deck)
            assert f"{', '.join(map(str, counts[:-1]))} or {counts[-1]} players" in str(info.value)
            assert "recommends 4 to 8" in str(info.value)


def test_a_squadratik_deck_is_refused_for_seises() -> None:
    with pytest.raises(SetupError, match="Spanish deck"):
        Seises(deck="squadratik")


def test_unknown_option_and_value_are_refused_by_name() -> None:
    with pytest.raises(SetupError, match="renege_penalty"):
        Seises(options={"renege": "points"})
    for value in ("shout", "chip"):  # a penalty chip would feed the pot the offender may take: no "chip"
        with pytest.raises(SetupError, match="flag or points"):
            Seises(options={"renege_penalty": value})
    for points in ("0", "51", "five"):
        with pytest.raises(SetupError, match="renege_points takes a whole number from 1 to 50"):
            Seises(options={"renege_penalty": "points", "renege_points": points})
    assert Seises(options={"renege_points": "50"}).options["renege_points"] == "50"


# §4: the first play ----------------------------------------------------------------------------------------


def test_the_game_opens_with_the_six_of_oros() -> None:
    game = Seises()
    assert list(game.legal_actions()) == [Play("6O")]
    assert refused(game, "6C") is SeisesReason.FIRST_PLAY_SIX_OF_OROS
    assert refused(game, "pay") is SeisesReason.FIRST_PLAY_NO_PAY
    play(game, "6O")
    assert game.snapshot()["rows"]["O"] == [6, 6]
    assert game.snapshot()["turn"] == 2


def test_after_the_six_of_oros_its_neighbours_and_other_sixes_are_legal() -> None:
    game = Seises()
    play(game, "6O")
    assert sorted(a.card for a in game.legal_actions() if isinstance(a, Play)) == sorted(["5O", "7O", "6C", "6E", "6B"])
    assert refused(game, "5C") is SeisesReason.SUIT_NOT_STARTED
    assert refused(game, "4O") is SeisesReason.NOT_NEXT_IN_ROW
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
    assert refused(game, "10O") is SeisesReason.NOT_NEXT_IN_ROW
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


def test_a_pay_the_cards_off_the_table_prove_false_is_refused() -> None:
    game = Seises(players=4)
    for suit in "OCEB":  # each suit from 2 to caballo: 32 plays, 8 a seat, 2 cards left in every hand
        play(game, *(f"{rank}{suit}" for rank in (6, 7, 5, 10, 4, 11, 3, 2)))
    assert game.hand_sizes == [2, 2, 2, 2]
    # the 8 cards off the table are the aces and kings, all legal: seat 1 holds a card it can play
    assert sorted(game.legal_cards()) == sorted(f"{rank}{suit}" for rank in (1, 12) for suit in "OCEB")
    with pytest.raises(IllegalPlay) as info:
        game.push(Pay())
    refusal = info.value
    assert refusal.reason is SeisesReason.HOLDS_A_PLAYABLE_CARD
    assert refusal.sentence("es") == ("Tienes carta que vale. Cartas fuera de la mesa que no valen: 0; tienes 2.")
    assert refusal.sentence("en") == ("You can play a card. Cards off the table that cannot be played: 0; you hold 2.")
    assert Pay() not in list(game.legal_actions())


def test_a_pay_stands_while_the_hand_fits_among_the_cards_that_cannot_be_played() -> None:
    game = Seises(players=8)  # 5 cards each
    for suit in "OCE":  # 30 plays: seats 1-6 hold 1 card, seats 7 and 8 hold 2
        play(game, *(f"{rank}{suit}" for rank in (6, 7, 5, 10, 4, 11, 3, 2, 12, 1)))
    # the 10 bastos are off the table, 6B the only legal one: 9 cannot be played
    assert (game.hand_sizes, game.legal_cards(), game.turn) == ([1] * 6 + [2, 2], ["6B"], 6)
    play(game, "pay", "pay", "pay")


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
    assert refused(game, "7C") is SeisesReason.HAND_OPENS_WITH_SIX
    assert game.is_legal(Play("6E"))
    play(game, "pay")  # a mano without a six pays...
    assert refused(game, "5B") is SeisesReason.HAND_OPENS_WITH_SIX  # ...and the next seat must open with a six
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
    assert game.snapshot()["reneges"] == [{"seat": 2, "card": "6C", "hand": 1, "points": 0}]
    assert game.pot == 2  # flag only


def test_a_card_that_was_not_legal_when_paying_is_no_renege() -> None:
    game = Seises()
    play(game, "6O", "7O", "pay", "pay", "10O", "5O")  # seat 4 paid; 5O was legal then, but seat 2 plays it
    play(game, "pay", "11O")  # seat 3 plays... 11O: not legal when seat 3 paid (7O was top)
    assert game.reneges == []


def with_scores(game: Seises, scores: list[int], **changes: object) -> Seises:
    """``game`` as it stands, with these scores (and other snapshot fields) after earlier hands."""
    return Seises.from_snapshot({**game.snapshot(), "scores": scores, **changes})


def test_renege_penalty_points_takes_points_from_the_reneging_seat_at_once() -> None:
    game = Seises(options={"renege_penalty": "points", "renege_points": "7"})
    play(game, "6O", "pay", "7O", "pay", "5O")
    game = with_scores(game, [0, 10, 3, 0])
    play(game, "6C")  # seat 2 reneged: 10 - 7
    assert game.scores == [0, 3, 3, 0]
    assert game.reneges[-1] == {"seat": 2, "card": "6C", "hand": 1, "points": 7}
    assert (game.pot, game.reserve) == (2, CHIPS - 2)  # no chip moves
    game.pop()
    assert (game.scores, game.reneges) == ([0, 10, 3, 0], [])


def test_renege_points_never_take_a_score_below_zero() -> None:
    game = Seises(options={"renege_penalty": "points"})  # 5 points by default
    play(game, "6O", "pay", "7O", "pay", "5O")
    game = with_scores(game, [0, 3, 0, 0])
    play(game, "6C")
    assert game.scores[1] == 0 and game.reneges[-1]["points"] == 3


@pytest.mark.parametrize(("penalty", "score"), [("flag", 3 + 4), ("points", 0 + 4)])
def test_a_renege_on_the_last_card_is_paid_before_the_pot_is_scored(penalty: str, score: int) -> None:
    game = Seises(options={"renege_penalty": penalty})
    play(game, "6O", "pay", "pay", "pay", "5O")  # seat 2 paid while 7O was legal
    game = with_scores(game, [0, 3, 0, 0], hand_sizes=[9, 1, 10, 10], pot=4, reserve=CHIPS - 4)
    play(game, "7O")  # seat 2's last card: a renuncio that ends the hand
    assert (game.hand, game.mano, game.scores[1]) == (2, 1, score)
    assert len(game.reneges) == 1


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


FRENCH_CARDS = """
msgid ""
msgstr ""
"Language: fr\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Take it back; {needed} fits, or pay"
msgstr "Reprends-la ; {needed} va, ou paie"

msgid "{choices} or {last}"
msgstr "{choices} ou {last}"

msgid "{rank} of {suit}"
msgstr "{rank} de {suit}"

msgid "jack"
msgstr "valet"

msgid "coins"
msgstr "deniers"
"""


def test_the_cards_that_would_fit_are_said_in_a_dropped_catalogues_language(
    dropped_catalogue: Callable[[str, str], Path],
) -> None:
    dropped_catalogue("fr", FRENCH_CARDS)
    game = Seises()
    play(game, "6O", "7O")
    with pytest.raises(IllegalPlay) as info:
        game.push(Play("12O"))
    assert info.value.todo("fr") == "Reprends-la ; 5 ou valet de deniers va, ou paie"
    play(game, "5O", "4O", "3O", "2O", "1O")
    with pytest.raises(IllegalPlay) as info:  # the row is down to the ace: one card fits
        game.push(Play("12O"))
    assert info.value.todo("fr") == "Reprends-la ; valet de deniers va, ou paie"


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


def test_a_whole_round_of_pays_says_somebody_reneged_and_changes_nothing_else() -> None:
    game = Seises(players=4)
    play(game, "6O")
    said = []
    for _ in range(4):  # seats 2, 3, 4 and 1 pay in turn while 5O, 7O and three sixes lie in hands
        before = game.snapshot()
        play(game, "pay")
        said.append(news(before, game.snapshot()))
    assert said == [[], [], [], [SomebodyReneged()]]
    assert (game.pot, game.reneges, game.turn) == (4, [], 1)
    before = game.snapshot()
    play(game, "pay")  # seat 2 again: the next round has begun
    assert news(before, game.snapshot()) == []
    play(game, "pay", "5O")  # a card played: the pays that follow start counting again
    for _ in range(3):
        before = game.snapshot()
        play(game, "pay")
        assert news(before, game.snapshot()) == []


def test_a_row_of_one_card_is_named_by_its_one_rank() -> None:
    game = Seises()
    play(game, "6O")
    refusal = game.refusal(Play("4O"))
    assert refusal is not None and refusal.title("es") == "4 de oros no sigue a 6"
