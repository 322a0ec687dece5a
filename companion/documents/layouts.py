"""The files of each table layout (``hardware/zones.toml``), written into ``hardware/layouts/NAME/``:

- ``config.toml``: the keys of ``/etc/companion/config.toml`` the layout sets (its game, zones and readers);
- ``pinmap.toml``: ``hardware/pinmap.toml`` with the layout's ``[hub]`` zones and chip selects (the Pi-alone
  layouts wire the pin map's own ``[zones]``), to copy to ``/etc/companion/pinmap.toml``;
- ``hub_config.py`` (hub layouts): the firmware's ``hub_config.py`` with the layout's ``CHIP_SELECTS``, for
  ``make firmware-deploy HUB_CONFIG=...``; its ``ZONES`` is their count.

Derived, never edited: ``python -m companion.documents`` writes them, and a test fails when a committed one
differs from what the layout and the shipped files make.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.hardware import Layout, PinMap, parse_pinmap

__all__ = ["FIRMWARE_CONFIG", "LAYOUTS_FOLDER", "layout_files", "layout_pinmap", "layout_pinmap_text"]

FIRMWARE_CONFIG = Path(__file__).resolve().parents[2] / "firmware" / "hub_config.py"
LAYOUTS_FOLDER = "layouts"  # under hardware/


def _written(layout: Layout, source: str) -> str:
    return (
        f"# The table layout {layout.name} of hardware/zones.toml, from {source}.\n"
        "# Written by python -m companion.documents: edit the layout, not this file.\n"
    )


def config_text(layout: Layout) -> str:
    """The config keys of ``layout``, as TOML: what the README's "At the table" shows for its layout."""
    lines = [
        _written(layout, "its pads").rstrip(),
        "# Set these keys in /etc/companion/config.toml (sudo nano /etc/companion/config.toml).",
    ]
    for table, keys in layout.config_keys().items():
        lines += ["", f"[{table}]", *(f"{key} = {json.dumps(value)}" for key, value in keys.items())]
    return "\n".join(lines) + "\n"


def layout_pinmap_text(layout: Layout, pinmap_text: str) -> str:
    """The pin map ``pinmap_text`` wired for ``layout``: its ``[hub]`` zones and chip selects are the layout's."""
    text = pinmap_text
    if layout.on_hub:
        zones = ", ".join(json.dumps(zone) for zone in layout.zones)
        hub = text.index("\n[hub]\n")
        head, tail = text[:hub], text[hub:]
        tail = re.sub(r"^zones = \[.*\]$", f"zones = [{zones}]", tail, count=1, flags=re.M)
        tail = re.sub(
            r"^chip_selects = \[.*\]$", f"chip_selects = {list(layout.chip_selects)}", tail, count=1, flags=re.M
        )
        text = head + tail
    return _written(layout, "hardware/pinmap.toml") + text


def layout_pinmap(layout: Layout, pinmap: PinMap) -> PinMap:
    """``pinmap`` (read from its file) wired for ``layout``; its checks refuse a layout it cannot wire."""
    text = layout_pinmap_text(layout, Path(pinmap.source).read_text("utf-8"))
    wired = parse_pinmap(text, f"hardware/layouts/{layout.name}/pinmap.toml")
    zones = tuple(wired.hub.zones) if layout.on_hub and wired.hub else tuple(wired.zones)
    if zones != layout.zones:
        raise ValueError(f"layout {layout.name}: its pads are zones {layout.zones}, the pin map wires {zones}")
    return wired


def hub_config_text(layout: Layout, firmware_text: str) -> str:
    """The firmware's ``hub_config.py`` with ``layout``'s chip selects."""
    selects = f"CHIP_SELECTS = {layout.chip_selects!r}  # {', '.join(layout.zones)}"
    text, found = re.subn(r"^CHIP_SELECTS = \(.*\)$", selects, firmware_text, count=1, flags=re.M)
    if not found:
        raise ValueError(f"{FIRMWARE_CONFIG}: no CHIP_SELECTS = (...) line to set the layout's chip selects in")
    return _written(layout, "firmware/hub_config.py") + text


def layout_files(layout: Layout, pinmap: PinMap, firmware_text: str) -> dict[str, str]:
    """Each file of ``layout``'s folder (its name) -> its text."""
    layout_pinmap(layout, pinmap)  # refused here, not at the table, when the pin map cannot wire it
    files = {
        "config.toml": config_text(layout),
        "pinmap.toml": layout_pinmap_text(layout, Path(pinmap.source).read_text("utf-8")),
    }
    if layout.on_hub:
        files["hub_config.py"] = hub_config_text(layout, firmware_text)
    return files
