"""The pin map: which GPIO each button, LED and reader of the table is wired to.

``hardware/pinmap.toml`` is the one place the wiring is written down: the wiring diagrams are drawn from it, and
``sudo make install`` copies it to ``/etc/companion/pinmap.toml``, the copy the service reads and the owner edits
(:func:`pinmap_path`). A wrong pin is refused when the file is loaded, with the key that holds it, so a miswired
config never reaches the GPIO::

    >>> pinmap = load_pinmap()
    >>> pinmap.buttons["undo"], sorted(pinmap.zones), pinmap.zones["z1"].reader.spi_device
    (13, ['z1', 'z2'], 0)

The wiring diagrams and play mats of ``hardware/`` are drawn by the document tools (``python -m companion.documents``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.events import Button
from companion.files import read_bytes
from companion.i18n import DEFAULT_LANGUAGE, N_, SOURCE_LANGUAGE, Said, SaidError, os_reason
from companion.pins import PIN_NAMES, board_revision, gpio_number

__all__ = [
    "DEFAULT_PINMAP",
    "HARDWARE_DIR",
    "HEADER_GPIOS",
    "HEADER_PINS",
    "HUB_MAINTENANCE",
    "INSTALLED_PINMAP",
    "LAYOUTS",
    "PICO_PINS",
    "RESERVED",
    "SPI_BUSES",
    "HubPins",
    "Layout",
    "Pad",
    "PinMap",
    "PinMapError",
    "ReaderPins",
    "SpiBus",
    "ZonePins",
    "load_layouts",
    "load_pinmap",
    "parse_pinmap",
    "pico_ground_beside",
    "pinmap_path",
]

# hardware/pinmap.toml, shipped inside the package through the link companion/pinmap.toml
DEFAULT_PINMAP = Path(__file__).parent / "pinmap.toml"
# Where systemd/install.sh puts a copy for the owner to edit on the Pi; the service reads it when it is there.
INSTALLED_PINMAP = Path("/etc/companion/pinmap.toml")
# The source checkout's hardware/ folder, where the drawings are written (python -m companion.documents).
HARDWARE_DIR = Path(__file__).resolve().parent.parent / "hardware"
# The table layouts (one per game and build), the source of the mats, the layouts' files and the README's config.
LAYOUTS = HARDWARE_DIR / "zones.toml"
MAX_PINMAP_BYTES = 256 * 1024  # the shipped map is 3 kB: a larger file is not one (and /dev/zero is never read whole)

# The GPIOs on the 40-pin header of every Pi from the Zero to the 5, and the header pin each is on.
HEADER_GPIOS = range(28)
HEADER_PINS: dict[int, int] = {
    0: 27,
    1: 28,
    2: 3,
    3: 5,
    4: 7,
    5: 29,
    6: 31,
    7: 26,
    8: 24,
    9: 21,
    10: 19,
    11: 23,
    12: 32,
    13: 33,
    14: 8,
    15: 10,
    16: 36,
    17: 11,
    18: 12,
    19: 35,
    20: 38,
    21: 40,
    22: 15,
    23: 16,
    24: 18,
    25: 22,
    26: 37,
    27: 13,
}


@dataclass(frozen=True, slots=True)
class SpiBus:
    """One SPI port of the Pi's header, by GPIO: its clock, data lines and chip selects (CE0, CE1, ...)."""

    sclk: int
    mosi: int
    miso: int
    chip_selects: tuple[int, ...]

    def lines(self, port: int) -> dict[int, Said]:
        """Each GPIO of the bus and what it is, e.g. ``{18: "CE0 of SPI1", ...}``."""
        named = {
            gpio: Said(N_("CE{index} of SPI{port}"), index=index, port=port)
            for index, gpio in enumerate(self.chip_selects)
        }
        return named | {
            self.miso: Said(N_("MISO of SPI{port}"), port=port),
            self.mosi: Said(N_("MOSI of SPI{port}"), port=port),
            self.sclk: Said(N_("SCLK of SPI{port}"), port=port),
        }


# The SPI ports a reader can be wired to (BCM2711/BCM2712 peripherals: SPI0 and, with the spi1-Ncs overlay, SPI1).
SPI_BUSES = {0: SpiBus(sclk=11, mosi=10, miso=9, chip_selects=(8, 7)), 1: SpiBus(21, 20, 19, (18, 17, 16))}
# GPIOs that belong to a bus the table uses, and why: SPI1's too when a reader is wired to it (_pin_problems).
RESERVED: dict[int, Said] = {
    0: Said(N_("ID_SD, the HAT EEPROM's I2C bus")),
    1: Said(N_("ID_SC, the HAT EEPROM's I2C bus")),
    2: Said(N_("SDA of I2C1, the OLED's bus")),
    3: Said(N_("SCL of I2C1, the OLED's bus")),
    **{gpio: Said(N_("{line}, the readers' bus"), line=line) for gpio, line in SPI_BUSES[0].lines(0).items()},
}
# The Pico's usable GP numbers (GP23-25 drive its regulator, VBUS sense and LED).
PICO_GPS = (*range(23), 26, 27, 28)
# The Pico's physical pin of each of those GPs, and of its power pins (Raspberry Pi Pico datasheet, section 1.4
# "Pinout": GP0 is pin 1, a ground every fifth pin, VBUS pin 40).
PICO_PINS: dict[int, int] = dict(
    zip(
        PICO_GPS,
        (1, 2, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 29, 31, 32, 34),
        strict=True,
    )
)
# The hub's maintenance pin when a pin map does not give one: the firmware's shipped MAINTENANCE_PIN (a map written
# before the key existed describes a hub wired that way).
HUB_MAINTENANCE = 22
PICO_POWER = {"VBUS": 40, "VSYS": 39, "3V3(OUT)": 36, "GND": 38}
PICO_GROUNDS = (3, 8, 13, 18, 23, 28, 33, 38)


class PinMapError(SaidError):
    """A pin map that cannot be wired: the message names the file, the key and what to do; ``str()`` says it in
    English (the service's log), :meth:`text` in a language (``run --check``, ``doctor``). ``problems`` are every
    mistake the file was found to have, each said so (:meth:`every`), one a line in ``str()`` and :meth:`text`."""

    def __init__(self, source: str, key: str, problem: Said) -> None:
        where = Said(N_("{source}: {key}: {problem}"), source=source, key=key, problem=problem)
        super().__init__(where if key else Said(N_("{source}: {problem}"), source=source, problem=problem))
        self.problems: tuple[Said, ...] = (self.said,)

    @classmethod
    def every(cls, found: Sequence[PinMapError]) -> PinMapError:
        """One error that names every problem of ``found`` (at least one), in their order."""
        error = found[0]
        error.problems = tuple(said for each in found for said in each.problems)
        error.args = (str(error),)
        return error

    def text(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return "\n".join(said.text(lang) for said in self.problems)

    def __str__(self) -> str:
        return self.text(SOURCE_LANGUAGE)


@dataclass(frozen=True, slots=True)
class ReaderPins:
    """An MFRC522 on the Pi's SPI: ``spi_port``/``spi_device`` pick the bus and its CE line; ``reset`` is a GPIO."""

    spi_port: int
    spi_device: int
    reset: int


@dataclass(frozen=True, slots=True)
class ZonePins:
    """One reader zone of the Pi-alone build: its LED (a red/green pair, or RGB when ``blue`` is set), reader."""

    label: str
    red: int
    green: int
    blue: int | None
    reader: ReaderPins | None


@dataclass(frozen=True, slots=True)
class HubPins:
    """The Pico hub: its serial port on the Pi, its zones, and its own GP pins (for the wiring diagram)."""

    serial: str
    zones: tuple[str, ...]
    sck: int
    mosi: int
    miso: int
    chip_selects: tuple[int, ...]
    reset: int
    led_data: int
    maintenance: int  # held to GND at power-up by the maintenance jumper: the hub boots into its REPL


@dataclass(frozen=True, slots=True)
class PinMap:
    source: str
    oled: Mapping[str, str | int]  # luma.core.cmdline options, e.g. {"display": "ssd1306", "i2c_port": 1}
    buttons: Mapping[Button, int]
    status_led: int
    zones: Mapping[str, ZonePins]
    hub: HubPins | None

    def gpios(self) -> Iterator[tuple[str, int]]:
        """Every Pi GPIO of the map with the key that holds it, e.g. ``("zones.z1.red", 17)``."""
        for name, pin in self.buttons.items():
            yield f"buttons.{name}", pin
        yield "status_led.pin", self.status_led
        for zone, pins in self.zones.items():
            for colour in ("red", "green", "blue"):
                value = getattr(pins, colour)
                if value is not None:
                    yield f"zones.{zone}.{colour}", value
            if pins.reader is not None:
                yield f"zones.{zone}.reader.reset", pins.reader.reset


def pinmap_path(configured: str = "", root: Path = Path("/")) -> Path:
    """The pin map a config's ``pins.map`` names; for "", the installed one (``/etc/companion/pinmap.toml``) when
    it is there, else the one shipped with companion. ``root`` looks under another root (``doctor --root``)."""
    if configured:
        path = Path(configured)
        return root / path.relative_to("/") if path.is_absolute() else path
    installed = root / INSTALLED_PINMAP.relative_to("/")
    return installed if installed.is_file() else DEFAULT_PINMAP


def load_pinmap(path: str | Path | None = None, revision: int | None = None) -> PinMap:
    """Load and check a pin map; without a path, the one in the project's ``hardware/`` folder. Pin names are read
    for the board of ``revision`` (None: this machine's, :func:`companion.pins.board_revision`)."""
    path = Path(path) if path is not None else DEFAULT_PINMAP
    try:
        data = read_bytes(path, MAX_PINMAP_BYTES + 1)
    except OSError as exc:
        problem = Said(N_("cannot read the pin map ({reason}); give the path of a pinmap.toml"), reason=os_reason(exc))
        raise PinMapError(str(path), "", problem) from None
    if len(data) > MAX_PINMAP_BYTES:
        problem = Said(N_("larger than {size} kB, not a pin map; give a pinmap.toml"), size=MAX_PINMAP_BYTES // 1024)
        raise PinMapError(str(path), "", problem)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = Said(
            N_("not UTF-8 text (byte {byte}); save it as UTF-8, or copy hardware/pinmap.toml again"), byte=exc.start
        )
        raise PinMapError(str(path), "", problem) from None
    return parse_pinmap(text, str(path), revision)


def parse_pinmap(text: str, source: str, revision: int | None = None) -> PinMap:
    """Check and build a pin map from TOML text; ``source`` names it in error messages, which name every mistake
    of the file (each key that is wrong, and each pin given twice or to a bus), not the first alone."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(source, "", Said(N_("not valid TOML ({reason})"), reason=str(exc))) from None
    keys = _Keys(data, source, board_revision() if revision is None else revision)
    oled_table = keys.table("oled")
    oled = None if oled_table is None else keys.options(oled_table, "oled")
    buttons = keys.table("buttons")
    button_pins: dict[Button, int] = {}
    if buttons is not None:
        for button in Button:
            if (pin := keys.gpio(buttons, f"buttons.{button}")) is not None:
                button_pins[button] = pin
        for extra in sorted(set(buttons) - set(Button)):
            keys.fail(
                f"buttons.{extra}", Said(N_("the buttons are {buttons}; remove this key"), buttons=", ".join(Button))
            )
    status_table = keys.table("status_led")
    status = None if status_table is None else keys.gpio(status_table, "status_led.pin")
    zone_tables = keys.table("zones")
    zones: dict[str, ZonePins] = {}
    for name in zone_tables or {}:
        if (zone := keys.zone(name)) is not None:
            zones[name] = zone
    if zone_tables == {}:
        keys.fail("zones", Said(N_("no zone; add a [zones.z1] table with its red and green pins")))
    hub = keys.hub() if "hub" in data else None
    keys.found += _pin_problems(source, keys.gpios, keys.readers)
    if keys.found:
        raise PinMapError.every(keys.found)
    assert oled is not None and status is not None  # every key was found, or a problem said which was not
    return PinMap(
        source=source,
        oled=oled,
        buttons=button_pins,
        status_led=status,
        zones=zones,
        hub=hub,
    )


def _pin_problems(
    source: str, gpios: Sequence[tuple[str, int]], readers: Mapping[str, tuple[int, int]]
) -> list[PinMapError]:
    """Every pin of ``gpios`` (each key read, with its GPIO) that is off the header, on a bus the table uses or
    given twice, and every chip select of ``readers`` (zone: SPI port and device) given to two readers."""
    reserved = dict(RESERVED)
    if any(port == 1 for port, _ in readers.values()):
        reserved |= SPI_BUSES[1].lines(1)  # SPI1 is reserved only when a reader uses it
    taken = {pin for _, pin in gpios} | set(reserved)
    found = []
    used: dict[int, str] = {}
    for key, pin in gpios:
        if pin not in HEADER_GPIOS:
            problem = Said(N_("the Pi's header has GPIO0 to GPIO27 only; pick a GPIO in that range"))
            found.append(PinMapError(source, f"{key} = {pin}", problem))
        elif pin in reserved:
            problem = Said(
                N_("GPIO{pin} is {line}; pick a free GPIO (free now: {free})"),
                pin=pin,
                line=reserved[pin],
                free=", ".join(str(free) for free in HEADER_GPIOS if free not in taken),
            )
            found.append(PinMapError(source, f"{key} = {pin}", problem))
        elif pin in used:
            problem = Said(N_("GPIO{pin} is already {key}; give each part its own GPIO"), pin=pin, key=used[pin])
            found.append(PinMapError(source, f"{key} = {pin}", problem))
        else:
            used[pin] = key
    chip_selects: dict[tuple[int, int], str] = {}
    for name, where in readers.items():
        if where in chip_selects:
            problem = Said(
                N_("SPI{port} CE{device} already serves zones.{zone}; give each reader its own spi_device"),
                port=where[0],
                device=where[1],
                zone=chip_selects[where],
            )
            found.append(PinMapError(source, f"zones.{name}.reader", problem))
        else:
            chip_selects[where] = name
    return found


class _Keys:
    """Typed access to the TOML data; each mistake is kept in ``found``, naming the file and the key, and the
    value read is then None, so that reading goes on and every mistake is named."""

    def __init__(self, data: Mapping[str, object], source: str, revision: int) -> None:
        self.data, self.source, self.revision = data, source, revision
        self.found: list[PinMapError] = []
        self.gpios: list[tuple[str, int]] = []  # every Pi GPIO read, with its key, in the file's order
        self.readers: dict[str, tuple[int, int]] = {}  # each zone's reader that names a real chip select

    def fail(self, key: str, problem: Said) -> None:
        self.found.append(PinMapError(self.source, key, problem))

    def table(self, key: str, parent: Mapping[str, object] | None = None) -> Mapping[str, object] | None:
        value = (self.data if parent is None else parent).get(key.rsplit(".", 1)[-1])
        if not isinstance(value, dict):
            self.fail(key, Said(N_("missing or not a table; see hardware/pinmap.toml for the layout")))
            return None
        return value

    def whole(self, table: Mapping[str, object], key: str, value: object = None) -> int | None:
        """The whole number at ``key`` of ``table`` (or ``value`` itself, for a list item)."""
        if value is None:
            value = table.get(key.rsplit(".", 1)[-1])
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, Said(N_("must be a whole number, not {value}"), value=repr(value)))
            return None
        return value

    def gpio(self, table: Mapping[str, object], key: str) -> int | None:
        """The Pi GPIO at ``key`` of ``table``, written as gpiozero takes a pin, as a BCM number."""
        value = table.get(key.rsplit(".", 1)[-1])
        if value is None:
            self.fail(key, Said(N_("missing; give the GPIO it is wired to, as {names}"), names=Said(PIN_NAMES)))
            return None
        try:
            gpio = gpio_number(value, self.revision)
        except SaidError as exc:
            self.fail(key, exc.said)
            return None
        self.gpios.append((key, gpio))
        return gpio

    def options(self, table: Mapping[str, object], key: str) -> dict[str, str | int]:
        """A table of luma options: each a text or a whole number."""
        options: dict[str, str | int] = {}
        for name, value in table.items():
            if isinstance(value, bool) or not isinstance(value, str | int):
                self.fail(
                    f"{key}.{name}", Said(N_("a display option is a text or a number, not {value}"), value=repr(value))
                )
            else:
                options[name] = value
        return options

    def zone(self, name: str) -> ZonePins | None:
        zones = self.table("zones")
        zone = None if zones is None else self.table(f"zones.{name}", zones)
        if zone is None:
            return None
        red, green = self.gpio(zone, f"zones.{name}.red"), self.gpio(zone, f"zones.{name}.green")
        blue = self.gpio(zone, f"zones.{name}.blue") if "blue" in zone else None
        reader = self.reader(name, zone) if "reader" in zone else None
        if red is None or green is None or ("blue" in zone and blue is None) or ("reader" in zone and not reader):
            return None  # its mistakes are said, and the pins it has are checked against the rest all the same
        return ZonePins(label=str(zone.get("label", name)), red=red, green=green, blue=blue, reader=reader)

    def reader(self, name: str, zone: Mapping[str, object]) -> ReaderPins | None:
        spec = self.table(f"zones.{name}.reader", zone)
        if spec is None:
            return None
        port = self.whole(spec, f"zones.{name}.reader.spi_port")
        device = self.whole(spec, f"zones.{name}.reader.spi_device")
        reset = self.gpio(spec, f"zones.{name}.reader.reset")
        if port is None or device is None:
            return None
        if port not in SPI_BUSES or not 0 <= device < len(SPI_BUSES[port].chip_selects):
            problem = N_("SPI{port} CE{device} does not exist; use spi_port 0 (spi_device 0 or 1) or 1 (0 to 2)")
            self.fail(f"zones.{name}.reader", Said(problem, port=port, device=device))
            return None
        self.readers[name] = (port, device)
        return None if reset is None else ReaderPins(port, device, reset)

    def hub(self) -> HubPins | None:
        hub = self.table("hub")
        if hub is None:
            return None
        zones = hub.get("zones")
        if not isinstance(zones, list) or not zones or not all(isinstance(zone, str) for zone in zones):
            self.fail("hub.zones", Said(N_('must list the hub\'s zone names, e.g. ["z1", "z2"]')))
            return None
        spi = self.table("hub.spi", hub)
        selects = hub.get("chip_selects")
        if not isinstance(selects, list) or len(selects) != len(zones):
            self.fail("hub.chip_selects", Said(N_("must give one Pico GP pin per zone ({count})"), count=len(zones)))
            selects = None
        before = len(self.found)
        pins = {
            "sck": None if spi is None else self.whole(spi, "hub.spi.sck"),
            "mosi": None if spi is None else self.whole(spi, "hub.spi.mosi"),
            "miso": None if spi is None else self.whole(spi, "hub.spi.miso"),
            "reset": self.whole(hub, "hub.reset"),
            "led_data": self.whole(hub, "hub.led_data"),
            "maintenance": self.whole(hub, "hub.maintenance") if "maintenance" in hub else HUB_MAINTENANCE,
        }
        chip_selects = [self.whole(hub, f"hub.chip_selects[{i}]", cs) for i, cs in enumerate(selects or [])]
        seen: dict[int, str] = {}
        given = [(f"hub.spi.{line}", pins[line]) for line in ("sck", "mosi", "miso")]
        given += [(f"hub.chip_selects[{index}]", gp) for index, gp in enumerate(chip_selects)]
        given += [(f"hub.{line}", pins[line]) for line in ("reset", "led_data", "maintenance")]
        for key, gp in given:
            if gp is None:
                continue
            if gp not in PICO_GPS:
                self.fail(key, Said(N_("GP{gp} is not a free Pico pin; use GP0-GP22 or GP26-GP28"), gp=gp))
            elif gp in seen:
                self.fail(
                    key, Said(N_("GP{gp} is already {key}; give each line its own Pico pin"), gp=gp, key=seen[gp])
                )
            else:
                seen[gp] = key
        if len(self.found) > before or selects is None or spi is None:
            return None
        read = {line: pin for line, pin in pins.items() if pin is not None}  # all of them: no problem was found
        serial, chips = str(hub.get("serial", "/dev/companion-hub")), tuple(gp for gp in chip_selects if gp is not None)
        return HubPins(serial=serial, zones=tuple(zones), chip_selects=chips, **read)


def pico_ground_beside(gp: int) -> int:
    """The Pico's ground pin nearest ``gp``'s physical pin: where a jumper from ``gp`` to ground goes (GP22, pin 29,
    has GND on pin 28)."""
    return min(PICO_GROUNDS, key=lambda ground: abs(ground - PICO_PINS[gp]))


def hub_pins(hub: HubPins) -> Iterator[tuple[str, int]]:
    """Every Pico pin of the hub with its key, e.g. ``("hub.chip_selects[0]", 0)``."""
    yield from (("hub.spi.sck", hub.sck), ("hub.spi.mosi", hub.mosi), ("hub.spi.miso", hub.miso))
    for index, gp in enumerate(hub.chip_selects):
        yield f"hub.chip_selects[{index}]", gp
    yield from (("hub.reset", hub.reset), ("hub.led_data", hub.led_data), ("hub.maintenance", hub.maintenance))


# --- table layouts --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pad:
    """One reader zone of a layout: its config role, its Pico chip select (on the hub), and its pad on the mat."""

    zone: str
    role: str
    x: float
    y: float
    label: str  # what goes on the pad, an English msgid; "{card}" is ``card``
    card: str = ""
    chip_select: int | None = None
    ranks: tuple[int, int] | None = None  # two pads of one role: the lowest and highest rank each takes


@dataclass(frozen=True, slots=True)
class Layout:
    """A table as built: the game, its readers (the config's ``readers.backend``) and its pads
    (hardware/zones.toml). Its readers are on the Pico hub when its pads give chip selects, else on the Pi."""

    name: str
    title: str  # the mat's title, an English msgid
    game: str
    players: int
    readers: str
    note: str
    pad: tuple[float, float]
    pads: tuple[Pad, ...]

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(pad.zone for pad in self.pads)

    @property
    def on_hub(self) -> bool:
        """Whether the readers are the Pico hub's (its pads give chip selects) rather than the Pi's."""
        return bool(self.chip_selects)

    @property
    def chip_selects(self) -> tuple[int, ...]:
        """The hub's chip selects, zone 0 first; the hub's ZONES is how many (none on the Pi alone)."""
        return tuple(pad.chip_select for pad in self.pads if pad.chip_select is not None)

    def config_keys(self) -> dict[str, dict[str, str | int]]:
        """The keys of the companion's config this layout sets: its game, its zones' roles, its readers."""
        return {
            "game": {"name": self.game, "players": self.players},
            "zones": {pad.zone: pad.role for pad in self.pads},
            "readers": {"backend": self.readers},
        }


def load_layouts(path: Path = LAYOUTS) -> dict[str, Layout]:
    """The table layouts of ``path`` by name; a layout that cannot be a table raises ``ValueError`` with its key."""
    data = tomllib.loads(path.read_text("utf-8"))
    layouts: dict[str, Layout] = {}
    for entry in data["layouts"]:
        name = entry["name"]
        pads = tuple(
            Pad(
                zone=pad["zone"],
                role=pad["role"],
                x=pad["x"],
                y=pad["y"],
                label=pad["label"],
                card=pad.get("card", ""),
                chip_select=pad.get("chip_select"),
                ranks=(pad["ranks"][0], pad["ranks"][1]) if "ranks" in pad else None,
            )
            for pad in entry["pads"]
        )
        width, height = entry["pad"]
        layout = Layout(
            name=name,
            title=entry["title"],
            game=entry["game"],
            players=entry["players"],
            readers=entry["readers"],
            note=entry["note"],
            pad=(width, height),
            pads=pads,
        )
        if layout.chip_selects and len(layout.chip_selects) != len(pads):
            raise ValueError(f"{path}: layout {name}: every pad of a hub layout gives its chip_select, or none does")
        layouts[name] = layout
    return layouts
