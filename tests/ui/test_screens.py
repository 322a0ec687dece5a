"""The screens through the real ssd1306 driver on a fake I2C bus, against the reference PNGs in reference/.

After a deliberate change of a screen, redraw the references with
``.venv/bin/companion screens --out tests/ui/reference`` and look at them before committing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import luma.core.error
import luma.oled.device
import pytest
from luma.core.interface.serial import i2c
from PIL import Image, ImageChops, ImageDraw

from companion.cli import main
from companion.examples import example_views
from companion.examples.contact import contact_sheets
from companion.games import kinds
from companion.games.seises import Seat, SeisesView
from companion.games.seises.screen import draw_scoreboard as draw_seises
from companion.games.sexto_set import SextoSetView
from companion.i18n import languages
from companion.sim.oled import FakeI2CBus
from companion.ui.display import Screen, frame_to_text, make_device
from companion.ui.screens import TextOverflow, draw_menu, draw_message, put, render
from companion.view import MenuView, Message, MessageKind, TableView

REFERENCE = Path(__file__).parent / "reference"
OnScreen = Callable[[Callable[[ImageDraw.ImageDraw], object]], Image.Image]
EXAMPLES = [(language, name) for language in languages() for name in example_views(language)]


@pytest.fixture
def bus() -> FakeI2CBus:
    return FakeI2CBus()


@pytest.fixture
def screen(bus: FakeI2CBus) -> Screen:
    return Screen(make_device([], bus=bus), dim_after_s=60.0)


def _lit(image: Image.Image) -> Image.Image:
    """Lit pixels as 255 and dark ones as 0, whatever value a drawing or a PNG file stored for 'lit'."""
    return image.convert("L").point(lambda value: 255 if value else 0)


def _differs(a: Image.Image, b: Image.Image) -> tuple[int, int, int, int] | None:
    assert a.size == b.size == (128, 64)
    return ImageChops.difference(_lit(a), _lit(b)).getbbox()


@pytest.mark.parametrize(("language", "name"), EXAMPLES)
def test_each_screen_sent_through_the_driver_matches_its_reference(
    language: str, name: str, screen: Screen, bus: FakeI2CBus
) -> None:
    view = example_views(language)[name]
    frames = bus.frames
    assert screen.show(view, now=1.0)
    assert bus.frames == frames + 1
    reference = Image.open(REFERENCE / f"{language}-{name}.png")
    assert _differs(bus.last_image(), reference) is None, f"{language}-{name} differs from its reference PNG"


@pytest.mark.parametrize(("language", "name"), EXAMPLES[:: len(EXAMPLES) // 6])
def test_the_decoded_frame_is_the_drawing_itself(language: str, name: str, screen: Screen, bus: FakeI2CBus) -> None:
    view = example_views(language)[name]
    screen.show(view, now=0.0)
    assert _differs(bus.last_image(), render(view)) is None
    assert render(view).getbbox() is not None


def test_every_reference_belongs_to_a_screen() -> None:
    expected = {f"{language}-{name}.png" for language, name in EXAMPLES}
    assert {path.name for path in REFERENCE.glob("*.png")} == expected


def test_the_screens_command_writes_the_reference_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["screens", "--out", str(tmp_path)]) == 0
    sheets = [f"{language}-{game}-whole-game" for language in languages() for game in kinds()]
    wrote = len(EXAMPLES) + len(sheets)
    assert capsys.readouterr().out == f"companion screens: wrote {wrote} PNG files to {tmp_path}\n"
    for language, name in EXAMPLES:
        written = Image.open(tmp_path / f"{language}-{name}.png")
        assert _differs(written, Image.open(REFERENCE / f"{language}-{name}.png")) is None
    assert all((tmp_path / f"{sheet}.png").is_file() for sheet in sheets), "a whole game of each kind, each language"


def test_the_screens_command_scales_for_the_docs(tmp_path: Path) -> None:
    assert main(["screens", "--out", str(tmp_path), "--scale", "3"]) == 0
    assert Image.open(tmp_path / "es-menu.png").size == (384, 192)


def test_screens_says_a_folder_it_cannot_write_and_a_wrong_scale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert main(["screens", "--out", str(tmp_path / "file" / "x"), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion screens: --out {tmp_path}/file/x: cannot write there") and "Traceback" not in err
    assert main(["screens", "--out", str(tmp_path), "--scale", "0", "--lang", "es"]) == 2
    assert capsys.readouterr().err == "companion screens: --scale 0: da un número entero de al menos 1\n"


def test_accented_letters_have_their_own_glyphs() -> None:
    def drawn(text: str) -> Image.Image:
        image = Image.new("1", (60, 13))
        put(ImageDraw.Draw(image), (0, 0), text, "bold", 60)
        return image

    for plain, accented in (("Ano", "Año"), ("6o", "6º"), ("vacia", "vacía"), ("!", "¡")):
        assert ImageChops.difference(_lit(drawn(plain)), _lit(drawn(accented))).getbbox() is not None, accented


def test_a_text_too_wide_for_its_box_is_refused() -> None:
    image = Image.new("1", (128, 64))
    menu = MenuView("Menú", ("Jugadores: ocho jugadores en la mesa",), 0, "")
    with pytest.raises(TextOverflow, match="ocho jugadores en la mesa"):
        draw_menu(ImageDraw.Draw(image), menu)
    long_message = Message(MessageKind.ILLEGAL, "Jugada ilegal", " ".join(["Retira la carta de la mesa"] * 4))
    with pytest.raises(TextOverflow, match=r"needs 7[0-9] px"):
        draw_message(ImageDraw.Draw(image), long_message)
    with pytest.raises(TextOverflow, match="wider than the screen"):
        draw_message(ImageDraw.Draw(image), Message(MessageKind.INFO, "Desconexiónsúbitadelmultiplexor"))


def test_long_player_names_are_shortened_not_spilled(on_screen: OnScreen) -> None:
    seats = tuple(Seat(f"Maximiliano{i}", 10, 49) for i in range(8))
    view = SeisesView(seats=seats, turn=7, mano=0, pot=50, reserve=0, owed=99)
    assert on_screen(lambda draw: draw_seises(draw, view)).getbbox() is not None


def test_a_seises_view_without_two_seats_is_refused() -> None:
    for seats in ((), (Seat("Ana", 40, 0),)):
        with pytest.raises(ValueError, match="2 to 8 seats"):
            draw_seises(ImageDraw.Draw(Image.new("1", (128, 64))), SeisesView(seats, 0, 0, 0, 50))


def test_a_frame_is_sent_only_when_the_view_changes(screen: Screen, bus: FakeI2CBus) -> None:
    views = example_views("es")
    start = bus.frames
    assert screen.show(views["sexto-set"], now=0.0) is True
    assert screen.show(example_views("es")["sexto-set"], now=1.0) is False
    assert screen.show(views["menu"], now=2.0) is True
    assert bus.frames == start + 2


def test_the_screen_dims_when_idle_and_wakes_on_an_event(screen: Screen, bus: FakeI2CBus) -> None:
    screen.show(TableView(), now=100.0)
    bright = bus.contrast
    screen.tick(159.9)
    assert bus.contrast == bright and not screen.dimmed
    screen.tick(160.0)
    assert bus.contrast < bright and screen.dimmed
    screen.wake(170.0)
    assert bus.contrast == bright
    screen.tick(229.0)
    assert not screen.dimmed
    screen.tick(230.0)
    assert screen.dimmed
    frames = bus.frames
    assert screen.show(TableView(), now=231.0) is False  # an event that changes nothing on the screen...
    assert bus.contrast == bright and not screen.dimmed and bus.frames == frames  # ...still wakes it
    screen.tick(300.0)
    screen.show(example_views("es")["menu"], now=301.0)
    assert bus.contrast == bright and not screen.dimmed


def test_the_panel_is_switched_on_by_the_driver(bus: FakeI2CBus) -> None:
    make_device([], bus=bus)
    assert bus.display_on and bus.frames == 1  # luma clears the panel once at start-up


def test_device_options_use_lumas_names_as_a_list_or_a_mapping() -> None:
    bus = FakeI2CBus(address=0x3D)
    device = make_device({"display": "ssd1306", "i2c_address": "0x3D", "rotate": 2}, bus=bus)
    assert (device.width, device.height, device.rotate) == (128, 64, 2)
    with pytest.raises(luma.core.error.DeviceNotFoundError, match="0x3C"):
        make_device(["--display", "ssd1306"], bus=bus)


def test_bad_device_options_say_what_to_use() -> None:
    with pytest.raises(ValueError, match="no option '--colour'"):
        make_device(["--colour", "red"], bus=FakeI2CBus())
    with pytest.raises(ValueError, match="invalid choice: 'sdd1306'"):
        make_device(["--display", "sdd1306"], bus=FakeI2CBus())
    with pytest.raises(ValueError, match="i2c interface"):
        make_device(["--interface", "spi"], bus=FakeI2CBus())


def test_a_display_smaller_than_the_screens_is_refused() -> None:
    with pytest.raises(ValueError, match=r"128x64.*128x32"):
        Screen(make_device(["--height", "32"], bus=FakeI2CBus()))


def test_a_frame_reads_in_a_terminal_two_pixels_per_character_each_way() -> None:
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)
    image.putpixel((3, 0), 1)
    image.putpixel((126, 62), 1)
    image.putpixel((127, 63), 1)
    lines = frame_to_text(image).split("\n")
    assert len(lines) == 32 and {len(line) for line in lines} == {64}
    assert lines[0][:2] == "▘▝" and lines[-1][-1] == "▚" and set(lines[10]) == {" "}


def test_the_docs_show_the_reference_frames() -> None:
    docs = REFERENCE.parents[2] / "docs" / "screens"
    frames = {path.name for path in docs.glob("*.png")} - {f"{name}.png" for name in contact_sheets()}
    assert frames == {path.name for path in REFERENCE.glob("*.png")}
    for name in frames:
        path = docs / name
        shown = Image.open(path)
        assert shown.size == (384, 192), path.name
        frame = shown.resize((128, 64), Image.Resampling.NEAREST)
        assert _differs(frame, Image.open(REFERENCE / path.name)) is None, (
            f"docs/screens/{path.name} is stale: .venv/bin/companion screens --out docs/screens --scale 3"
        )


def test_the_docs_show_a_whole_game_as_it_is_played() -> None:
    """The contact sheets of docs/screens are the games the robots play now, in every language."""
    for name, sheet in contact_sheets().items():
        shown = Image.open(REFERENCE.parents[2] / "docs" / "screens" / f"{name}.png")
        at_one = shown.resize(sheet.size, Image.Resampling.NEAREST).convert("1")
        assert shown.size == (3 * sheet.width, 3 * sheet.height), name
        assert ImageChops.difference(at_one, sheet).getbbox() is None, (
            f"docs/screens/{name}.png is stale: .venv/bin/companion screens --out docs/screens --scale 3"
        )


def _digit_height(view: SeisesView | SextoSetView, changed: SeisesView | SextoSetView) -> int:
    """How tall the one number that differs between two scoreboards is drawn: the rows where they differ."""
    box = ImageChops.difference(render(TableView(game=view)), render(TableView(game=changed))).getbbox()
    assert box is not None
    return box[3] - box[1]


@pytest.mark.parametrize(("players", "score", "cards"), [(2, 13, 9), (3, 13, 7), (4, 13, 7), (6, 9, 7), (8, 7, 7)])
def test_scores_and_cards_left_are_as_large_as_the_layout_allows(players: int, score: int, cards: int) -> None:
    """Read across a table: the fewer the seats, the taller the digits (the 5x8 font's are 6 px)."""
    seats = tuple(Seat(f"Seat{i}", 1, 1) for i in range(players))
    game = SeisesView(seats=seats, turn=1, mano=1, pot=0, reserve=50, target=1)  # every bar full, whatever the score
    assert _digit_height(game, replace(game, seats=(Seat("Seat0", 1, 8), *seats[1:]))) >= score
    assert _digit_height(game, replace(game, seats=(Seat("Seat0", 8, 1), *seats[1:]))) >= cards


def test_the_cards_each_pair_placed_on_a_line_use_the_body_font() -> None:
    game = example_views("es")["sexto-set"].game
    assert isinstance(game, SextoSetView)
    lines = (replace(game.lines[0], count_a=1), *game.lines[1:])
    more = (replace(game.lines[0], count_a=8), *game.lines[1:])
    assert _digit_height(replace(game, lines=lines), replace(game, lines=more)) >= 7


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_every_seises_layout_fits_the_longest_values(players: int, language: str, on_screen: OnScreen) -> None:
    """Long names are shortened; two-digit cards left, scores of three characters and the owed chips must fit."""
    for score in (-45, 99):
        seats = tuple(Seat(f"Maximiliano{i}", 24, score) for i in range(players))
        game = SeisesView(seats=seats, turn=players - 1, mano=0, pot=50, reserve=0, owed=99, hand=99)
        for view in (game, replace(game, winner=0)):
            on_screen(lambda draw, view=view: draw_seises(draw, view, language=language))


@pytest.mark.parametrize("controller", ["sh1106", "ssd1309"])
def test_the_larger_panels_luma_drives_show_the_same_frames(controller: str) -> None:
    """The 1.3" SH1106 and the 2.42" SSD1309, each through luma's own device class, decoded from its bytes."""
    bus = FakeI2CBus(controller=controller)
    screen = Screen(make_device(["--display", controller], bus=bus))
    assert bus.display_on and bus.frames == 1  # luma clears the panel at start-up
    for name in ("seises-4-seats", "menu"):
        view = example_views("es")[name]
        assert screen.show(view, now=0.0)
        assert _differs(bus.last_image(), render(view)) is None, name
    screen.tick(1_000.0)
    assert bus.contrast == 0x08


def test_an_sh1106_shows_ram_columns_2_to_129() -> None:
    """luma starts every SH1106 page at column 2: the panel's 128 pixels are the middle of a 132-column RAM. A
    driver that started at column 0 would show the picture 2 pixels to the left."""
    view = example_views("es")["seises-4-seats"]
    bus = FakeI2CBus(controller="sh1106")
    Screen(luma.oled.device.sh1106(i2c(bus=bus), page_address_offset=0)).show(view, now=0.0)
    shown, drawn = bus.last_image(), render(view)
    assert _differs(shown, drawn) is not None
    assert ImageChops.difference(_lit(shown.crop((0, 0, 126, 64))), _lit(drawn.crop((2, 0, 128, 64)))).getbbox() is None


def test_a_fake_bus_of_another_controller_is_refused() -> None:
    with pytest.raises(ValueError, match=r"models an ssd1306 but the display options say sh1106"):
        make_device(["--display", "sh1106"], bus=FakeI2CBus())
    with pytest.raises(ValueError, match="FakeI2CBus models ssd1306, ssd1309, sh1106, not 'ssd1322'"):
        FakeI2CBus(controller="ssd1322")


def test_no_display_option_means_an_ssd1306() -> None:
    assert type(make_device([], bus=FakeI2CBus())) is luma.oled.device.ssd1306
