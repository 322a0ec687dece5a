"""The config file: defaults, and every wrong value refused with its key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import ConfigError, load_config, parse_config


def test_an_empty_config_is_a_seises_table_with_one_zone() -> None:
    config = parse_config("", "empty")
    assert (config.game.name, config.game.deck_name, config.zones, config.backend) == (
        "seises",
        "spanish-40",
        {"z1": "table"},
        "spi",
    )


def test_sexto_set_defaults_to_eight_zones_registered_at_start() -> None:
    config = parse_config('[game]\nname = "sexto-set"', "x")
    assert config.zones == {f"z{i}": "auto" for i in range(1, 9)}
    assert config.game.deck_name == "squadratik"


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ('[game]\nname = "poker"', "game.name", "is not one of seises, sexto-set"),
        ("[game]\nplayers = 12", "game.players", "not between 2 and 8"),
        ('[game]\nplayers = "four"', "game.players", "whole number"),
        ("[game]\nconfirm_turns = 1", "game.confirm_turns", "true or false"),
        ('[game]\ndeck = "tarot"', "game.deck", "neither a built-in deck"),
        ('[readers]\nbackend = "usb"', "readers.backend", "not one of spi, mfrc522, hub, sim"),
        ('[zones]\nz1 = "X"', "zones.z1", "suit letter"),
        ("[game]\nplayers = 6", "game.players", "use 2, 4, 5 or 8 (the rule sheet recommends 4 to 8)"),
        ('[game]\ndeck = "spanish-48"\nplayers = 5', "game.players", "use 2, 3, 4, 6 or 8"),
        ('[game.options]\nrenege_penalty = "chip"', "game.options", "flag or points"),
        ("[game.options]\nrenege_points = 60", "game.options", "renege_points takes a whole number from 1 to 50"),
        ('[game]\nseat_names = ["Ana", "Luis"]', "game.seat_names", "2 names for 4 players"),
        *(
            (f'[game]\nseat_names = ["Ana", "Luis", "Eva", "Ju{char}an"]', "game.seat_names", f"holds {code}, a")
            for char, code in (
                ("\\u001b[2J", "U+001B"),
                ("\u202e", "U+202E"),
                ("\\u0000", "U+0000"),
                ("\\u0007", "U+0007"),
            )
        ),
        ('[game]\nname = "sexto-set"\n[zones]\nz1 = "auto"', "zones", "8 zones, not 1"),
        ('[display]\noptions = "ssd1306"', "display.options", "list of texts"),
        ("[game\n", "", "not valid TOML"),
        ('[journal]\npath = ""', "journal.path", "must name a file"),
    ],
)
def test_a_wrong_value_is_refused_with_its_key_and_reason(text: str, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "config.toml")
    message = str(info.value)
    assert message.startswith("config.toml: ")
    assert key in message and reason in message


def test_a_missing_file_says_where_to_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"copy systemd/config\.toml"):
        load_config(tmp_path / "config.toml")


def test_the_shipped_config_loads() -> None:
    config = load_config(Path(__file__).parents[1] / "systemd" / "config.toml")
    assert config.backend in ("spi", "hub")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[reader]\nbackend = "sim"', "reader: unknown table; did you mean readers?"),
        ("[game]\nconfirm_turn = false", "game.confirm_turn: unknown key; did you mean game.confirm_turns?"),
        ("confirm_turn = false", "confirm_turn: unknown key; did you mean game.confirm_turns?"),
        ('game = "sexto-set"', "game: must be a table"),
        ('[journal]\npaht = "/tmp/j.db"', "journal.paht: unknown key; did you mean journal.path?"),
        ("volume = 3", "volume: unknown key (valid: display, game, journal, mqtt, pins, readers, web, zones)"),
        ("[readers.hub]\nport = 1", "readers.hub: unknown table"),
    ],
)
def test_an_unknown_key_or_table_is_refused_with_the_nearest_valid_one(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "config.toml")
    assert str(info.value) == f"config.toml: {said}" or str(info.value).startswith(f"config.toml: {said}")


def test_a_config_file_read_is_bounded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="larger than 1 MiB, not a companion file"):
        load_config("/dev/zero")
    big = tmp_path / "config.toml"
    big.write_text("# " + "x" * (1 << 20))
    with pytest.raises(ConfigError, match="larger than 1 MiB"):
        load_config(big)


def test_the_renuncio_penalty_in_points_and_seat_names_in_sitting_order_are_read() -> None:
    text = '[game]\nplayers = 2\nseat_names = ["Ana", "Luis"]\n'
    text += '[game.options]\nrenege_penalty = "points"\nrenege_points = 8'
    config = parse_config(text, "config.toml")
    assert (config.game.players, config.game.seat_names) == (2, ("Ana", "Luis"))
    assert config.game.options == {"renege_penalty": "points", "renege_points": "8"}


def test_mqtt_is_off_without_a_url_and_read_with_one() -> None:
    assert parse_config("", "t").mqtt is None
    mqtt = parse_config('[mqtt]\nurl = "mqtt://club.local"\ntable = "mesa-3"', "t").mqtt
    assert mqtt is not None
    assert (mqtt.host, mqtt.port, mqtt.table, mqtt.tls, mqtt.url) == (
        "club.local",
        1883,
        "mesa-3",
        False,
        "mqtt://club.local:1883",
    )
    tls = parse_config('[mqtt]\nurl = "mqtts://club.local"\ntable = "t1"', "t").mqtt
    assert tls is not None and (tls.port, tls.tls) == (8883, True)
    assert not mqtt.homeassistant
    house = parse_config('[mqtt]\nurl = "mqtt://club.local"\ntable = "t1"\nhomeassistant = true', "t").mqtt
    assert house is not None and house.homeassistant


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ('url = "http://club.local"\ntable = "t1"', "mqtt.url", 'write url = "mqtt://host:1883"'),
        ('url = "mqtt://club.local:port"\ntable = "t1"', "mqtt.url", 'write url = "mqtt://host:1883"'),
        ('url = "mqtt://ana:secret@club.local"\ntable = "t1"', "mqtt.url", "as mqtt.username and mqtt.password"),
        ('url = "mqtt://club.local"', "mqtt.table", 'table = "mesa-3"'),
        ('url = "mqtt://club.local"\ntable = "mesa/3"', "mqtt.table", "letters, digits, - or _"),
        ('url = "mqtt://club.local"\ntable = "+"', "mqtt.table", "letters, digits, - or _"),
        ('table = "t1"', "mqtt.table", "needs mqtt.url"),
        ('url = "mqtt://club.local"\ntable = "t1"\npassword = "secret"', "mqtt.password", "needs mqtt.username"),
        ('url = "mqtts://club.local"\ntable = "t1"\nca = "/nowhere/ca.crt"', "mqtt.ca", "no such file"),
        ('url = "mqtt://club.local"\ntable = "t1"\nkeepalive = 5', "mqtt.keepalive", "unknown key"),
        ('url = "mqtt://club.local"\ntable = "t1"\nhomeassistant = "yes"', "mqtt.homeassistant", "true or false"),
        ("homeassistant = true", "mqtt.homeassistant", "needs mqtt.url"),
    ],
)
def test_a_wrong_mqtt_value_is_refused_with_what_to_write(text: str, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(f"[mqtt]\n{text}", "config.toml")
    assert f"config.toml: {key}: " in str(info.value) and reason in str(info.value)
    assert "secret" not in str(info.value)


def test_the_broker_password_is_never_in_the_config_s_repr() -> None:
    config = parse_config('[mqtt]\nurl = "mqtt://club.local"\ntable = "t1"\nusername = "t1"\npassword = "s3cret"', "t")
    assert config.mqtt is not None and config.mqtt.password == "s3cret"
    assert "s3cret" not in repr(config)
