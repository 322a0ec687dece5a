"""hardware/README.md, hardware/hub/README.md, the mats and the pin map agree: what the READMEs promise (reader
spacing, reset lines, the maintenance jumper) is read from them and checked against pinmap.toml and zones.toml
(the bill of materials: test_bom.py)."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from test_bom import row

from companion.hardware import (
    HARDWARE_DIR,
    PICO_GPS,
    PICO_PINS,
    load_layouts,
    load_pinmap,
    parse_pinmap,
    pico_ground_beside,
)

README = (HARDWARE_DIR / "README.md").read_text("utf-8")
HUB_README = (HARDWARE_DIR / "hub" / "README.md").read_text("utf-8")
PINMAP = load_pinmap()
LAYOUTS = load_layouts()


def test_every_pair_of_pads_is_as_far_apart_as_the_readme_says() -> None:
    match = re.search(r"antennas at least (\d+) cm apart, centre to centre; the mats do", README)
    assert match, "hardware/README.md no longer states the readers' spacing"
    spacing = int(match.group(1)) * 10
    for layout in LAYOUTS.values():
        for a, b in itertools.combinations(layout.pads, 2):
            distance = math.dist((a.x, a.y), (b.x, b.y))
            assert distance >= spacing, f"{layout.name}: {a.zone} and {b.zone} are {distance:.0f} mm apart"


def test_the_readme_says_the_reset_lines_the_pin_map_has() -> None:
    resets = {zone: pins.reader.reset for zone, pins in PINMAP.zones.items() if pins.reader is not None}
    assert len(set(resets.values())) == len(resets)  # one per reader on the Pi
    said = ", ".join(f"GPIO{pin} for {zone}" for zone, pin in resets.items())
    assert f"On the Pi each reader also has its own reset line (the pin map's `reader.reset`: {said})" in " ".join(
        README.split()
    )
    assert PINMAP.hub is not None
    assert f"on the hub one reset line (GP{PINMAP.hub.reset}) serves all eight readers" in " ".join(README.split())


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_documents_wire_the_maintenance_jumper_as_the_pin_map_does() -> None:
    assert PINMAP.hub is not None
    gp = PINMAP.hub.maintenance
    jumper = f"GP{gp} (pin {PICO_PINS[gp]}) to GND (pin {pico_ground_beside(gp)})"
    section = HUB_README.split("### The maintenance jumper\n", 1)[1].split("\n#", 1)[0]
    assert f"2-pin male header on the proto board beside the Pico's socket, wired {jumper}" in words(section)
    assert "When to fit the cap:" in section and "Never leave the cap on" in section
    assert f"maintenance jumper: a 2-pin header from {jumper}" in words(README)
    assert f"maintenance jumper: {jumper}" in row("Jumper cap")["notes"]


def test_the_16_zone_wiring_is_a_pin_map_that_loads() -> None:
    """hub/README.md's chip selects for 16 zones leave the maintenance pin (and every other hub line) alone."""
    match = re.search(r"CHIP_SELECTS = \(([\d, ]+)\)", HUB_README)
    assert match, "hardware/hub/README.md no longer gives the 16 zones' chip selects"
    selects = [int(gp) for gp in match.group(1).split(",")]
    zones = ", ".join(f'"z{n}"' for n in range(1, 17))
    text = (HARDWARE_DIR / "pinmap.toml").read_text("utf-8")
    text = text.replace('zones = ["z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8"]', f"zones = [{zones}]")
    text = text.replace("chip_selects = [0, 1, 2, 3, 4, 5, 6, 7]", f"chip_selects = {selects}")
    hub = parse_pinmap(text, "16 zones").hub
    assert hub is not None and len(hub.chip_selects) == 16 and hub.maintenance not in hub.chip_selects
    with pytest.raises(ValueError, match=r"hub\.maintenance: GP21 is already hub\.chip_selects\[15\]"):
        parse_pinmap(text.replace("maintenance = 22", "maintenance = 21"), "16 zones")


def test_the_picos_pin_numbers_follow_its_pinout() -> None:
    """GP0 is pin 1 and a ground sits every fifth pin (3, 8, ... 38): the GPs fill the others in order."""
    grounds = set(range(3, 41, 5))
    left = [pin for pin in range(1, 30) if pin not in grounds]  # GP0-GP22 down the left side, pins 1-29
    assert [PICO_PINS[gp] for gp in range(23)] == left
    assert [PICO_PINS[gp] for gp in (26, 27, 28)] == [31, 32, 34]  # RUN is 30, GND 33
    assert set(PICO_PINS) == set(PICO_GPS)
