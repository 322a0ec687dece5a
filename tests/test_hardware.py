"""The pin map: every device it names built on gpiozero's mock factory for a Pi 4 and a Pi 5, and wrong maps
refused with the key that is wrong."""

from __future__ import annotations

import os
import re
import runpy
from collections.abc import Iterator
from pathlib import Path

import polib
import pytest
from gpiozero import MCP3008, Device, DigitalInputDevice, DigitalOutputDevice, GPIOPinInUse
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from companion.hardware import (
    DEFAULT_PINMAP,
    HEADER_PINS,
    HUB_MAINTENANCE,
    PinMap,
    PinMapError,
    load_pinmap,
    parse_pinmap,
    pinmap_path,
)
from companion.hub.simulated import FIRMWARE
from companion.i18n import LOCALE, translate
from companion.ui.buttons import Buttons
from companion.ui.display import display_words, parse_options
from companion.ui.lights import StatusLed, ZoneLights
from companion.web.page import PAGE_STRINGS

BOARDS = {"Raspberry Pi 4 B": "c03111", "Raspberry Pi 5 B": "c04170"}
TEXT = DEFAULT_PINMAP.read_text("utf-8")


@pytest.fixture(params=list(BOARDS), ids=list(BOARDS))
def board(request: pytest.FixtureRequest) -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = MockFactory(revision=BOARDS[request.param])
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


def test_every_device_of_the_pin_map_builds_beside_the_buses(board: MockFactory) -> None:
    pinmap = load_pinmap()
    # The buses first, so that a part wired to one of their pins fails with GPIOPinInUse below.
    i2c = [DigitalInputDevice(pin, pull_up=True, pin_factory=board) for pin in (2, 3)]
    spi = [MCP3008(channel=0, device=device, pin_factory=board) for device in (0, 1)]
    built = [
        Buttons(pinmap.buttons, lambda press: None, lambda call: None, pin_factory=board),
        ZoneLights(pinmap.zones, StatusLed(pinmap.status_led, pin_factory=board), pin_factory=board),
        *(DigitalOutputDevice(zone.reader.reset, pin_factory=board) for zone in pinmap.zones.values() if zone.reader),
    ]
    used = {pin for _, pin in pinmap.gpios()}
    assert len(used) == len(list(pinmap.gpios())), "a pin is used twice"
    assert used.isdisjoint({2, 3, 7, 8, 9, 10, 11})
    for taken in (pinmap.buttons["undo"], 10, 7, 3):  # a part's pin, SPI0 MOSI and CE1, I2C1 SCL
        with pytest.raises(GPIOPinInUse):
            DigitalOutputDevice(taken, pin_factory=board)
    for device in [*built, *spi, *i2c]:
        device.close()


def test_a_pin_the_board_lacks_fails_on_the_board(board: MockFactory) -> None:
    with pytest.raises(Exception, match="28 is not a valid pin"):
        DigitalOutputDevice(28, pin_factory=board)


def test_header_pin_numbers_agree_with_gpiozero(board: MockFactory) -> None:
    for gpio, physical in HEADER_PINS.items():
        ((header, info),) = board.board_info.find_pin(f"GPIO{gpio}")
        assert (header.name, info.number) == ("J8", physical)


def edited(old: str, new: str) -> str:
    assert old in TEXT
    return TEXT.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "undo = 13",
            "undo = 28",
            r"buttons\.undo: 28 is not a GPIO of the Raspberry Pi 4B's header; "
            r'write 17, "GPIO17", "BCM17" or the header pin "BOARD11"',
        ),
        ("undo = 13", 'undo = "BOARD1"', r"buttons\.undo: 'BOARD1' is not a GPIO of the Raspberry Pi 4B"),
        ("undo = 13", 'undo = "gpio13"', r"buttons\.undo: 'gpio13' is not a GPIO of the Raspberry Pi 4B's header"),
        ("undo = 13", "undo = true", r"buttons\.undo: a pin is a number or a name such as 17, \"GPIO17\".*, not True"),
        ("undo = 13", "undo = 2", r"buttons\.undo = 2: GPIO2 is SDA of I2C1, the OLED's bus; pick a free GPIO"),
        ("red = 22", "red = 10", r"zones\.z2\.red = 10: GPIO10 is MOSI of SPI0"),
        ("red = 22", "red = 7", r"zones\.z2\.red = 7: GPIO7 is CE1 of SPI0, the readers' bus; pick a free GPIO"),
        ("green = 23", "green = 17", r"zones\.z2\.green = 17: GPIO17 is already zones\.z1\.red"),
        ("pin = 26", "pin = 5", r"status_led\.pin = 5: GPIO5 is already buttons\.confirm"),
        ("undo = 13", "undo = 13.0", r"buttons\.undo: a pin is a number or a name such as 17.*, not 13\.0"),
        ("undo = 13", "redo = 13", r"buttons\.undo: missing; give the GPIO it is wired to, as 17, \"GPIO17\""),
        ("spi_device = 1", "spi_device = 0", r"zones\.z2\.reader: SPI0 CE0 already serves zones\.z1"),
        ("spi_device = 1", "spi_device = 2", r"zones\.z2\.reader: SPI0 CE2 does not exist"),
        ("reset = 8\n", "reset = 24\n", r"hub\.reset: GP24 is not a free Pico pin"),
        ("led_data = 9", "led_data = 7", r"hub\.led_data: GP7 is already hub\.chip_selects\[7\]"),
        ("maintenance = 22", "maintenance = 9", r"hub\.maintenance: GP9 is already hub\.led_data; give each line"),
        ("maintenance = 22", "maintenance = 0", r"hub\.maintenance: GP0 is already hub\.chip_selects\[0\]"),
        ("maintenance = 22", "maintenance = 23", r"hub\.maintenance: GP23 is not a free Pico pin; use GP0-GP22"),
        ("maintenance = 22", "maintenance = 29", r"hub\.maintenance: GP29 is not a free Pico pin"),
        ("maintenance = 22", 'maintenance = "GP22"', r"hub\.maintenance: must be a whole number, not 'GP22'"),
        ("[status_led]", "[status_lamp]", r"status_led: missing or not a table"),
    ],
)
def test_a_wrong_pin_map_is_refused_with_the_key(old: str, new: str, message: str) -> None:
    with pytest.raises(PinMapError, match=message):
        parse_pinmap(edited(old, new), "pinmap.toml")


# Mistakes on lines of their own, each named by the message that follows it whatever the others.
MISTAKES = [
    ("i2c_port = 1", "i2c_port = true", "oled.i2c_port: a display option is a text or a number, not True"),
    ("undo = 13", "undo = 28", "buttons.undo: 28 is not a GPIO of the Raspberry Pi 4B's header"),
    ("pin = 26", "pin = 3", "status_led.pin = 3: GPIO3 is SCL of I2C1, the OLED's bus; pick a free GPIO"),
    ("green = 27", "green = 5", "zones.z1.green = 5: GPIO5 is already buttons.confirm"),
    ("red = 22", "red = 10", "zones.z2.red = 10: GPIO10 is MOSI of SPI0, the readers' bus"),
    ("spi_device = 1", "spi_device = 2", "zones.z2.reader: SPI0 CE2 does not exist"),
    ("led_data = 9", "led_data = 7", "hub.led_data: GP7 is already hub.chip_selects[7]"),
    ("maintenance = 22", "maintenance = 23", "hub.maintenance: GP23 is not a free Pico pin"),
]


@given(st.lists(st.sampled_from(MISTAKES), min_size=1, unique=True))
def test_every_mistake_of_a_pin_map_is_named_at_once(mistakes: list[tuple[str, str, str]]) -> None:
    """`run --check` names every mistake of the pin map, each on its own line: those of a key's own value, then the
    pins given to a bus or twice."""
    text = TEXT
    for old, new, _ in mistakes:
        text = text.replace(old, new, 1)
    with pytest.raises(PinMapError) as refused:
        parse_pinmap(text, "pinmap.toml")
    lines = str(refused.value).splitlines()
    assert len(lines) == len(refused.value.problems) == len(mistakes), lines
    for _, _, said in mistakes:
        assert sum(line.startswith(f"pinmap.toml: {said}") for line in lines) == 1, (said, lines)


def test_every_mistake_is_said_in_each_language() -> None:
    text = TEXT.replace("undo = 13", "undo = 2").replace("red = 22", "red = 10")
    with pytest.raises(PinMapError) as refused:
        parse_pinmap(text, "pinmap.toml")
    assert [line.split(": GPIO", 1)[1].split(";")[0] for line in refused.value.text("es").splitlines()] == [
        "2 es SDA de I2C1, el bus de la OLED",
        "10 es MOSI de SPI0, el bus de los lectores",
    ]


def test_the_hub_maintenance_pin_is_read_and_defaults_to_the_firmwares() -> None:
    hub = load_pinmap().hub
    assert hub is not None and hub.maintenance == 22
    moved = parse_pinmap(edited("maintenance = 22", "maintenance = 26"), "pinmap.toml").hub
    assert moved is not None and moved.maintenance == 26
    # A map written before the key existed describes a hub with the firmware's shipped MAINTENANCE_PIN.
    older = parse_pinmap(edited("maintenance = 22", ""), "pinmap.toml").hub
    firmware = runpy.run_path(str(FIRMWARE / "hub_config.py"))
    assert older is not None and older.maintenance == HUB_MAINTENANCE == firmware["MAINTENANCE_PIN"]


@pytest.mark.parametrize("board", list(BOARDS.values()))
def test_pins_are_read_as_gpiozero_names_them(board: str) -> None:
    """17, "GPIO17", "BCM17", "BOARD11" and "J8:11" are one pin, through gpiozero's own tables of the board."""
    for red, green in (("17", "27"), ('"GPIO17"', '"BCM27"'), ('"BOARD11"', '"J8:13"')):
        text = edited("red = 17\ngreen = 27", f"red = {red}\ngreen = {green}").replace("reset = 24", 'reset = "WPI5"')
        pinmap = parse_pinmap(text, "pinmap.toml", revision=int(board, 16))
        assert (pinmap.zones["z1"].red, pinmap.zones["z1"].green, pinmap.zones["z1"].reader.reset) == (17, 27, 24)


def test_the_board_is_read_from_the_device_tree(tmp_path: Path) -> None:
    from companion.pins import REVISION, board_revision, gpio_number

    assert board_revision(tmp_path) == 0xC03111  # not a Pi: the mock pins' Pi 4 B
    node = tmp_path / REVISION.relative_to("/")
    node.parent.mkdir(parents=True)
    node.write_bytes(bytes.fromhex("00902120"))  # a Zero 2 W
    assert board_revision(tmp_path) == 0x902120
    assert gpio_number("BOARD40", board_revision(tmp_path)) == 21


def test_spi1_pins_are_reserved_once_a_reader_uses_spi1() -> None:
    text = edited("spi_port = 0, spi_device = 1", "spi_port = 1, spi_device = 0")
    with pytest.raises(PinMapError, match=r"zones\.z1\.red = 17: GPIO17 is CE1 of SPI1"):
        parse_pinmap(text, "pinmap.toml")


def test_a_missing_file_says_what_to_give() -> None:
    with pytest.raises(PinMapError, match=r"cannot read the pin map .*give the path of a pinmap\.toml"):
        load_pinmap("/nonexistent/pinmap.toml")


def test_the_oled_options_are_lumas() -> None:
    """The [oled] table goes to the display as it is; the display alone turns it into luma's words."""
    oled = load_pinmap().oled
    assert display_words(oled) == ["--display", "ssd1306", "--i2c-port", "1", "--i2c-address", "0x3C"]
    options = parse_options(oled)
    assert (options.display, options.i2c_port, options.i2c_address) == ("ssd1306", 1, "0x3C")
    assert not hasattr(PinMap, "oled_options")


def test_a_pin_map_that_is_not_utf8_or_not_a_file_is_refused(tmp_path: Path) -> None:
    latin1 = tmp_path / "pinmap.toml"
    latin1.write_bytes(TEXT.replace('label = "Mesa 1"', 'label = "Señal"').encode("latin-1"))
    with pytest.raises(PinMapError, match=r"pinmap\.toml: not UTF-8 text \(byte \d+\); save it as UTF-8"):
        load_pinmap(latin1)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (256 * 1024))
    with pytest.raises(PinMapError, match=r"big\.toml: larger than 256 kB, not a pin map"):
        load_pinmap(big)
    with pytest.raises(PinMapError, match=r"/dev/zero: cannot read the pin map \(a device, not a companion file\)"):
        load_pinmap("/dev/zero")
    pipe = tmp_path / "pipe.toml"
    os.mkfifo(pipe)  # opening it would wait for a writer that never comes
    with pytest.raises(
        PinMapError, match=r"pipe\.toml: cannot read the pin map \(a named pipe, not a companion file\)"
    ):
        load_pinmap(pipe)


def test_the_service_reads_the_installed_pin_map_when_there_is_one(tmp_path: Path) -> None:
    assert pinmap_path("", tmp_path) == DEFAULT_PINMAP  # nothing installed: the one shipped with companion
    installed = tmp_path / "etc/companion/pinmap.toml"
    installed.parent.mkdir(parents=True)
    installed.write_text(TEXT, "utf-8")
    assert pinmap_path("", tmp_path) == installed
    assert pinmap_path("/srv/wiring.toml", tmp_path) == tmp_path / "srv/wiring.toml"
    assert pinmap_path("wiring.toml") == Path("wiring.toml")
    config = (Path(__file__).parents[1] / "systemd/config.toml").read_text("utf-8")
    assert 'map = "/etc/companion/pinmap.toml"' in config  # the installed config points at it


# The SPI chip-select overlays Raspberry Pi's kernel ships (raspberrypi/linux, arch/arm/boot/dts/overlays/README:
# "Name: spi0-1cs", "spi0-2cs", "spi1-1cs" to "spi1-3cs", "spi2-1cs" to "spi2-3cs", and spi3 to spi6's 1cs and 2cs
# on a Pi 4). SPI0 has no third chip select: spi0-1cs and spi0-2cs only move or drop CE0 and CE1.
SPI_OVERLAYS = {
    "spi0-1cs",
    "spi0-2cs",
    *(f"spi{bus}-{count}cs" for bus in (1, 2) for count in (1, 2, 3)),
    *(f"spi{bus}-{count}cs" for bus in (3, 4, 5, 6) for count in (1, 2)),
}


def test_every_spi_overlay_the_project_names_exists() -> None:
    """A message or a doc that says "add dtoverlay=spi0-3cs" sends the maker after an overlay that is not there."""
    root = Path(__file__).parents[1]
    named: dict[str, str] = {}
    for folder in ("companion", "docs", "hardware", "firmware", "systemd"):
        for path in (root / folder).rglob("*"):
            if path.suffix in {".py", ".md", ".po", ".toml", ".txt"} and path.is_file():
                for name in re.findall(r"dtoverlay=(spi[\w{}-]+)", path.read_text("utf-8", errors="replace")):
                    named[name] = str(path.relative_to(root))
    assert named, "the check found no overlay at all"
    for name, where in named.items():
        for overlay in {name.replace("{count}", str(count)) for count in (1, 2, 3)}:  # spi1-{count}cs: 1 to 3
            assert overlay in SPI_OVERLAYS, f"{where} names dtoverlay={overlay}, which Raspberry Pi does not ship"


def test_each_button_has_one_name_wherever_a_person_reads_it() -> None:
    """The screens and the table's page name the buttons (OK, PASS, UNDO; in Spanish OK, PASO, DESHACER): so do the
    catalogues' texts in each language, the README, hardware/README.md (its bill of materials) and the drawings,
    never by the pin map's key (CONFIRM) nor in the other language."""
    keys = ("btn_confirm", "btn_pass", "btn_undo")
    names = {lang: {translate(PAGE_STRINGS[key], lang) for key in keys} for lang in ("en", "es")}
    assert names == {"en": {"OK", "PASS", "UNDO"}, "es": {"OK", "PASO", "DESHACER"}}
    wrong = {lang: {"CONFIRM", "CONFIRMAR"} | (names["en"] | names["es"]) - names[lang] for lang in names}
    shouting = re.compile(r"\b[A-Z]{2,}\b")
    catalogue = polib.pofile(str(LOCALE / "es/LC_MESSAGES/companion.po"))
    said = [("en", entry.msgid) for entry in catalogue] + [("es", entry.msgstr) for entry in catalogue]
    root = Path(__file__).resolve().parents[1]
    documents = [root / "README.md", root / "hardware/README.md", *sorted((root / "hardware").glob("*.svg"))]
    said += [("en", path.read_text("utf-8")) for path in documents]
    named = [(lang, text) for lang, text in said if set(shouting.findall(text)) & wrong[lang]]
    assert not named, named
