"""The maker's drawings: wiring diagrams from the pin map, play mats from the zone layout.

Each drawing is built once as a list of shapes, then written twice: as SVG (text, for printing at any size) and
as PNG (Pillow, with the package's bitmap font, so the picture is the same on every machine). Regenerate the
files of ``hardware/`` with ``python -m companion.documents``; a test fails when they are out of date.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw

from companion.hardware import (
    HEADER_PINS,
    PICO_PINS,
    PICO_POWER,
    Layout,
    PinMap,
    load_layouts,
    pico_ground_beside,
)
from companion.i18n import DEFAULT_LANGUAGE, languages, translate
from companion.ui.screens import font, text_width, wrap

__all__ = [
    "LED_HOLE",
    "LED_OFFSET",
    "Drawing",
    "Label",
    "circle",
    "draw_all",
    "label_width",
    "led_place",
    "mat",
    "mat_texts",
    "mats",
    "wiring_hub",
    "wiring_name",
    "wiring_pi",
    "wiring_sound",
    "write_drawings",
]

# Wire colours by what the wire carries, as makers colour jumper wires.
COLOURS = {
    "i2c": "#1f77b4",
    "i2s": "#bcbd22",
    "spi": "#9467bd",
    "cs": "#e377c2",
    "reset": "#8c564b",
    "button": "#2ca02c",
    "led": "#d62728",
    "usb": "#7f7f7f",
    "jumper": "#17becf",
    "power": "#ff7f0e",
    "ground": "#333333",
    "ink": "#000000",
    "pad": "#555555",
}


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    colour: str = "#000000"
    dashed: bool = False
    fill: str | None = None  # a resistor's body hides the wire under it


@dataclass(frozen=True)
class Wire:
    points: tuple[tuple[float, float], ...]
    colour: str


@dataclass(frozen=True)
class Label:
    x: float
    y: float  # the top of the text
    text: str
    size: int = 1  # a multiple of the 6x10 font's height
    centred: bool = False
    colour: str = "#000000"


@dataclass
class Drawing:
    """A drawing in its own units; the PNG has ``px_per_unit`` pixels per unit."""

    width: float
    height: float
    unit: str = "px"  # "mm" for the mats, which must print at their true size
    px_per_unit: int = 1
    text_unit: float = 10.0  # the height of a size-1 label, in units
    shapes: list[Rect | Wire | Label] = field(default_factory=list)

    def svg(self) -> str:
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}{self.unit}" '
            f'height="{self.height}{self.unit}" viewBox="0 0 {self.width} {self.height}">',
            f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="#ffffff"/>',
        ]
        stroke = self.text_unit / 10
        for shape in self.shapes:
            if isinstance(shape, Rect):
                dash = f' stroke-dasharray="{4 * stroke} {3 * stroke}"' if shape.dashed else ""
                out.append(
                    f'<rect x="{shape.x}" y="{shape.y}" width="{shape.w}" height="{shape.h}" '
                    f'fill="{shape.fill or "none"}" stroke="{shape.colour}" stroke-width="{stroke}"{dash}/>'
                )
            elif isinstance(shape, Wire):
                points = " ".join(f"{x},{y}" for x, y in shape.points)
                out.append(
                    f'<polyline points="{points}" fill="none" stroke="{shape.colour}" stroke-width="{2 * stroke}"/>'
                )
            else:
                size = self.text_unit * shape.size
                anchor = ' text-anchor="middle"' if shape.centred else ""
                out.append(
                    f'<text x="{shape.x}" y="{shape.y + 0.8 * size}" font-family="monospace" font-size="{size}" '
                    f'fill="{shape.colour}"{anchor}>{escape(shape.text)}</text>'
                )
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def png(self) -> Image.Image:
        k = self.px_per_unit
        image = Image.new("RGB", (round(self.width * k), round(self.height * k)), "#ffffff")
        draw = ImageDraw.Draw(image)
        stroke = max(1, round(self.text_unit * k / 10))
        for shape in self.shapes:
            if isinstance(shape, Rect):
                box = (shape.x * k, shape.y * k, (shape.x + shape.w) * k, (shape.y + shape.h) * k)
                if shape.dashed:
                    _dashed_rect(draw, box, shape.colour, stroke)
                else:
                    draw.rectangle(box, outline=shape.colour, width=stroke, fill=shape.fill)
            elif isinstance(shape, Wire):
                draw.line([(x * k, y * k) for x, y in shape.points], fill=shape.colour, width=2 * stroke)
            else:
                _bitmap_text(image, shape, k, self.text_unit)
        return image


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: str, width: int) -> None:
    x0, y0, x1, y1 = box
    dash = 6 * width
    for a, b, horizontal, fixed in ((x0, x1, True, y0), (x0, x1, True, y1), (y0, y1, False, x0), (y0, y1, False, x1)):
        start = a
        while start < b:
            end = min(start + dash, b)
            line = ((start, fixed), (end, fixed)) if horizontal else ((fixed, start), (fixed, end))
            draw.line(line, fill=colour, width=width)
            start += 2 * dash


def _bitmap_text(image: Image.Image, label: Label, k: int, text_unit: float) -> None:
    """The package's 6x10 font, scaled by a whole factor so that its pixels stay square and sharp."""
    scale = max(1, round(text_unit * label.size * k / 10))
    mask = Image.new("1", (text_width(label.text, "body"), 10))
    ImageDraw.Draw(mask).text((0, 0), label.text, font=font("body"), fill=1)
    mask = mask.resize((mask.width * scale, mask.height * scale), Image.Resampling.NEAREST)
    x = label.x * k - (mask.width / 2 if label.centred else 0)
    image.paste(label.colour, (round(x), round(label.y * k)), mask)


# --- wiring diagrams -------------------------------------------------------------------------------------

_ROW = 18  # pixels between two terminals
_LANE = 8  # pixels between two wires' vertical runs
RESISTOR = "330R"  # every indicator LED's series resistor, and the WS2812B data line's


@dataclass
class _Part:
    name: str
    terminals: list[str]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Net:
    """A wire from a board terminal to a part's terminal; ``resistor`` is drawn in series near the part."""

    board: str
    part: str
    terminal: str
    kind: str
    resistor: str = ""


def _wiring(title: str, board: str, pins: list[tuple[str, str]], parts: list[_Part], nets: list[_Net]) -> Drawing:
    """A board with its used pins on the left, the parts on the right, one wire per net.

    ``pins`` are (terminal id, label) of the board. Each wire runs in its own vertical lane, so no two wires
    share a segment; a board terminal may feed several parts (a ground, a supply).
    """
    top = 50
    board_y = {terminal: top + 30 + i * _ROW for i, (terminal, _) in enumerate(pins)}
    part_x, y = 300 + _LANE * len(nets), top  # the last 50 px before the parts: room for resistors
    part_y: dict[tuple[str, str], float] = {}
    shapes: list[Rect | Wire | Label] = [Label(10, 10, title, size=2)]
    for part in parts:
        height = 30 + _ROW * max(len(part.terminals), 1) + 12 * len(part.notes)
        shapes.append(Rect(part_x, y, 340, height))
        shapes.append(Label(part_x + 8, y + 6, part.name))
        for i, terminal in enumerate(part.terminals):
            ty = y + 30 + i * _ROW
            part_y[(part.name, terminal)] = ty
            shapes.append(Label(part_x + 10, ty - 5, terminal))
        for i, note in enumerate(part.notes):
            shapes.append(Label(part_x + 8, y + 30 + _ROW * len(part.terminals) + i * 12 - 4, note, colour="#555555"))
        y += height + 14
    board_height = 40 + _ROW * len(pins)
    shapes.append(Rect(10, top, 200, board_height))
    shapes.append(Label(18, top + 6, board))
    for terminal, label in pins:
        shapes.append(Label(204 - text_width(label, "body"), board_y[terminal] - 5, label))
    for lane, net in enumerate(nets):
        x_lane = 230 + lane * _LANE
        start, end = board_y[net.board], part_y[(net.part, net.terminal)]
        shapes.append(Wire(((210, start), (x_lane, start), (x_lane, end), (part_x, end)), COLOURS[net.kind]))
    for net in nets:  # over every wire, so that no wire crosses a resistor's body
        if net.resistor:
            end = part_y[(net.part, net.terminal)]
            shapes.append(Rect(part_x - 42, end - 7, 30, 14, COLOURS["ink"], fill="#ffffff"))
            shapes.append(Label(part_x - 39, end - 5, net.resistor))
    width = part_x + 360
    return Drawing(width=width, height=max(y, top + board_height) + 20, shapes=shapes)


# Each button by the name the screens and the table's page give it (companion/web/page.py), not its pin map key.
BUTTON_LABELS = {"confirm": "OK", "pass": "PASS", "undo": "UNDO"}


def _gpio(pin: int) -> str:
    return f"GPIO{pin} (pin {HEADER_PINS[pin]})"


def _gp(gp: int) -> str:
    return f"GP{gp} (pin {PICO_PINS[gp]})"


def _pi_side(pinmap: PinMap, zones: bool) -> tuple[list[tuple[str, str]], list[_Part], list[_Net]]:
    """What the Pi drives in both builds (OLED, buttons, status LED), plus the zones' LEDs and readers; every
    part's supply and ground from the header's own pins."""
    pins: list[tuple[str, str]] = [
        ("3v3", "3V3 (pin 1)"),
        ("gnd", "GND (pin 6)"),
        ("sda", _gpio(2) + " SDA"),
        ("scl", _gpio(3) + " SCL"),
    ]
    oled = _Part("SSD1306 OLED (I2C)", ["VCC", "GND", "SDA", "SCL"])
    nets = [
        _Net("3v3", oled.name, "VCC", "power"),
        _Net("gnd", oled.name, "GND", "ground"),
        _Net("sda", oled.name, "SDA", "i2c"),
        _Net("scl", oled.name, "SCL", "i2c"),
    ]
    parts = [oled]
    labels = [BUTTON_LABELS[name] for name in pinmap.buttons]
    buttons = _Part("Buttons", [*labels, "other legs"], ["no resistor: pull-ups"])
    for button, pin in pinmap.buttons.items():
        pins.append((f"button-{button}", _gpio(pin)))
        nets.append(_Net(f"button-{button}", buttons.name, BUTTON_LABELS[button], "button"))
    nets.append(_Net("gnd", buttons.name, "other legs", "ground"))
    parts.append(buttons)
    status = _Part("Status LED", ["anode", "cathode"])
    pins.append(("status", _gpio(pinmap.status_led)))
    nets += [_Net("status", status.name, "anode", "led", RESISTOR), _Net("gnd", status.name, "cathode", "ground")]
    parts.append(status)
    if not zones:
        return pins, parts, nets
    pins += [("3v3-readers", "3V3 (pin 17)"), ("gnd-readers", "GND (pin 20)")]
    spi = [("sclk", 11, "SCK"), ("mosi", 10, "MOSI"), ("miso", 9, "MISO")]
    pins += [(net, f"{_gpio(pin)} {label}") for net, pin, label in spi]
    for name, zone in pinmap.zones.items():
        colours = ["red", "green"] + (["blue"] if zone.blue is not None else [])
        leds = _Part(f"Zone {name} LEDs", [*colours, "cathodes"])
        for colour in colours:
            pins.append((f"{name}-{colour}", _gpio(getattr(zone, colour))))
            nets.append(_Net(f"{name}-{colour}", leds.name, colour, "led", RESISTOR))
        nets.append(_Net("gnd", leds.name, "cathodes", "ground"))
        parts.append(leds)
        if zone.reader is None:
            continue
        ce = {0: 8, 1: 7}[zone.reader.spi_device] if zone.reader.spi_port == 0 else None
        reader = _Part(f"Zone {name} MFRC522", ["3.3V", "GND", "SDA (CS)", "SCK", "MOSI", "MISO", "RST"])
        nets += [_Net("3v3-readers", reader.name, "3.3V", "power"), _Net("gnd-readers", reader.name, "GND", "ground")]
        if ce is not None:
            pins.append((f"{name}-cs", f"{_gpio(ce)} CE{zone.reader.spi_device}"))
            nets.append(_Net(f"{name}-cs", reader.name, "SDA (CS)", "cs"))
        nets += [_Net(net, reader.name, label, "spi") for net, _, label in spi]
        pins.append((f"{name}-reset", _gpio(zone.reader.reset)))
        nets.append(_Net(f"{name}-reset", reader.name, "RST", "reset"))
        parts.append(reader)
    return pins, parts, nets


def wiring_pi(pinmap: PinMap) -> Drawing:
    """The Pi-alone build: OLED, buttons, status LED, and each zone's LEDs and reader, from the pin map."""
    pins, parts, nets = _pi_side(pinmap, zones=True)
    return _wiring("companion: the Pi alone", "Raspberry Pi (40-pin header)", pins, parts, nets)


# The MAX98357A amplifier on the Pi's I2S pins (dtoverlay=max98357a): each of its board's pins and the Pi's GPIO.
SOUND_PINS = {"BCLK": 18, "LRC": 19, "DIN": 21, "SD": 4}  # SD: the overlay's default sdmode-pin


def wiring_sound(pinmap: PinMap) -> Drawing:
    """The optional I2S amplifier (a MAX98357A breakout) and its speaker, on pins the pin map leaves free: 5 V and
    ground, the I2S clock, frame and data, and SD to GPIO4, which the overlay's driver raises while it plays."""
    taken = {pin: key for key, pin in pinmap.gpios()}
    clash = [f"{name} on GPIO{pin} ({taken[pin]})" for name, pin in SOUND_PINS.items() if pin in taken]
    if clash:
        raise ValueError(f"{pinmap.source}: the amplifier's pins are taken: {', '.join(clash)}")
    pins = [("5v", "5V (pin 4)"), ("gnd", "GND (pin 39)")]
    amp = _Part(
        "MAX98357A I2S amplifier",
        ["VIN", "GND", "BCLK", "LRC", "DIN", "SD"],
        ["config.txt: dtoverlay=max98357a", "GAIN unwired: 9 dB"],
    )
    nets = [_Net("5v", amp.name, "VIN", "power"), _Net("gnd", amp.name, "GND", "ground")]
    for name, pin in SOUND_PINS.items():
        pins.append((name, f"{_gpio(pin)} {name}"))
        nets.append(_Net(name, amp.name, name, "i2s"))
    speaker = _Part("Speaker, 4 or 8 ohm, 3 W", [], ["to the amplifier's + and - screw terminal"])
    return _wiring(
        "companion: the voice's amplifier (optional)", "Raspberry Pi (40-pin header)", pins, [amp, speaker], nets
    )


def wiring_hub(pinmap: PinMap) -> Drawing:
    """The hub build: the Pi keeps OLED, buttons and status LED; the Pico scans the [hub]'s readers and lights
    their LEDs. The readers take 3.3 V from a regulator of their own (up to 100 mA each, more than the Pico's 3V3(OUT)
    gives), the WS2812B data goes through a 74AHCT125 (at 5 V they need 3.5 V for a high), and a 2-pin header
    takes the maintenance jumper."""
    if pinmap.hub is None:
        raise ValueError(
            f"{pinmap.source}: no [hub] table, so there is no hub to draw; add one as in hardware/pinmap.toml"
        )
    hub = pinmap.hub
    pins, parts, nets = _pi_side(pinmap, zones=False)
    pins.append(("usb", "USB port"))
    parts.append(_Part("Raspberry Pi Pico (hub)", ["micro-USB"], ["powered by the Pi's USB (a Zero 2 W: OTG cable)"]))
    nets.append(_Net("usb", parts[-1].name, "micro-USB", "usb"))
    pi = _wiring("companion: the Pi and the reader hub", "Raspberry Pi (40-pin header)", pins, parts, nets)

    vbus, ground = f"VBUS (pin {PICO_POWER['VBUS']})", f"GND (pin {PICO_POWER['GND']})"
    pico_pins = [("vbus", vbus), ("gnd", ground)]
    regulator = _Part("3.3 V regulator, 1 A", ["VIN", "GND"], ["OUT: 3.3 V to every reader's 3.3V pin"])
    bus = _Part(
        "MFRC522 bus (all readers)", ["GND", "SCK", "MOSI", "MISO", "RST"], ["3.3V from the regulator's OUT, never 5 V"]
    )
    pico_nets = [
        _Net("vbus", regulator.name, "VIN", "power"),
        _Net("gnd", regulator.name, "GND", "ground"),
        _Net("gnd", bus.name, "GND", "ground"),
    ]
    for net, gp, label in (("sck", hub.sck, "SCK"), ("mosi", hub.mosi, "MOSI"), ("miso", hub.miso, "MISO")):
        pico_pins.append((net, f"{_gp(gp)} {label}"))
        pico_nets.append(_Net(net, bus.name, label, "spi"))
    pico_pins.append(("reset", f"{_gp(hub.reset)} RST"))
    pico_nets.append(_Net("reset", bus.name, "RST", "reset"))
    readers = _Part("MFRC522 SDA (CS), one per zone", [f"zone {zone}" for zone in hub.zones])
    for gp, zone in zip(hub.chip_selects, hub.zones, strict=True):
        pico_pins.append((f"cs-{zone}", f"{_gp(gp)} CS"))
        pico_nets.append(_Net(f"cs-{zone}", readers.name, f"zone {zone}", "cs"))
    shifter = _Part(
        "74AHCT125 level shifter", ["1A (in)", "1OE", "VCC", "GND"], [f"1Y (out): {RESISTOR} to the first LED's DIN"]
    )
    pico_pins.append(("leds", f"{_gp(hub.led_data)} LED data"))
    pico_nets += [
        _Net("leds", shifter.name, "1A (in)", "led"),
        _Net("gnd", shifter.name, "1OE", "ground"),
        _Net("vbus", shifter.name, "VCC", "power"),
        _Net("gnd", shifter.name, "GND", "ground"),
    ]
    leds = _Part(
        "WS2812B LEDs, chained",
        ["5V", "GND"],
        [f"{len(hub.zones)} LEDs, zone order ({hub.zones[0]} first);", "1000 uF across 5V and GND"],
    )
    pico_nets += [_Net("vbus", leds.name, "5V", "power"), _Net("gnd", leds.name, "GND", "ground")]
    # The maintenance jumper: a 2-pin header beside the Pico's socket, to the nearest ground (as shipped, GP22 on
    # pin 29 and GND on pin 28, side by side).
    beside = pico_ground_beside(hub.maintenance)
    jumper = _Part(
        "Maintenance jumper: 2-pin header",
        [f"GP{hub.maintenance}", "GND"],
        ["cap on at power-up: the REPL, no watchdog,", "no scanning (for deploys); off to run"],
    )
    pico_pins += [("maintenance", f"{_gp(hub.maintenance)} MAINT"), ("gnd-jumper", f"GND (pin {beside})")]
    pico_nets += [
        _Net("maintenance", jumper.name, f"GP{hub.maintenance}", "jumper"),
        _Net("gnd-jumper", jumper.name, "GND", "ground"),
    ]
    pico = _wiring(
        f"The hub: {len(hub.zones)} readers and their LEDs",
        "Raspberry Pi Pico",
        pico_pins,
        [regulator, bus, readers, shifter, leds, jumper],
        pico_nets,
    )
    return _stack(pi, pico)


def _stack(upper: Drawing, lower: Drawing) -> Drawing:
    moved = [
        replace(shape, y=shape.y + upper.height)
        if not isinstance(shape, Wire)
        else Wire(tuple((x, y + upper.height) for x, y in shape.points), shape.colour)
        for shape in lower.shapes
    ]
    return Drawing(max(upper.width, lower.width), upper.height + lower.height, shapes=[*upper.shapes, *moved])


# --- play mats -----------------------------------------------------------------------------------------------

_SHEET = (420, 297)  # A3 landscape, mm
_MAT_PX_PER_MM = 3


def mat_texts(layout_path: Path) -> dict[str, list[str]]:
    """The words the mats print (each an English msgid of the catalogues) -> where the layouts say them."""
    texts: dict[str, list[str]] = {}
    for layout in load_layouts(layout_path).values():
        for text in (layout.title, layout.note, *(pad.label for pad in layout.pads)):
            texts.setdefault(text, []).append(f"{layout_path.parent.name}/{layout_path.name}:{layout.name}")
    return texts


LED_HOLE = 12  # mm: the hole through the top over each pad's LED (a WS2812B's round board is about 10 mm)
LED_OFFSET = 10  # mm: from the pad's edge to its LED hole's centre, outside the card's outline


def circle(x: float, y: float, r: float, colour: str) -> Wire:
    """A circle as a polyline of 24 sides (a hole, a button, an LED)."""
    points = tuple((x + r * math.cos(i * math.pi / 12), y + r * math.sin(i * math.pi / 12)) for i in range(25))
    return Wire(points, colour)


def led_place(layout: Layout, x: float, y: float) -> tuple[float, float]:
    """Where the LED of the pad centred at (x, y) goes: ``LED_OFFSET`` mm beyond the pad's edge that faces the
    sheet's middle (its long axis), where neither the card on the pad nor the line or row beside it covers it."""
    reach = layout.pad[1] / 2 + LED_OFFSET
    return x, y - reach if y > _SHEET[1] / 2 else y + reach


MAT_MARGIN = 15  # mm between the sheet's edge and its note
PAD_MARGIN = 4  # mm between a pad's edge and its words


def _text_px(mm: float, text_unit: float) -> int:
    """How many of the font's pixels fit ``mm`` at ``text_unit`` mm a line, in the SVG and in the PNG, whose
    bitmap font is scaled by a whole factor (:func:`_font_px`)."""
    return int(mm / _font_px(text_unit, _MAT_PX_PER_MM))


def _font_px(text_unit: float, px_per_unit: int, size: int = 1) -> float:
    """The width of one of the 6x10 font's pixels in units: the SVG's (a line is ``text_unit``) or the PNG's
    (scaled by a whole factor, :func:`_bitmap_text`), whichever is wider."""
    return max(text_unit * size / 10, max(1, round(text_unit * size * px_per_unit / 10)) / px_per_unit)


def label_width(drawing: Drawing, label: Label) -> float:
    """How wide ``label`` is drawn, in the drawing's units (the wider of its SVG and its PNG)."""
    return text_width(label.text, "body") * _font_px(drawing.text_unit, drawing.px_per_unit, label.size)


def mat(layout: Layout, lang: str) -> Drawing:
    """The layout's play mat in ``lang``: each pad where a reader sits, what goes on it, its zone, and the circle
    where its LED's hole goes through the top."""
    text_unit = 6.0
    shapes: list[Rect | Wire | Label] = [
        Rect(5, 5, _SHEET[0] - 10, _SHEET[1] - 10, COLOURS["pad"]),
        Label(_SHEET[0] / 2, 8, f"{translate(layout.title, lang)} - companion", size=2, centred=True),
    ]
    note = wrap(translate(layout.note, lang), "body", _text_px(_SHEET[0] - 2 * MAT_MARGIN, text_unit))
    for row, line in enumerate(note):
        y = _SHEET[1] - 16 - (len(note) - 1 - row) * text_unit
        shapes.append(Label(_SHEET[0] / 2, y, line, centred=True, colour=COLOURS["pad"]))
    width, height = layout.pad
    for pad in layout.pads:
        x, y = pad.x - width / 2, pad.y - height / 2
        shapes.append(Rect(x, y, width, height, COLOURS["ink"]))
        # The MFRC522's antenna (about 40 x 40 mm): the card's middle must lie over it.
        side = min(40, height - 56)
        shapes.append(Rect(pad.x - side / 2, pad.y - side / 2 + 8, side, side, COLOURS["pad"], dashed=True))
        words = translate(pad.label, lang).format(card=pad.card)
        for row, line in enumerate(wrap(words, "body", _text_px(width - 2 * PAD_MARGIN, text_unit))):
            shapes.append(Label(pad.x, y + 3 + row * text_unit, line, size=1, centred=True))
        shapes.append(Label(pad.x, y + height - 9, pad.zone, size=1, centred=True, colour=COLOURS["pad"]))
        shapes.append(circle(*led_place(layout, pad.x, pad.y), LED_HOLE / 2, COLOURS["pad"]))  # its LED's hole
    return Drawing(*_SHEET, unit="mm", px_per_unit=_MAT_PX_PER_MM, text_unit=text_unit, shapes=shapes)


def mats(layout_path: Path, lang: str = DEFAULT_LANGUAGE) -> dict[str, Drawing]:
    """One mat per layout of ``layout_path``, its words in ``lang``."""
    return {name: mat(layout, lang) for name, layout in load_layouts(layout_path).items()}


def wiring_name(layout: Layout, pinmap: PinMap) -> str:
    """The wiring picture of ``layout``'s build: the Pi's, the hub's of the pin map, or a hub of its own size."""
    if not layout.on_hub:
        return "wiring-pi"
    hub = pinmap.hub
    if hub is not None and (hub.zones, hub.chip_selects) == (layout.zones, layout.chip_selects):
        return "wiring-hub"
    return f"wiring-hub-{len(layout.pads)}"


def write_drawings(drawings: dict[str, Drawing], out: Path) -> list[Path]:
    """Write each drawing as ``out/NAME.svg`` and ``out/NAME.png``; return the files."""
    written: list[Path] = []
    for name, drawing in drawings.items():
        svg, png = out / f"{name}.svg", out / f"{name}.png"
        svg.parent.mkdir(parents=True, exist_ok=True)
        svg.write_text(drawing.svg(), "utf-8")
        drawing.png().save(png, optimize=True)
        written += [svg, png]
    return written


def draw_all(pinmap: PinMap, layout_path: Path, out: Path) -> list[Path]:
    """Write into ``out`` every drawing (wiring-*.svg/png; the mats, one file per language, in mats/LANG/) and
    every layout's files (layouts/NAME/: :func:`companion.documents.layouts.layout_files`); return the files."""
    from companion.documents.layouts import FIRMWARE_CONFIG, LAYOUTS_FOLDER, layout_files, layout_pinmap

    drawings = {"wiring-pi": wiring_pi(pinmap), "wiring-hub": wiring_hub(pinmap), "wiring-sound": wiring_sound(pinmap)}
    layouts = load_layouts(layout_path)
    for layout in layouts.values():
        name = wiring_name(layout, pinmap)
        if name not in drawings:
            drawings[name] = wiring_hub(layout_pinmap(layout, pinmap))
    for lang in languages():
        drawings |= {f"mats/{lang}/{name}": mat(layout, lang) for name, layout in layouts.items()}
    written = write_drawings(drawings, out)
    firmware_text = FIRMWARE_CONFIG.read_text("utf-8")
    for name, layout in layouts.items():
        for file, text in layout_files(layout, pinmap, firmware_text).items():
            path = out / LAYOUTS_FOLDER / name / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
            written.append(path)
    return written
