"""One function names a finished game's winner (``companion.games.ending``), and every part of the table that says
who won says it by that rule and with the same figures: the scoreboard, ``companion history``'s score, the club's
results, the demo's standings, ``companion play --json``'s match object and the words of each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from companion.cli import main
from companion.config import GameConfig
from companion.games import Ending, ending, find_kind, game_module
from companion.games.sexto_set import SextoSetView
from companion.games.sexto_set.rules import SextoSet
from companion.referee import Referee
from companion.rules import Game
from companion.rules.transcript import parse_line
from companion.ui.screens import draw_message
from companion.view import Message, MessageKind

GAMES = Path(__file__).parents[1] / "games"
FINISHED = (
    "sexto-set-won-on-sets-against-masters",
    "sexto-set-equal-sets-decided-by-masters",
    "sexto-set-drawn-match",
    "sexto-set-forfeited-set",
    "sexto-set-undo-the-winning-play",
    "sexto-set-match-of-three",
    "sexto-set-match-of-five",
)


def finished(name: str) -> tuple[Referee, Game, Ending]:
    """The recorded game's final state at a table of its kind, and its end."""
    state = json.loads((GAMES / f"{name}.json").read_text("utf-8"))
    referee = Referee(GameConfig(state["game"], options=state["options"]), {})
    referee.game = game = type(referee.game).from_snapshot(state)
    end = ending(game)
    assert end is not None, f"{name} is a finished match"
    return referee, game, end


@pytest.mark.parametrize("name", FINISHED)
def test_every_consumer_names_the_winner_the_one_function_names(name: str) -> None:
    referee, game, end = finished(name)
    assert isinstance(game, SextoSet)
    kind = referee.kind
    sets, masters = game.sets_won, game.match_masters
    match = game.snapshot()["match"]  # companion play --json, the page's and Home Assistant's state
    assert (match["over"], match["winner"], match["decided_by"]) == (True, end.winner, end.rule)
    assert (match["sets"], match["master_cards"]) == (sets, masters)
    view = kind.view(game, referee)  # the screen
    assert isinstance(view, SextoSetView)
    assert view.match_result == (end.winner or "draw")
    assert (view.sets_won, view.match_masters) == ((sets["A"], sets["B"]), (masters["A"], masters["B"]))
    results = kind.results(game, True)  # the club
    assert [(r.side, r.points, r.won) for r in results] == [(p, masters[p], p == end.winner) for p in "AB"]
    _, rows = game_module(kind, "standings").standings(game, referee)  # the demo
    assert rows == sorted(rows, key=lambda row: (-int(row[1]), -int(row[2])))
    if end.winner is not None:
        assert rows[0][0] == end.winner
    score = kind.tally(game)  # companion history's score line
    assert str(score) == f"sets A {sets['A']} B {sets['B']}, master cards A {masters['A']} B {masters['B']}"
    said = str(kind.verdict(game, end))  # companion history's winner, the page's, the demo's
    won, lost = (sets, "sets") if end.rule == "sets" else (masters, "master cards")
    if end.winner is not None:
        other = "B" if end.winner == "A" else "A"
        assert said.startswith(f"pair {end.winner}, {lost} {won[end.winner]}-{won[other]}")
    else:
        assert said == f"drawn match: sets {sets['A']}-{sets['B']}, master cards {masters['A']}-{masters['B']}"


def test_the_set_a_pass_forfeited_counts_its_master_cards_everywhere() -> None:
    """§13 gave the set to the other pair; the lines the passing pair led still count in every tally shown."""
    referee, game, _ = finished("sexto-set-forfeited-set")
    assert isinstance(game, SextoSet)
    lines = (GAMES / "sexto-set-forfeited-set.txt").read_text("utf-8").splitlines()
    replay = SextoSet(options=game.options)
    tally = {"A": 0, "B": 0}
    for line in lines:
        action = parse_line(line)
        if action is None:
            continue
        assert action != "undo"
        before = replay.result
        replay.push(action)
        if replay.result is not None and before is None:
            for pair, led in replay.masters_won().items():
                tally[pair] += led
    assert tally == game.match_masters == game.snapshot()["match"]["master_cards"]
    assert [result.points for result in referee.kind.results(game, True)] == [tally["A"], tally["B"]]


@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize(
    ("sets", "masters"),
    [
        ({"A": 8, "B": 7}, {"A": 60, "B": 64}),
        ({"A": 7, "B": 7}, {"A": 56, "B": 55}),
        ({"A": 7, "B": 7}, {"A": 55, "B": 55}),
    ],
)
def test_the_end_of_the_longest_match_fits_the_screen(
    language: str, sets: dict[str, int], masters: dict[str, int]
) -> None:
    """15 sets of 8 master cards: the longest figures a match's end says."""
    game = SextoSet(options={"match_sets": "15"})
    game.sets_won, game.match_masters = sets, masters
    referee = Referee(GameConfig("sexto-set", language=language), {})
    end = game.as_it_stands()
    kind = find_kind("sexto-set")
    before, after = game.snapshot(), {**game.snapshot(), "match": {**game.snapshot()["match"], "over": True}}
    after["match"].update(winner=end.winner, decided_by=end.termination)
    message, _ = kind.said(before, after, referee)
    assert message is not None and message.kind is MessageKind.END_OF_GAME
    draw_message(ImageDraw.Draw(Image.new("1", (128, 64))), Message(message.kind, message.title, message.todo))


@pytest.mark.parametrize("name", ["sexto-set-won-on-sets-against-masters", "sexto-set-drawn-match"])
def test_companion_play_says_the_match_is_over_with_its_winner(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, game, end = finished(name)
    transcript = GAMES / f"{name}.txt"
    args = transcript.read_text("utf-8").splitlines()[0][2:].split()
    assert main(["play", *args, "--lang", "en", str(transcript)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    verdict = str(find_kind("sexto-set").verdict(game, end))
    assert last.endswith(f"; the match is over: {verdict}") and "leads the next one" not in last
