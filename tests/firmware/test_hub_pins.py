"""One wiring for the hub: the pin map's ``[hub]`` (the Pi's side: diagrams, doctor) and the firmware's
``hub_config.py`` (what the Pico drives) name the same GP pins."""

import runpy
import tomllib
from typing import Any

import pytest

from companion.hardware import DEFAULT_PINMAP, HARDWARE_DIR, load_layouts, load_pinmap
from companion.hub.simulated import FIRMWARE


def mismatches(hub_config: dict[str, Any], hub: dict[str, Any]) -> list[str]:
    """Each setting of ``hub_config`` that the pin map's ``[hub]`` table (as read from TOML) gives otherwise."""
    pairs = {
        "ZONES": ("zones", len(hub["zones"])),
        "CHIP_SELECTS": ("chip_selects", list(hub["chip_selects"])),
        "SCK": ("spi.sck", hub["spi"]["sck"]),
        "MOSI": ("spi.mosi", hub["spi"]["mosi"]),
        "MISO": ("spi.miso", hub["spi"]["miso"]),
        "READER_RESET": ("reset", hub["reset"]),
        "LED_DATA": ("led_data", hub["led_data"]),
        "MAINTENANCE_PIN": ("maintenance", hub.get("maintenance")),
    }
    out = []
    for name, (key, value) in pairs.items():
        mine = list(hub_config[name]) if name == "CHIP_SELECTS" else hub_config[name]
        if mine != value:
            out.append(f"hub_config.py {name} = {mine} but pinmap.toml [hub] {key} = {value}")
    return out


def shipped() -> tuple[dict[str, Any], dict[str, Any]]:
    hub_config = runpy.run_path(str(FIRMWARE / "hub_config.py"))
    hub = tomllib.loads(DEFAULT_PINMAP.read_text("utf-8"))["hub"]
    return hub_config, hub


def test_the_pin_map_and_the_firmware_wire_the_hub_alike() -> None:
    hub_config, hub = shipped()
    assert mismatches(hub_config, hub) == []
    pins = load_pinmap().hub  # and the pin map's own checks take it
    assert pins is not None and pins.chip_selects == tuple(hub_config["CHIP_SELECTS"])


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("LED_DATA", 10, "hub_config.py LED_DATA = 10 but pinmap.toml [hub] led_data = 9"),
        ("CHIP_SELECTS", (1, 0, 2, 3, 4, 5, 6, 7), "CHIP_SELECTS = [1, 0, 2"),
        ("MAINTENANCE_PIN", 21, "[hub] maintenance = 22"),
        ("ZONES", 7, "ZONES = 7 but pinmap.toml [hub] zones = 8"),
    ],
)
def test_a_pin_changed_on_one_side_only_is_named(name: str, value: Any, said: str) -> None:
    hub_config, hub = shipped()
    hub_config[name] = value
    assert [m for m in mismatches(hub_config, hub) if said in m]


HUB_LAYOUTS = [name for name, layout in load_layouts().items() if layout.on_hub]


@pytest.mark.parametrize("name", HUB_LAYOUTS)
def test_each_hub_layout_wires_its_pin_map_and_its_firmware_alike(name: str) -> None:
    """A layout's hub_config.py and pinmap.toml name the same pins; every other setting is the shipped firmware's."""
    folder = HARDWARE_DIR / "layouts" / name
    hub_config = runpy.run_path(str(folder / "hub_config.py"))
    assert mismatches(hub_config, tomllib.loads((folder / "pinmap.toml").read_text("utf-8"))["hub"]) == []
    shipped_config, _ = shipped()
    differ = {key for key in shipped_config if key.isupper() and hub_config[key] != shipped_config[key]}
    assert differ <= {"CHIP_SELECTS", "ZONES"}
    assert hub_config["CHIP_SELECTS"] == load_layouts()[name].chip_selects


def test_the_shipped_hub_is_the_8_reader_layouts_hub() -> None:
    """firmware/hub_config.py and hardware/pinmap.toml as shipped are the hub of the 8-reader layouts."""
    hub_config, hub = shipped()
    eight = [layout for layout in load_layouts().values() if layout.on_hub and len(layout.pads) == 8]
    assert eight and all(layout.chip_selects == hub_config["CHIP_SELECTS"] for layout in eight)
    assert all(list(layout.zones) == hub["zones"] for layout in eight)
