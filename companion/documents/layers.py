"""The layers of the code, bottom to top, and their picture and table in ``docs/``.

A module may import the modules of its own layer and of the layers below it, never one above, and no two
modules import each other, even through others (``tests/test_layers.py`` reads every import and checks both).
Each layer is a list of files and folders of ``companion/``; a module belongs to the layer that names its file
or the nearest folder around it (a pattern such as ``games/*/screen.py`` names
the files it matches), and the root package (``companion/__init__.py``, its version) is core::

    >>> layer_of("companion.rules.base").name, layer_of("companion.nfc.rc522").name
    ('core', 'devices')
    >>> layer_of("companion.commands.play").name
    'commands'
    >>> layer_of("companion.games.my_game").name, layer_of("companion.games.my_game.screen").name
    ('core', 'devices')
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from companion.documents.drawings import COLOURS, Drawing, Label, Rect, Wire
from companion.ui.screens import text_width

__all__ = [
    "DOCS_DIR",
    "LAYERS",
    "Layer",
    "draw_layers",
    "layer_of",
    "layer_table",
    "with_layer_table",
    "write_layer_table",
    "write_layers",
]

# The source checkout's docs/ folder, where the picture is written (python -m companion.documents).
DOCS_DIR = Path(__file__).resolve().parent.parent.parent / "docs"


@dataclass(frozen=True)
class Layer:
    name: str
    holds: str  # what the layer is, for the picture and the docs
    paths: tuple[str, ...]  # under companion/: a module ("view.py"), a package ("rules/"), or a pattern of modules
    # ("games/*/screen.py": every game's screen)
    keeps_out: tuple[str, ...] = ()  # libraries importing any of its modules must not load, even through others


LAYERS = (
    Layer(
        "core",
        "the games, the table's state and the journal that keeps it: no device, no thread, no command line",
        (
            "files.py",
            "i18n.py",
            "names.py",
            "plugins.py",
            "settings_schema.py",
            "decks/",
            "rules/",
            "games/",
            "events.py",
            "view.py",
            "journal.py",
            "readers/registry.py",
            "config.py",
            "menu.py",
            "referee/",
        ),
        # the hardware's libraries, the pictures', the command line's
        ("gpiozero", "lgpio", "spidev", "smbus2", "serial", "mfrc522", "luma", "PIL", "argparse"),
    ),
    Layer(
        "devices",
        "what touches the hardware, or simulates it, and what it shows: readers, hub, buttons, LEDs, OLED",
        (
            "pins.py",
            "hardware.py",
            "nfc/",
            "hub/",
            "sim/",
            "ui/",
            "games/*/screen.py",
            "games/*/speech.py",
            "speech/",
            "doctor/",
            "readers/",
        ),
    ),
    Layer(
        "daemon",
        "the table put together: devices around the referee, the journal on disk, the service and its page",
        (
            "table.py",
            "assembly.py",
            "daemon.py",
            "demo/",
            "doctor/diagnose.py",
            "systemd.py",
            "club/",
            "web/",
            "games/*/homeassistant.py",
            "examples/",
            "games/*/examples.py",
        ),
    ),
    Layer(
        "commands",
        "what people run: the command line and the tools that build the documents",
        ("__main__.py", "cli.py", "commands/", "documents/", "games/*/drawings.py"),
    ),
)


def layer_of(module: str) -> Layer:
    """The layer of ``module`` (a dotted name such as ``companion.ui.menu``); KeyError for one no layer names."""
    parts = module.split(".")[1:]
    if not parts:
        return LAYERS[0]
    candidates = ["/".join(parts) + ".py"] + ["/".join(parts[:end]) + "/" for end in range(len(parts), 0, -1)]
    for candidate in candidates:
        for layer in LAYERS:
            if any(fnmatchcase(candidate, path) for path in layer.paths):
                return layer
    raise KeyError(f"{module} is in no layer: add its file or folder to LAYERS in companion/documents/layers.py")


# --- the picture ---------------------------------------------------------------------------------------------

_WIDTH = 720
_BOX_X, _BOX_W = 10, 600
_LINE = 14  # units between two lines of text
_FILL = {"core": "#e8f0fb", "devices": "#eef7ea", "daemon": "#fdf1e3", "commands": "#f6eaf6"}


def _wrap(words: list[str], width: float, gap: str = " ") -> list[str]:
    lines: list[str] = []
    for word in words:
        if lines and text_width(f"{lines[-1]}{gap}{word}", "body") <= width:
            lines[-1] += f"{gap}{word}"
        else:
            lines.append(word)
    return lines


def draw_layers() -> Drawing:
    """The layers as boxes, the top one first, with an arrow down their side: the way imports go."""
    shapes: list[Rect | Wire | Label] = [
        Label(_BOX_X, 10, "companion: the layers", size=2),
        Label(_BOX_X, 36, "A module imports its own layer and the layers below it; no import cycle."),
    ]
    y = 60
    tops: list[float] = []
    for layer in reversed(LAYERS):
        paths, holds = _wrap(list(layer.paths), _BOX_W - 20, "  "), _wrap(layer.holds.split(), _BOX_W - 20)
        height = 28 + _LINE * (len(paths) + len(holds))
        shapes.append(Rect(_BOX_X, y, _BOX_W, height, COLOURS["ink"], fill=_FILL[layer.name]))
        shapes.append(Label(_BOX_X + 10, y + 8, layer.name.upper()))
        for i, line in enumerate(paths + holds):
            colour = COLOURS["ink"] if i < len(paths) else COLOURS["pad"]
            shapes.append(Label(_BOX_X + 10, y + 26 + i * _LINE, line, colour=colour))
        tops.append(y)
        y += height + 12
    arrow_x = _BOX_X + _BOX_W + 40
    shapes.append(Wire(((arrow_x, tops[0] + 10), (arrow_x, y - 24)), COLOURS["ink"]))
    shapes.append(Wire(((arrow_x - 8, y - 34), (arrow_x, y - 22), (arrow_x + 8, y - 34)), COLOURS["ink"]))
    shapes.append(Label(arrow_x, tops[0] - 14, "imports", centred=True))
    return Drawing(width=_WIDTH, height=y + 8, px_per_unit=2, shapes=shapes)


def write_layers(out: Path) -> list[Path]:
    """Write the picture as ``out/layers.svg`` and ``out/layers.png``; return the files."""
    drawing = draw_layers()
    svg, png = out / "layers.svg", out / "layers.png"
    svg.write_text(drawing.svg(), "utf-8")
    drawing.png().save(png, optimize=True)
    return [svg, png]


# --- the table in docs/EXTENDING.md ------------------------------------------------------------------------------

TABLE_START = "<!-- the layers' table, written from LAYERS by python -m companion.documents: edit LAYERS -->"
TABLE_END = "<!-- end of the layers' table -->"


def layer_table() -> str:
    """The layers as a Markdown table, the bottom one first: what each names, holds and may import::

    >>> layer_table().splitlines()[3].split(" | ")[-1]
    'devices, core |'
    """
    rows = ["| layer | holds | may import |", "| --- | --- | --- |"]
    for index, layer in enumerate(LAYERS):
        paths = ", ".join(f"`{path}`" for path in layer.paths)
        below = ", ".join(other.name for other in reversed(LAYERS[: index + 1]))
        if layer.keeps_out:
            below += " only; loads none of " + ", ".join(f"`{name}`" for name in layer.keeps_out)
        rows.append(f"| **{layer.name}**: {paths} | {layer.holds} | {below} |")
    return "\n".join(rows) + "\n"


def with_layer_table(text: str, source: str = "EXTENDING.md") -> str:
    """``text`` with :func:`layer_table` written afresh between its two markers."""
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"{source}: no {TABLE_START!r} ... {TABLE_END!r}: put the two lines where the table goes")
    return text[: start + len(TABLE_START)] + "\n" + layer_table() + text[end:]


def write_layer_table(doc: Path) -> Path:
    """Write the table into ``doc`` (``docs/EXTENDING.md``) between its markers; return the file."""
    doc.write_text(with_layer_table(doc.read_text("utf-8"), str(doc)), "utf-8")
    return doc
