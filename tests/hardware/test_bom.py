"""The bill of materials of hardware/README.md counts what each table layout and its wiring need, and its cables,
the SPI speed of the firmware and the 3.3 V budget agree: each count is derived here from the layouts
(hardware/zones.toml), the pin map, the wiring diagrams' nets and the decks, and compared with the table."""

from __future__ import annotations

import math
import runpy
from collections import Counter

import pytest

from companion.decks import load_deck
from companion.documents.drawings import _pi_side
from companion.games import find_kind
from companion.hardware import HARDWARE_DIR, Layout, load_layouts, load_pinmap
from companion.hub.simulated import FIRMWARE

README = (HARDWARE_DIR / "README.md").read_text("utf-8")
HUB_README = (HARDWARE_DIR / "hub" / "README.md").read_text("utf-8")
LAYOUTS = load_layouts()
PINMAP = load_pinmap()
WIRES_A_PAD = 10  # a pad's strip: the reader's 7 lines (SDA SCK MOSI MISO RST GND 3.3V) and its LED's 5V DIN DOUT
READER_LINES = ("SDA", "SCK", "MOSI", "MISO", "RST", "GND", "3.3V")
READER_MAX_MA = 100  # MFRC522 data sheet, transmitter supply current IDD(TVDD), max
READER_TYPICAL_MA = (13, 26)
OLED_MA = 20
PICO_3V3_OUT_MA = 300  # Raspberry Pi Pico datasheet: 3V3(OUT) for external circuits
REGULATOR_MA = 1000
DRIVE_MA = 4  # the RP2040's pads at reset and the MFRC522's MISO output
LINE_PF = 400  # the most a shared line of 8 pads' 40 cm cables carries, with the readers' inputs
HIGH_V = 2.0  # a logic high reached (the Pico's VIH; the MFRC522 wants 0.7 x 3.3 V on its inputs, 2.3 V)
MISO_OUT_NS = 25  # MFRC522: MISO valid within 25 ns of SCK falling
HEADER_PINS_A_STRIP = 40


def bill() -> tuple[list[str], dict[str, list[str]]]:
    """The bill of materials: its layout columns, and part -> its cells (one per layout, then the notes)."""
    section = README.split("## Bill of materials", 1)[1].split("\n### ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| ")
    ]
    return rows[0][1:-1], {cells[0]: cells[1:] for cells in rows[2:]}


def row(word: str) -> dict[str, str]:
    """The counts of the one part named with ``word``, by layout, and its notes under "notes"."""
    columns, parts = bill()
    found = [cells for part, cells in parts.items() if word in part]
    assert len(found) == 1, f"the bill of materials has {len(found)} rows with {word!r}"
    return dict(zip([*columns, "notes"], found[0], strict=True))


def wires_and_rail_pins(layout: Layout) -> tuple[int, int]:
    """The Pi side's Dupont wires and rail pins: a header pin that feeds one part takes one wire; one that feeds
    several goes to a rail on the proto board by one wire, and a wire runs from the rail to each part."""
    _, _, nets = _pi_side(PINMAP, zones=not layout.on_hub)
    feeds = Counter[str]()
    for net in nets:
        feeds[net.board] += len(PINMAP.buttons) if net.terminal == "other legs" else 1
    wires = sum(1 if n == 1 else n + 1 for n in feeds.values())
    return wires, sum(n + 1 for n in feeds.values() if n > 1)


def test_the_columns_are_the_layouts() -> None:
    columns, _ = bill()
    assert columns == list(LAYOUTS)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_the_counts_are_the_layouts(name: str) -> None:
    layout = LAYOUTS[name]
    pads, hub = len(layout.pads), layout.on_hub
    pi_zones = 0 if hub else len(PINMAP.zones)
    assert row("MFRC522")[name] == str(pads)
    assert row("WS2812B")[name] == str(pads if hub else 0)
    assert row("LED, red")[name] == row("LED, green")[name] == str(pi_zones)
    assert row("Resistor 330 ohm")[name] == str(2 * pi_zones + 1 + (1 if hub else 0))  # and the status LED's
    for part in ("Pico (RP2040)", "74AHCT125", "buck", "1000 uF", "Micro-USB data cable", "Jumper cap"):
        assert row(part)[name] == ("1" if hub else "0"), part
    deck = load_deck(find_kind(layout.game).default_deck)
    assert row("NTAG213")[name] == str(len(deck) + 10)  # the game's own deck and 10 spare
    strips = math.ceil(pads * WIRES_A_PAD / 40) if hub else 0
    assert row("Dupont ribbon")[name] == str(strips)
    wires, rail = wires_and_rail_pins(layout)
    assert int(row("Dupont jumper wires")[name]) >= wires
    assert f"({wires_and_rail_pins(LAYOUTS['seises-pi'])[0]} for the Pi alone, " in row("Dupont jumper wires")["notes"]
    assert f", {wires_and_rail_pins(LAYOUTS['seises-hub-8'])[0]} with the hub)" in row("Dupont jumper wires")["notes"]
    header_pins = rail + ((pads * WIRES_A_PAD + 2) if hub else 0)  # and the maintenance jumper's 2
    assert row("Male pin header")[name] == str(math.ceil(header_pins / HEADER_PINS_A_STRIP))


def test_a_pads_strip_carries_every_line_of_its_reader_and_its_led() -> None:
    section = README.split("### Cables and SPI speed", 1)[1].split("\n### ", 1)[0]
    at_the_pad = next(line for line in section.splitlines() if line.startswith("| at the pad"))
    cells = [cell.strip() for cell in at_the_pad.strip("|").split("|")][1:]
    assert len(cells) == WIRES_A_PAD
    for line in READER_LINES:
        assert any(line in cell and "reader" in cell for cell in cells) or (line == "GND" and "GND" in cells[1]), line
    assert {"LED 5V", "LED DIN", "LED DOUT"} <= set(cells)
    assert "strip of 10 Dupont wires, 40 cm, per pad" in " ".join(HUB_README.split())


def test_the_cable_and_the_spi_speed_agree() -> None:
    """The bill's 40 cm cables load a line of 8 pads with up to 400 pF; a 4 mA driver's edge to a logic high must
    fit a half period with room (and MISO's, after the reader's 25 ns, before the Pico reads it)."""
    shipped = runpy.run_path(str(FIRMWARE / "hub_config.py"))["SPI_BAUDRATE"]
    edge_ns = LINE_PF * 1e-12 * HIGH_V / (DRIVE_MA * 1e-3) * 1e9  # 200 ns
    half_period_ns = 1e9 / shipped / 2
    assert half_period_ns >= 2 * (edge_ns + MISO_OUT_NS)
    assert edge_ns > 1e9 / 4_000_000 / 2  # why not 4 MHz
    words = " ".join(README.split())
    assert f"`SPI_BAUDRATE = {shipped:_}` in `firmware/hub_config.py`" in words
    assert "Dupont ribbon, female-female, 40 cm" in README and "Keep each pad's cable at 50 cm or less" in words
    for name, layout in LAYOUTS.items():
        if layout.on_hub:
            settings = runpy.run_path(str(HARDWARE_DIR / "layouts" / name / "hub_config.py"))
            assert settings["SPI_BAUDRATE"] == shipped, name
    assert "4 MHz is safe" not in (FIRMWARE / "hub_config.py").read_text("utf-8")


def test_the_3v3_budget_of_each_layout() -> None:
    section = README.split("### The 3.3 V budget", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0].strip("` "): cells
        for cells in ([c.strip() for c in line.strip("|").split("|")] for line in section.splitlines())
        if cells[0].strip("` ") in LAYOUTS
    }
    assert set(rows) == set(LAYOUTS)
    for name, layout in LAYOUTS.items():
        readers = len(layout.pads)
        low, high = (readers * ma for ma in READER_TYPICAL_MA)
        cells = rows[name]
        assert cells[1] == str(readers)
        assert cells[2].startswith(f"{low} to {high} / {readers * READER_MAX_MA} mA"), cells
        if layout.on_hub:
            # beyond the Pico's 3V3(OUT), within the regulator the bill buys
            assert PICO_3V3_OUT_MA < readers * READER_MAX_MA <= REGULATOR_MA
            assert "1 A 3.3 V regulator" in cells[3]
        else:
            with_oled = f"with the OLED {low + OLED_MA} to {high + OLED_MA} / {readers * READER_MAX_MA + OLED_MA} mA"
            assert with_oled in cells[2] and "3V3 pins" in cells[3]


def test_the_hubs_parts_say_why_they_are_required() -> None:
    assert "3.5 V for a high" in row("74AHCT125")["notes"]
    assert "required" in row("buck")["notes"] and "1 A" in next(part for part in bill()[1] if "buck" in part)
    assert set(row("Proto board").values()) - {row("Proto board")["notes"]} == {"1"}
    assert row("Female pin headers")["seises-pi"] != "0"
    assert all(
        "Zero 2 W" in count for name, count in row("OTG").items() if LAYOUTS.get(name, None) and LAYOUTS[name].on_hub
    )
    assert "sit within the Pico's 3V3(OUT)" not in README
