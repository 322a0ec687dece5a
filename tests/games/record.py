"""Record robot games that show each behaviour the recorded-game test must cover.

Run ``.venv/bin/python tests/games/record.py`` to write ``NAME.txt`` (the transcript, its first line the
``companion play`` arguments) and ``NAME.json`` (the expected final state and refused lines, as ``--json`` ends)
for every game below. Each game is the first seed whose transcript shows the behaviour named, checked by a
predicate on the replay; the expected states are reviewed by hand when they change, and
``test_recorded_games.py`` replays them all.

A game may hold refused lines (a pay or a pass that the table proves false, tried by a robot player that
wants to cheat): their transcripts are replayed with ``--keep-going`` and end with status 1. A game may hold
``undo`` lines: the robots take back the play that ended the game, and a few before it, and play on otherwise.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from companion.decks import load_deck
from companion.games.seises.robots import SeisesRobots
from companion.games.seises.rules import Pay, Seises
from companion.games.sexto_set.robots import SextoSetRobots
from companion.games.sexto_set.rules import SextoSet
from companion.rules import Action, Game, Pass, Play
from companion.rules.transcript import UNDO

HERE = Path(__file__).parent
# action (or "undo"), state before, state after (None: the action was refused and changed nothing)
History = list[tuple[Action | str, dict[str, Any], dict[str, Any] | None]]
Setup = tuple[str, int, str | None, dict[str, str]]  # a recorded game's name, players, deck (None: its own), options
Cheat = Callable[[Game], Action | None]  # a refused action a robot tries before its turn, if any


def setup(arguments: list[str]) -> Setup:
    """The game a transcript's first line sets up, from its ``companion play`` arguments (``--keep-going`` aside)."""
    name, words = arguments[0], [word for word in arguments[1:] if word != "--keep-going"]
    players, deck, options = 4, None, {}
    for flag, value in zip(words[::2], words[1::2], strict=True):
        if flag == "--players":
            players = int(value)
        elif flag == "--deck":
            deck = value
        else:
            key, _, val = value.partition("=")
            options[key] = val
    return name, players, deck, options


def seises_game(
    seed: int, players: int, deck: str, renege: float, options: dict[str, str], cheat: Cheat | None = None
) -> tuple[Game, History]:
    game = Seises(players=players, deck=load_deck(deck), options=options)
    table = SeisesRobots(game, random.Random(seed), renege=renege)
    history: History = []
    while game.outcome() is None:
        _try(game, cheat, history)
        before = game.snapshot()
        action = table.step()
        history.append((action, before, game.snapshot()))
    return game, history


def seises_undone(seed: int, players: int, deck: str, undos: int) -> tuple[Game, History]:
    """A game won, then ``undos`` long UNDOs from the winning play on, and the game played on from there (the
    players choose again, with other luck) until somebody wins."""
    game, history = seises_game(seed, players, deck, 0.0, {})
    replayed = Seises(players=players, deck=load_deck(deck))
    table = SeisesRobots(replayed, random.Random(seed))
    for _ in range(len(history) - undos):  # the same robots, to the same place: their hands as they were there
        table.step()
    for _ in range(undos):
        before = game.snapshot()
        game.pop()
        history.append((UNDO, before, game.snapshot()))
    assert game.snapshot() == replayed.snapshot()
    table.rng = random.Random(seed + 1)
    while replayed.outcome() is None:
        before = replayed.snapshot()
        history.append((table.step(), before, replayed.snapshot()))
    return replayed, history


def sexto_match(
    seed: int, sets: int, options: dict[str, str], cheat: Cheat | None = None, undo: int = 0
) -> tuple[Game, History]:
    """``sets`` sets of a match (the whole match when it has that many). ``undo``: at the match's end the robots
    take back that many actions, all of its last set, and play the match to its end again with other choices."""
    game = SextoSet(load_deck("squadratik"), options=options)
    table = SextoSetRobots(game, random.Random(seed))
    history: History = []
    moves: list[tuple[Action, list[str] | None, str | None]] = []  # to give each card back to its hand
    while game.set_number < sets or game.result is None:
        _try(game, cheat, history)
        before = game.snapshot()
        action, hand = table.choose()
        game.push(action)
        moves.append((action, hand, table.played(action, hand)))
        history.append((action, before, game.snapshot()))
        if undo and game.outcome() is not None:
            last_set = game.set_number
            for _ in range(undo):
                before = game.snapshot()
                game.pop()
                table.unplayed(*moves.pop())
                history.append((UNDO, before, game.snapshot()))
            if game.set_number != last_set or game.result is not None:
                return game, []  # the undos left the last set: not this game
            table.rng = random.Random(seed + 1)  # other choices from here
            undo = 0
    return game, history


def _try(game: Game, cheat: Cheat | None, history: History) -> None:
    """Once a game, the cheat's refused action, as a line of the transcript."""
    action = None if cheat is None or any(after is None for _, _, after in history) else cheat(game)
    if action is not None:
        assert not game.is_legal(action)
        history.append((action, game.snapshot(), None))


def false_pay(game: Game) -> Action | None:
    """Late in a hand, a seat pays although the cards off the table prove it holds a playable one."""
    assert isinstance(game, Seises)
    late = game.turn is not None and game.hand_sizes[game.turn] <= 3
    return Pay() if late and game.rows["O"] is not None and not game.is_legal(Pay()) else None


def false_pass(game: Game) -> Action | None:
    """A pair passes although a line ends in an empty card, which anything links to."""
    assert isinstance(game, SextoSet)
    after_empty = game.result is None and any("*" in ends for ends in game.open_ends.values())
    return Pass() if after_empty and not game.is_legal(Pass()) else None


def refused(kind: type) -> Callable[[History], bool]:
    return lambda h: any(isinstance(a, kind) and after is None for a, _, after in h)


def after_seven(rank: str) -> Callable[[History], bool]:
    """A card of ``rank`` was laid on a row whose top was a 7."""
    return lambda h: any(
        isinstance(a, Play) and a.card[:-1] == rank and (b["rows"][a.card[-1]] or [0, 0])[1] == 7 for a, b, _ in h
    )


def mano_without_six(h: History) -> bool:
    return any(isinstance(a, Pay) and b["hand"] > 1 and not any(b["rows"].values()) for a, b, _ in h)


def owed(h: History) -> bool:
    return any(sum(after["owed"]) > 0 for _, _, after in h)


def reneged(h: History) -> bool:
    return bool(h[-1][2] and h[-1][2]["reneges"])


def renege_points_taken(h: History) -> bool:
    """A renuncio cost its seat points (so the seat had points to lose)."""
    return any(after and any(r["points"] > 0 for r in after["reneges"]) for _, _, after in h)


def renege_on_the_last_card(h: History) -> bool:
    """The card that proved a renuncio was the seat's last: it ended the hand."""
    return any(
        after is not None and len(after["reneges"]) > len(before["reneges"]) and after["hand"] != before["hand"]
        for _, before, after in h
    )


def another_winner(h: History) -> bool:
    """The winning play was taken back by an UNDO, and another seat won the game."""
    undone = [k for k, (action, _, _) in enumerate(h) if action == UNDO]
    if not undone:
        return False
    first = h[undone[0] - 1][2]
    last = h[-1][2]
    assert first is not None and last is not None
    return first["winner"] is not None and last["winner"] not in (None, first["winner"])


def final_score(check: Callable[[int], bool]) -> Callable[[History], bool]:
    return lambda h: check(max(h[-1][2]["scores"]))


def master_tally(h: History) -> bool:
    """Master cards won over the match add up each set's, and more than one set was played."""
    tally = {"A": 0, "B": 0}
    for action, before, after in h:
        if action != UNDO and after is not None and after["result"] is not None and before["result"] is None:
            for pair, won in after["masters_won"].items():
                tally[pair] += won
    last = h[-1][2]
    return last is not None and last["set"] > 1 and last["match_masters"] == tally


def match_end(h: History) -> dict[str, Any] | None:
    """The match object of the last state, when the match is over."""
    last = h[-1][2] if h else None
    return last["match"] if last is not None and last["match"]["over"] else None


def won_on_sets_against_masters(h: History) -> bool:
    """The pair with more sets won the match, with fewer master cards over it."""
    match = match_end(h)
    if match is None or match["decided_by"] != "sets":
        return False
    other = "B" if match["winner"] == "A" else "A"
    return bool(match["master_cards"][match["winner"]] < match["master_cards"][other])


def decided_by(rule: str) -> Callable[[History], bool]:
    return lambda h: (match := match_end(h)) is not None and match["decided_by"] == rule


def forfeited_set(h: History) -> bool:
    """A pair that led more lines passed and lost the set (§13 decides it), and those lines still count in the
    match's master cards: the match's tally is every set's master cards, a pass's set too."""
    forfeits = [
        after
        for action, before, after in h
        if action == Pass() and after is not None and after["result"] is not None and before["result"] is None
    ]
    lost_leading = any(
        after["masters_won"][loser] > after["masters_won"][after["result"]["winner"]]
        for after in forfeits
        for loser in "AB"
        if loser != after["result"]["winner"]
    )
    return lost_leading and match_end(h) is not None and master_tally(h)


def undone_winner(h: History) -> bool:
    """The play that ended the game was taken back, and the game ended again with another winner."""
    ends = [after["match"]["winner"] for _, before, after in h if after and after["match"]["over"]]
    undone = any(action == UNDO and before["match"]["over"] for action, before, _ in h)
    return undone and len(ends) >= 2 and ends[0] != ends[-1] and match_end(h) is not None


def settled_either_way(h: History) -> bool:
    """A line showed two possible open ends, and a later card on it left one."""
    for _, before, after in h:
        for line, ends in before["open_ends"].items():
            settled = len(ends) == 2 and "*" not in ends and len(after["open_ends"][line]) == 1
            if settled and after["result"] is None and len(after["lines"][line]) > len(before["lines"][line]):
                return True
    return False


def blank_link(h: History) -> bool:
    return any(
        after["open_ends"] != before["open_ends"] and "0" in ends
        for _, before, after in h
        for ends in before["open_ends"].values()
    )


def empty_played(h: History) -> bool:
    return any(isinstance(a, Play) and a.card.startswith("V") for a, _, _ in h)


def ended(reason: str) -> Callable[[History], bool]:
    return lambda h: any(after["result"] and after["result"]["reason"] == reason for _, _, after in h)


def master_by_points(tie_on_points: bool) -> Callable[[History], bool]:
    """At a set's end, a line with equal card counts was decided by points (or left unwon on equal points)."""

    def check(h: History) -> bool:
        deck = load_deck("squadratik")
        for _, before, after in h:
            if after["result"] is None or before["result"] is not None:
                continue
            for entries in after["lines"].values():
                counts = {p: sum(1 for e in entries if e["pair"] == p) for p in "AB"}
                points = {p: sum(deck[e["card"]].points for e in entries if e["pair"] == p) for p in "AB"}
                if entries and counts["A"] == counts["B"] and (points["A"] == points["B"]) == tie_on_points:
                    return True
        return False

    return check


SEISES: list[tuple[str, str, dict[str, Any], Callable[[History], bool]]] = [
    ("seises-40-seven-then-ten", "7 and 10 are neighbours", dict(players=4, deck="spanish-40"), after_seven("10")),
    ("seises-48-six-players", "the 48-card deck, 6 players", dict(players=6, deck="spanish-48"), after_seven("8")),
    ("seises-5-players", "5 players, 8 cards each", dict(players=5, deck="spanish-40"), mano_without_six),
    ("seises-8-players", "8 players, 5 cards each", dict(players=8, deck="spanish-40"), lambda h: True),
    ("seises-mano-without-six", "a mano without a six pays", dict(players=4, deck="spanish-40"), mano_without_six),
    (
        "seises-reserve-exhausted",
        "the reserve runs out: the pot is capped, chips owed",
        dict(players=8, deck="spanish-40", renege=0.97),
        owed,
    ),
    ("seises-renege-flag", "a renuncio, flagged", dict(players=4, deck="spanish-40", renege=0.2), reneged),
    (
        "seises-renege-points",
        "a renuncio costs its seat 5 points",
        dict(players=4, deck="spanish-40", renege=0.2, options={"renege_penalty": "points"}),
        renege_points_taken,
    ),
    (
        "seises-renege-on-last-card",
        "a renuncio proven by the card that ends the hand",
        dict(players=4, deck="spanish-40", renege=0.3),
        renege_on_the_last_card,
    ),
    (
        "seises-refused-pay",
        "a pay the cards off the table prove false is refused",
        dict(players=4, deck="spanish-40", cheat=false_pay),
        refused(Pay),
    ),
    ("seises-2-players", "2 players, 20 cards each", dict(players=2, deck="spanish-40"), lambda h: True),
    (
        "seises-won-at-exactly-50",
        "the game is won at exactly 50",
        dict(players=4, deck="spanish-40"),
        final_score(lambda s: s == 50),
    ),
    (
        "seises-won-above-50",
        "the game is won above 50",
        dict(players=4, deck="spanish-40"),
        final_score(lambda s: s > 55),
    ),
    (
        "seises-undo-winning-play",
        "the winning play and 10 more taken back by 11 long UNDOs, then another seat wins",
        dict(players=4, deck="spanish-40", undos=11),
        another_winner,
    ),
]

SEXTO: list[tuple[str, str, dict[str, Any], Callable[[History], bool]]] = [
    ("sexto-set-empty-cards", "empty cards link both ways", dict(sets=1), empty_played),
    ("sexto-set-blank-links", "blank ends link to blank", dict(sets=1), blank_link),
    ("sexto-set-either-way-settled", "a card laid either way round, then settled", dict(sets=1), settled_either_way),
    ("sexto-set-pass", "a pair that cannot link passes and loses", dict(sets=1), ended("pass")),
    ("sexto-set-tie-broken-by-points", "a line tied on cards goes by points", dict(sets=1), master_by_points(False)),
    ("sexto-set-tie-on-points", "a line tied on cards and points stays unwon", dict(sets=1), master_by_points(True)),
    ("sexto-set-all-placed", "every card placed ends the set", dict(sets=1), ended("all_placed")),
    (
        "sexto-set-match-of-three",
        "three sets: sets won and master cards won over the match are counted",
        dict(sets=3),
        master_tally,
    ),
    (
        "sexto-set-refused-pass",
        "a pass refused: a line ends in an empty card",
        dict(sets=1, cheat=false_pass),
        refused(Pass),
    ),
    (
        "sexto-set-free-first-turn",
        "option first_turn_on_master=false",
        dict(sets=1, options={"first_turn_on_master": "false"}),
        ended("all_placed"),
    ),
    ("sexto-set-match-of-five", "five sets", dict(sets=5, options={"match_sets": "5"}), decided_by("sets")),
    (
        "sexto-set-won-on-sets-against-masters",
        "a match of 3 sets won on sets by the pair with fewer master cards",
        dict(sets=3),
        won_on_sets_against_masters,
    ),
    (
        "sexto-set-equal-sets-decided-by-masters",
        "equal sets (a drawn set): the match goes to the pair with more master cards",
        dict(sets=3),
        decided_by("master_cards"),
    ),
    (
        "sexto-set-drawn-match",
        "a match of 2 sets, one each, with equal master cards: drawn",
        dict(sets=2, options={"match_sets": "2"}),
        decided_by("drawn"),
    ),
    (
        "sexto-set-forfeited-set",
        "a pair leading more lines passes: it loses the set, and the lines count in the match's master cards",
        dict(sets=3),
        forfeited_set,
    ),
    (
        "sexto-set-undo-the-winning-play",
        "the play that ended the match is taken back with the plays before it; another pair wins",
        dict(sets=3, undo=4),
        undone_winner,
    ),
]


def write(name: str, about: str, args: list[str], game: Game, history: History) -> None:
    if any(after is None for _, _, after in history):
        args = [*args, "--keep-going"]
    lines = [f"# {' '.join(args)}", f"# {about}"] + [str(action) for action, _, _ in history]  # "undo" too
    (HERE / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = [
        {"line": 3 + index, "action": str(action), "reason": type(game).from_snapshot(before).reason(action)}
        for index, (action, before, after) in enumerate(history)
        if after is None and not isinstance(action, str)
    ]  # the transcript's actions start on its third line
    expected = {**game.snapshot(), "refused": refused}  # as companion play --json ends
    (HERE / f"{name}.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")


def main() -> None:
    # each game searches its own seeds, so that no two recorded games are the same game
    for index, (name, about, params, wanted) in enumerate(SEISES):
        params = dict(params)
        options = params.pop("options", {})
        renege = params.pop("renege", 0.0)
        cheat = params.pop("cheat", None)
        undos = params.pop("undos", 0)
        for seed in range(index * 1000, index * 1000 + 2000):
            if undos:
                game, history = seises_undone(seed, params["players"], params["deck"], undos)
            else:
                game, history = seises_game(seed, params["players"], params["deck"], renege, options, cheat)
            if wanted(history):
                break
        else:
            raise SystemExit(f"no seed shows {name}")
        args = ["seises", "--players", str(params["players"]), "--deck", params["deck"]]
        args += [word for k, v in options.items() for word in ("--option", f"{k}={v}")]
        write(name, f"{about} (seed {seed})", args, game, history)
        print(name, seed, len(history))
    for index, (name, about, params, wanted) in enumerate(SEXTO):
        options = params.get("options", {})
        for seed in range(index * 1000, index * 1000 + 5000):
            game, history = sexto_match(seed, params["sets"], options, params.get("cheat"), params.get("undo", 0))
            if history and wanted(history):
                break
        else:
            raise SystemExit(f"no seed shows {name}")
        args = ["sexto-set"] + [word for k, v in options.items() for word in ("--option", f"{k}={v}")]
        write(name, f"{about} (seed {seed})", args, game, history)
        print(name, seed, len(history))


if __name__ == "__main__":
    main()
