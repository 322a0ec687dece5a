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
  homeassistant/components/mqtt/const.py): so a key may hold null, but it must be there;
* a device trigger: "MQTT Device trigger" (https://www.home-assistant.io/integrations/device_trigger.mqtt/): its
  discovery topic under ``device_automation``, one trigger a topic, ``automation_type`` ``trigger``, ``topic``,
  ``type`` and ``subtype`` required (their pair unique on a device), ``payload``, ``qos``, ``value_template``
  optional, the device required (homeassistant/components/mqtt/device_trigger.py, ``TRIGGER_DISCOVERY_SCHEMA``);
* a device's ``configuration_url`` is an ``http://``, ``https://`` or ``homeassistant://`` address ("MQTT Sensor",
  device, configuration_url).

Jinja2 is not installed here, so a template is checked by the keys it reads: every ``value_json`` path in it must
be a key (or index) of the JSON its topic carries.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest
from brokers import sample_broker
from gpiozero.pins.mock import MockFactory
from test_referee import lay, lift, press, seises, tap

from companion.club.homeassistant import TRIGGERS, discovery, fired, page_url, topics, trigger_topic, triggers
from companion.club.publisher import Publisher
from companion.config import parse_config, read_mqtt
from companion.daemon import Daemon
from companion.games import ending
from companion.games.seises import END_OF_HAND, RENEGE
from companion.games.seises.rules import Seises
from companion.games.sexto_set import END_OF_SET
from companion.games.sexto_set.rules import SextoSet
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.rules.transcript import state as game_state
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device
from companion.view import Message, MessageKind, StatusLight, TableView

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


# "MQTT Discovery", "Supported abbreviations": those of a device trigger's keys
TRIGGER_ABBREVIATIONS = {
    "atype": "automation_type",
    "dev": "device",
    "o": "origin",
    "pl": "payload",
    "stype": "subtype",
    "t": "topic",
    "val_tpl": "value_template",
}
TRIGGER_KEYS = {*TRIGGER_ABBREVIATIONS.values(), "type", "qos", "platform", "encoding"}


def trigger_config(topic: str, payload: str) -> dict[str, Any]:
    """A device trigger's config as Home Assistant reads ``payload`` on ``topic``; AssertionError for what its
    documentation does not allow."""
    match = DISCOVERY_TOPIC.fullmatch(topic)
    assert match is not None, f"{topic}: not <discovery_prefix>/device_automation/[<node_id>/]<object_id>/config"
    assert (match["prefix"], match["component"]) == ("homeassistant", "device_automation")
    raw = json.loads(payload)
    assert isinstance(raw, dict), "the payload must be a serialized JSON dictionary"
    config = expand(raw, TRIGGER_ABBREVIATIONS)
    assert set(config) <= TRIGGER_KEYS, f"{topic}: keys a trigger does not have: {set(config) - TRIGGER_KEYS}"
    assert config.get("automation_type") == "trigger", f"{topic}: automation_type must be 'trigger'"
    for key in ("topic", "type", "subtype"):
        assert isinstance(config.get(key), str) and config[key], f"{topic}: {key} is required"
    assert "+" not in config["topic"] and "#" not in config["topic"], f"{topic}: its topic has a wildcard"
    assert config.get("qos", 0) in (0, 1, 2)
    assert "unique_id" not in config, "a trigger is no entity"
    assert isinstance(config.get("device"), dict), f"{topic}: the device is required"
    device = expand(config["device"], DEVICE_ABBREVIATIONS)
    assert set(device) <= DEVICE_KEYS and (device.get("identifiers") or device.get("connections"))
    config["device"] = device
    return config


def check_device(device: Mapping[str, Any]) -> None:
    """A device's link to its page: http(s) or Home Assistant's own."""
    if "configuration_url" in device:
        url = device["configuration_url"]
        assert re.fullmatch(r"(https?://[^/\s]+/\S*|homeassistant://\S+)", url), f"{url}: no address a browser opens"


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
    """Home Assistant's sensors' configs (its triggers' checked and left out), and the rest."""
    automations = {topic: payload for topic, payload in found.items() if "/device_automation/" in topic}
    assert sorted(automations) == sorted(triggers("t1")), "the table's triggers, announced and retained"
    for topic, payload in automations.items():
        trigger_config(topic, payload)
    return (
        {topic: payload for topic, payload in found.items() if topic.startswith("homeassistant/sensor/")},
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


def test_the_triggers_are_valid_one_a_topic_with_a_subtype_each_on_the_tables_device() -> None:
    page = "http://mesa-3.local:8080/"
    configs = triggers("mesa-3", page)
    checked = {topic: trigger_config(topic, json.dumps(config)) for topic, config in configs.items()}
    assert {config["subtype"] for config in checked.values()} == {"hand won", "game won", "illegal play", "renuncio"}
    assert {config["type"] for config in checked.values()} == {"action"}
    pairs = [(config["type"], config["subtype"]) for config in checked.values()]
    assert len(pairs) == len(set(pairs)), "type and subtype unique on the device"
    assert {config["topic"] for config in checked.values()} == {f"companion/mesa-3/trigger/{o}" for o in TRIGGERS}
    sensors = discovery("mesa-3", json.loads(GAMES[0].read_text()), page)
    devices = {json.dumps(config["device"], sort_keys=True) for config in (*configs.values(), *sensors.values())}
    assert len(devices) == 1, "the triggers belong to the sensors' device"
    for config in (*checked.values(), *sensors.values()):
        check_device(config["device"])
        assert config["device"]["configuration_url"] == page
    assert (
        "configuration_url"
        not in triggers("mesa-3")["homeassistant/device_automation/mesa-3/renuncio/config"]["device"]
    ), "no page, no link"


def test_the_trigger_checks_refuse_what_home_assistant_would() -> None:
    topic = "homeassistant/device_automation/t1/hand_won/config"
    good = triggers("t1")[topic]
    trigger_config(topic, json.dumps(good))
    abbreviated = {
        "atype": "trigger",
        "t": "companion/t1/trigger/x",
        "type": "action",
        "stype": "x",
        "dev": good["device"],
    }
    assert trigger_config(topic, json.dumps(abbreviated))["subtype"] == "x"
    broken: list[tuple[str, dict[str, Any]]] = [
        (topic, {k: v for k, v in good.items() if k != "subtype"}),
        (topic, {k: v for k, v in good.items() if k != "device"}),
        (topic, good | {"automation_type": "action"}),
        (topic, good | {"topic": "companion/t1/trigger/#"}),
        (topic, good | {"unique_id": "companion_t1_hand_won"}),
        (topic, good | {"subtpye": "hand won"}),
        ("homeassistant/sensor/t1/hand_won/config", good),
    ]
    for where, config in broken:
        with pytest.raises(AssertionError):
            trigger_config(where, json.dumps(config))
    with pytest.raises(AssertionError):
        check_device({"identifiers": ["x"], "configuration_url": "mesa-3.local:8080"})


@pytest.mark.parametrize(
    ("listen", "url"),
    [
        (("0.0.0.0", 8080), "http://mesa-3.local:8080/"),  # every address: the Pi's mDNS name (avahi)
        (("::", 80), "http://mesa-3.local:80/"),
        (("192.168.1.20", 8080), "http://192.168.1.20:8080/"),
        (("fe80::1", 8080), "http://[fe80::1]:8080/"),
        (("127.0.0.1", 8080), None),  # this machine only (a proxy in front): nothing another machine opens
        (("0.0.0.0", 0), None),  # any free port: unknown until it listens
        (None, None),  # no page
    ],
)
def test_the_device_links_to_the_page_another_machine_can_open(listen: tuple[str, int] | None, url: str | None) -> None:
    assert page_url(listen, "mesa-3") == url
    if url is not None:
        check_device({"identifiers": ["x"], "configuration_url": url})


def test_a_view_fires_the_triggers_of_what_the_table_has_just_said() -> None:
    hand = Message(END_OF_HAND, "Asiento 2 gana la mano", "Mano 2: sale Asiento 3")
    assert fired(TableView(message=hand), None) == ["hand_won"]
    assert fired(TableView(message=hand), hand) == [], "the same message after a later event: nothing new"
    same_words = Message(MessageKind.ILLEGAL, "Jugada ilegal", "Retira la carta")
    again = Message(MessageKind.ILLEGAL, "Jugada ilegal", "Retira la carta")
    assert fired(TableView(message=again), same_words) == ["illegal_play"], "the same card refused twice"
    assert fired(TableView(message=Message(END_OF_SET, "Set para A")), None) == ["hand_won"]
    game = Message(MessageKind.END_OF_GAME, "Asiento 2 gana con 51")
    assert fired(TableView(message=game, status=StatusLight.RENEGE), None) == ["renuncio", "game_won"]
    renege = Message(RENEGE, "Renuncio: Asiento 2")
    assert fired(TableView(message=renege, status=StatusLight.RENEGE), None) == ["renuncio"]
    assert fired(TableView(message=Message(MessageKind.INFO, "Bolsa vacía")), None) == []
    penalty = Message(RENEGE, "Renuncio: Asiento 2")  # a ruling, but no refusal: only the renuncio look fires
    assert fired(TableView(message=penalty), None) == []
    assert fired(TableView(), hand) == []


@pytest.mark.parametrize("logins", [False, True], ids=["open", "the-sample-acl"])
def test_a_hand_won_on_a_table_reaches_home_assistant_through_mosquitto(
    tmp_path: Path, broker: Broker, logins: bool
) -> None:
    """A Seises table whose referee plays a hand to its end (seat 2's last card, which also proves its renuncio)
    and has a card refused: mosquitto carries each trigger to a subscriber of the triggers' topics, after the state
    they changed, not retained; the view the table started on fires none. On the sample broker (logins and
    systemd/mosquitto-companion.acl) the table may publish its triggers and Home Assistant read them."""
    settings: dict[str, Any] = {"url": broker.url, "table": "t1", "homeassistant": True}
    house: dict[str, Any] = {}
    if logins:
        accounts = {"t1": "t1-secret", "homeassistant": "house-secret"}
        broker = sample_broker(tmp_path / "sample", accounts)
        broker.start()
        settings |= {"url": broker.url, "username": "t1", "password": accounts["t1"]}
        house = {"username": "homeassistant", "password": accounts["homeassistant"]}
    mqtt = read_mqtt(settings, "t")
    assert mqtt is not None
    referee = seises(confirm_turns=False)
    publisher = Publisher(mqtt, Journal(tmp_path / "journal.db"), lambda: game_state(referee.current_game))
    heard: list[tuple[str, dict[str, Any], bool]] = []

    async def watch(subscribed: asyncio.Event) -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="house", **house) as client:
            await client.subscribe("companion/t1/trigger/+", qos=1)
            await client.subscribe("companion/t1/state", qos=1)
            subscribed.set()
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                if message.topic.value == "companion/t1/state":
                    heard.append(("state", json.loads(message.payload), message.retain))
                    continue
                heard.append((message.topic.value, json.loads(message.payload), message.retain))
                if message.topic.value.endswith("/hand_won"):
                    return

    async def play() -> None:
        subscribed = asyncio.Event()
        watching = asyncio.create_task(watch(subscribed))
        await subscribed.wait()
        publisher.show(referee.view(), 0.0)  # where the table starts
        task = asyncio.create_task(publisher.run())
        try:
            while not publisher.connected:
                await asyncio.sleep(0.01)
            lay(referee, "1C")  # refused: the game opens with the 6 of oros
            publisher.show(referee.view(), 0.0)
            lift(referee, "1C")
            publisher.show(referee.view(), 0.0)
            tap(referee, "6O")
            publisher.show(referee.view(), 0.0)
            for _ in range(3):  # seats 2, 3 and 4 pay while the 7 of oros is legal
                press(referee, "pass"), press(referee, "confirm")
                publisher.show(referee.view(), 0.0)
            tap(referee, "5O")
            publisher.show(referee.view(), 0.0)
            game = referee.game
            referee.game = Seises.from_snapshot({**game.snapshot(), "hand_sizes": [9, 1, 10, 10]})
            tap(referee, "7O")  # seat 2's last card: the hand is won, and its renuncio proven
            publisher.show(referee.view(), 0.0)
            publisher.show(referee.view(), 0.0)  # shown again after another event: fires nothing more
            await asyncio.wait_for(watching, 10)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    try:
        asyncio.run(play())
    finally:
        if logins:
            broker.stop()
    assert "Denied PUBLISH" not in broker.log()
    triggered = [(topic, said) for topic, said, _retain in heard if topic != "state"]
    assert [topic for topic, _said in triggered] == [
        trigger_topic("t1", "illegal_play"),
        trigger_topic("t1", "renuncio"),
        trigger_topic("t1", "hand_won"),
    ]
    assert triggered[-1][1] == {"kind": "end_of_hand", "title": "Renuncio: Asiento 2", "todo": triggered[-1][1]["todo"]}
    assert not any(retain for topic, _said, retain in heard if topic != "state"), "a trigger is never retained"
    last_state = max(index for index, (topic, _said, _retain) in enumerate(heard) if topic == "state")
    assert heard[last_state][1]["hand"] == 2 and last_state < len(heard) - 2, "the state before its triggers"


@pytest.mark.parametrize("listen", [("0.0.0.0", 8080), None])
def test_the_table_gives_its_publisher_the_pages_address(
    tmp_path: Path, mock_factory: MockFactory, listen: tuple[str, int] | None
) -> None:
    """The assembly hands the publisher the page's address from ``[web] listen`` and the Pi's own name."""
    from companion.assembly import Devices, assemble
    from companion.config import Config, GameConfig
    from companion.hardware import load_pinmap
    from companion.nfc.registry import Registry
    from companion.ui.display import Screen

    mqtt = read_mqtt({"url": "mqtt://127.0.0.1:1883", "table": "t1", "homeassistant": True}, "t")
    config = Config(game=GameConfig(), zones={"z1": "table"}, backend="sim", web=listen, mqtt=mqtt)
    registry = Registry.load(tmp_path / "registry.toml", deck="spanish-40")
    readers = SimBackend(["z1"], registry)
    journal = Journal(tmp_path / "journal.db")
    screen = Screen(make_device([], bus=FakeI2CBus()))
    devices = Devices(journal, registry, readers, load_pinmap(), mock_factory, lambda: 0.0, lambda call: call(), screen)
    assembly = assemble(config, devices)
    assert assembly.publisher is not None
    name = socket.gethostname()
    assert assembly.publisher.page == (
        None if listen is None else f"http://{name}{'' if '.' in name else '.local'}:8080/"
    )
    assembly.close()
    journal.close()


def test_the_view_the_table_starts_on_and_what_happens_while_the_broker_is_away_fire_nothing(
    tmp_path: Path, broker: Broker
) -> None:
    """A trigger is of the moment: the first view (a game resumed on its end) and a refusal while the broker is
    down are never sent; the hand won once it is back is."""
    mqtt = read_mqtt({"url": broker.url, "table": "t1", "homeassistant": True}, "t")
    assert mqtt is not None
    state = json.loads(GAMES[0].read_text())
    publisher = Publisher(mqtt, Journal(tmp_path / "journal.db"), lambda: state)
    heard: list[str] = []

    def hand(title: str) -> TableView:
        return TableView(message=Message(END_OF_HAND, title))

    async def until(condition: Callable[[], bool]) -> None:
        for _ in range(500):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out")

    async def watch(subscribed: asyncio.Event) -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="house", clean_session=False) as client:
            await client.subscribe("companion/t1/trigger/+", qos=1)
            subscribed.set()
            async for message in client.messages:
                heard.append(message.topic.value.rsplit("/", 1)[1])

    async def play() -> None:
        task = asyncio.create_task(publisher.run())
        subscribed = asyncio.Event()
        watching = asyncio.create_task(watch(subscribed))
        try:
            await subscribed.wait()
            await until(lambda: publisher.connected)
            publisher.show(TableView(message=Message(MessageKind.END_OF_GAME, "Asiento 2 gana con 50")), 0.0)
            publisher.show(hand("first"), 0.0)
            await until(lambda: heard == ["hand_won"])
            watching.cancel()
            broker.kill()
            await until(lambda: not publisher.connected)
            publisher.show(TableView(message=Message(MessageKind.ILLEGAL, "Jugada ilegal")), 0.0)
            broker.start()
            subscribed = asyncio.Event()
            watching = asyncio.create_task(watch(subscribed))
            await subscribed.wait()
            await until(lambda: publisher.connected)
            publisher.show(hand("second"), 0.0)
            await until(lambda: len(heard) == 2)
            await asyncio.sleep(0.2)  # anything else would have come by now
        finally:
            task.cancel()
            watching.cancel()
            await asyncio.gather(task, watching, return_exceptions=True)

    asyncio.run(play())
    assert heard == ["hand_won", "hand_won"]
