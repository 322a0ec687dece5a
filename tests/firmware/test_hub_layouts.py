"""Each hub layout's ``hub_config.py`` (hardware/layouts/NAME/) passes the firmware's own check, says as many zones
as the layout has pads, and a hub booted from it is taken by a companion configured with the layout's config; a hub
booted for another layout is refused with both counts, not as a lost cable."""

import asyncio
import runpy
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest
from test_hub_app import MemoryPort, link

import companion.sim as sim
from companion.hardware import HARDWARE_DIR, load_layouts
from companion.hub.session import HubOffline, HubOnline, HubSession
from companion.hub.simulated import FIRMWARE

HUB_LAYOUTS = [layout for layout in load_layouts().values() if layout.on_hub]


def settings(path: Path) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{k: v for k, v in runpy.run_path(str(path)).items() if k.isupper()})


def config_zones(name: str) -> list[str]:
    return list(tomllib.loads((HARDWARE_DIR / "layouts" / name / "config.toml").read_text("utf-8"))["zones"])


@pytest.fixture
def firmware(board: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    import hub_app
    import machine

    machine.attach(sim.machine_spi(0), {gpio: sim.machine_pin(0, zone) for zone, gpio in enumerate(range(8))})
    monkeypatch.chdir(tmp_path)
    return hub_app


def hello(firmware: Any, cfg: types.SimpleNamespace, zones: list[str]) -> list[Any]:
    port = MemoryPort()
    hub = firmware.build(cfg, port)
    session = HubSession(zones)

    async def boot() -> list[Any]:
        hub.start()
        session.open(0.0)
        events = link(hub, session, port)
        hub.deinit()
        return events

    return asyncio.run(boot())


@pytest.mark.parametrize("layout", HUB_LAYOUTS, ids=lambda layout: layout.name)
def test_each_hub_layout_flashes_a_config_the_firmware_and_the_companion_take(firmware: Any, layout: Any) -> None:
    cfg = settings(HARDWARE_DIR / "layouts" / layout.name / "hub_config.py")
    assert firmware.check_config(cfg) == []
    assert cfg.ZONES == len(cfg.CHIP_SELECTS) == len(layout.pads)
    assert layout.chip_selects == cfg.CHIP_SELECTS
    events = hello(firmware, cfg, config_zones(layout.name))
    assert [type(event) for event in events][:1] == [HubOnline]


def test_the_shipped_firmware_on_a_4_reader_layout_is_refused_with_both_counts(firmware: Any) -> None:
    """The README's step left out (the firmware flashed as shipped, 8 readers, for the 4-reader layout's config):
    the hub has 8 zones, the config names 4, and the fix is to flash the layout's file."""
    (event,) = hello(firmware, settings(FIRMWARE / "hub_config.py"), config_zones("seises-hub-4"))
    assert isinstance(event, HubOffline) and event.zones == (8, 4)
    assert str(event.reason).startswith("hub has 8 zones, config names 4")
    assert "HUB_CONFIG=hardware/layouts/NAME/hub_config.py" in str(event.reason)


def test_zones_is_the_count_of_chip_selects(firmware: Any) -> None:
    """Changing the chip selects alone changes the count: ZONES cannot disagree with them any more."""
    source = (FIRMWARE / "hub_config.py").read_text("utf-8")
    assert "ZONES = len(CHIP_SELECTS)" in source
    namespace: dict[str, Any] = {}
    exec(source.replace("CHIP_SELECTS = (0, 1, 2, 3, 4, 5, 6, 7)", "CHIP_SELECTS = (0, 1, 2)"), namespace)
    assert namespace["ZONES"] == 3
