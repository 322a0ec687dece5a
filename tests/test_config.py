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
        ("volume = 3", "volume: unknown key (valid: display, game, journal, pins, readers, zones)"),
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
