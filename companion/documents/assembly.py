"""The assembly drawings of ``hardware/``: how the parts are put into the table, and each game's own pictures.

A pad in cross-section (the card, the table top, the reader glued under it, the WS2812B in its hole and its
light), the panel of the OLED and the buttons, the hub's board with the Pico and its maintenance jumper (from the
pin map); beside them, whatever pictures a game draws of itself (the ``DRAWINGS`` of its package's ``drawings``
module: 6º SET's turn at the table). Drawn as the wiring is (:class:`~companion.documents.drawings.Drawing`);
``python -m companion.documents`` writes them, and a test fails when a committed one is out of date.
"""

from __future__ import annotations

from pathlib import Path

from companion.documents.drawings import (
    BUTTON_LABELS,
    COLOURS,
    LED_HOLE,
    LED_OFFSET,
    Drawing,
    Label,
    Rect,
    Wire,
    circle,
    write_drawings,
)
from companion.documents.sketches import GREEN_LIGHT, arrow
from companion.games import game_module, kinds
from companion.hardware import PICO_PINS, PinMap, pico_ground_beside

__all__ = [
    "LED_HOLE",
    "LED_OFFSET",
    "PANEL",
    "TOP",
    "assembly_drawings",
    "control_panel",
    "hub_board",
    "pad_section",
    "write_assembly",
]

# The figures the drawings and hardware/README.md's "Assembly" give (a test reads them in both); the LED's hole
# and its place are the mats' (LED_HOLE, LED_OFFSET).
TOP = 10  # mm: the table top at its thickest; an MFRC522 reads an NTAG213 1 to 2 cm away
PANEL = 3  # mm: the panel the OLED and the buttons are mounted in (a button's cap must stand proud of it)

_MM = 6  # px per mm in the cross-sections
_WOOD = "#e8d5b0"
_BOARD = "#2f7d4f"


def pad_section() -> Drawing:
    """A pad cut through its middle and its LED: the card on the mat, the top, the reader glued under it, the
    WS2812B under its hole, the reader's field up to the card's sticker and the LED's light up through the hole."""
    left, surface = 40, 150  # px: the section's left edge, the top's upper face
    width = 130  # mm of table shown
    bottom = surface + TOP * _MM
    shapes: list[Rect | Wire | Label] = [
        Label(10, 10, "A pad in cross-section: to scale, the card and its sticker thickened", size=2)
    ]
    # the top, with the LED's hole through it
    pad_end = left + (14 + 92) * _MM  # the card (88 mm long) lies from 14 mm in, the pad 4 mm beyond it
    hole_x = pad_end + LED_OFFSET * _MM
    shapes.append(Rect(left, surface, hole_x - LED_HOLE / 2 * _MM - left, TOP * _MM, COLOURS["ink"], fill=_WOOD))
    right_x = hole_x + LED_HOLE / 2 * _MM
    shapes.append(Rect(right_x, surface, left + width * _MM - right_x, TOP * _MM, COLOURS["ink"], fill=_WOOD))
    shapes.append(Label(left + 4 * _MM, surface + TOP * _MM / 2 - 5, f"table top: MDF or plywood, {TOP} mm at most"))
    # the mat's print over the top, and the card on it with its sticker at its middle
    shapes.append(Wire(((left, surface - 2), (left + width * _MM, surface - 2)), COLOURS["pad"]))
    for edge in (left + 10 * _MM, pad_end):  # the mat's pad, printed
        shapes.append(Wire(((edge, surface - 2), (edge, surface - 20)), COLOURS["ink"]))
    shapes.append(Label(pad_end - 4, surface - 34, "pad's edge"))
    card_x, card_w = left + 14 * _MM, 88 * _MM
    shapes.append(Rect(card_x, surface - 14, card_w, 8, COLOURS["ink"], fill="#ffffff"))
    sticker_x = card_x + card_w / 2 - 12.5 * _MM
    shapes.append(Rect(sticker_x, surface - 8, 25 * _MM, 4, COLOURS["ink"], fill=COLOURS["cs"]))
    shapes.append(Label(card_x, surface - 62, "the card, face up; its NTAG213 sticker at the middle of its back"))
    shapes.append(Label(card_x, surface - 48, "the mat (paper) on the top: its pad is where the card lies"))
    # the reader under the top, antenna up, centred under the sticker
    reader_x, reader_w = card_x + card_w / 2 - 20 * _MM, 60 * _MM  # the antenna (40 mm) at the board's end
    shapes.append(Rect(reader_x, bottom, reader_w, 10, COLOURS["ink"], fill=_BOARD))
    shapes.append(Rect(reader_x + 2 * _MM, bottom + 2, 36 * _MM, 6, "#c9a227", dashed=True))
    for pin in range(7):
        x = reader_x + reader_w - 4 * _MM - pin * 2.54 * _MM * 0.6
        shapes.append(Wire(((x, bottom + 10), (x, bottom + 40)), COLOURS["spi"]))
    shapes.append(Label(reader_x, bottom + 48, "MFRC522 glued under the pad, antenna up, centred on the mat's"))
    shapes.append(Label(reader_x, bottom + 62, "dashed square; its 7 pins down to the pad's cable (10 wires)"))
    # its field, up to the sticker
    centre = card_x + card_w / 2
    for dx in (-14, 0, 14):
        shapes.append(Wire(((centre + dx * _MM, bottom), (centre + dx * 0.8 * _MM, surface - 6)), "#c9a227"))
    shapes.append(Label(centre - 14 * _MM, surface - 34, "field: 1 to 2 cm", colour="#8a6d0b"))
    # the WS2812B under its hole, its light up through the hole and the mat's paper
    led_w = 10 * _MM
    shapes.append(Rect(hole_x - led_w / 2, bottom - 8, led_w, 8, COLOURS["ink"], fill=_BOARD))
    shapes.append(Rect(hole_x - 2.5 * _MM, bottom - 18, 5 * _MM, 10, COLOURS["ink"], fill="#ffffff"))
    for dx in (-4, 0, 4):
        shapes += arrow(hole_x + dx * _MM / 2, bottom - 22, hole_x + dx * _MM, surface - 24, GREEN_LIGHT)
    for pin, colour in enumerate((COLOURS["power"], COLOURS["ground"], COLOURS["led"])):
        x = hole_x - 3 * _MM + pin * 3 * _MM
        shapes.append(Wire(((x, bottom), (x, bottom + 40)), colour))
    shapes.append(Label(hole_x - 60 * _MM / 2, surface - 90, f"LED hole: {LED_HOLE} mm through the top,"))
    shapes.append(Label(hole_x - 60 * _MM / 2, surface - 76, f"{LED_OFFSET} mm outside the pad, off the card"))
    shapes.append(
        Label(hole_x - 5 * _MM, bottom + 48, "WS2812B board in the hole's bottom, LED up, hot-glued to its wall;")
    )
    shapes.append(
        Label(hole_x - 5 * _MM, bottom + 62, "its 4 wires down. Under 10 mm of wood with no hole its light is not seen")
    )
    end = hole_x + 95 * _MM
    return Drawing(width=end, height=bottom + 120, px_per_unit=2, shapes=shapes)


def control_panel() -> Drawing:
    """The OLED, the buttons and the status LED in the players' panel: the front with its cut-outs, and the
    section through a button and the OLED."""
    mm = 5  # px a mm
    x0, y0 = 30, 60
    w, h = 150, 50  # mm: the panel's front
    shapes: list[Rect | Wire | Label] = [
        Label(10, 10, "The panel: OLED, buttons and status LED (front; section below)", size=2),
        Rect(x0, y0, w * mm, h * mm, COLOURS["ink"], fill=_WOOD),
        Label(x0 + 4, y0 + 4, f"a {PANEL} mm panel (plywood, acrylic, or the top milled from below to {PANEL} mm)"),
    ]
    # the OLED's window and its board's screw holes behind it
    ox, oy = x0 + 12 * mm, y0 + 12 * mm
    shapes.append(Rect(ox, oy, 27 * mm, 27 * mm, COLOURS["pad"], dashed=True))
    shapes.append(Rect(ox + 1.5 * mm, oy + 5 * mm, 24 * mm, 13 * mm, COLOURS["ink"], fill="#1a1a1a"))
    for dx in (2, 25):
        for dy in (2, 25):
            shapes.append(circle(ox + dx * mm, oy + dy * mm, 1 * mm, COLOURS["ink"]))
    shapes.append(Label(ox, oy + 29 * mm, "OLED: window 24 x 13 mm; 4 x M2 on"))
    shapes.append(Label(ox, oy + 29 * mm + 12, "its board's holes (about 23 mm apart)"))
    # the buttons, a row, and the status LED
    for index, name in enumerate(BUTTON_LABELS.values()):
        bx = x0 + (60 + index * 28) * mm
        shapes.append(circle(bx, y0 + 25 * mm, 6.5 * mm, COLOURS["ink"]))
        shapes.append(Label(bx, y0 + 34 * mm, name, centred=True))
    shapes.append(Label(x0 + 47 * mm, y0 + 39 * mm, "buttons: 13 mm holes, 28 mm apart (arcade: 24 mm holes)"))
    shapes.append(circle(x0 + 138 * mm, y0 + 12 * mm, 2.5 * mm, COLOURS["ink"]))
    shapes.append(Label(x0 + 138 * mm, y0 + 17 * mm, "status", centred=True))
    shapes.append(Label(x0 + 132 * mm, y0 + 21 * mm, "5 mm", centred=True))
    # the section: the panel, a button soldered on its strip of proto board, its cap through the panel
    sy = y0 + h * mm + 70
    shapes.append(Label(x0, sy - 30, "Section through a button and the OLED:"))
    shapes.append(Rect(x0, sy, w * mm, PANEL * mm, COLOURS["ink"], fill=_WOOD))
    bx = x0 + 60 * mm
    shapes.append(Rect(bx - 6 * mm, sy + PANEL * mm + 12 * mm, 12 * mm, 4 * mm, COLOURS["ink"], fill=_BOARD))
    shapes.append(Rect(bx - 6 * mm, sy + PANEL * mm + 8 * mm, 12 * mm, 4 * mm, COLOURS["ink"], fill="#888888"))
    shapes.append(Rect(bx - 5.5 * mm, sy - 2 * mm, 11 * mm, PANEL * mm + 10 * mm, COLOURS["ink"], fill="#cc3333"))
    shapes.append(Label(bx + 10 * mm, sy + PANEL * mm + 2 * mm, "12 mm tactile button on a strip of proto board,"))
    shapes.append(Label(bx + 10 * mm, sy + PANEL * mm + 2 * mm + 12, "on spacers: its cap stands 2 mm proud"))
    shapes.append(Label(bx + 10 * mm, sy + PANEL * mm + 2 * mm + 24, "wires: GPIO and GND (no resistor)"))
    ox = x0 + 12 * mm
    shapes.append(Rect(ox, sy + PANEL * mm + 3 * mm, 27 * mm, 1.6 * mm, COLOURS["ink"], fill=_BOARD))
    shapes.append(Rect(ox + 1.5 * mm, sy + PANEL * mm, 24 * mm, 3 * mm, COLOURS["ink"], fill="#1a1a1a"))
    for dx in (2, 25):
        shapes.append(Wire(((ox + dx * mm, sy + PANEL * mm), (ox + dx * mm, sy + PANEL * mm + 3 * mm)), "#888888"))
    shapes.append(Label(ox, sy + PANEL * mm + 8 * mm, "OLED glass against the panel,"))
    shapes.append(Label(ox, sy + PANEL * mm + 8 * mm + 12, "3 mm spacers on M2 screws"))
    return Drawing(width=x0 + w * mm + 30, height=sy + PANEL * mm + 30 * mm, px_per_unit=2, shapes=shapes)


def hub_board(pinmap: PinMap) -> Drawing:
    """The hub's proto board from above: the Pico in its two 1x20 sockets (pin 1 marked, pins numbered as its
    datasheet does), the maintenance jumper's 2-pin header beside the pins the pin map gives it, the 74AHCT125,
    the regulator, the capacitor and a 10-pin header per pad."""
    if pinmap.hub is None:
        raise ValueError(f"{pinmap.source}: no [hub] table, so there is no hub board to draw")
    hub = pinmap.hub
    pitch = 12  # px: 2.54 mm
    px, py = 160, 100  # the Pico's top-left pin (pin 1)
    cols = 7 * pitch  # the two rows of the Pico's pins, 17.78 mm apart
    shapes: list[Rect | Wire | Label] = [
        Label(10, 10, f"The hub's board from above: {len(hub.zones)} pads", size=2),
        Rect(20, 50, 620, 400, COLOURS["ink"], fill="#f3ecd8"),
        Label(28, 56, "proto board, about 7 x 9 cm"),
        Rect(px - 12, py - 24, cols + 24, 19 * pitch + 48, COLOURS["ink"], fill=_BOARD),
        Rect(px + cols / 2 - 14, py - 34, 28, 16, COLOURS["ink"], fill="#aaaaaa"),
        Label(px + cols / 2 + 24, py - 40, "USB to the Pi"),
        Label(px + cols / 2, py + 9 * pitch, "Pico", centred=True, colour="#ffffff"),
    ]

    def pin_xy(pin: int) -> tuple[float, float]:
        if pin <= 20:
            return px, py + (pin - 1) * pitch
        return px + cols, py + (40 - pin) * pitch

    for pin in range(1, 41):
        x, y = pin_xy(pin)
        shapes.append(Rect(x - 3, y - 3, 6, 6, COLOURS["ink"], fill="#dddddd"))
    for pin in (1, 20, 21, 40):
        x, y = pin_xy(pin)
        shapes.append(Label(x + (-30 if pin <= 20 else 18), y - 5, str(pin)))
    # the maintenance jumper: a 2-pin header beside the socket, level with its two pins
    gp_pin, ground = PICO_PINS[hub.maintenance], pico_ground_beside(hub.maintenance)
    side = 1 if gp_pin > 20 else -1
    jx = px + (cols + 3 * pitch if side > 0 else -3 * pitch)
    for pin, name in ((gp_pin, f"GP{hub.maintenance} (pin {gp_pin})"), (ground, f"GND (pin {ground})")):
        x, y = pin_xy(pin)
        shapes.append(Rect(jx - 3, y - 3, 6, 6, COLOURS["ink"], fill="#dddddd"))
        shapes.append(Wire(((x, y), (jx, y)), COLOURS["jumper" if pin == gp_pin else "ground"]))
        shapes.append(Label(jx + (12 if side > 0 else -12 - 6 * len(name)), y - 5, name))
    top, low = sorted((pin_xy(gp_pin)[1], pin_xy(ground)[1]))
    shapes.append(Rect(jx - 6, top - 6, 12, low - top + 12, COLOURS["jumper"], dashed=True))
    label_x = jx + 12 if side > 0 else 30
    shapes.append(Label(label_x, low + 12, "maintenance jumper: cap off to run,"))
    shapes.append(Label(label_x, low + 24, "on at power-up for a deploy"))
    # the other parts
    shapes.append(Rect(440, 70, 110, 40, COLOURS["ink"], fill="#333333"))
    shapes.append(Label(495, 84, "74AHCT125", centred=True, colour="#ffffff"))
    shapes.append(Rect(440, 130, 110, 30, COLOURS["ink"], fill="#1f4e9c"))
    shapes.append(Label(495, 140, "3.3 V buck", centred=True, colour="#ffffff"))
    shapes.append(circle(495, 200, 18, COLOURS["ink"]))
    shapes.append(Label(495, 224, "1000 uF", centred=True))
    # one 10-pin header a pad, along the board's lower edge
    for index, zone in enumerate(hub.zones):
        hx = 40 + index * 72
        for pin in range(10):
            fill = COLOURS["spi"] if pin == 0 else "#dddddd"  # wire 1's pin
            shapes.append(Rect(hx + (pin % 5) * 12, 396 + (pin // 5) * 12, 8, 8, COLOURS["ink"], fill=fill))
        shapes.append(Label(hx + 26, 380, zone, centred=True))
    shapes.append(Label(28, 424, "a 10-pin header a pad: its strip's wire 1 (SCK) on the marked pin, 2 to 10 in order"))
    return Drawing(width=660, height=470, px_per_unit=2, shapes=shapes)


def assembly_drawings(pinmap: PinMap) -> dict[str, Drawing]:
    """The assembly pictures and every game's own, by file name (without the extension), as ``hardware/`` holds
    them."""
    drawings = {
        "assembly-pad": pad_section(),
        "assembly-panel": control_panel(),
        "assembly-hub": hub_board(pinmap),
    }
    for kind in kinds().values():
        module = game_module(kind, "drawings")
        drawings |= {name: draw() for name, draw in getattr(module, "DRAWINGS", {}).items()}
    return drawings


def write_assembly(pinmap: PinMap, out: Path) -> list[Path]:
    """Write the assembly pictures into ``out`` (``hardware/``); return the files."""
    return write_drawings(assembly_drawings(pinmap), out)
