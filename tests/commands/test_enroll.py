"""``companion enroll`` at a table with no OLED on its bus: the terminal says so, in the command line's language
(luma's own words for it are English: "I2C device not found: /dev/i2c-1")."""

from __future__ import annotations

import luma.core.error
import pytest
from one_language import foreign_lines

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
