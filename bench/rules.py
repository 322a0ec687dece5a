"""Rules engines: checked actions per second, complete games per second, and the cost of one ``is_legal``.

Robots deal the hands and choose; the engine sees only the actions, each checked by ``push``. Counts per game
(actions, legality checks) do not depend on the machine; the per-second figures do, and are taken as the best
of several rounds so that a busy machine blurs them less.
"""

from __future__ import annotations

import random
import time
import timeit

from companion.decks import load_deck
from companion.games.seises.robots import SeisesRobots
from companion.games.seises.rules import Seises
from companion.games.sexto_set.robots import SextoSetRobots
from companion.games.sexto_set.rules import SextoSet
from companion.rules import Play

ROUNDS = 3


def seises_games(games: int) -> tuple[float, int]:
    deck = load_deck("spanish-40")
    start = time.perf_counter()
    actions = 0
    for seed in range(games):
        game = Seises(players=4, deck=deck)
        table = SeisesRobots(game, random.Random(seed))
        while game.winner is None:
            table.step()
        actions += len(game.actions)
    return time.perf_counter() - start, actions


def sexto_sets(sets: int) -> tuple[float, int]:
    deck = load_deck("squadratik")
    start = time.perf_counter()
    placements = 0
    for seed in range(sets):
        game = SextoSet(deck)
        table = SextoSetRobots(game, random.Random(seed))
        while game.result is None:
            table.step()
        placements += len(game.actions)
    return time.perf_counter() - start, placements


def is_legal_cost() -> float:
    """Seconds per ``is_legal`` over a mid-game position, half legal and half illegal cards."""
    game = Seises(players=4)
    table = SeisesRobots(game, random.Random(1))
    for _ in range(20):
        table.step()
    cards = [Play(card.id) for card in game.deck]
    number = 2000
    best = min(timeit.repeat(lambda: [game.is_legal(c) for c in cards], number=number, repeat=ROUNDS))
    return best / (number * len(cards))


def main() -> None:
    games = 40
    seconds, actions = min(seises_games(games) for _ in range(ROUNDS))
    print("## Rules engines (python -m bench rules)")
    print(f"Seises, 4 players, 40 cards: {actions / games:.0f} actions per game to 50 points")
    print(f"  {actions / seconds:,.0f} checked actions/s, {games / seconds:,.1f} complete games/s (goal 150,000/s)")
    sets = 2000
    seconds, placements = min(sexto_sets(sets) for _ in range(ROUNDS))
    print(f"6º SET: {placements / sets:.1f} actions per set")
    print(f"  {sets / seconds:,.0f} complete sets/s (goal 2,000/s)")
    print(f"is_legal: {is_legal_cost() * 1e6:.2f} µs per check (goal under 5 µs)")


if __name__ == "__main__":
    main()
