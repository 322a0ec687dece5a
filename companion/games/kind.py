"""What a game kind is: everything the table knows about one game, beside its rules engine, and what every kind
answers (:class:`GameKind`); how a finished game ended (:func:`ending`), which every part of the companion asks.
The kinds themselves are the packages beside this module (``companion/games/<game>/``), registered by
:mod:`companion.games`.
"""

from __future__ import annotations

import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from companion.decks import Deck, load_deck
from companion.i18n import N_, Said, translate
from companion.rules.base import Action, Game, check_options, either
from companion.view import Message, Scoreboard

__all__ = ["AnyKind", "Ending", "GameKind", "Result", "Robots", "Voice", "ending"]

G = TypeVar("G", bound=Game)  # a kind's rules engine
V = TypeVar("V", bound=Scoreboard)  # the scoreboard its screen draws


class Voice(Protocol):
    """How the table says things now: its language, its texts, and the names of cards and seats."""

    @property
    def language(self) -> str: ...

    def text(self, key: str, **fields: Any) -> str:
        """The table's text ``key`` (the referee's own or the game kind's ``texts``), filled with ``fields``."""

    def card_name(self, card_id: str) -> str:
        """A card's name in the deck, or its id when the deck has no such card."""

    def seat_name(self, seat: int) -> str:
        """Seat ``seat`` (from 0, in playing order) as the table names it."""


class Robots(Protocol):
    """Robot players around one game: they hold dealt hands and choose actions as people at the table would."""

    def choose(self) -> tuple[Action, list[str] | None]:
        """The action of whoever's turn it is, and the hand its card comes from (None for a pay or a pass)."""

    def played(self, action: Action, hand: list[str] | None) -> str | None:
        """``action`` from ``hand`` was pushed: its card leaves the hand; returns the card drawn instead, if any."""

    def unplayed(self, action: Action, hand: list[str] | None, drawn: str | None) -> None:
        """``action`` was taken back: its card returns to ``hand`` (and ``drawn`` to wherever it came from)."""

    def over(self) -> bool:
        """Whether the robots have played enough: the game, or the match the demo plays, is over."""

    def hand(self) -> list[str]:
        """The cards of whoever's turn it is (the first partner's, when partners share the turn)."""

    def turn(self) -> int:
        """Who plays now, from 0 in playing order: a seat (Seises), a pair (6º SET)."""

    def held(self, seat: int) -> list[list[str]]:
        """The hands ``seat`` (as :meth:`turn` counts) plays from, dealt when a new hand or set has begun: one a
        seat, a pair's two partners'. The lists themselves: :meth:`played` changes them."""


@dataclass(frozen=True, slots=True)
class Ending:
    """How a finished game ended: who won, and by which rule. ``winner`` is a side as :class:`Result` names it (a
    seat from 1, a pair's letter), None for a draw or a game ended early with nobody ahead; ``rule`` is the
    engine's termination that named it (``goal``: a Seises seat reached 50; ``sets``, ``master_cards``,
    ``drawn``: how a 6º SET match ended)."""

    winner: int | str | None
    rule: str


def ending(game: Game, *, ended: bool = False) -> Ending | None:
    """Who won ``game`` and by which rule, once it is over; None while it is in play. The one place every part
    of the companion learns a game's winner: the screen, the page, ``companion play``, ``history``, the club,
    Home Assistant and the demo.

    ``ended``: the journal closed the game before its rules ended it (the players started a new one); it then
    ends as it stands (:meth:`~companion.rules.Game.as_it_stands`): a 6º SET match with the sets played, a
    Seises game with no winner. Pure: it reads the game's state, so an UNDO of the play that ended the game
    un-ends it::

        >>> from companion.games.sexto_set.rules import SextoSet
        >>> from companion.rules import Play
        >>> match = SextoSet(options={"match_sets": "1"})
        >>> match.push(Play("N01", line="M1R")); match.push(Play("N07", line="M1B"))
        >>> ending(match) is None, ending(match, ended=True)
        (True, Ending(winner=None, rule='drawn'))
    """
    outcome = game.outcome()
    if outcome is None and ended:
        outcome = game.as_it_stands()
    return None if outcome is None else Ending(outcome.winner, outcome.termination)


@dataclass(frozen=True, slots=True)
class Result:
    """One side's part in a game, for a league's standings (``companion club``): a seat, or a pair that plays as
    one. ``side`` is as the engine's snapshot names whose turn it is: a seat from 1, or a pair's letter."""

    side: int | str
    points: int  # what the game counts towards winning (a Seises seat's points, a pair's master cards won)
    renuncios: int  # the renuncios the rules proved on this side
    won: bool


class GameKind(ABC, Generic[G, V]):
    """One game as the table knows it, over its engine ``G`` and its scoreboard ``V``: subclass it in the game's
    package (``companion/games/<game>/__init__.py``), whose ``KIND`` is the instance the registry finds."""

    name: ClassVar[str]  # in the config, on the command line, in the journal
    caption: ClassVar[str]  # its name as players write it (an English msgid: a name such as "Seises" stays as it is)
    decks: ClassVar[tuple[str, ...]]  # the built-in decks it is played with; the first is its default
    options: ClassVar[Mapping[str, tuple[tuple[str, ...], str]]]  # option -> (allowed values, default)
    grammar: ClassVar[str]  # what its transcript lines look like (an English msgid)
    ideal_players: ClassVar[tuple[int, int] | None] = None  # what the rule sheet recommends, when it says
    names_first_seat: ClassVar[bool] = False  # seat names go round from whoever makes the first play: ask who
    texts: ClassVar[Mapping[str, str]] = {}  # its own table texts: key -> English msgid (mark each with N_)
    todo: ClassVar[Mapping[str, str]] = {}  # a text's key -> the key of its "what to do" line
    confirm_pass_key: ClassVar[str]  # the text that asks to confirm what the PASS button does

    @property
    def default_deck(self) -> str:
        return self.decks[0]

    def title(self, language: str) -> str:
        return translate(self.caption, language)

    # ---- setting a game up ------------------------------------------------------------------------------------

    @abstractmethod
    def player_counts(self, deck: Deck) -> tuple[int, ...]:
        """The numbers of players that can play with ``deck``."""

    @abstractmethod
    def new_game(self, players: int, deck: Deck, options: Mapping[str, str]) -> G:
        """A new game; raises SetupError when it cannot be set up so."""

    def check_options(self, options: Mapping[str, str]) -> dict[str, str]:
        return check_options(self.name, self.options, options)

    def has_player_choice(self) -> bool:
        """Whether players may be more or fewer (with its default deck): ``--players`` means something."""
        return len(self.player_counts(load_deck(self.default_deck))) > 1

    def players_problem(self, players: int, deck: Deck) -> Said | None:
        """Why ``players`` cannot play with ``deck`` (for the config, which says it in its language), or None."""
        counts = self.player_counts(deck)
        if players in counts:
            return None
        if not counts:
            said = N_("nobody can play {game} with {cards} cards: use its deck, {deck}")
            return Said(said, game=Said(self.caption), cards=len(deck), deck=self.default_deck)
        said = N_("{players} cannot play {game} with {cards} cards: use {counts}")
        problem = Said(said, players=players, game=Said(self.caption), cards=len(deck), counts=either(counts))
        if self.ideal_players is None:
            return problem
        low, high = self.ideal_players
        return Said(N_("{problem} (the rule sheet recommends {low} to {high})"), problem=problem, low=low, high=high)

    def players_note(self, players: int) -> Said | None:
        """The rule sheet's advice when ``players`` is outside what it recommends (a note for ``companion play``,
        ``run --check`` and the table's first screen: such a count plays, with equal hands), or None."""
        if self.ideal_players is None:
            return None
        low, high = self.ideal_players
        if low <= players <= high:
            return None
        said = N_("the rule sheet recommends {low} to {high} players; {players} can play, with equal hands")
        return Said(said, low=low, high=high, players=players)

    # ---- zones ------------------------------------------------------------------------------------------------

    @abstractmethod
    def default_zones(self) -> dict[str, str]:
        """The zones and their roles when the config gives none."""

    @abstractmethod
    def zone_problem(self, role: str) -> Said | None:
        """Why ``role`` is no role of this game's zones (for the config), or None."""

    def zones_problem(self, zones: Mapping[str, str], deck: Deck | None = None) -> Said | None:
        """Why this set of zones cannot play the game with ``deck`` (None: the kind's own), naming every problem
        (for the config), or None."""
        return None

    def zones_unfit(self, zones: Mapping[str, str]) -> tuple[Said, ...]:
        """Why a table whose zones are ``zones`` (zone -> role, as its config gives them, perhaps for another game)
        cannot play this game: each problem once, none when it can. The menu and the phone offer only the games
        whose zones fit, and say why the others are missing; by default the roles and the set of zones must be
        this game's own (:meth:`zone_problem`, :meth:`zones_problem`)."""
        problems = [problem for role in dict.fromkeys(zones.values()) if (problem := self.zone_problem(role))]
        whole = self.zones_problem(zones)
        return (*problems, whole) if whole is not None else tuple(problems)

    def zone_head(self, role: str) -> str | None:
        """The card that heads a zone of ``role`` from the start (a line's master card), or None."""
        return None

    def heads(self, game: G) -> list[str]:
        """The cards that head zones; zones without one learn theirs from the first such card laid on them."""
        return []

    @abstractmethod
    def card_on_zone(self, game: G, card: str, role: str, head: str | None, voice: Voice) -> Action | Message:
        """What laying ``card`` on a zone of ``role`` (headed by ``head``) means, or the message that refuses it."""

    @abstractmethod
    def pass_action(self) -> Action:
        """What the PASS button offers to commit."""

    # ---- what the table says and shows ------------------------------------------------------------------------

    @abstractmethod
    def said(self, before: Mapping[str, Any], after: Mapping[str, Any], voice: Voice) -> tuple[Message | None, bool]:
        """What the screen says about an action beyond laying its card (from the snapshots around it), and
        whether it is a renuncio (the status LED shows it)."""

    @abstractmethod
    def who(self, turn: int | str | None, lang: str) -> str:
        """Whose turn a snapshot's ``turn`` is, in words: ``asiento 2``, ``pareja A``."""

    @abstractmethod
    def whose_turn(self, game: G, voice: Voice) -> str:
        """Who plays now, as the table names them: a seat's name, ``Pareja A``."""

    @abstractmethod
    def view(self, game: G, voice: Voice) -> V:
        """The scoreboard of ``game``."""

    @abstractmethod
    def tally(self, game: G) -> Said:
        """The score in words: ``points 1:12 2:50``."""

    @abstractmethod
    def verdict(self, game: G, end: Ending, voice: Voice | None = None) -> Said:
        """Who won and by which rule, in words (``pair B, sets 2-1``; a drawn match says so), for everything
        that names a finished game's winner; ``voice`` names seats as the table does (else by number)."""

    @abstractmethod
    def results(self, game: G, finished: bool) -> list[Result]:
        """Each side's points and renuncios, and whether it won: the side :func:`ending` names (``finished``:
        the journal closed the game, see its ``ended``)."""

    @abstractmethod
    def robots(self, game: G, rng: random.Random) -> Robots:
        """Robot players for ``game``; all their randomness comes from ``rng``."""

    def page_script(self) -> Path | None:
        """The script that draws this game on the table's page (docs/WEB.md): ``page.js`` in the kind's package, or
        None when it has none."""
        script = Path(inspect.getfile(type(self))).parent / "page.js"
        return script if script.is_file() else None


AnyKind = GameKind[Any, Any]  # any game's kind, as the registry and the table hold it
