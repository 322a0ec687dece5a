"""Home Assistant's MQTT discovery: the table's sensors, announced so that it appears in Home Assistant with no YAML.

Each sensor is one retained config message under ``homeassistant/sensor/<table>/<object>/config`` (Home Assistant's
``<discovery_prefix>/<component>/<node_id>/<object_id>/config``; a table's name is already of the characters a
node id may have). The sensors read the topics the table publishes anyway: the game's retained state (the JSON of
``companion play --json``), and the last message on the table's screen. All of a table's sensors belong to one
device, available while ``companion/<table>/status`` says ``online``.

Every game has three: the game (its name, and the state's other single values as attributes), whose turn it is,
and the last message. Its game adds its counts (``sensors(state)`` in the ``homeassistant`` module of its
package, as a Home Assistant integration has a module per platform: a pot, each side's score) and who won a
finished game, by the rule of :func:`companion.games.ending` (the state's winner is the engine's outcome)::

    >>> from companion.games import DEFAULT_GAME, new_game
    >>> state = new_game(DEFAULT_GAME, 2, None, {}).snapshot()
    >>> [topic.split("/")[3] for topic in discovery("t1", state)][:3]
    ['game', 'turn', 'message']

A sensor the current game does not have (a seat of a 6-player game once a 4-player one starts, a pot in a game of
another kind) is removed with an empty retained config, as Home Assistant's discovery says: :func:`topics` are all
those a table may have announced.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion import __version__
from companion.decks import load_deck
from companion.games import AnyKind, game_module, kinds
from companion.rules.base import SetupError

__all__ = ["PREFIX", "Sensor", "discovery", "topics"]

PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
EVERY_GAME = ("game", "turn", "message")  # the sensors of every game, before its kind's


@dataclass(frozen=True, slots=True)
class Sensor:
    """A count (or a word) of the game's state that Home Assistant shows as a sensor of the table: its object id,
    its name there, and where it is in the engine's snapshot (the keys and list indexes to follow)."""

    object_id: str  # letters, digits, _ and -: one level of a topic
    name: str  # in English: Home Assistant lets its user rename it
    path: tuple[str | int, ...]
    icon: str = "mdi:counter"
    measurement: bool = True  # a count whose history Home Assistant keeps; else a word (who won, and how)


def discovery(table: str, state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each config topic of the table's sensors and its payload (a JSON object), for a game whose state is
    ``state``: the game, whose turn, the last message, then the game kind's counts."""
    base = f"companion/{table}"
    shared = {
        "availability_topic": f"{base}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": {
            "identifiers": [f"companion_{table}"],
            "name": f"companion {table}",
            "manufacturer": "companion",
            "model": "card table referee",
            "sw_version": __version__,
        },
        "origin": {"name": "companion", "sw_version": __version__},
    }
    own = ("game", "turn")  # the single values that are sensors of their own, not the game's attributes
    facts = ", ".join(
        f"'{key}': value_json{_path((key,))}"
        for key, value in state.items()
        if key not in own and isinstance(value, str | int | None) and "'" not in key
    )
    configs: dict[str, dict[str, Any]] = {
        "game": {
            "name": "Game",
            "state_topic": f"{base}/state",
            "value_template": "{{ value_json.game }}",
            "json_attributes_topic": f"{base}/state",
            "json_attributes_template": f"{{{{ {{{facts}}} | tojson }}}}",
            "icon": "mdi:cards-playing",
        },
        "turn": {  # None between hands: the template says "None", which Home Assistant shows as unknown
            "name": "Turn",
            "state_topic": f"{base}/state",
            "value_template": "{{ value_json.turn }}",
            "icon": "mdi:account-arrow-right",
        },
        "message": {
            "name": "Message",
            "state_topic": f"{base}/message",
            "value_template": "{{ value_json.title }}",
            "json_attributes_topic": f"{base}/message",
            "icon": "mdi:message-alert",
        },
    }
    for sensor in _counts(state):
        configs[sensor.object_id] = {
            "name": sensor.name,
            "state_topic": f"{base}/state",
            "value_template": f"{{{{ value_json{_path(sensor.path)} }}}}",
            **({"state_class": "measurement"} if sensor.measurement else {}),  # Home Assistant keeps their history
            "icon": sensor.icon,
        }
    return {
        _topic(table, object_id): {"unique_id": f"companion_{table}_{object_id}", **config, **shared}
        for object_id, config in configs.items()
    }


def topics(table: str) -> set[str]:
    """Every config topic a table may have announced, in any game: what it clears on connecting, but those of
    its current game."""
    return {_topic(table, object_id) for object_id in (*EVERY_GAME, *_every_count())}


def _counts(state: Mapping[str, Any]) -> list[Sensor]:
    """The game's counts in ``state``: its package's ``homeassistant.sensors``; none for a game this table does not
    know, or that has no such module."""
    kind = kinds().get(str(state.get("game")))
    return [] if kind is None else _sensors(kind, state)


def _sensors(kind: AnyKind, state: Mapping[str, Any]) -> list[Sensor]:
    module = game_module(kind, "homeassistant")
    sensors: list[Sensor] = [] if module is None else module.sensors(state)
    return sensors


@functools.cache
def _every_count() -> frozenset[str]:
    """The object ids of every kind's counts, in a new game of each deck and number of players it is played with."""
    found: set[str] = set()
    for kind in kinds().values():
        for name in kind.decks:
            deck = load_deck(name)
            for players in kind.player_counts(deck):
                try:
                    state = kind.new_game(players, deck, {}).snapshot()
                except SetupError:  # a count its options refuse: not a game a table plays
                    continue
                found |= {sensor.object_id for sensor in _sensors(kind, state)}
    return frozenset(found)


def _path(path: tuple[str | int, ...]) -> str:
    """A snapshot's path as a template follows it: ``('scores', 0)`` is ``.scores[0]``. A key that is not a
    name, or that is also a dict's method (``items``: Jinja looks for an attribute first), is a subscript."""
    return "".join(
        f"[{step}]" if isinstance(step, int) else f".{step}" if _name(step) else f"['{step}']" for step in path
    )


def _name(key: str) -> bool:
    return key.isidentifier() and not hasattr(dict, key)


def _topic(table: str, object_id: str) -> str:
    return f"{PREFIX}/sensor/{table}/{object_id}/config"
