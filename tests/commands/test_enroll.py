"""``companion enroll`` at a table with no OLED on its bus: the terminal says so, in the command line's language
(luma's own words for it are English: "I2C device not found: /dev/i2c-1"); a pin map's mistakes, each on a line."""

from __future__ import annotations

from pathlib import Path

import luma.core.error
import pytest
from one_language import foreign_lines

from companion.cli import main
from companion.commands.enroll import oled_trouble
from companion.hardware import DEFAULT_PINMAP, parse_pinmap
from companion.i18n import language, set_language
from companion.ui.display import make_device


@pytest.mark.parametrize(
    ("lang", "said"), [("es", "/dev/i2c-9: no existe el fichero"), ("en", "/dev/i2c-9: no such file")]
)
def test_an_oled_bus_that_is_not_there_is_said_in_the_language(lang: str, said: str) -> None:
    pinmap = parse_pinmap(DEFAULT_PINMAP.read_text("utf-8").replace("i2c_port = 1", "i2c_port = 9"), "pinmap.toml")
    with pytest.raises(luma.core.error.DeviceNotFoundError) as raised:  # the real luma on a bus that is not there
        make_device(pinmap.oled)
    before = language()
    set_language(lang)
    try:
        assert oled_trouble(raised.value, pinmap) == said
        assert not foreign_lines(said, lang)
    finally:
        set_language(before)


def test_every_mistake_of_the_pin_map_is_a_line_of_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pinmap = tmp_path / "pinmap.toml"
    shipped = DEFAULT_PINMAP.read_text("utf-8")
    pinmap.write_text(shipped.replace("undo = 13", "undo = 2").replace("pin = 26", "pin = 5"), "utf-8")
    config = tmp_path / "config.toml"
    config.write_text(f'[pins]\nmap = "{pinmap}"\n', "utf-8")
    assert main(["enroll", "--config", str(config), "--lang", "en"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 3)[2] for line in err] == ["buttons.undo = 2", "status_led.pin = 5"], err
    assert all(line.startswith(f"companion enroll: {pinmap}: ") for line in err)


@pytest.mark.parametrize("command", ["enroll", "cards"])
def test_a_pin_map_s_mistakes_are_said_in_the_command_line_s_language(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """enroll and cards, which share the readers' options, say a broken pin map in ``--lang``'s words (cards said
    it in English whatever the language)."""
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(DEFAULT_PINMAP.read_text("utf-8").replace("undo = 13", "undo = 2"), "utf-8")
    config = tmp_path / "config.toml"
    config.write_text(f'[pins]\nmap = "{pinmap}"\n', "utf-8")
    args = [command, "--config", str(config), "--lang", "es"]
    assert main([*args, "--identify"] if command == "cards" else args) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"companion {command}: {pinmap}: buttons.undo = 2: GPIO2 es SDA de I2C1"), line
    assert not foreign_lines(line, "es"), line
