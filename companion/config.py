"""The daemon's one config file (TOML, ``/etc/companion/config.toml`` by default).

Every key has a default, so an empty file is a working table of the default game with its default zones. A wrong
value is refused at start with the key and the reason, never half-applied; every wrong key and value of the file
is named at once (:attr:`ConfigError.problems`), not only the first::

    >>> config = parse_config('[game]\\nplayers = 5\\n[zones]\\nz1 = "O"', "example")
    >>> config.game.players, config.zones
    (5, {'z1': 'O'})
    >>> parse_config('[game]\\nlanguage = "fr"\\nconfirm_turns = "yes"', "example")
    Traceback (most recent call last):
    ...
    companion.config.ConfigError: example: game.language: 'fr' is not one of es, en
    example: game.confirm_turns: must be true or false, not 'yes'

``[zones]`` maps each reader zone of the pin map to what it is for; each game kind (:mod:`companion.games`) says
which roles its zones take (a suit letter, a master card id, ``"table"``, ``"auto"``) and checks them.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.decks import BUILTIN_DECKS, Deck, DeckError, load_deck
from companion.files import read_text
from companion.games import DEFAULT_GAME, find_kind, kinds
from companion.i18n import DEFAULT_LANGUAGE, _, language, languages
from companion.names import refused
from companion.readers.registry import DEFAULT as DEFAULT_READERS
from companion.readers.registry import names, registered
from companion.rules.base import SetupError

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_REGISTRY",
    "Config",
    "ConfigError",
    "GameConfig",
    "MqttConfig",
    "load_config",
    "parse_config",
    "read_mqtt",
]

DEFAULT_PATH = Path("/etc/companion/config.toml")
DEFAULT_REGISTRY = Path("/var/lib/companion/registry.toml")  # readers.registry: the card registry enroll writes
DEFAULT_JOURNAL = Path("/var/lib/companion/journal.db")  # journal.path


class ConfigError(ValueError):
    """Config values that cannot be used; the message names the file, the key and the reason, one line for each of
    ``problems``. ``config`` is what could be read, the wrong values left at their defaults (for checks that go on
    to the files it names: ``companion run --check``)."""

    def __init__(self, *problems: str, config: Config | None = None) -> None:
        super().__init__("\n".join(problems))
        self.problems, self.config = problems, config


@dataclass(frozen=True)
class GameConfig:
    name: str = DEFAULT_GAME
    players: int = 4
    deck: str = ""  # empty: the game's own deck (its kind's default_deck)
    options: Mapping[str, str] = field(default_factory=dict)
    language: str = DEFAULT_LANGUAGE
    confirm_turns: bool = True
    seat_names: tuple[str, ...] = ()
    seat_one: str = ""  # which of the seat names is seat 1, once the players said so after the first play

    @property
    def deck_name(self) -> str:
        return self.deck or find_kind(self.name).default_deck

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> GameConfig:
        """The game as :meth:`settings` wrote it into the journal."""
        return cls(
            name=str(settings["game"]),
            players=int(settings.get("players", 4)),
            deck=str(settings.get("deck", "")),
            options={str(k): str(v) for k, v in dict(settings.get("options") or {}).items()},
            language=str(settings.get("language", DEFAULT_LANGUAGE)),
            confirm_turns=bool(settings.get("confirm_turns", True)),
            seat_names=tuple(str(name) for name in settings.get("seat_names") or ()),
            seat_one=str(settings.get("seat_one", "")),
        )

    def settings(self) -> dict[str, Any]:
        """What the journal keeps of a game: enough for ``companion play`` to replay it."""
        return {
            "game": self.name,
            "players": self.players,
            "deck": self.deck_name,
            "options": dict(self.options),
            "language": self.language,
            "confirm_turns": self.confirm_turns,
            "seat_names": list(self.seat_names),
            **({"seat_one": self.seat_one} if self.seat_one else {}),
        }


@dataclass(frozen=True)
class MqttConfig:
    """The club's broker (``[mqtt]``): where the table publishes, under ``companion/<table>/``."""

    host: str
    port: int
    table: str
    tls: bool = False  # mqtts://: TLS, checked against ``ca`` (or the system's CAs when empty)
    ca: str = ""
    username: str = ""
    password: str = field(default="", repr=False)  # never in a log line, not even through repr(config)
    homeassistant: bool = False  # announce the table's sensors to Home Assistant (companion.club.homeassistant)

    @property
    def url(self) -> str:
        """The broker's address, fit for a log line (it has no credentials)."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class Config:
    source: str = "defaults"
    game: GameConfig = field(default_factory=GameConfig)
    zones: Mapping[str, str] = field(default_factory=lambda: {"z1": "table"})
    backend: str = DEFAULT_READERS  # the reader kind's name (companion.readers)
    absences: int = 3
    poll_interval_s: float = 0.01
    registry: Path = DEFAULT_REGISTRY
    reader_settings: Mapping[str, str] = field(default_factory=dict)  # the reader kinds' own [readers] keys
    display: tuple[str, ...] = ()  # luma.core.cmdline arguments; empty: the pin map's OLED
    frames: Path | None = None  # a folder: the screen is drawn there as PNG frames instead of on a panel
    dim_after_s: float = 120.0
    pinmap: str = ""  # empty: the pin map shipped with the package
    journal: Path = DEFAULT_JOURNAL
    mqtt: MqttConfig | None = None  # None: the table publishes nowhere
    web: tuple[str, int] | None = None  # where the table's page is served (companion.web); None: not served


def load_config(path: str | Path = DEFAULT_PATH) -> Config:
    path = Path(path)
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise ConfigError(
            _("{path}: no config file; copy systemd/config.toml there and edit it").format(path=path)
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(_("{path}: cannot read the config ({error})").format(path=path, error=exc)) from exc
    return parse_config(text, str(path))


def parse_config(text: str, source: str) -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_("{path}: not valid TOML ({error})").format(path=source, error=exc)) from exc
    read = _Keys(source, data)
    config = _read_config(read, source)
    read.refuse_unknown()
    if read.problems:
        raise ConfigError(*read.problems, config=config)
    return config


def _read_config(read: _Keys, source: str) -> Config:
    name = read.choice("game.name", DEFAULT_GAME, tuple(kinds()))
    deck = read.text("game.deck", "")
    if deck and deck not in BUILTIN_DECKS and not Path(deck).exists():
        said = _("{deck} is neither a built-in deck ({decks}) nor a file")
        read.fail("game.deck", said.format(deck=repr(deck), decks=", ".join(BUILTIN_DECKS)))
        deck = ""  # the game's own deck, so that the checks below do not refuse the same key again
    game = GameConfig(
        name=name,
        players=read.number("game.players", 4, low=2, high=8),
        deck=deck,
        options={k: str(v) for k, v in read.table("game.options").items()},
        language=read.choice("game.language", DEFAULT_LANGUAGE, languages()),  # those a catalogue speaks
        confirm_turns=read.flag("game.confirm_turns", True),
        seat_names=tuple(read.texts("game.seat_names")),
    )
    deck_read = _check_game(read, game)
    kind = find_kind(name)
    zones = {str(k): str(v) for k, v in read.table("zones").items()} or kind.default_zones()
    if "game.name" not in read.failed:  # a zone's role cannot be judged for a game that is not known
        for zone, role in zones.items():
            if (problem := kind.zone_problem(role)) is not None:
                read.fail(f"zones.{zone}", problem.text(language()))
        if (problem := kind.zones_problem(zones, deck_read)) is not None:
            read.fail("zones", problem.text(language()))
    return Config(
        source=source,
        game=game,
        zones=zones,
        backend=read.choice("readers.backend", DEFAULT_READERS, names()),
        absences=read.number("readers.absences", 3, low=1, high=50),
        poll_interval_s=read.number("readers.poll_interval_ms", 10, low=1, high=1000) / 1000,
        registry=Path(read.text("readers.registry", str(DEFAULT_REGISTRY))),
        # every kind's keys, whichever is chosen: a config may keep the hub's port while it tries another kind
        reader_settings={
            key: read.text(f"readers.{key}", setting.default)
            for name in names()
            for key, setting in registered(name).settings.items()
        },
        display=tuple(read.texts("display.options")),
        frames=Path(frames) if (frames := read.text("display.frames", "")) else None,
        dim_after_s=float(read.number("display.dim_after_s", 120, low=0, high=86400)),
        pinmap=read.text("pins.map", ""),
        journal=_journal(read),
        mqtt=_read_mqtt(read),
        web=_listen(read, "web.listen"),
    )


def read_mqtt(settings: Mapping[str, Any], source: str) -> MqttConfig | None:
    """The ``[mqtt]`` table given alone (``companion demo --mqtt URL --table NAME``), checked as in a file."""
    read = _Keys(source, {"mqtt": dict(settings)})
    mqtt = _read_mqtt(read)
    read.refuse_unknown()
    if read.problems:
        raise ConfigError(*read.problems)
    return mqtt


TABLE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # one level of a topic: no "/", no wildcards "+" and "#"


def _read_mqtt(read: _Keys) -> MqttConfig | None:
    """The ``[mqtt]`` table: none without a url; with one, a table name to publish under."""
    url = read.text("mqtt.url", "")
    table = read.text("mqtt.table", "")
    username = read.text("mqtt.username", "")
    password = read.text("mqtt.password", "")
    ca = read.text("mqtt.ca", "")
    homeassistant = read.flag("mqtt.homeassistant", False)
    if not url:
        given = (("mqtt.table", table), ("mqtt.username", username), ("mqtt.password", password))
        for key, value in (*given, ("mqtt.homeassistant", homeassistant)):
            if value:
                read.fail(key, _('needs mqtt.url, the broker\'s address: url = "mqtt://host:1883"'))
        return None
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or port == -1 or parts.path not in ("", "/"):
        said = _('{url} is not a broker\'s address: write url = "mqtt://host:1883" (mqtts:// for TLS)')
        read.fail("mqtt.url", said.format(url=repr(url)))
        return None
    if parts.username is not None or parts.password is not None:
        read.fail("mqtt.url", _("has a user or password in it: write them as mqtt.username and mqtt.password"))
        return None
    if not TABLE_NAME.fullmatch(table):
        read.fail(
            "mqtt.table",
            _(
                "{table} cannot name the table in its topics: write one word of letters, digits, - or _ "
                '(table = "mesa-3")'
            ).format(table=repr(table)),
        )
    if password and not username:
        read.fail("mqtt.password", _("needs mqtt.username too"))
    if ca and not Path(ca).is_file():
        read.fail("mqtt.ca", _("{ca}: no such file (the CA certificate that signed the broker's)").format(ca=ca))
    if ca and parts.scheme != "mqtts":
        read.fail("mqtt.ca", _("is for TLS: write the url as mqtts://host:8883"))
    if port == 0:
        said = _(
            "{url}: port 0 is no broker's port: write its port (mqtt://host:1883), or none for 1883 (8883 for TLS)"
        )
        read.fail("mqtt.url", said.format(url=repr(url)))
        return None
    tls = parts.scheme == "mqtts"
    port = port or (8883 if tls else 1883)
    return MqttConfig(parts.hostname, port, table, tls, ca, username, password, homeassistant)


def _listen(read: _Keys, key: str) -> tuple[str, int] | None:
    """The address of a ``listen`` key, or None when it is empty."""
    text = read.text(key, "").strip()
    if not text:
        return None
    try:
        return parse_listen(text)
    except ValueError as exc:
        read.fail(key, _('{error}, or "" for no page').format(error=exc))
        return None


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::]:8080`` for IPv6) as (host, port); port 0 takes any free port. ValueError says what to
    write::

        >>> parse_listen("[::]:8080")
        ('::', 8080)
    """
    host, _colon, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit() or int(port) > 65535 or any(c.isspace() or c in "[]/" for c in host):
        raise ValueError(
            _(
                '{text} is not an address: write HOST:PORT, such as "127.0.0.1:8080" (this machine only) or '
                '"0.0.0.0:8080" (every network it is on)'
            ).format(text=repr(text))
        )
    return host, int(port)


def _check_game(read: _Keys, game: GameConfig) -> Deck | None:
    """The game must be playable as configured: its deck loads and can play it, the players fit it, its options
    exist, each seat's name is its own and in plain letters. Returns the deck, None when it cannot be read."""
    for name in game.seat_names:
        if (char := refused(name)) is not None:
            said = _("{name} holds {char}, a control or direction character: write the name in plain letters")
            read.fail("game.seat_names", said.format(name=ascii(name), char=char))
    kind = find_kind(game.name)
    try:
        deck = load_deck(game.deck_name)
    except DeckError as exc:
        read.fail("game.deck", exc.text(language()))
        return None
    if (problem := kind.players_problem(game.players, deck)) is not None:
        read.fail("game.players", problem.text(language()))
    if kind.names_first_seat and game.seat_names and len(game.seat_names) != game.players:
        read.fail(
            "game.seat_names",
            _(
                "{names} names for {players} players: give one name a player, in the order they sit "
                "(counter-clockwise), or none"
            ).format(names=len(game.seat_names), players=game.players),
        )
    seen: dict[str, str] = {}
    for name in game.seat_names:
        if (first := seen.get(name.strip().casefold())) is None:
            seen[name.strip().casefold()] = name
        else:
            said = _("{name} names two seats: give each player a name of their own")
            read.fail("game.seat_names", said.format(name=repr(first)))
    try:
        kind.check_options(game.options)
    except SetupError as exc:
        read.fail("game.options", exc.text(language()))
        return deck
    if "game.players" not in read.failed:  # the rest of what the game asks of its deck (a Spanish deck, 8 masters)
        try:
            kind.new_game(game.players, deck, game.options)
        except SetupError as exc:
            read.fail("game.deck", exc.text(language()))
    return deck


KERNEL_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))  # the kernel's files, in memory: no disk under them


def _journal(read: _Keys) -> Path:
    """``journal.path``: a file, new or a journal, that can be kept on a disk."""
    path = Path(read.path("journal.path", str(DEFAULT_JOURNAL)))
    if (problem := journal_problem(path)) is not None:
        read.fail("journal.path", problem)
    return path


def journal_problem(path: Path) -> str | None:
    """Why the journal can never be kept at ``path``, or None: a folder, a kernel folder, something else than a
    file (a named pipe, a device). A folder that does not exist yet is the state folder systemd makes
    (``StateDirectory=``); one that cannot be opened now (a full disk, a folder not mounted yet, a file in its
    way) is the daemon's to retry, the table refereeing meanwhile (docs/DAEMON.md)."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of symbolic links
        return _("{path}: cannot follow it ({error})").format(path=path, error=exc)
    example = DEFAULT_JOURNAL
    if kernel := next((str(folder) for folder in KERNEL_FOLDERS if real.is_relative_to(folder)), None):
        said = _("{path} is in {folder}, the kernel's files, not on a disk: name a file such as {example}")
        return said.format(path=path, folder=kernel, example=example)
    if real.is_dir():
        said = _("{path} is a folder: name the journal's file in it, such as {example}")
        return said.format(path=path, example=path / example.name)
    if real.exists() and not real.is_file():
        said = _("{path} is not a file (a named pipe or a device): name a file such as {example}")
        return said.format(path=path, example=example)
    return None


class _Keys:
    """Typed look-ups of dotted keys, each failing with the file, the key and what was wrong.

    It remembers every key it was asked for, so that once the config is read, :meth:`refuse_unknown` can refuse
    the keys nobody asked for: a typo (``[reader]``, ``confirm_turn``) would otherwise be silently ignored.
    """

    def __init__(self, source: str, data: Mapping[str, Any]) -> None:
        self.source, self.data = source, data
        self.known: set[str] = set()  # dotted keys looked up; a table() key takes its whole table
        self.problems: list[str] = []  # "file: key: reason", in the order found
        self.failed: set[str] = set()  # the keys of those problems

    def refuse_unknown(self) -> None:
        """Refuse every key or table that no look-up asked for, naming the nearest valid one."""
        tables = {key.rsplit(".", i)[0] for key in self.known for i in range(1, key.count(".") + 1)}

        def walk(node: Mapping[str, Any], prefix: str) -> None:
            for name, value in node.items():
                key = prefix + name
                if key in self.known:
                    continue
                if key in tables:
                    if not isinstance(value, Mapping):
                        said = _("must be a table ([{key}] and its keys below it), not {value}")
                        self.fail(key, said.format(key=key, value=repr(value)))
                    else:
                        walk(value, key + ".")
                    continue
                what = _("unknown table") if isinstance(value, Mapping) else _("unknown key")
                self.fail(key, what + self._nearest(key, tables))

        walk(self.data, "")

    def _nearest(self, key: str, tables: set[str]) -> str:
        valid = sorted(self.known | tables)
        near = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
        if not near:  # a key put in the wrong table: look by its own name
            last = key.rsplit(".", 1)[-1]
            near = [k for k in valid if difflib.get_close_matches(last, [k.rsplit(".", 1)[-1]], cutoff=0.8)][:1]
        if not near:
            return _(" (valid: {keys})").format(keys=", ".join(k for k in valid if "." not in k))
        return _("; did you mean {key}?").format(key=near[0])

    def fail(self, key: str, reason: str) -> None:
        """Record a problem; reading goes on (a look-up gives its default) to find the others."""
        self.problems.append(f"{self.source}: {key}: {reason}")
        self.failed.add(key)

    def _get(self, key: str, default: Any) -> Any:
        self.known.add(key)
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return node

    def text(self, key: str, default: str) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            self.fail(key, _("must be text in quotes, not {value}").format(value=repr(value)))
            return default
        return value

    def path(self, key: str, default: str) -> str:
        value = self.text(key, default)
        if not value.strip():
            self.fail(key, _("must name a file, not be empty"))
            return default
        return value

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(key, default)
        if value not in choices:
            self.fail(key, _("{value} is not one of {choices}").format(value=repr(value), choices=", ".join(choices)))
            return default
        return value

    def number(self, key: str, default: int, *, low: int, high: int) -> int:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, _("must be a whole number, not {value}").format(value=repr(value)))
            return default
        if not low <= value <= high:
            self.fail(key, _("{value} is not between {low} and {high}").format(value=value, low=low, high=high))
            return default
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            self.fail(key, _("must be true or false, not {value}").format(value=repr(value)))
            return default
        return value

    def table(self, key: str) -> Mapping[str, Any]:
        value = self._get(key, {})
        if not isinstance(value, Mapping):
            self.fail(key, _("must be a table of keys"))
            return {}
        plain = {}
        for name, item in value.items():
            if isinstance(item, str | int | bool):
                plain[name] = item
            else:
                self.fail(f"{key}.{name}", _("must be a plain value, not {value}").format(value=repr(item)))
        return plain

    def texts(self, key: str) -> list[str]:
        value = self._get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, _("must be a list of texts, not {value}").format(value=repr(value)))
            return []
        return list(value)
