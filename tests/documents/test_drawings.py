"""The wiring diagrams, play mats and layout files in hardware/ are the ones the pin map and the table layouts
(hardware/zones.toml) make today: a derived file that disagrees with its source fails here."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from seises_pads import seises_pad

from companion.config import GameConfig, parse_config
from companion.decks import load_deck
from companion.documents.__main__ import main as documents_main
from companion.documents.assembly import (
    PANEL,
    TOP,
    assembly_drawings,
    hub_board,
    write_assembly,
)
from companion.documents.drawings import (
    COLOURS,
    LED_HOLE,
    LED_OFFSET,
    Label,
    Rect,
    Wire,
    draw_all,
    label_width,
    led_place,
    mats,
    wiring_hub,
    wiring_name,
    wiring_pi,
)
from companion.documents.layouts import layout_pinmap
from companion.events import Button, CardArrived, CardLeft, Press
from companion.games.sexto_set.drawings import turn as sexto_set_turn
from companion.hardware import DEFAULT_PINMAP, HARDWARE_DIR, LAYOUTS, PICO_PINS, load_layouts, load_pinmap, parse_pinmap
from companion.i18n import languages, translate
from companion.referee import Referee

HARDWARE = HARDWARE_DIR
TEXT = DEFAULT_PINMAP.read_text("utf-8")
REDRAW = "redraw them with: .venv/bin/python -m companion.documents"


def test_the_committed_drawings_and_layout_files_are_up_to_date(tmp_path: Path) -> None:
    written = draw_all(load_pinmap(), LAYOUTS, tmp_path) + write_assembly(load_pinmap(), tmp_path)
    for fresh in written:
        committed = HARDWARE / fresh.relative_to(tmp_path)
        assert committed.exists(), f"{committed} is missing; {REDRAW}"
        if fresh.suffix == ".png":
            difference = ImageChops.difference(Image.open(committed).convert("RGB"), Image.open(fresh).convert("RGB"))
            assert difference.getbbox() is None, f"{committed} is stale; {REDRAW}"
        else:
            assert committed.read_text("utf-8") == fresh.read_text("utf-8"), f"{committed} is stale; {REDRAW}"
    # nothing left over from an old layout or a mat no layout draws
    derived = {path for folder in ("mats", "layouts") for path in (HARDWARE / folder).rglob("*") if path.is_file()}
    derived |= {*HARDWARE.glob("wiring-*"), *HARDWARE.glob("assembly-*"), *HARDWARE.glob("sexto-set-turn.*")}
    assert derived == {HARDWARE / path.relative_to(tmp_path) for path in written}


def test_a_derived_file_edited_by_hand_fails_the_check(tmp_path: Path) -> None:
    """The check above compares every byte: a layout file changed by hand is stale."""
    written = draw_all(load_pinmap(), LAYOUTS, tmp_path)
    hub_config = tmp_path / "layouts" / "seises-hub-4" / "hub_config.py"
    assert hub_config in written
    committed = (HARDWARE / "layouts" / "seises-hub-4" / "hub_config.py").read_text("utf-8")
    assert hub_config.read_text("utf-8") == committed
    assert committed.replace("CHIP_SELECTS = (0, 1, 2, 3)", "CHIP_SELECTS = (0, 1, 2, 3, 4)") != committed


def test_each_mat_is_written_in_each_language_to_its_own_file(tmp_path: Path) -> None:
    written = {path.relative_to(tmp_path).as_posix() for path in draw_all(load_pinmap(), LAYOUTS, tmp_path)}
    for name, lang in itertools.product(load_layouts(), languages()):
        assert {f"mats/{lang}/{name}.svg", f"mats/{lang}/{name}.png"} <= written
    assert documents_main(["--lang", "en"]) == 2  # no option writes one language over the other's files


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


def test_every_pad_is_a_zone_its_layouts_pin_map_wires() -> None:
    pinmap = load_pinmap()
    for layout in load_layouts().values():
        wired = layout_pinmap(layout, pinmap)
        zones = tuple(wired.zones) if not layout.on_hub else wired.hub.zones if wired.hub else ()
        assert zones == layout.zones, layout.name
        if layout.on_hub:
            assert wired.hub is not None and wired.hub.chip_selects == layout.chip_selects
            assert wiring_hub(wired).svg() == (HARDWARE / f"{wiring_name(layout, pinmap)}.svg").read_text("utf-8")


def test_every_layout_is_a_table_the_daemon_accepts() -> None:
    """A layout's config keys (its own file) are a config the service starts with (6º SET needs its 8 zones)."""
    for name in load_layouts():
        path = HARDWARE / "layouts" / name / "config.toml"
        config = parse_config(path.read_text("utf-8"), str(path))
        assert tuple(config.zones) == load_layouts()[name].zones


@pytest.mark.parametrize("name", [name for name, layout in load_layouts().items() if layout.game == "seises"])
def test_every_seises_card_has_one_pad_and_its_pad_says_so(name: str) -> None:
    """Each card of either Spanish deck goes on one pad only (or on any, where every pad says "any card"), one the
    referee takes it on; the pad where a suit's 6 goes says "the 6", so a player knows where it goes."""
    layout = load_layouts()[name]
    for card in load_deck("spanish-48"):
        assert card.suit is not None and card.rank is not None
        takers = [
            pad
            for pad in layout.pads
            if pad.role in ("table", card.suit) and (pad.ranks is None or pad.ranks[0] <= card.rank <= pad.ranks[1])
        ]
        assert takers and takers[0] == seises_pad(layout, card.suit, card.rank), (name, card.id)
        if takers[0].role == "table":
            continue  # any pad takes any card: the mat says so
        assert len(takers) == 1, (name, card.id)
        if card.rank == 6 and takers[0].role != "table":
            assert "the 6" in takers[0].label, (name, card.id)
        if takers[0].ranks is not None:  # the label gives the pad's ranks
            assert all(str(rank) in takers[0].label for rank in takers[0].ranks), (name, takers[0].label)


def test_mats_print_at_their_true_size_on_a3() -> None:
    svg = (HARDWARE / "mats" / "es" / "seises-hub-8.svg").read_text("utf-8")
    assert 'width="420mm" height="297mm"' in svg


def test_the_mats_print_their_words_in_the_language_asked_for() -> None:
    english = mats(LAYOUTS, "en")["seises-hub-8"].svg()
    spanish = mats(LAYOUTS, "es")["seises-hub-8"].svg()
    assert ">Coins: the 6,<" in english and "Two readers a suit" in english and "Oros" not in english
    assert ">Oros: el 6,<" in spanish and "Dos lectores por palo" in spanish and "Coins" not in spanish
    sexto = mats(LAYOUTS, "en")["sexto-set-hub-8"].svg()
    assert "line M1R" in sexto and "{card}" not in sexto  # a card id is printed as it is


@pytest.mark.parametrize("lang", languages())
def test_every_word_of_a_mat_lies_inside_its_pad_or_the_sheet(lang: str) -> None:
    """A label is as wide as its font draws it (6 px a letter, at the mat's scale, the PNG's whole-factor scale
    included): none crosses its pad's edge or the sheet's border, and a pad's words end above its antenna's
    square, in any language."""
    for name, layout in load_layouts().items():
        drawing = mats(LAYOUTS, lang)[name]
        antennas = [shape for shape in drawing.shapes if isinstance(shape, Rect) and shape.dashed]  # a pad's each
        for label in (shape for shape in drawing.shapes if isinstance(shape, Label)):
            half = label_width(drawing, label) / 2
            left, right = label.x - half, label.x + half
            assert left > 5 and right < 415, (name, lang, label.text)
            for pad, antenna in zip(layout.pads, antennas, strict=True):
                top, width = pad.y - layout.pad[1] / 2, layout.pad[0]
                if label.x == pad.x and top < label.y < antenna.y:  # the words of what goes on the pad
                    assert pad.x - width / 2 < left and right < pad.x + width / 2, (name, lang, label.text)
                    assert label.y + drawing.text_unit <= antenna.y, (name, lang, label.text)


def test_the_assembly_pictures_are_committed_and_shown_in_the_readme(tmp_path: Path) -> None:
    """Each assembly picture is written with the rest (so the check above compares it with the committed one) and
    the README shows it; the README's figures are the drawings' own."""
    written = {path.relative_to(tmp_path).as_posix() for path in write_assembly(load_pinmap(), tmp_path)}
    readme = (HARDWARE / "README.md").read_text("utf-8")
    for name in assembly_drawings(load_pinmap()):
        assert {f"{name}.svg", f"{name}.png"} <= written
        assert f"]({name}.png)" in readme and f"({name}.svg)" in readme, name
    assert f"at most {TOP} mm thick" in readme and f"a {LED_HOLE} mm hole" in readme
    assert f"{LED_OFFSET} mm outside the pad" in readme and f"a {PANEL} mm panel" in readme


@pytest.mark.parametrize(("gp", "pin", "ground"), [(22, 29, 28), (0, 1, 3)])
def test_the_hub_board_puts_the_jumper_beside_the_pico_pins_of_the_map(gp: int, pin: int, ground: int) -> None:
    text = TEXT.replace("chip_selects = [0,", "chip_selects = [10,").replace("maintenance = 22", f"maintenance = {gp}")
    svg = hub_board(parse_pinmap(text, "pinmap.toml")).svg()
    assert f">GP{gp} (pin {pin})<" in svg and f">GND (pin {ground})<" in svg
    assert svg.count(f'stroke="{COLOURS["jumper"]}"') == 2  # its wire and its cap's outline


def test_the_6o_set_turn_shows_the_referees_own_words() -> None:
    """The picture of a 6º SET turn prints what the screen says, from the referee's texts: a change of the words
    changes the picture (and the check above fails until it is redrawn)."""
    svg = sexto_set_turn("en").svg()
    assert ">Master 1 red on z1<" in svg and ">Lift it off the pad, then the next<" in svg
    assert ">Lift card N01 (1R|2R) off z1<" in svg and ">Then the new card counts<" in svg
    assert ">Quita carta N01 (1R|2R) de z1<" in sexto_set_turn("es").svg()


def test_the_6o_set_walkthrough_quotes_the_referees_words() -> None:
    """Every sentence hardware/README.md's "6º SET at the table" puts in quotes is one the referee says (in English,
    as a table set so does) or a mat's: the walkthrough cannot drift from the screen."""
    readme = (HARDWARE / "README.md").read_text("utf-8")
    section = readme.split("## 6º SET at the table", 1)[1].split("\n## ", 1)[0]
    referee = Referee(GameConfig(name="sexto-set", language="en"), {f"z{i}": "auto" for i in range(1, 9)})
    said: set[str] = {"auto"}
    message = referee.view().message  # what to lay where, until the zones know their master cards
    assert message is not None
    said |= {message.title, message.todo}
    masters = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
    for zone, master in enumerate(masters, start=1):
        referee.handle(CardArrived(f"z{zone}", master), 0.0)
        message = referee.view().message
        assert message is not None
        said |= {message.title, message.todo}
        if zone > 1:
            referee.handle(CardLeft(f"z{zone}", master), 0.0)
    referee.handle(CardArrived("z1", "N01"), 0.0)  # on M1R, still on z1
    referee.handle(CardLeft("z1", "M1R"), 0.0)
    referee.handle(Press(Button.CONFIRM, "short", 0.0), 0.0)
    referee.handle(CardArrived("z1", "N14"), 0.0)  # N01 left on the reader
    message = referee.view().message
    assert message is not None
    said |= {message.title, message.todo, referee.text("next_set", leads="B")}
    said |= {translate(pad.label, "en").format(card=pad.card) for pad in load_layouts()["sexto-set-hub-8"].pads}
    quoted = re.findall(r'"([^"]+)"', section)
    assert len(quoted) >= 8
    for text in quoted:
        assert " ".join(text.split()) in said, text


@pytest.mark.parametrize("name", list(load_layouts()))
def test_each_pads_led_hole_is_drawn_on_the_mat_off_every_pad(name: str) -> None:
    """The circle beside each pad is its LED's hole, as the pad's cross-section and the README place it: LED_OFFSET
    mm beyond the pad's edge, LED_HOLE mm across, on the sheet and clear of every pad (a card never covers it)."""
    layout = load_layouts()[name]
    drawing = mats(LAYOUTS, "en")[name]
    holes = [shape for shape in drawing.shapes if isinstance(shape, Wire) and len(shape.points) == 25]
    assert len(holes) == len(layout.pads)
    width, height = layout.pad
    for pad, hole in zip(layout.pads, holes, strict=True):
        xs, ys = [x for x, _ in hole.points], [y for _, y in hole.points]
        centre = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
        assert centre == pytest.approx(led_place(layout, pad.x, pad.y))
        assert max(xs) - min(xs) == pytest.approx(LED_HOLE)
        assert abs(centre[1] - pad.y) == pytest.approx(height / 2 + LED_OFFSET)
        assert min(xs) > 5 and max(xs) < 415 and min(ys) > 20 and max(ys) < 280, (name, pad.zone)
        for other in layout.pads:
            apart_x = abs(centre[0] - other.x) - width / 2
            apart_y = abs(centre[1] - other.y) - height / 2
            assert max(apart_x, apart_y) >= LED_HOLE / 2, (name, pad.zone, other.zone)
