"""Home Assistant's MQTT discovery: what a table announces, checked against the schema Home Assistant documents, on a
real mosquitto, as Home Assistant would find it there after a restart (the retained messages).

The checks are written from Home Assistant's documentation, not from our code:

* the discovery topic, payload, abbreviations, base topic ``~`` and removal by an empty payload: "MQTT Discovery"
  (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery), whose abbreviation tables are copied below
  for the keys a sensor has;
* a sensor's keys, ``state_topic`` required, ``availability`` and ``availability_topic`` never together, the
  device's keys and that it needs ``unique_id``: "MQTT Sensor" (https://www.home-assistant.io/integrations/sensor.mqtt/);
* a device needs at least one of ``identifiers`` and ``connections`` (Home Assistant's MQTT schema refuses it
  otherwise: homeassistant/components/mqtt/schemas.py, ``validate_device_has_at_least_one_identifier``);
* a template renders ``None`` for a null value, which a sensor shows as unknown (``PAYLOAD_NONE = "None"``,
  homeassistant/components/mqtt/const.py): so a key may hold null, but it must be there.

Jinja2 is not installed here, so a template is checked by the keys it reads: every ``value_json`` path in it must
be a key (or index) of the JSON its topic carries.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest
from gpiozero.pins.mock import MockFactory

from companion.club.homeassistant import discovery, topics
from companion.club.publisher import Publisher
from companion.config import parse_config, read_mqtt
from companion.daemon import Daemon
from companion.games import ending
from companion.games.seises.rules import Seises
from companion.games.sexto_set.rules import SextoSet
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device
from companion.view import Message, MessageKind, TableView

if TYPE_CHECKING:
    from brokers import Broker

Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]
Until = Callable[..., Awaitable[None]]
GAMES = sorted((Path(__file__).resolve().parents[1] / "games").glob("*.json"))

# "MQTT Discovery", "Supported abbreviations": the ones of a sensor's keys, and of the device's and origin's
ABBREVIATIONS = {
    "avty": "availability",
    "avty_mode": "availability_mode",
    "avty_t": "availability_topic",
    "avty_tpl": "availability_template",
    "def_ent_id": "default_entity_id",
    "dev": "device",
    "dev_cla": "device_class",
    "e": "encoding",
    "en": "enabled_by_default",
    "ent_cat": "entity_category",
    "ent_pic": "entity_picture",
    "exp_aft": "expire_after",
    "frc_upd": "force_update",
    "ic": "icon",
    "json_attr_t": "json_attributes_topic",
    "json_attr_tpl": "json_attributes_template",
    "lrst_val_tpl": "last_reset_value_template",
    "o": "origin",
    "obj_id": "object_id",
    "ops": "options",
    "pl_avail": "payload_available",
    "pl_not_avail": "payload_not_available",
    "stat_cla": "state_class",
    "stat_t": "state_topic",
    "sug_dsp_prc": "suggested_display_precision",
    "uniq_id": "unique_id",
    "unit_of_meas": "unit_of_measurement",
    "val_tpl": "value_template",
}
DEVICE_ABBREVIATIONS = {
    "cns": "connections",
    "cu": "configuration_url",
    "hw": "hw_version",
    "ids": "identifiers",
    "mdl": "model",
    "mdl_id": "model_id",
    "mf": "manufacturer",
    "sa": "suggested_area",
    "sn": "serial_number",
    "sw": "sw_version",
}
ORIGIN_ABBREVIATIONS = {"sw": "sw_version", "url": "support_url"}
# "MQTT Sensor", configuration variables (unknown keys are ignored by Home Assistant: a misspelt one would do
# nothing, so here it fails)
SENSOR_KEYS = {
    *ABBREVIATIONS.values(),
    "name",
    "qos",
    "payload_available",
    "payload_not_available",
    "platform",
    "~",
}
DEVICE_KEYS = {*DEVICE_ABBREVIATIONS.values(), "name", "via_device"}
ORIGIN_KEYS = {"name", "sw_version", "support_url"}
STATE_CLASSES = {"measurement", "measurement_angle", "total", "total_increasing"}
DISCOVERY_TOPIC = re.compile(r"(?P<prefix>[^/]+)/(?P<component>[^/]+)/(?:[a-zA-Z0-9_-]+/)?[a-zA-Z0-9_-]+/config")
# value_json followed by .key, ['key'] or [index], as a template reads the JSON's keys
PATH = re.compile(r"value_json((?:\.[A-Za-z_]\w*|\['[^']*'\]|\[\d+\])+)")
STEP = re.compile(r"\.([A-Za-z_]\w*)|\['([^']*)'\]|\[(\d+)\]")


def expand(config: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in config.items()}


def sensor_config(topic: str, payload: str) -> dict[str, Any]:
    """The sensor's config as Home Assistant reads ``payload`` on ``topic``: abbreviations and ``~`` expanded;
    AssertionError for what its documentation does not allow."""
    match = DISCOVERY_TOPIC.fullmatch(topic)
    assert match is not None, f"{topic}: not <discovery_prefix>/<component>/[<node_id>/]<object_id>/config"
    assert (match["prefix"], match["component"]) == ("homeassistant", "sensor")
    raw = json.loads(payload)
    assert isinstance(raw, dict), "the payload must be a serialized JSON dictionary"
    config = expand(raw, ABBREVIATIONS)
    base = config.get("~")
    for key, value in list(config.items()):
        if base is not None and key.endswith("_topic") and isinstance(value, str):
            config[key] = (
                base + value[1:] if value.startswith("~") else value[:-1] + base if value[-1:] == "~" else value
            )
    assert set(config) <= SENSOR_KEYS, f"{topic}: keys a sensor does not have: {set(config) - SENSOR_KEYS}"
    assert isinstance(config.get("state_topic"), str) and config["state_topic"], f"{topic}: state_topic is required"
    assert not {"availability", "availability_topic"} <= set(config), "availability and availability_topic both"
    assert isinstance(config.get("unique_id"), str), f"{topic}: a device needs the sensor's unique_id"
    device = expand(config["device"], DEVICE_ABBREVIATIONS)
    assert set(device) <= DEVICE_KEYS, f"{topic}: keys a device does not have: {set(device) - DEVICE_KEYS}"
    assert device.get("identifiers") or device.get("connections"), "a device needs identifiers or connections"
    identifiers = device["identifiers"]
    assert isinstance(identifiers, str) or all(isinstance(one, str) for one in identifiers)
    config["device"] = device
    if "origin" in config:
        origin = expand(config["origin"], ORIGIN_ABBREVIATIONS)
        assert set(origin) <= ORIGIN_KEYS and isinstance(origin.get("name"), str), f"{topic}: origin needs a name"
    if "state_class" in config:
        assert config["state_class"] in STATE_CLASSES
    if "icon" in config:
        assert re.fullmatch(r"[a-z]+:[a-z0-9-]+", config["icon"]), f"{topic}: an icon is prefix:name"
    for key in ("availability_topic", "json_attributes_topic", "state_topic"):
        if key in config:
            assert "+" not in config[key] and "#" not in config[key], f"{topic}: {key} has a wildcard"
    return config


def read_keys(template: str, data: Any) -> list[str]:
    """The ``value_json`` paths ``template`` reads, each checked to be in ``data`` (AssertionError if not)."""
    paths = [match[1] for match in PATH.finditer(template)]
    assert paths, f"{template!r} reads nothing of the message's JSON"
    for path in paths:
        value = data
        for key, quoted, index in STEP.findall(path):
            if index:
                assert isinstance(value, list) and int(index) < len(value), f"{template!r}: no [{index}] in {value!r}"
                value = value[int(index)]
            else:
                name = key or quoted
                assert isinstance(value, dict) and name in value, f"{template!r}: no key {name!r} in {value!r}"
                value = value[name]
    return paths


def value_of(template: str, data: Any) -> Any:
    """What a template that reads one ``value_json`` path gives for ``data``."""
    [path] = read_keys(template, data)
    value = data
    for key, quoted, index in STEP.findall(path):
        value = value[int(index)] if index else value[key or quoted]
    return value


FINISHED = (
    "seises-won-at-exactly-50",
    "sexto-set-won-on-sets-against-masters",
    "sexto-set-equal-sets-decided-by-masters",
    "sexto-set-drawn-match",
)


@pytest.mark.parametrize("name", FINISHED)
def test_the_winner_sensor_names_the_winner_and_the_rule_of_the_one_ending(name: str) -> None:
    state = json.loads((GAMES[0].parent / f"{name}.json").read_text())
    engine = {Seises.name: Seises, SextoSet.name: SextoSet}[state["game"]]
    end = ending(engine.from_snapshot(state))
    assert end is not None
    configs = discovery("t1", state)
    winner = configs["homeassistant/sensor/t1/winner/config"]
    assert "state_class" not in winner, "a word, not a measurement whose history is kept"
    assert value_of(winner["value_template"], state) == end.winner
    if state["game"] == "sexto-set":
        assert value_of(configs["homeassistant/sensor/t1/decided_by/config"]["value_template"], state) == end.rule
        score = value_of(configs["homeassistant/sensor/t1/score_A/config"]["value_template"], state)
        assert score == state["match"]["master_cards"]["A"]


def check_announcement(configs: Mapping[str, str], retained: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Every config valid, its sensor's topics there (retained), its templates reading keys those topics have."""
    checked = {topic: sensor_config(topic, payload) for topic, payload in configs.items()}
    unique = [config["unique_id"] for config in checked.values()]
    assert len(unique) == len(set(unique)), "two sensors share a unique_id"
    for topic, config in checked.items():
        assert config["state_topic"] in retained, f"{topic}: nothing retained on {config['state_topic']}"
        assert retained[config.get("availability_topic", "")] == config["payload_available"]
        read_keys(config["value_template"], json.loads(retained[config["state_topic"]]))
        if "json_attributes_template" in config:
            attributes = json.loads(retained[config["json_attributes_topic"]])
            read_keys(config["json_attributes_template"], attributes)
        elif "json_attributes_topic" in config:  # taken whole: it must be a JSON object
            assert isinstance(json.loads(retained[config["json_attributes_topic"]]), dict)
    return checked


async def retained(broker: Broker, *filters: str) -> dict[str, str]:
    """What a client that subscribes now is given: the retained message of every topic under ``filters``, as
    Home Assistant finds them when it starts. A message of our own, sent once subscribed, marks their end."""
    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="house") as client:
        for topic_filter in (*filters, "house/end"):
            await client.subscribe(topic_filter, qos=1)
        await client.publish("house/end", "", qos=1)
        found: dict[str, str] = {}
        async for message in client.messages:
            if message.topic.value == "house/end":
                return found
            assert isinstance(message.payload, bytes)
            if message.retain:  # not one the table sends meanwhile
                found[message.topic.value] = message.payload.decode()
    raise AssertionError("the broker closed the connection")


def split(found: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Home Assistant's configs, and the rest."""
    return (
        {topic: payload for topic, payload in found.items() if topic.startswith("homeassistant/")},
        {topic: payload for topic, payload in found.items() if not topic.startswith("homeassistant/")},
    )


@pytest.mark.parametrize("path", GAMES, ids=[path.stem for path in GAMES])
def test_every_recorded_game_s_sensors_are_valid_and_read_keys_its_state_has(path: Path) -> None:
    state = json.loads(path.read_text())
    message = {"kind": "illegal", "title": "Jugada ilegal", "todo": "Retira la carta"}
    configs = discovery("mesa-3", state)
    topics_of = {
        "companion/mesa-3/state": json.dumps(state),
        "companion/mesa-3/message": json.dumps(message),
        "companion/mesa-3/status": "online",
    }
    checked = check_announcement({topic: json.dumps(config) for topic, config in configs.items()}, topics_of)
    assert set(configs) <= topics("mesa-3"), "a table clears on connecting every sensor it may have announced"
    objects = {topic.split("/")[3] for topic in configs}
    if "scores" in state:  # a seat's score each
        assert {"pot", *(f"score_{seat}" for seat in range(1, state["players"] + 1))} <= objects
        assert f"score_{state['players'] + 1}" not in objects
    else:  # a pair's score and master cards
        assert {"score_A", "score_B", "masters_A", "masters_B", "sets_A", "sets_B"} <= objects and "pot" not in objects
    assert "winner" in objects
    assert {"game", "turn", "message"} <= objects
    devices = {json.dumps(config["device"], sort_keys=True) for config in checked.values()}
    assert len(devices) == 1, "one device a table"


def test_two_tables_are_two_devices_whose_sensors_never_share_an_id() -> None:
    state = json.loads(GAMES[0].read_text())
    one, two = discovery("t1", state), discovery("t2", state)
    assert not set(one) & set(two)
    ids = [config["unique_id"] for config in (*one.values(), *two.values())]
    assert len(ids) == len(set(ids))
    assert {tuple(config["device"]["identifiers"]) for config in (*one.values(), *two.values())} == {
        ("companion_t1",),
        ("companion_t2",),
    }


def test_the_schema_checks_refuse_what_home_assistant_would() -> None:
    """The checks can fail: each broken config is one Home Assistant's documentation does not allow."""
    good = discovery("t1", json.loads(GAMES[0].read_text()))["homeassistant/sensor/t1/pot/config"]
    sensor_config("homeassistant/sensor/t1/pot/config", json.dumps(good))
    abbreviated = {"~": "companion/t1", "stat_t": "~/state", "uniq_id": "x", "dev": {"ids": "companion_t1"}}
    assert sensor_config("homeassistant/sensor/t1/x/config", json.dumps(abbreviated))["state_topic"] == (
        "companion/t1/state"
    )
    broken: list[tuple[str, dict[str, Any]]] = [
        ("homeassistant/sensor/t1/pot/config", {k: v for k, v in good.items() if k != "state_topic"}),
        ("homeassistant/sensor/t1/pot/config", good | {"device": {"name": "no identifiers"}}),
        ("homeassistant/sensor/t1/pot/config", {k: v for k, v in good.items() if k != "unique_id"}),
        ("homeassistant/sensor/t1/pot/config", good | {"availability": [{"topic": "companion/t1/status"}]}),
        ("homeassistant/sensor/t1/pot/config", good | {"value_tempalte": "{{ value_json.pot }}"}),
        ("homeassistant/sensor/t1/pot/config", good | {"state_class": "sometimes"}),
        ("homeassistant/sensor/mesa 3/pot/config", good),
        ("homeassistant/sensor/t1/pot/state", good),
    ]
    for topic, config in broken:
        with pytest.raises(AssertionError):
            sensor_config(topic, json.dumps(config))
    with pytest.raises(AssertionError):
        read_keys("{{ value_json.pots }}", {"pot": 3})
    with pytest.raises(AssertionError):
        read_keys("{{ value_json.scores[4] }}", {"scores": [1, 2, 3, 4]})


def table_config(tmp_path: Path, broker: Broker, players: int, journal: str = "journal.db") -> str:
    return (
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / journal}"\n'
        f"[game]\nconfirm_turns = false\nplayers = {players}\n"
        f'[mqtt]\nurl = "{broker.url}"\ntable = "t1"\nhomeassistant = true\n'
    )


def test_a_table_appears_in_home_assistant_with_its_sensors_and_a_new_game_with_fewer_seats_removes_the_others(
    tmp_path: Path,
    broker: Broker,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
) -> None:
    """A simulated table (4 seats) with ``homeassistant = true``: Home Assistant, starting after it, finds a valid
    config for each sensor, each reading keys the retained state and message have; the last message is the
    illegal card's. The table starts again with 2 seats (a new journal): seats 3 and 4 are gone from the broker."""
    four = Daemon(
        parse_config(table_config(tmp_path, broker, 4), "t"),
        pin_factory=mock_factory,
        display=make_device([], bus=FakeI2CBus()),
    )
    house = "homeassistant/#", "companion/#"

    async def play() -> None:
        async with running(four):
            table = four.table
            assert table is not None
            hand.put("6O", "z1")
            await until(lambda: len(table.journal.entries(table.game_id)) == 1)
            hand.take("6O")
            await asyncio.sleep(0.05)
            hand.put("1C", "z1")  # not a card that may be played now: the screen says so
            found: dict[str, str] = {}

            async def look() -> bool:
                """The table has published where it is now: the state after the 6 of oros, then the 1 of copas'
                message (which the screen shows last, however the polls saw the lift and the lay)."""
                found.update(await retained(broker, *house))
                state, message = (json.loads(found.get(f"companion/t1/{key}", "{}")) for key in ("state", "message"))
                return state.get("turn") == 2 and message.get("kind") == "illegal"  # seat 1 played the 6 of oros

            for _ in range(100):
                if await look():
                    break
                await asyncio.sleep(0.1)
            configs, rest = split(found)
            assert json.loads(rest["companion/t1/state"])["turn"] == 2, rest
            assert json.loads(rest["companion/t1/message"])["kind"] == "illegal", rest
            checked = check_announcement(configs, rest)
            assert {config["unique_id"] for config in checked.values()} == {
                f"companion_t1_{object_id}"
                for object_id in ("game", "turn", "message", "pot", *(f"score_{n}" for n in range(1, 5)), "winner")
            }
            hand.take("1C")

    asyncio.run(play())
    two = Daemon(
        parse_config(table_config(tmp_path, broker, 2, "other.db"), "t"),
        pin_factory=mock_factory,
        display=make_device([], bus=FakeI2CBus()),
    )

    async def again() -> None:
        async with running(two):
            found: dict[str, str] = {}
            for _ in range(100):
                found = await retained(broker, *house)
                if '"players": 2' in found.get("companion/t1/state", ""):
                    break
                await asyncio.sleep(0.1)
            configs, rest = split(found)
            assert sorted(configs) == sorted(discovery("t1", json.loads(rest["companion/t1/state"])))
            assert "homeassistant/sensor/t1/score_3/config" not in configs
            check_announcement(configs, rest)

    asyncio.run(again())


def test_a_game_of_another_kind_on_the_same_connection_announces_its_sensors_and_removes_the_others(
    tmp_path: Path, broker: Broker
) -> None:
    """The publisher's game changes from Seises to 6º SET while connected: the pot and the seats' scores are
    removed (empty retained configs), the pairs' sensors announced, before the new state is sent."""
    mqtt = read_mqtt({"url": broker.url, "table": "t1", "homeassistant": True}, "t")
    assert mqtt is not None
    seises, sexto_set = (
        json.loads((GAMES[0].parent / f"{name}.json").read_text()) for name in ("seises-5-players", "sexto-set-pass")
    )
    current = [seises]
    publisher = Publisher(mqtt, Journal(tmp_path / "journal.db"), lambda: current[0])
    seen: list[tuple[str, bytes]] = []

    async def watch(subscribed: asyncio.Event) -> None:
        """What a subscriber sees from the first state until the next one."""
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="watch") as client:
            await client.subscribe("homeassistant/#", qos=1)
            await client.subscribe("companion/t1/state", qos=1)
            subscribed.set()
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                if message.topic.value == "companion/t1/state" and json.loads(message.payload) == seises:
                    del seen[:]
                    current[0] = sexto_set  # a new game of another kind, and the table's next view
                    publisher.show(TableView(message=Message(MessageKind.INFO, "6º SET")), 0.0)
                    continue
                seen.append((message.topic.value, message.payload))
                if message.topic.value == "companion/t1/state":
                    return

    async def play() -> None:
        subscribed = asyncio.Event()
        watching = asyncio.create_task(watch(subscribed))
        await subscribed.wait()
        task = asyncio.create_task(publisher.run())
        try:
            await asyncio.wait_for(watching, 10)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(play())
    removed = {topic for topic, payload in seen if payload == b""}
    assert removed == {f"homeassistant/sensor/t1/{o}/config" for o in ("pot", *(f"score_{n}" for n in range(1, 6)))}
    announced = {topic for topic, payload in seen if topic.startswith("homeassistant/") and payload}
    # the game's attributes are 6º SET's, and so is where its winner is
    objects = ("game", "score_A", "score_B", "masters_A", "masters_B", "sets_A", "sets_B", "winner", "decided_by")
    assert announced == {f"homeassistant/sensor/t1/{o}/config" for o in objects}
    assert seen[-1][0] == "companion/t1/state", "the sensors change before the state they read"
