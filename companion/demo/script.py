"""The robots' script: who plays what, and when, at the demo's table.

Robot players hold dealt hands (their game kind's :meth:`~companion.games.GameKind.robots`) and act as people at
the table would: they lay each card on its zone's pad, look at the green LED, press CONFIRM (PASS then CONFIRM for
a pay or a pass) and lift the card again, then the next one thinks. Before the game the zones that learn their head
are given it (6º SET's master cards). One player lays a card that does not fit before the ``ILLEGAL_STEP``-th
action, and one takes a play back with a long UNDO after the ``UNDO_STEP``-th, and makes it again. A seat the
person at the page plays (:mod:`companion.demo.person`) is waited for.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from companion.demo.bench import HOLD_S, Bench
from companion.demo.person import Person
from companion.demo.story import Story
from companion.events import Button
from companion.rules import Action, Play
from companion.view import Message

__all__ = ["ILLEGAL_STEP", "UNDO_STEP", "Script"]

ILLEGAL_STEP = 6  # the action before which a player lays a card that does not fit
UNDO_STEP = 10  # ... and after which a player takes a play back with a long UNDO, and makes it again
RETRIES = 3  # times a robot plays a move again that the table did not take because a phone borrowed it


class Script:
    """The robots at ``bench``, told by ``story``; ``person``'s seat, if any, is played from the page."""

    def __init__(self, bench: Bench, story: Story, person: Person) -> None:
        self.bench, self.story, self.person = bench, story, person

    def play(self) -> None:
        """Zones learn their heads, if the game has any; then the robots play until they are done."""
        bench = self.bench
        referee = bench.referee
        game = referee.current_game
        for where, head in zip(referee.waiting_zones, referee.game_kind.heads(game), strict=False):
            bench.lay(head, where)
            bench.wait(0.4)
            bench.lift(head)
        zone_of = {head: zone for zone, head in referee.zone_heads.items()}
        self.person.robots = robots = referee.game_kind.robots(game, bench.rng)
        seat = self.person.seat_index()
        moves: list[Callable[[], None]] = []  # how to give each committed action's card back to its hand
        step, illegal_done, undo_done = 0, False, seat is not None  # the robots take nothing back from a person
        retries = 0  # a robot's move tried again in a row, after a phone borrowed the table
        while not robots.over() and referee.current_game is game:
            if seat is not None and robots.turn() == seat:
                self.person.turn(robots, seat, moves)
                continue
            if self.person.lent():  # a phone enrolled cards meanwhile: the robots waited
                continue
            action, hand = robots.choose()
            if not illegal_done and step >= ILLEGAL_STEP and hand is not None:
                zones = bench.zone_names
                illegal_done = self._illegal_attempt(hand, zones[0] if len(zones) == 1 else bench.rng.choice(zones))
            before = len(game.actions)
            zone: str | None = None
            if isinstance(action, Play):
                zone = zone_of[action.line] if action.line else bench.zone_names[0]
            self._perform(action, zone)
            if referee.current_game is not game:  # a phone started a new game meanwhile
                break
            if len(game.actions) == before and self.person.server is not None and retries < RETRIES:
                # a phone borrowed the table mid-move (its enrollment read the card, or the robot's press gave the
                # table back): the robot takes its card back and plays again once the table is back
                self.person.lent()
                for lying in bench.backend.lying():
                    bench.lift(lying)
                retries += 1
                continue
            assert len(game.actions) > before, f"the table did not take {action}"
            retries = 0
            drawn = robots.played(action, hand)
            moves.append(partial(robots.unplayed, action, hand, drawn))
            if not undo_done and step >= UNDO_STEP and isinstance(action, Play) and game.outcome() is None:
                self._undo_and_redo(
                    action, zone, partial(robots.unplayed, action, hand, drawn), partial(robots.played, action, hand)
                )
                undo_done = True
            step += 1
            message = referee.view().message
            if message is not None and message.kind.milestone and game.outcome() is None:
                bench.wait(3.0)  # the players gather the cards for the next hand or set
        if referee.current_game is not game:  # the page's person started a new game (the menu, a phone)
            self.play()

    def _perform(self, action: Action, zone: str | None) -> None:
        bench = self.bench
        self.story.play(action, zone)
        if isinstance(action, Play):
            assert zone is not None
            bench.lay(action.card, zone)
            bench.wait(bench.rng.uniform(0.3, 1.2))  # a look at the green LED
            bench.press(Button.CONFIRM)
            bench.lift(action.card)
        else:
            bench.press(Button.PASS)
            bench.press(Button.CONFIRM)
        bench.wait(bench.rng.uniform(0.5, 2.5))  # the next player thinks

    def _illegal_attempt(self, hand: list[str], zone: str) -> bool:
        """A player lays a card that does not fit, sees the red LED and the reason, and takes it back."""
        bench = self.bench
        game = bench.referee.current_game
        wrong = [card for card in hand if game.reason(self._action(card, zone)) is not None]
        if not wrong:
            return False
        card = bench.rng.choice(wrong)
        bench.lay(card, zone)
        bench.wait(1.5)
        self.story.illegal(card, zone)
        bench.lift(card)
        bench.wait(0.5)
        return True

    def _action(self, card: str, zone: str) -> Action:
        meant = self.bench.referee.meaning(card, zone)
        return meant if not isinstance(meant, Message) else Play(card)

    def _undo_and_redo(
        self, action: Action, zone: str | None, unplay: Callable[[], Any], replay: Callable[[], Any]
    ) -> None:
        """A player changes their mind: a long UNDO takes the last play back, and they play it again."""
        game = self.bench.referee.current_game
        before = len(game.actions)
        self.bench.press(Button.UNDO, hold=HOLD_S)
        assert len(game.actions) == before - 1, "the long UNDO did not take the play back"
        self.story.undone()
        unplay()
        self._perform(action, zone)
        assert len(game.actions) > before - 1
        replay()
