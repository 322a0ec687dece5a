"""One assembly: every table is wired by ``companion.assembly.assemble``, the service's and the demo's alike; here
around simulated devices (the register-level chip simulator, gpiozero's mock pins, the real luma driver on the fake
I2C bus), the table it builds referees a card laid and confirmed, as the service's does."""

from __future__ import annotations

import ast
from pathlib import Path

from gpiozero.pins.mock import MockFactory

import companion
from companion.assembly import Devices, assemble
from companion.config import Config, GameConfig
from companion.events import Button
from companion.hardware import load_pinmap
from companion.journal import Entry, Journal
from companion.nfc.backends import SimBackend
from companion.nfc.registry import Registry
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, make_device
from companion.ui.lights import ZoneLights
from companion.view import ZoneLight
from companion.web import WebServer
from companion.web.settings import PhoneSettings

PACKAGE = Path(companion.__file__).parent
WIRED = ("Table", "Buttons", "WebServer", "VirtualTable")  # the parts only the assembly puts together


def test_the_table_is_wired_in_one_place() -> None:
    """No module but the assembly makes a table, its buttons, its page or the page's virtual hand."""
    made: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "assembly.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in WIRED:
                made.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.func.id}")
    assert made == []


def test_the_assembly_builds_a_table_that_referees_a_card_laid_and_confirmed(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    now = [0.0]
    config = Config(game=GameConfig(), zones={"z1": "table"}, backend="sim", web=("127.0.0.1", 0))
    registry = Registry.load(tmp_path / "registry.toml", deck="spanish-40")
    readers = SimBackend(["z1"], registry)
    readers.init()
    registry.bind(readers.tag("6O").uid, "6O")
    journal = Journal(tmp_path / "journal.db")
    pinmap = load_pinmap()
    screen = Screen(make_device([], bus=FakeI2CBus()))
    devices = Devices(journal, registry, readers, pinmap, mock_factory, lambda: now[0], lambda call: call(), screen)
    assembly = assemble(config, devices)
    table = assembly.table
    # the LED first; the page's settings see each pairing code before the page is sent the view
    assert [type(output) for output in table.outputs] == [ZoneLights, Screen, PhoneSettings, WebServer]
    assert assembly.web is not None and assembly.web.virtual is not None, "simulated readers, mock pins: virtual"
    table.start(now[0])

    readers.put("6O", "z1")
    for _ in range(3):
        now[0] += 0.01
        for scan in readers.poll(now[0]):
            table.scan(scan, now[0])
    assert table.referee.view().zone_lights["z1"] is ZoneLight.PENDING_OK
    pin = mock_factory.pin(pinmap.buttons[Button.CONFIRM])
    pin.drive_low()
    now[0] += 0.2
    pin.drive_high()
    assembly.buttons.tick(now[0] + 0.1)
    assert journal.entries(table.game_id) == [Entry("action", "play 6O", now[0])]

    assembly.close()
    assert all(button.closed for button in assembly.buttons.devices.values())
    journal.close()
