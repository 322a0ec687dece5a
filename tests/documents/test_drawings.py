"""The wiring diagrams and play mats in hardware/ are the ones the pin map and the zone layout draw today."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion.config import parse_config
from companion.documents.drawings import COLOURS, draw_all, mats, wiring_hub, wiring_pi
from companion.hardware import DEFAULT_PINMAP, HARDWARE_DIR, PICO_PINS, load_pinmap, parse_pinmap

HARDWARE = HARDWARE_DIR
TEXT = DEFAULT_PINMAP.read_text("utf-8")
REDRAW = "redraw them with: .venv/bin/python -m companion.documents"


def test_the_committed_drawings_are_up_to_date(tmp_path: Path) -> None:
    written = draw_all(load_pinmap(), HARDWARE / "zones.toml", tmp_path)
    assert len(written) == 10
    for fresh in written:
        committed = HARDWARE / fresh.relative_to(tmp_path)
        assert committed.exists(), f"{committed} is missing; {REDRAW}"
        if fresh.suffix == ".svg":
            assert committed.read_text("utf-8") == fresh.read_text("utf-8"), f"{committed} is stale; {REDRAW}"
        else:
            difference = ImageChops.difference(Image.open(committed).convert("RGB"), Image.open(fresh).convert("RGB"))
            assert difference.getbbox() is None, f"{committed} is stale; {REDRAW}"


def test_the_diagrams_name_every_pin_of_the_map() -> None:
    pinmap = load_pinmap()
    pi_svg = wiring_pi(pinmap).svg()
    for _, pin in pinmap.gpios():
        assert f">GPIO{pin} (pin " in pi_svg, pin
    assert "GPIO8 (pin 24) CE0" in pi_svg and "GPIO7 (pin 26) CE1" in pi_svg
    hub_svg = wiring_hub(pinmap).svg()
    assert pinmap.hub is not None
    for gp in pinmap.hub.chip_selects:
        assert f">GP{gp} (pin {PICO_PINS[gp]}) CS<" in hub_svg
    assert f">GP{pinmap.hub.led_data} (pin {PICO_PINS[pinmap.hub.led_data]}) LED data<" in hub_svg


def test_the_diagrams_draw_power_ground_and_resistors() -> None:
    """Every part's supply and ground is a wire from a named pin; every indicator LED has its 330 ohm drawn."""
    pinmap = load_pinmap()
    pi = wiring_pi(pinmap).svg()
    for pin in ("3V3 (pin 1)", "GND (pin 6)", "3V3 (pin 17)", "GND (pin 20)"):
        assert f">{pin}<" in pi
    supply, ground = COLOURS["power"], COLOURS["ground"]
    readers = sum(1 for zone in pinmap.zones.values() if zone.reader is not None)
    assert pi.count(f'stroke="{supply}"') == 1 + readers  # the OLED and each reader
    assert pi.count(f'stroke="{ground}"') == 3 + len(pinmap.zones) + readers  # OLED, buttons, status, LEDs, readers
    leds = 1 + sum(3 if zone.blue is not None else 2 for zone in pinmap.zones.values())
    assert pi.count(">330R<") == leds
    hub = wiring_hub(pinmap).svg()
    for part in ("74AHCT125 level shifter", "3.3 V regulator, 1 A", "VBUS (pin 40)", "GND (pin 38)"):
        assert f">{part}<" in hub


@pytest.mark.parametrize(("gp", "pin", "ground"), [(22, 29, 28), (26, 31, 33), (0, 1, 3)])
def test_the_hub_diagram_draws_the_maintenance_jumper_beside_a_ground(gp: int, pin: int, ground: int) -> None:
    """A 2-pin header from the maintenance pin to the Pico's nearest ground (as shipped, pins 29 and 28 side by
    side), each wire from the Pico pin that feeds it."""
    text = TEXT.replace("chip_selects = [0,", "chip_selects = [10,").replace("maintenance = 22", f"maintenance = {gp}")
    svg = wiring_hub(parse_pinmap(text, "pinmap.toml")).svg()
    assert f">GP{gp} (pin {pin}) MAINT<" in svg and f">GND (pin {ground})<" in svg
    assert ">Maintenance jumper: 2-pin header<" in svg and f">GP{gp}<" in svg
    assert svg.count(f'stroke="{COLOURS["jumper"]}"') == 1
    assert ">cap on at power-up: the REPL, no watchdog,<" in svg


def test_every_mat_pad_is_a_zone_of_its_build() -> None:
    pinmap = load_pinmap()
    assert pinmap.hub is not None
    layout = tomllib.loads((HARDWARE / "zones.toml").read_text("utf-8"))
    for mat in layout["mats"]:
        zones = [pad["zone"] for pad in mat["pads"]]
        expected = list(pinmap.zones) if mat["build"] == "pi" else list(pinmap.hub.zones)
        assert zones == expected, mat["name"]


def test_every_mat_is_a_table_the_daemon_accepts() -> None:
    """A mat's game with its build's zones is a config the service starts with (6º SET needs its 8 zones)."""
    layout = tomllib.loads((HARDWARE / "zones.toml").read_text("utf-8"))
    for mat in layout["mats"]:
        game = "seises" if mat["game"] == "Seises" else "sexto-set"
        role = "table" if game == "seises" else "auto"
        zones = "".join(f'{pad["zone"]} = "{role}"\n' for pad in mat["pads"])
        backend = "spi" if mat["build"] == "pi" else "hub"
        parse_config(f'[game]\nname = "{game}"\n[zones]\n{zones}[readers]\nbackend = "{backend}"\n', mat["name"])


def test_mats_print_at_their_true_size_on_a3() -> None:
    svg = (HARDWARE / "mats" / "seises-hub.svg").read_text("utf-8")
    assert 'width="420mm" height="297mm"' in svg


def test_the_mats_print_their_words_in_the_language_asked_for() -> None:
    english = mats(HARDWARE / "zones.toml", "en")["seises-hub"].svg()
    spanish = mats(HARDWARE / "zones.toml", "es")["seises-hub"].svg()
    assert "Coins 1-5" in english and "Two suits a row" in english and "Oros" not in english
    assert "Oros 1-5" in spanish and "Dos palos por fila" in spanish and "Coins" not in spanish
    assert "M1R" in mats(HARDWARE / "zones.toml", "en")["sexto-set-hub"].svg()  # a card id is printed as it is
