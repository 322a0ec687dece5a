"""Game kinds: everything the table knows about one game, in one module, registered once by name.

The referee, the config, the menu, ``companion play``, the table, the screens, the demo and the robots ask this
registry and never name a game. A game is a rules engine (:mod:`companion.rules`) plus a :class:`GameKind` that
glues it to the table: its decks and player counts, its options, its transcript grammar, what its zones are for
and what a card laid on one means, what its news say, its scoreboard and how the screen draws it, and its robot
players. Modelled on python-chess's ``VARIANTS`` (a variant is one class plus one entry) and Mopidy's extensions
(registered once; the core never names one)::

    >>> kind = find_kind("seises")
    >>> kind.default_deck, kind.player_counts(load_deck(kind.default_deck))
    ('spanish-40', (2, 4, 5, 8))

The kinds are found by the ``companion.games`` entry points (:mod:`companion.plugins`; ``pyproject.toml`` lists
companion's own), each a module that calls :func:`register` when imported; they are imported at the first
look-up, so that a kind module may use the screen's drawing helpers, which ask this registry in turn. An outside
package's game is found the same way once installed, and a test's registers its kind by importing its module
(see docs/EXTENDING.md, "Adding a game").
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from types import ModuleType

from companion.decks import load_deck
from companion.games.kind import AnyKind, Ending, GameKind, Result, Robots, Voice, ending
from companion.i18n import N_, Said
from companion.plugins import load
from companion.rules.base import Game, SetupError, either

__all__ = [
    "DEFAULT_GAME",
    "GROUP",
    "AnyKind",
    "Ending",
    "GameKind",
    "Result",
    "Robots",
    "Voice",
    "ending",
    "find_kind",
    "game_module",
    "kind_of",
    "kinds",
    "new_game",
    "register",
    "unregister",
]

GROUP = "companion.games"  # the entry points of the game kinds (pyproject.toml lists companion's own)
DEFAULT_GAME = "seises"  # what an empty config plays

_KINDS: dict[str, AnyKind] = {}
_loaded = False


def register(kind: AnyKind) -> AnyKind:
    """Make ``kind`` known by its name; a second kind of the same name is refused."""
    if kind.name in _KINDS and _KINDS[kind.name] is not kind:
        raise ValueError(f"a game named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _KINDS.pop(name, None)


def kinds() -> Mapping[str, AnyKind]:
    """Every registered kind by name: those of the ``companion.games`` entry points first, in their order
    (:mod:`companion.plugins`: companion's own, the default game ahead, then an outside package's), then any
    registered by an import of its own (a test's)."""
    global _loaded
    if not _loaded:
        _loaded = True

        def register_loaded(kind: object) -> object:  # an entry point that names a kind rather than its module
            if not isinstance(kind, GameKind):
                raise TypeError(f"it is a {type(kind).__name__}, not a companion.games.GameKind")
            return register(kind)

        found = load(GROUP, DEFAULT_GAME, register_loaded, lambda name: name in _KINDS)
        # a kind module imported on its own registers its kind before the others: the entry points' order all the
        # same (the menu's, the page's)
        rank = {name: index for index, name in enumerate(found)}
        ordered = sorted(_KINDS.values(), key=lambda kind: rank.get(kind.name, len(rank)))
        _KINDS.clear()
        _KINDS.update((kind.name, kind) for kind in ordered)
    return _KINDS


def find_kind(name: str) -> AnyKind:
    """The kind named ``name``; an unknown name is refused with the names there are."""
    try:
        return kinds()[name]
    except KeyError:
        names = list(kinds())
        raise SetupError(
            Said(N_("Unknown game {name}: choose {games}."), name=repr(name), games=either(names))
        ) from None


def new_game(name: str, players: int, deck: str | None, options: Mapping[str, str]) -> Game:
    """A game as the config and the command line name it (``deck`` None: the game's own); raises SetupError or
    DeckError."""
    kind = find_kind(name)
    game: Game = kind.new_game(players, load_deck(deck or kind.default_deck), options)
    return game


def kind_of(game: Game) -> AnyKind:
    """The kind of a running game."""
    return find_kind(game.name)


def game_module(kind: AnyKind, name: str) -> ModuleType | None:
    """The module ``name`` of ``kind``'s package (``companion/games/<game>/<name>.py``: ``screen``, ``examples``),
    imported; None when the game has none. The layers above find a game's presentation so, and the core never
    imports it."""
    package = type(kind).__module__
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None or importlib.util.find_spec(f"{package}.{name}") is None:
        return None
    return importlib.import_module(f"{package}.{name}")
