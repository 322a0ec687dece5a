"""The story ``companion demo`` prints: the words a person reads on the terminal (docs/DAEMON.md, "The demo's
output").

By default it is told in the table's language: the first plays with the seat that made them, the illegal attempt
and its red LED, the undo, each hand or set won with its pot, the standings and the final screen. ``verbose``
prints every event as it happens (each card laid, button press, LED change and message) instead of the plays.
The table's own messages come from the referee in the same language, so the story and the screens never disagree.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.demo.bench import Bench
from companion.events import CardArrived, CardLeft, Press, SameCardTwice, UnknownTag
from companion.games import ending, game_module
from companion.i18n import N_, translate
from companion.rules import Action, Play
from companion.sim.oled import FakeI2CBus
from companion.ui.display import frame_to_text
from companion.ui.lights import LOOK
from companion.view import MessageKind, TableView, ZoneLight

__all__ = ["PLAYS_TOLD", "WORDS", "Story"]

PLAYS_TOLD = 6  # the plays the default story names one by one, at the start of each game

# The demo's own words, by key: English msgids, said in the demo's language (the table's messages come from the
# referee in the same language).
WORDS: dict[str, str] = {
    "title": N_("companion demo: {game}, seed {seed}"),
    "journal": N_("journal: {path}"),
    "lays": N_("{who} lays {card}"),
    "lays_on": N_("{who} lays {card} on {zone}"),
    "acts": N_("{who} {deed}"),  # an action without a card, in the words of its game's rules: "pays one chip"
    "more": N_("… (--verbose shows every play)"),
    "illegal": N_("{who} lays {card} on {zone}: LED {colour}, screen “{title}”; takes it back"),
    "undo": N_("long UNDO: {title}"),
    "off": N_("off"),
    "green": N_("green"),
    "red": N_("blinking red"),
    "amber": N_("blinking amber"),
    "standings": N_("Standings"),
    "result": N_("Result: {verdict}"),
    "web": N_("the table in a browser: {url}"),
    "hold": N_("still on {url} until Ctrl-C"),
    "person": N_("you play seat {seat} on the page; the robots play the others and wait for your turn"),
    "seats": N_("--seat {seat}: {game} has seats 1 to {seats} (0: the robots play them all)"),
    "watch": N_("The robots play every seat: give --seat N to play one"),
    "robots": N_("The robots are playing: wait for your turn"),
    "over": N_("The game is over"),
    "stopped": N_("stopped: the game is left unfinished"),
    "summary": N_("{game}: {actions} actions confirmed, {rows} journal rows, {noise} noisy reads, {s} s of table time"),
}


class Story:
    """What the demo at ``bench`` prints on ``out``, in ``language``; every event too when ``verbose``. It listens
    to the table: its events (:attr:`~companion.table.Table.on_event`) and each view it shows."""

    def __init__(self, bench: Bench, out: Callable[[str], None], language: str, verbose: bool) -> None:
        self.bench, self.out, self.language, self.verbose = bench, out, language, verbose
        self.told = 0  # the plays told since the game began
        self._last_lights: dict[str, ZoneLight] = {}
        self._last_message: object = None
        bench.table.on_event = self.event
        bench.on_view = self.shown

    def say(self, key: str, **fields: object) -> str:
        return translate(WORDS[key], self.language).format(**fields)

    def tell(self, text: str) -> None:
        """A line of the story, printed in every mode."""
        self.out(f"{self.bench.now:9.2f}s  {text}")

    def line(self, text: str) -> None:
        """An event of the verbose log."""
        if self.verbose:
            self.out(f"{self.bench.now:9.2f}s  {text}")

    def who(self) -> str:
        """Who plays now (a seat, a pair), in the table's words."""
        referee = self.bench.referee
        return referee.game_kind.whose_turn(referee.current_game, referee)

    # ---- what the table does -----------------------------------------------------------------------------------

    def event(self, event: object, now: float) -> None:
        if isinstance(event, Press):
            self.bench.count("presses")
            self.line(f"{'held ' if event.kind == 'long' else ''}{event.button.upper()}")
        elif isinstance(event, CardArrived):
            self.line(f"{event.zone}: {self.bench.referee.card_name(event.card)} laid")
        elif isinstance(event, CardLeft):
            self.bench.count("lifts")
        elif isinstance(event, UnknownTag | SameCardTwice):
            self.line(str(event))

    def shown(self, view: TableView) -> None:
        for zone, light in view.zone_lights.items():
            if self._last_lights.get(zone, ZoneLight.OFF) != light:
                colour, mode = LOOK[light]
                self.line(f"{zone} LED: {colour}" + (f" ({mode})" if colour != "off" else ""))
                self.bench.count("led changes")
        self._last_lights = dict(view.zone_lights)
        message = view.message
        if message is not None and message != self._last_message:
            text = message.title + (f" — {message.todo}" if message.todo else "")
            if message.kind.milestone and not self.verbose:  # the reneges and questions: in the verbose log
                self.tell(message.title)
            self.line(f"screen: {text}")
            # the last screen is drawn once, at the end of the game
            shown = (message.kind.ruling or message.kind.milestone) and message.kind != MessageKind.END_OF_GAME
            bus = self.bench.bus
            if self.verbose and shown and isinstance(bus, FakeI2CBus):
                self.out(frame_to_text(bus.last_image()))
        self._last_message = message

    # ---- what the players do -----------------------------------------------------------------------------------

    def play(self, action: Action, zone: str | None) -> None:
        """The first plays of a game, one line each, with the seat that made them; then one line says there is
        more, and only the story goes on."""
        self.told += 1
        if self.told > PLAYS_TOLD + 1 or self.verbose:
            return
        if self.told == PLAYS_TOLD + 1:
            self.tell(self.say("more"))
            return
        who, referee = self.who(), self.bench.referee
        if not isinstance(action, Play):
            self.tell(self.say("acts", who=who, deed=translate(action.deed, self.language)))
        elif len(self.bench.zone_names) > 1:
            self.tell(self.say("lays_on", who=who, card=referee.card_name(action.card), zone=zone))
        else:
            self.tell(self.say("lays", who=who, card=referee.card_name(action.card)))

    def illegal(self, card: str, zone: str) -> None:
        """A card that does not fit, as the player sees it: the LED and the screen's title."""
        view = self.bench.referee.view()
        colour = LOOK[view.zone_lights[zone]][0]
        title = view.message.title if view.message is not None else ""
        who, name = self.who(), self.bench.referee.card_name(card)
        self.tell(self.say("illegal", who=who, card=name, zone=zone, colour=self.say(colour), title=title))

    def undone(self) -> None:
        """A long UNDO took the last play back: the referee's words; the play made again is told next."""
        message = self.bench.referee.view().message
        self.tell(self.say("undo", title=message.title if message is not None else ""))
        self.told = min(self.told, PLAYS_TOLD - 1)

    # ---- the end -----------------------------------------------------------------------------------------------

    def standings(self) -> list[str]:
        """The final standings as a table, as the game kind counts them (points per seat, sets per pair), and the
        result: the winner and the rule that named it, as every part of the table says it."""
        referee = self.bench.referee
        kind, game = referee.game_kind, referee.current_game
        module = game_module(kind, "standings")  # the game's own table, when it has one
        head, rows = ([], []) if module is None else module.standings(game, referee)
        widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

        def line(cells: list[str]) -> str:
            return "  " + "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            )

        rule = "  " + "  ".join("-" * width for width in widths)
        table = [self.say("standings") + ":", line(head), rule, *(line(row) for row in rows)] if head else []
        end = ending(game)
        if end is None:
            return table
        verdict = kind.verdict(game, end, referee).text(self.language)
        return [*table, self.say("result", verdict=verdict)]

    def summary(self) -> str:
        bench = self.bench
        game = bench.referee.current_game
        rows = len(bench.journal.entries(bench.table.game_id))
        noise = bench.counts.get("noise", 0)
        summary = self.say(
            "summary", game=game.name, actions=len(game.actions), rows=rows, noise=noise, s=f"{bench.now:.0f}"
        )
        if self.verbose:
            summary += "; " + ", ".join(f"{value} {name}" for name, value in sorted(bench.counts.items()))
        return summary
