"""The config file: defaults, and every wrong value refused with its key and reason."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import companion.readers.registry as registry
from companion.config import Config, ConfigError, _read_config, load_config, parse_config, sample_config, schema
from companion.i18n import translate
from companion.readers import ReaderKind, kind
from companion.readers.registry import names, register, registered
from companion.settings_schema import Document, Key, number


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
        ('[readers]\nbackend = "usb"', "readers.backend", "not one of spi, hub, mfrc522, sim"),
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
        ("colour = 3", "colour: unknown key (valid: display, game, journal, mqtt, pins, readers, speech, web, zones)"),
        ("[readers.hub]\nport = 1", "readers.hub: unknown table"),
    ],
)
def test_an_unknown_key_or_table_is_refused_with_the_nearest_valid_one(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "config.toml")
    assert str(info.value) == f"config.toml: {said}" or str(info.value).startswith(f"config.toml: {said}")


def test_a_config_file_read_is_bounded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="a device, not a companion file"):
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


def test_a_config_that_names_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "config.toml"
    os.mkfifo(pipe)  # opening it for reading would wait for a writer that never comes
    with pytest.raises(ConfigError, match=r"cannot read the config \(.*a named pipe, not a companion file"):
        load_config(pipe)


def test_the_broker_port_0_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('[mqtt]\nurl = "mqtt://club.local:0"\ntable = "t1"', "config.toml")
    assert str(info.value) == (
        "config.toml: mqtt.url: 'mqtt://club.local:0': port 0 is no broker's port: write its port "
        "(mqtt://host:1883), or none for 1883 (8883 for TLS)"
    )


def test_two_seats_of_one_name_are_refused_whatever_their_capitals() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('[game]\nseat_names = ["Ana", "Luis", "ana ", "Eva"]', "config.toml")
    assert str(info.value) == (
        "config.toml: game.seat_names: 'Ana' names two seats: give each player a name of their own"
    )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("{tmp}", "{tmp} is a folder: name the journal's file in it, such as {tmp}/journal.db"),
        (
            "/proc/journal.db",
            "/proc/journal.db is in /proc, the kernel's files, not on a disk: name a file such as "
            "/var/lib/companion/journal.db",
        ),
        (
            "{tmp}/proc/j.db",
            "{tmp}/proc/j.db is in /proc, the kernel's files, not on a disk: name a file such as "
            "/var/lib/companion/journal.db",
        ),  # through a symbolic link
        (
            "/dev/null",
            "/dev/null is in /dev, the kernel's files, not on a disk: name a file such as "
            "/var/lib/companion/journal.db",
        ),
        (
            "{tmp}/pipe",
            "{tmp}/pipe is not a file (a named pipe or a device): name a file such as /var/lib/companion/journal.db",
        ),
    ],
)
def test_a_journal_path_the_table_cannot_keep_a_journal_at_is_refused(tmp_path: Path, path: str, reason: str) -> None:
    (tmp_path / "proc").symlink_to("/proc")
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ConfigError) as info:
        parse_config(f'[journal]\npath = "{path.format(tmp=tmp_path)}"', "config.toml")
    assert str(info.value) == f"config.toml: journal.path: {reason.format(tmp=tmp_path)}"


def test_a_journal_the_daemon_may_open_later_is_read(tmp_path: Path) -> None:
    """A folder still to be made (systemd's StateDirectory=), or a file in the folder's way for now: the daemon
    referees meanwhile and tries the journal again (tests/test_daemon.py)."""
    assert parse_config('[journal]\npath = "companion-sim/journal.db"', "t").journal == Path("companion-sim/journal.db")
    (tmp_path / "state").write_text("")
    assert parse_config(f'[journal]\npath = "{tmp_path}/state/j.db"', "t").journal == tmp_path / "state" / "j.db"


SEXTO_SET = '[game]\nname = "sexto-set"\n[zones]\n'
MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")


@pytest.mark.parametrize(
    ("roles", "said"),
    [
        (MASTERS, None),
        (("auto",) * 8, None),
        (("M4B", "auto", "M1R", "auto", "auto", "auto", "auto", "auto"), None),
        (
            ("M1R", "M1R", "M9X", "M2R", "M3R", "M4R", "M1B", "M2B"),
            "M1R heads z1, z2: give each line one zone; z3 = M9X: no master card of the deck is M9X (its master "
            "cards: M1R, M2R, M3R, M4R, M1B, M2B, M3B, M4B); no zone for the lines of M3B, M4B: name each on a "
            'zone, or leave zones "auto" to learn them',
        ),
        (
            ("M1R", "M1R", "auto", "M2R", "M3R", "M4R", "M1B", "M2B"),  # one auto zone for two lines without one
            "M1R heads z1, z2: give each line one zone; no zone for the lines of M3B, M4B: name each on a zone, or "
            'leave zones "auto" to learn them',
        ),
        (
            (*MASTERS, "M2B"),
            "6º SET needs one zone per master card: 8 zones, not 9; M2B heads z6, z9: give each line one zone",
        ),
    ],
)
def test_sexto_set_zones_give_each_line_one_zone_and_every_problem_is_named(
    roles: tuple[str, ...], said: str | None
) -> None:
    text = SEXTO_SET + "".join(f'z{i} = "{role}"\n' for i, role in enumerate(roles, start=1))
    if said is None:
        assert len(parse_config(text, "config.toml").zones) == 8
        return
    with pytest.raises(ConfigError) as info:
        parse_config(text, "config.toml")
    assert str(info.value) == f"config.toml: zones: {said}"


@pytest.mark.parametrize(
    ("deck", "key", "said"),
    [
        (
            'name = "one"\n[[cards]]\nid = "1O"\nkind = "spanish"\nsuit = "O"\nrank = 1\n',
            "game.players",
            "1 cards cannot be dealt evenly to 2 to 8 players: use a deck of 40 or 48 cards",
        ),
        (
            'name = "sevens"\n'
            + "".join(
                f'[[cards]]\nid = "{r}{s}"\nkind = "spanish"\nsuit = "{s}"\nrank = {r}\n'
                for s in "OCEB"
                for r in (1, 2, 3)
            ),
            "game.deck",
            "Seises needs every suit of the sevens deck to have the same ranks, the six among them.",
        ),
        ("squadratik", "game.deck", "Seises is played with a Spanish deck; squadratik has cards of another kind."),
    ],
)
def test_a_deck_the_game_cannot_be_played_with_is_refused(tmp_path: Path, deck: str, key: str, said: str) -> None:
    path = tmp_path / "deck.toml"
    path.write_text(deck)
    name = deck if "\n" not in deck else path  # a built-in deck, or a file
    with pytest.raises(ConfigError) as info:
        parse_config(f'[game]\ndeck = "{name}"', "config.toml")
    assert str(info.value).startswith(f"config.toml: {key}: {said}")


ROOT = Path(__file__).parents[1]


def test_the_committed_sample_config_is_what_the_schema_writes() -> None:
    committed = (ROOT / "systemd" / "config.toml").read_text("utf-8")
    assert committed == sample_config(), (
        "systemd/config.toml is stale; write it with: .venv/bin/python -m companion.documents"
    )


def test_the_sample_config_reads_as_the_defaults() -> None:
    """The schema gives the defaults of the file and of the values alike: the sample, read, is ``Config()`` (but for
    the pin map it names, the one the installer copies)."""
    read = parse_config(sample_config(), "sample")
    assert replace(read, reader_settings={}) == replace(Config(), source="sample", pinmap="/etc/companion/pinmap.toml")
    assert read.reader_settings == {key.name: key.default for name in names() for key in registered(name).settings}


def test_every_declared_key_is_read_into_the_config() -> None:
    """A key in the schema that the config never reads would be accepted in a file and do nothing."""
    read = Document("t", {}, schema())
    _read_config(read, "t")
    assert set(read.keys) - read.asked == set()


def test_every_key_of_the_schema_is_in_the_sample_with_its_help_in_the_language() -> None:
    english, spanish = sample_config("en"), sample_config("es")
    for key in schema():
        table, _dot, name = key.name.rpartition(".")
        lines = english.split(f"\n[{key.name if key.type == 'table' else table}]\n", 1)[1].split("\n[", 1)[0]
        assert key.type == "table" or f"\n{name} = " in f"\n{lines}", key.name
        assert translate(key.help, "en").split()[0] in lines, key.name
        assert translate(key.help, "es") != key.help and translate(key.help, "es").split()[0] in spanish, key.name
    assert "# El juego que arbitra la mesa (seises, sexto-set)" in spanish
    assert "# Segundos sin cambios antes de que la pantalla se atenúe (de 0 a 86400)\ndim_after_s = 120\n" in spanish


@pytest.fixture
def retries_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[Key[int]]:
    """A reader kind whose own key is a number, registered into a copy of the registry."""
    names()  # companion's own kinds first, as in a real run
    monkeypatch.setattr(registry, "KINDS", dict(registry.KINDS))
    retries = number("retries", 3, "how often a read is tried again", low=1, high=9)

    class Retrying(ReaderKind):
        name = "retrying"
        summary = "a reader that tries again"
        settings = (retries,)

    register(Retrying())
    yield retries


def test_a_reader_kinds_own_key_is_read_by_its_type(retries_kind: Key[int]) -> None:
    config = parse_config('[readers]\nbackend = "retrying"\nretries = 5', "config.toml")
    assert kind("retrying").setting(config, retries_kind) == 5
    assert kind("retrying").setting(parse_config("", "t"), retries_kind) == 3  # its default
    with pytest.raises(ConfigError) as info:
        parse_config('[readers]\nretries = "5"\n', "config.toml")
    assert str(info.value) == "config.toml: readers.retries: must be a whole number, not '5'"
    with pytest.raises(ConfigError, match=r"^config.toml: readers.retries: 10 is not between 1 and 9$"):
        parse_config("[readers]\nretries = 10\n", "config.toml")
    assert '# how often a read is tried again (1 to 9)\n# with backend = "retrying"\nretries = 3\n' in sample_config()
