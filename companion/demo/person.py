"""The person at the demo's page (``companion demo --web``): the table's page served while the robots play, and,
with ``--seat``, a seat a person plays from it.

The page is served from a loop of the demo's own, which runs while the table waits (:meth:`Bench.wait`): the table
and the server never run at once, as in the daemon where both are on one loop. On the person's turn the robots wait
while the table runs at its own pace and the page's hand lays cards in the readers' fields and presses the mock
buttons (:mod:`companion.web.virtual`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from companion.demo.bench import Bench
from companion.demo.story import Story
from companion.games import Robots
from companion.i18n import _
from companion.rules import Play

if TYPE_CHECKING:
    from companion.web import WebServer
    from companion.web.virtual import Hand

__all__ = ["Person"]


class Person:
    """The page of the demo at ``bench`` and, when ``seat`` is given (from 1; 6º SET: pair A is 1), the person who
    plays that seat from it."""

    def __init__(self, bench: Bench, story: Story, seat: int | None) -> None:
        self.bench, self.story, self.seat = bench, story, seat
        self.robots: Robots | None = None  # the robots at the table, once they sit down
        self.awaiting: int | None = None  # while the robots wait for the person: the actions before
        self.server: WebServer | None = None  # once served
        self._serving: asyncio.Task[None] | None = None

    # ---- the page --------------------------------------------------------------------------------------------

    def serve(self, server: WebServer) -> None:
        """Serve ``server`` (the assembly's page) from a loop of the demo's own, until :meth:`close`."""
        self.server = server
        self.bench.loop = loop = asyncio.new_event_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C while the robots wait for the page's person
            with contextlib.suppress(ValueError, RuntimeError):  # a thread other than the main one has no signals
                loop.add_signal_handler(signum, self.bench.stopping.set)
        self._serving = loop.create_task(server.serve())
        loop.run_until_complete(self._listening(server))
        self.story.out(self.story.say("web", url=self.url()))

    async def _listening(self, server: WebServer) -> None:
        assert self._serving is not None
        while server.port is None:
            if self._serving.done():  # the server said why in the log
                host, port = server.listen
                raise OSError(
                    _("--web: cannot listen on {host}:{port}; give a free address").format(host=host, port=port)
                )
            await asyncio.sleep(0.01)

    def url(self) -> str:
        assert self.server is not None
        host = self.server.listen[0]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{self.server.port}/"

    def hold(self) -> None:
        """Keep serving the finished game until SIGINT or SIGTERM (or the demo is stopped)."""
        loop = self.bench.loop
        if loop is None:
            return
        self.story.out(self.story.say("hold", url=self.url()))
        while not self.bench.stopping.is_set():
            loop.run_until_complete(asyncio.sleep(0.05))

    def close(self) -> None:
        loop = self.bench.loop
        if loop is None or self._serving is None:
            return
        self._serving.cancel()
        loop.run_until_complete(asyncio.gather(self._serving, return_exceptions=True))
        loop.close()

    # ---- the person's seat -----------------------------------------------------------------------------------

    def seat_index(self) -> int | None:
        """The person's seat as :meth:`Robots.turn` counts it (from 0), or None when the robots play every seat."""
        if self.seat is None or self.server is None:  # a person plays on the page only
            return None
        referee = self.bench.referee
        seats = len(referee.game_kind.results(referee.current_game, False))  # a result a seat or pair
        if not 1 <= self.seat <= seats:
            story = self.story
            raise ValueError(story.say("seats", seat=self.seat, game=referee.current_game.name, seats=seats))
        self.story.out(self.story.say("person", seat=self.seat))
        return self.seat - 1

    def hand(self) -> Hand:
        """What the page's person holds, and whether the table waits for them (the virtual table's input)."""
        from companion.web.virtual import Hand  # aiohttp: only with --web

        robots, say = self.robots, self.story.say
        if self.seat is None:
            return Hand([], wait=say("watch"))
        if robots is None:
            return Hand([], wait=say("robots"))
        seat = self.seat - 1
        game = self.bench.referee.current_game
        held = {card for hand in robots.held(seat) for card in hand}
        cards = [card.id for card in game.deck if card.id in held]
        if robots.over():
            return Hand(cards, wait=say("over"))
        awaited = self.awaiting == len(game.actions)  # and nothing was committed since
        return Hand(cards, wait=None if awaited else say("robots"))

    def lent(self) -> bool:
        """Whether a paired phone has borrowed the table's readers (enrolling cards); the robots then wait until it
        is given back (a button at the table, or the phone), as players wait at a real table. Ticks the table at
        its own pace meanwhile, so the phone's cards are read."""
        waited = False
        while self.server is not None and self._borrowed():
            waited = True
            self.bench.tick()
        return waited

    def _borrowed(self) -> bool:
        return self.bench.table.borrower is not None

    def turn(self, robots: Robots, seat: int, moves: list[Callable[[], None]]) -> None:
        """The person's turn: the robots wait while the table runs at its own pace and the page's hand lays cards
        in the readers' fields and presses the mock buttons (a long OK: the table's menu). Ends once an action is
        committed (the card then goes from the pad to its row), taken back (a long UNDO: its card returns to its
        hand), or the game is replaced by a new one (the menu's, or a paired phone's)."""
        bench = self.bench
        game = bench.referee.current_game
        before = len(game.actions)
        robots.held(seat)  # dealt here, before the page may ask for the hand
        self.awaiting = before
        assert self.server is not None
        self.server.show(bench.referee.view(), bench.now)  # the page: the hand may play now
        try:
            while len(game.actions) == before and bench.referee.current_game is game:
                bench.tick()
        finally:
            self.awaiting = None
        if bench.referee.current_game is not game:  # a new game, from the menu or a phone: the script sits down
            for lying in bench.backend.lying():
                bench.lift(lying)
            return
        while len(moves) > len(game.actions):
            moves.pop()()
        if len(game.actions) < before:
            return
        action = game.actions[-1]
        card = action.card if isinstance(action, Play) else None
        hand = next((hand for hand in robots.held(seat) if card in hand), None)
        drawn = robots.played(action, hand)
        moves.append(partial(robots.unplayed, action, hand, drawn))
        for lying in bench.backend.lying():
            bench.lift(lying)
        bench.wait(0.5)
