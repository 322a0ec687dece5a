"""The input events: buttons as one named type, presses beside the readers' events, one spelling of a UID."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import companion
from companion.config import GameConfig
from companion.events import Button, Press, UnknownTag, hexuid
from companion.hardware import PinMapError, load_pinmap, parse_pinmap
from companion.nfc.registry import uid_key
from companion.referee import Referee
from companion.ui.buttons import PressClassifier

PACKAGE = Path(companion.__file__).parent


def test_the_buttons_are_one_type_whose_values_are_the_pin_maps_words() -> None:
    assert [button.value for button in Button] == ["confirm", "pass", "undo"]
    pins = load_pinmap().buttons
    assert list(pins) == list(Button) and all(type(button) is Button for button in pins)
    text = Path(load_pinmap().source).read_text("utf-8").replace("undo = 13", "redo = 13")
    with pytest.raises(PinMapError, match=r"buttons\.undo: missing"):
        parse_pinmap(text, "pinmap.toml")


def test_the_classifier_reports_the_button_as_a_button() -> None:
    classifier = PressClassifier()
    assert classifier.edge(Button.PASS, True, 0.0) == []
    (press,) = classifier.edge(Button.PASS, False, 0.1)
    assert press == Press(Button.PASS, "short", 0.1) and press.button is Button.PASS


@pytest.mark.parametrize("module", ["companion.events", "companion.table"])
def test_presses_come_in_without_the_buttons_driver(module: str) -> None:
    """The referee and the table take presses as they take scans: importing them loads no gpiozero."""
    code = f"import sys, {module}; print(sorted(name for name in sys.modules if name.startswith('gpiozero')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_a_button_is_defined_once() -> None:
    """No module spells out the three buttons' words as a tuple of its own."""
    words = {button.value for button in Button}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                values = {elt.value for elt in node.elts if isinstance(elt, ast.Constant)}
                assert values != words, f"{path}:{node.lineno}: use companion.events.Button"


def test_one_spelling_of_a_uid() -> None:
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    assert hexuid(uid) == uid_key(uid) == uid_key("04:a1:b2:c3:d4:e5:f6") == "04A1B2C3D4E5F6"
    referee = Referee(GameConfig(), zones={"z1": "table"})
    referee.handle(UnknownTag("z1", uid), 0.0)
    assert referee.zones.lying["z1"] == {"04A1B2C3D4E5F6"}


def test_only_the_events_module_spells_a_uid() -> None:
    """``uid.hex().upper()`` is written once, in :func:`companion.events.hexuid`; the reader driver, which runs on
    the hub where there is no ``companion`` package, spells bytes in its messages itself and exports nothing."""
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "upper"
                and isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Attribute)
                and node.func.value.func.attr == "hex"
            ):
                spelled.append(path.relative_to(PACKAGE.parent).as_posix())
    assert spelled == ["companion/events.py"]
    rc522 = ast.parse((PACKAGE / "nfc" / "rc522.py").read_text("utf-8"))
    assert "hexuid" not in {node.name for node in rc522.body if isinstance(node, ast.FunctionDef)}
