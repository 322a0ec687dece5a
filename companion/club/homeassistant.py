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

The device links to the table's page (``configuration_url``) when the table serves one that another machine can
open (:func:`page_url`). It also has four device triggers ("MQTT Device trigger": one retained config each under
``homeassistant/device_automation/<table>/<object>/config``, type ``action``): a hand won, a game won, an illegal
play and a renuncio, each fired by a message on its own topic, ``companion/<table>/trigger/<object>``
(:func:`fired` says which a view of the table fires)::

    >>> sorted(triggers("t1"))[0]
    'homeassistant/device_automation/t1/game_won/config'
    >>> page_url(("0.0.0.0", 8080), "mesa-3"), page_url(("127.0.0.1", 8080), "mesa-3")
    ('http://mesa-3.local:8080/', None)
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
from companion.view import Message, MessageKind, StatusLight, TableView

__all__ = ["PREFIX", "TRIGGERS", "Sensor", "discovery", "fired", "page_url", "topics", "trigger_topic", "triggers"]

PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
EVERY_GAME = ("game", "turn", "message")  # the sensors of every game, before its kind's
# The device triggers: object id -> subtype (Home Assistant shows "<subtype> <type>": "hand won action").
TRIGGERS = {"hand_won": "hand won", "game_won": "game won", "illegal_play": "illegal play", "renuncio": "renuncio"}
TRIGGER_TYPE = "action"
_THIS_MACHINE = ("127.0.0.1", "::1", "localhost")
_EVERY_ADDRESS = ("0.0.0.0", "::", "")


@dataclass(frozen=True, slots=True)
class Sensor:
    """A count (or a word) of the game's state that Home Assistant shows as a sensor of the table: its object id,
    its name there, and where it is in the engine's snapshot (the keys and list indexes to follow)."""

    object_id: str  # letters, digits, _ and -: one level of a topic
    name: str  # in English: Home Assistant lets its user rename it
    path: tuple[str | int, ...]
    icon: str = "mdi:counter"
    measurement: bool = True  # a count whose history Home Assistant keeps; else a word (who won, and how)


def page_url(listen: tuple[str, int] | None, hostname: str) -> str | None:
    """The address Home Assistant links to for the table's page served on ``listen`` (``[web] listen``): the Pi's
    name under ``.local`` (Raspberry Pi OS's avahi answers it, and the page's Host check takes it) when the page
    listens on every address, the address itself when on one; None without a page, for a page of this machine
    only, or on any free port (port 0: known only once it listens)."""
    if listen is None:
        return None
    host, port = listen
    if host in _THIS_MACHINE or port == 0:
        return None
    if host in _EVERY_ADDRESS:
        host = hostname if "." in hostname else f"{hostname}.local"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def _device(table: str, page: str | None) -> dict[str, Any]:
    device: dict[str, Any] = {
        "identifiers": [f"companion_{table}"],
        "name": f"companion {table}",
        "manufacturer": "companion",
        "model": "card table referee",
        "sw_version": __version__,
    }
    if page is not None:
        device["configuration_url"] = page
    return device


_ORIGIN = {"name": "companion", "sw_version": __version__}


def discovery(table: str, state: Mapping[str, Any], page: str | None = None) -> dict[str, dict[str, Any]]:
    """Each config topic of the table's sensors and its payload (a JSON object), for a game whose state is
    ``state``: the game, whose turn, the last message, then the game kind's counts. ``page``: the device's link
    to the table's page (:func:`page_url`)."""
    base = f"companion/{table}"
    shared = {
        "availability_topic": f"{base}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": _device(table, page),
        "origin": _ORIGIN,
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


def triggers(table: str, page: str | None = None) -> dict[str, dict[str, Any]]:
    """Each device trigger's config topic and payload: on the table's device, fired by any message on its topic
    (no ``payload`` to match), at QoS 1 as the table publishes it. A trigger is no entity: no ``unique_id``,
    no availability."""
    return {
        f"{PREFIX}/device_automation/{table}/{object_id}/config": {
            "automation_type": "trigger",
            "topic": trigger_topic(table, object_id),
            "type": TRIGGER_TYPE,
            "subtype": subtype,
            "qos": 1,
            "device": _device(table, page),
            "origin": _ORIGIN,
        }
        for object_id, subtype in TRIGGERS.items()
    }


def trigger_topic(table: str, object_id: str) -> str:
    return f"companion/{table}/trigger/{object_id}"


def fired(view: TableView, last: Message | None) -> list[str]:
    """The triggers (object ids) the table's ``view`` fires, after a view whose message was ``last``: those of a
    message the table has just said. The referee makes a new message for each thing it says, so one shown again
    after a later event (the same object) fires nothing. What a message is comes from its kind's properties and the
    referee's own kinds (docs/decisions/011): the game's end, another milestone (a game's own kind: a hand, a
    set), a refusal; a renuncio from the status light's renuncio look, alone or with the hand or the game
    it ends::

        >>> end_of_hand = MessageKind("end_of_hand", milestone=True)  # as a game declares it in its package
        >>> won = Message(end_of_hand, "Renuncio: Asiento 2", "Gana la mano: +3")
        >>> fired(TableView(message=won, status=StatusLight.RENEGE), None)
        ['renuncio', 'hand_won']
        >>> fired(TableView(message=won), won)
        []
    """
    message = view.message
    if message is None or message is last:
        return []
    found = ["renuncio"] if view.status is StatusLight.RENEGE else []
    kind = message.kind
    if kind == MessageKind.END_OF_GAME:
        found.append("game_won")
    elif kind.milestone:  # a part of the game ended: a hand, a set (a game's own kinds, by property)
        found.append("hand_won")
    elif kind == MessageKind.ILLEGAL:
        found.append("illegal_play")
    return found


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
