"""The voice's hardware in hardware/README.md ("Sound") and its diagram: the MAX98357A on the Pi's I2S pins, pins no
pin map of the builds uses, the overlay line doctor reads, and the three outputs with the PCM each is named by."""

from __future__ import annotations

import pytest

from companion.doctor.sound import I2S_OVERLAYS, I2S_PINS, SDMODE_DEFAULT, card_of
from companion.documents.drawings import COLOURS, SOUND_PINS, wiring_sound
from companion.hardware import DEFAULT_PINMAP, HARDWARE_DIR, HEADER_PINS, load_pinmap, parse_pinmap

README = (HARDWARE_DIR / "README.md").read_text("utf-8")
SOUND = " ".join(README.split("\n## Sound\n", 1)[1].split("\n## ", 1)[0].split())
PIN_MAPS = [DEFAULT_PINMAP, HARDWARE_DIR / "pinmap.toml", *sorted(HARDWARE_DIR.glob("layouts/*/pinmap.toml"))]


def test_the_amplifier_is_wired_to_the_i2s_pins_and_sd_to_the_overlays_sdmode_pin() -> None:
    assert {SOUND_PINS[name] for name in ("BCLK", "LRC", "DIN")} == {18, 19, 21} <= I2S_PINS.keys()
    assert SOUND_PINS["SD"] == SDMODE_DEFAULT  # the pin dtoverlay=max98357a drives unless told otherwise
    svg = wiring_sound(load_pinmap()).svg()
    for name, gpio in SOUND_PINS.items():
        said = f"{name} to GPIO{gpio} (pin {HEADER_PINS[gpio]})"
        assert said in SOUND, said
        assert f">GPIO{gpio} (pin {HEADER_PINS[gpio]}) {name}<" in svg and f">{name}<" in svg
    assert svg.count(f'stroke="{COLOURS["i2s"]}"') == len(SOUND_PINS)
    assert ">5V (pin 4)<" in svg and ">GND (pin 39)<" in svg and "VIN to 5V (pin 4), GND to GND (pin 39)" in SOUND
    assert ">config.txt: dtoverlay=max98357a<" in svg and "```\ndtoverlay=max98357a\n```" in README
    assert "dtoverlay=max98357a,no-sdmode" in SOUND and "`dtoverlay=hifiberry-dac`" in SOUND
    assert set(I2S_OVERLAYS) == {"max98357a", "hifiberry-dac"}


@pytest.mark.parametrize("path", PIN_MAPS, ids=lambda path: str(path.relative_to(path.parents[1])))
def test_every_shipped_pin_map_leaves_the_amplifiers_pins_free(path: object) -> None:
    pinmap = load_pinmap(path)  # type: ignore[arg-type]
    used = {pin for _key, pin in pinmap.gpios()}
    assert not used & ({*I2S_PINS, *SOUND_PINS.values()}), path
    wiring_sound(pinmap)


def test_a_pin_map_on_an_i2s_pin_has_no_amplifier_diagram() -> None:
    text = DEFAULT_PINMAP.read_text("utf-8").replace("green = 27", "green = 18")
    with pytest.raises(ValueError, match=r"BCLK on GPIO18 \(zones.z1.green\)"):
        wiring_sound(parse_pinmap(text, "pinmap.toml"))


def test_each_output_is_named_by_a_pcm_on_its_card() -> None:
    table = [line for line in README.split("\n## Sound\n", 1)[1].split("\n## ", 1)[0].splitlines() if line[:2] == "| "]
    rows = table[2:]  # past the head and its rule
    devices = [line.rstrip(" |").rsplit("| ", 1)[1].split("`")[1].strip('"') for line in rows]
    assert [card_of(device) for device in devices] == ["Headphones", "<its id>", "MAX98357A"]
    assert all(device.startswith("plughw:") for device in devices)  # espeak-ng's mono at 22050 Hz, converted
    assert I2S_OVERLAYS["max98357a"] == "MAX98357A"
    assert "`sudo companion doctor`" in SOUND and "alsactl store" in SOUND
