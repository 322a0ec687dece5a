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

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.decks import BUILTIN_DECKS, Deck, DeckError, load_deck
from companion.files import read_text
from companion.games import DEFAULT_GAME, AnyKind, find_kind, kinds
from companion.games import GROUP as GAME_KINDS
from companion.i18n import DEFAULT_LANGUAGE, N_, _, language, languages, ngettext, translate
from companion.names import refused
from companion.plugins import broken
from companion.readers.registry import DEFAULT as DEFAULT_READERS
from companion.readers.registry import GROUP as READER_KINDS
from companion.readers.registry import names, registered
from companion.rules.base import SetupError, either
from companion.settings_schema import Document, Key, choice, flag, number, path, sample, table, text, texts

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_REGISTRY",
    "KEYS",
    "SPEECH_LEVELS",
    "Config",
    "ConfigError",
    "GameConfig",
    "MqttConfig",
    "SpeechConfig",
    "load_config",
    "parse_config",
    "read_mqtt",
    "sample_config",
    "schema",
]

DEFAULT_PATH = Path("/etc/companion/config.toml")
DEFAULT_REGISTRY = Path("/var/lib/companion/registry.toml")
DEFAULT_JOURNAL = Path("/var/lib/companion/journal.db")
INSTALLED_PINMAP = "/etc/companion/pinmap.toml"  # where sudo make install puts hardware/pinmap.toml to edit

SPEECH_LEVELS = ("off", "rulings", "all")  # how much the table says: nothing; refusals and results; everything

# Every key of the file, in the sample's order (systemd/config.toml is written from it: python -m companion.documents)
# but for the reader kinds' own [readers] keys, which each kind declares (companion.readers.ReaderKind.settings)
KEYS: tuple[Key[Any], ...] = (
    choice("game.name", DEFAULT_GAME, N_("The game the table referees"), lambda: tuple(kinds())),
    number(
        "game.players",
        4,
        N_("How many play: each game says which counts its deck deals to, and its rule sheet's advice"),
        low=2,
        high=8,
    ),
    text(
        "game.deck",
        "",
        N_('The deck: "" is the game\'s own; or another built-in deck, or the path of a deck file'),
    ),
    choice(
        "game.language",
        DEFAULT_LANGUAGE,
        N_("The table's language (the screen, the page, the command line): one its catalogues speak"),
        languages,
    ),
    flag("game.confirm_turns", True, N_("false: a legal card counts as played at once, with no press of OK")),
    texts(
        "game.seat_names",
        N_(
            'The players\' names, one a seat in the order they sit (counter-clockwise): ["Ana", "Luis", ...], or '
            "none; where the game asks who made the first play, PASS offers the next name and OK takes it"
        ),
    ),
    table("game.options", N_('The game\'s options, each a text: option = "value"')),
    table(
        "zones",
        N_(
            "Each reader zone of the pin map, and what it is for in the game (none: the game's own zones): your "
            "table layout's, as hardware/layouts/NAME/config.toml gives them (hardware/README.md, \"Table "
            'layouts"), with its pin map and, for a hub, its hub_config.py'
        ),
    ),
    choice("readers.backend", DEFAULT_READERS, N_("The reader kind"), names),
    number("readers.absences", 3, N_("Clean empty polls before a card counts as gone"), low=1, high=50),
    number("readers.poll_interval_ms", 10, N_("Milliseconds between two polls of a reader"), low=1, high=1000),
    text(
        "readers.registry",
        str(DEFAULT_REGISTRY),
        N_("The card registry: tag UID -> card id, written by companion enroll"),
    ),
    texts(
        "display.options",
        N_("luma.core.cmdline options for the screen; none: the pin map's OLED (ssd1306 on I2C 0x3C)"),
    ),
    number("display.dim_after_s", 120, N_("Seconds without a change before the screen dims"), low=0, high=86400),
    text(
        "display.frames",
        "",
        N_(
            "A folder: the screen is drawn there as PNG frames instead of on the OLED (a PC with simulated readers; "
            "companion run --frames DIR does the same)"
        ),
    ),
    text(
        "pins.map",
        "",
        N_(
            'The wiring: "" is /etc/companion/pinmap.toml when it is there (sudo make install copies '
            "hardware/pinmap.toml there to edit), else the pin map shipped with companion; or a pin map's path"
        ),
    ),
    path("journal.path", str(DEFAULT_JOURNAL), N_("The journal: every game played, kept through power cuts")),
    choice(
        "speech.level",
        "off",
        N_(
            'What the table says aloud (docs/DAEMON.md, "Speech"): "off"; "rulings", the refusals and the results '
            '(a renuncio, a hand, set, game or match won); "all", the turns and the undos too. The menu and the '
            "phone's settings change it"
        ),
        lambda: SPEECH_LEVELS,
    ),
    number("speech.rate", 160, N_("How fast the voice speaks, in words a minute"), low=80, high=400),
    number("speech.volume", 100, N_("The voice's loudness: espeak-ng's amplitude, 100 its normal"), low=0, high=200),
    text(
        "speech.device",
        "default",
        N_('The sound card: an ALSA PCM name, "default" or one that aplay -L lists (hw:CARD=sndrpihifiberry)'),
    ),
    text(
        "mqtt.url",
        "",
        N_(
            'The club\'s broker (docs/CLUB.md): "mqtt://club.local:1883", mqtts://host:8883 for TLS; "" publishes '
            "nowhere"
        ),
    ),
    text(
        "mqtt.table",
        "",
        N_('The table\'s name on the broker ("mesa-3"): its topics are companion/<table>/state, events, status'),
    ),
    text("mqtt.username", "", N_("What the broker's password file has for this table")),
    text("mqtt.password", "", N_("Its password (keep the config readable by the service's group alone)")),
    text(
        "mqtt.ca", "", N_("With mqtts://: the file of the CA that signed the broker's certificate (\"\": the system's)")
    ),
    flag(
        "mqtt.homeassistant",
        False,
        N_("true: the table appears in Home Assistant (its MQTT discovery), with no YAML"),
    ),
    text(
        "web.listen",
        "",
        N_(
            'Where the table\'s page is served: "" serves none; "127.0.0.1:8080" this machine only, "0.0.0.0:8080" '
            "the table's network: the live table at http://<the Pi>:8080/ (docs/WEB.md)"
        ),
    ),
)
_DEFAULTS = {key.name: key.default for key in KEYS}
HEAD = N_(
    "companion's config: installed as /etc/companion/config.toml. Every key is optional; the values below are the "
    "defaults, unless their comment says otherwise. A wrong value stops the service at start with the key and the "
    "reason (journalctl -u companion); companion run --config FILE --check names every problem. Written by python "
    "-m companion.documents from the keys' schema (companion/config.py): edit the schema, not this file."
)


def schema() -> tuple[Key[Any], ...]:
    """Every key of the file: :data:`KEYS`, and each registered reader kind's own keys in ``[readers]`` (read
    whichever kind is chosen: a config may keep the hub's port while it tries another kind)."""
    own = [key.within("readers") for name in names() for key in registered(name).settings]
    at = next(index for index, key in enumerate(KEYS) if key.name == "readers.registry") + 1
    return (*KEYS[:at], *own, *KEYS[at:])


def sample_config(lang: str = "en") -> str:
    """The sample config, ``systemd/config.toml``: every key of :func:`schema` with its default and its help in
    ``lang``, and what each registered game and reader kind makes of the keys that depend on them."""

    def say(msgid: str, **fields: object) -> str:
        return translate(msgid, lang).format(**fields)

    def options(kind: AnyKind) -> str:
        return "; ".join(
            f"{option} = {_values(values)} ({default})" for option, (values, default) in kind.options.items()
        )

    games = kinds()
    notes: dict[str, list[str]] = {
        "game.players": [
            say(N_("{game}: {counts} with {deck}"), game=name, counts=_either(kind, deck, lang), deck=deck)
            for name, kind in games.items()
            for deck in kind.decks
        ],
        "game.deck": [
            say(N_("{game}: {decks} (the first is its own)"), game=name, decks=", ".join(kind.decks))
            for name, kind in games.items()
        ],
        "game.options": [f"{name}: {options(kind)}" for name, kind in games.items() if kind.options],
        "zones": [
            f"{name}: " + ", ".join(f'{zone} = "{role}"' for zone, role in kind.default_zones().items())
            for name, kind in games.items()
        ],
        "readers.backend": [f"{name}: {translate(registered(name).summary, lang)}" for name in names()],
        **{
            f"readers.{key.name}": [say(N_('with backend = "{kind}"'), kind=name)]
            for name in names()
            for key in registered(name).settings
        },
    }
    values = {"zones": games[DEFAULT_GAME].default_zones(), "pins.map": INSTALLED_PINMAP}
    notes["pins.map"] = [say(N_("This file names the one sudo make install copies there, which doctor checks."))]
    return sample(schema(), head=HEAD, language=lang, notes=notes, values=values)


def _either(kind: AnyKind, deck: str, lang: str) -> str:
    """The player counts ``deck`` deals to at ``kind``'s game, in words: ``2, 4, 5 or 8``."""
    said = either(kind.player_counts(load_deck(deck)))
    return said if isinstance(said, str) else said.text(lang)


def _values(values: tuple[str, ...]) -> str:
    """An option's values as the sample says them: ``"flag" | "points"``, or ``"1" to "50"`` for a run of numbers."""
    numbers = [int(value) for value in values if value.isdigit()]
    if len(numbers) == len(values) > 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f'"{values[0]}" to "{values[-1]}"'
    return " | ".join(f'"{value}"' for value in values)


class ConfigError(ValueError):
    """Config values that cannot be used; the message names the file, the key and the reason, one line for each of
    ``problems``. ``config`` is what could be read, the wrong values left at their defaults (for checks that go on
    to the files it names: ``companion run --check``)."""

    def __init__(self, *problems: str, config: Config | None = None) -> None:
        super().__init__("\n".join(problems))
        self.problems, self.config = problems, config


@dataclass(frozen=True)
class GameConfig:
    name: str = _DEFAULTS["game.name"]
    players: int = _DEFAULTS["game.players"]
    deck: str = _DEFAULTS["game.deck"]  # empty: the game's own deck (its kind's default_deck)
    options: Mapping[str, str] = field(default_factory=dict)
    language: str = _DEFAULTS["game.language"]
    confirm_turns: bool = _DEFAULTS["game.confirm_turns"]
    seat_names: tuple[str, ...] = _DEFAULTS["game.seat_names"]
    seat_one: str = ""  # which of the seat names is seat 1, once the players said so after the first play

    @property
    def deck_name(self) -> str:
        return self.deck or find_kind(self.name).default_deck

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> GameConfig:
        """The game as :meth:`settings` wrote it into the journal."""
        return cls(
            name=str(settings["game"]),
            players=int(settings.get("players", _DEFAULTS["game.players"])),
            deck=str(settings.get("deck", _DEFAULTS["game.deck"])),
            options={str(k): str(v) for k, v in dict(settings.get("options") or {}).items()},
            language=str(settings.get("language", _DEFAULTS["game.language"])),
            confirm_turns=bool(settings.get("confirm_turns", _DEFAULTS["game.confirm_turns"])),
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
class SpeechConfig:
    """What the table says aloud, and how (companion.speech): ``level`` is one of :data:`SPEECH_LEVELS`."""

    level: str = _DEFAULTS["speech.level"]
    rate: int = _DEFAULTS["speech.rate"]
    volume: int = _DEFAULTS["speech.volume"]
    device: str = _DEFAULTS["speech.device"]  # an ALSA PCM name


@dataclass(frozen=True)
class Config:
    source: str = "defaults"
    game: GameConfig = field(default_factory=GameConfig)
    zones: Mapping[str, str] = field(default_factory=lambda: find_kind(DEFAULT_GAME).default_zones())
    backend: str = _DEFAULTS["readers.backend"]  # the reader kind's name (companion.readers)
    absences: int = _DEFAULTS["readers.absences"]
    poll_interval_s: float = _DEFAULTS["readers.poll_interval_ms"] / 1000
    registry: Path = Path(_DEFAULTS["readers.registry"])
    reader_settings: Mapping[str, Any] = field(default_factory=dict)  # the reader kinds' own [readers] keys
    display: tuple[str, ...] = _DEFAULTS["display.options"]  # luma.core.cmdline arguments; empty: the pin map's OLED
    frames: Path | None = None  # a folder: the screen is drawn there as PNG frames instead of on a panel
    dim_after_s: float = float(_DEFAULTS["display.dim_after_s"])
    pinmap: str = _DEFAULTS["pins.map"]  # empty: /etc/companion/pinmap.toml when there, else the package's
    journal: Path = Path(_DEFAULTS["journal.path"])
    mqtt: MqttConfig | None = None  # None: the table publishes nowhere
    web: tuple[str, int] | None = None  # where the table's page is served (companion.web); None: not served
    speech: SpeechConfig = field(default_factory=SpeechConfig)


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
    read = Document(source, data, schema())
    config = _read_config(read, source)
    read.refuse_unknown()
    if read.problems:
        raise ConfigError(*read.problems, config=config)
    return config


def _read_config(read: Document, source: str) -> Config:
    name = DEFAULT_GAME if _unloaded(read, "game.name", GAME_KINDS, kinds) else read.value("game.name")
    deck = read.value("game.deck")
    if deck and deck not in BUILTIN_DECKS and not Path(deck).exists():
        said = _("{deck} is neither a built-in deck ({decks}) nor a file")
        read.fail("game.deck", said.format(deck=repr(deck), decks=", ".join(BUILTIN_DECKS)))
        deck = ""  # the game's own deck, so that the checks below do not refuse the same key again
    game = GameConfig(
        name=name,
        players=read.value("game.players"),
        deck=deck,
        options={k: str(v) for k, v in read.value("game.options").items()},
        language=read.value("game.language"),
        confirm_turns=read.value("game.confirm_turns"),
        seat_names=read.value("game.seat_names"),
    )
    deck_read = _check_game(read, game)
    kind = find_kind(name)
    zones = {str(k): str(v) for k, v in read.value("zones").items()} or kind.default_zones()
    if "game.name" not in read.failed:  # a zone's role cannot be judged for a game that is not known
        for zone, role in zones.items():
            if (problem := kind.zone_problem(role)) is not None:
                read.fail(f"zones.{zone}", problem.text(language()))
        if (problem := kind.zones_problem(zones, deck_read)) is not None:
            read.fail("zones", problem.text(language()))
    backend = (
        DEFAULT_READERS if _unloaded(read, "readers.backend", READER_KINDS, names) else read.value("readers.backend")
    )
    return Config(
        source=source,
        game=game,
        zones=zones,
        backend=backend,
        absences=read.value("readers.absences"),
        poll_interval_s=read.value("readers.poll_interval_ms") / 1000,
        registry=Path(read.value("readers.registry")),
        # every kind's keys, whichever is chosen: a config may keep the hub's port while it tries another kind
        reader_settings={
            key.name: read.value(f"readers.{key.name}") for name in names() for key in registered(name).settings
        },
        display=read.value("display.options"),
        frames=Path(frames) if (frames := read.value("display.frames")) else None,
        dim_after_s=float(read.value("display.dim_after_s")),
        pinmap=read.value("pins.map"),
        journal=_journal(read),
        mqtt=_read_mqtt(read),
        web=_listen(read, "web.listen"),
        speech=SpeechConfig(*(read.value(f"speech.{key}") for key in ("level", "rate", "volume", "device"))),
    )


def _unloaded(read: Document, key: str, group: str, load: Callable[[], object]) -> bool:
    """Whether ``key`` names a kind that is installed but failed to load (its entry point raised), once ``load``
    has loaded the group: that is refused with the error, rather than as a kind no package offers."""
    load()
    named = read.raw(key)
    for failure in broken(group):
        if failure.name == named:
            said = _("{name} is installed but cannot be loaded ({error}): install {package} again, or choose another")
            read.fail(key, said.format(name=repr(named), error=failure.error, package=failure.package))
            return True
    return False


def read_mqtt(settings: Mapping[str, Any], source: str) -> MqttConfig | None:
    """The ``[mqtt]`` table given alone (``companion demo --mqtt URL --table NAME``), checked as in a file."""
    read = Document(source, {"mqtt": dict(settings)}, schema())
    mqtt = _read_mqtt(read)
    read.refuse_unknown()
    if read.problems:
        raise ConfigError(*read.problems)
    return mqtt


TABLE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # one level of a topic: no "/", no wildcards "+" and "#"


def _read_mqtt(read: Document) -> MqttConfig | None:
    """The ``[mqtt]`` table: none without a url; with one, a table name to publish under."""
    url = read.value("mqtt.url")
    table = read.value("mqtt.table")
    username = read.value("mqtt.username")
    password = read.value("mqtt.password")
    ca = read.value("mqtt.ca")
    homeassistant = read.value("mqtt.homeassistant")
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


def _listen(read: Document, key: str) -> tuple[str, int] | None:
    """The address of a ``listen`` key, or None when it is empty."""
    text = read.value(key).strip()
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


def _check_game(read: Document, game: GameConfig) -> Deck | None:
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
            ngettext(
                "{names} name for {players} players: give one name a player, in the order they sit "
                "(counter-clockwise), or none",
                "{names} names for {players} players: give one name a player, in the order they sit "
                "(counter-clockwise), or none",
                len(game.seat_names),
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


def _journal(read: Document) -> Path:
    """``journal.path``: a file, new or a journal, that can be kept on a disk."""
    path = Path(read.value("journal.path"))
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
