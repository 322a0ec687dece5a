"""Imports point down: every import of every module, read with ``ast`` (those inside functions too), against the
layers of ``companion/documents/layers.py`` (drawn and tabled in docs/EXTENDING.md, "Layers")."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import companion
from companion.documents.layers import DOCS_DIR, LAYERS, layer_of, with_layer_table, write_layers

PACKAGE = Path(companion.__file__).parent


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported(module: str) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in its file (in functions, under TYPE_CHECKING)."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:  # `from companion.ui import menu` imports the module companion.ui.menu
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules() else base)
    return {name for name in found if name in modules() and name != module}


def edges() -> Iterator[tuple[str, str]]:
    for module in modules():
        for target in sorted(imported(module)):
            yield module, target


def rank(module: str) -> int:
    return LAYERS.index(layer_of(module))


def test_every_module_is_in_a_layer() -> None:
    for module in modules():
        layer_of(module)  # raises, naming the module and where to add it


def test_every_layer_names_files_that_exist() -> None:
    for layer in LAYERS:
        for path in layer.paths:
            if "*" in path:  # a pattern names at least one file
                assert any(PACKAGE.glob(path)), path
            else:
                assert (PACKAGE / path).is_dir() if path.endswith("/") else (PACKAGE / path).is_file(), path


def test_no_two_modules_of_a_folder_differ_by_one_letter() -> None:
    """``ui/screen.py`` beside ``ui/screens.py`` was read as one for the other: a name says what its module holds."""
    folders: dict[Path, list[str]] = {}
    for path in modules().values():
        folders.setdefault(path.parent, []).append(path.stem)
    near = [
        (folder.relative_to(PACKAGE.parent).as_posix(), a, b)
        for folder, names in folders.items()
        for a in names
        for b in names
        if a < b and _one_letter_apart(a, b)
    ]
    assert not near, f"modules whose names differ by one letter: {near}"


def _one_letter_apart(a: str, b: str) -> bool:
    """One letter added, dropped or changed."""
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def test_the_committed_picture_is_up_to_date(tmp_path: Path) -> None:
    redraw = "redraw it with: .venv/bin/python -m companion.documents"
    for fresh in write_layers(tmp_path):
        committed = DOCS_DIR / fresh.name
        assert committed.exists(), f"{committed} is missing; {redraw}"
        if fresh.suffix == ".svg":
            assert committed.read_text("utf-8") == fresh.read_text("utf-8"), f"{committed} is stale; {redraw}"
        else:
            difference = ImageChops.difference(Image.open(committed).convert("RGB"), Image.open(fresh).convert("RGB"))
            assert difference.getbbox() is None, f"{committed} is stale; {redraw}"


def test_the_committed_table_is_up_to_date() -> None:
    extending = DOCS_DIR / "EXTENDING.md"
    text = extending.read_text("utf-8")
    redraw = "redraw it with: .venv/bin/python -m companion.documents"
    assert with_layer_table(text) == text, f"the layers' table in {extending} is stale; {redraw}"


def test_imports_point_down() -> None:
    upward = sorted((module, target) for module, target in edges() if rank(target) > rank(module))
    assert not upward, "imports that point up (a module imports only its own layer and those below it): " + ", ".join(
        f"{module} ({layer_of(module).name}) imports {target} ({layer_of(target).name})" for module, target in upward
    )


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {module: set() for module in modules()}
    for module, target in edges():
        graph[module].add(target)
    cycles = [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]
    assert not cycles, f"modules that import each other, through others or directly: {cycles}"


def test_the_readers_code_shows_nothing() -> None:
    """``nfc/`` turns the readers' answers into scans and cards; what shows the table (``ui/``: the screens, the
    LEDs) sits above it within the devices and is handed in (a hub station is given its lights), so no module of
    ``nfc/`` reaches one of ``ui/``, even through others."""
    graph: dict[str, set[str]] = {module: imported(module) for module in modules()}
    reached: dict[str, list[str]] = {}
    for start in (module for module in modules() if module.startswith("companion.nfc")):
        seen: set[str] = set()
        todo = [start]
        while todo:
            for target in graph[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        shown = sorted(module for module in seen if module.startswith("companion.ui"))
        if shown:
            reached[start] = shown
    assert not reached, f"nfc/ modules that reach ui/: {reached}"


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(sorted(group) for group in _strongly_connected(graph) if len(group) > 1) == [["a", "b", "c"]]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm: the groups of nodes that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


CORE = sorted(module for module in modules() if layer_of(module) is LAYERS[0])


@pytest.mark.parametrize("module", CORE)
def test_the_core_loads_no_device_and_no_command_line(module: str) -> None:
    """Importing a core module (the referee, the rules...) loads none of the libraries of the layers above."""
    code = f"import sys, {module}\nprint(' '.join(name for name in {LAYERS[0].keeps_out!r} if name in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == [], f"importing {module} loads {result.stdout.split()}"


def test_a_referee_of_every_game_is_built_and_shows_its_table_without_a_device_library() -> None:
    """The kinds are core and their screens are not: a referee built for each registered game, a card laid and its
    view made (the scoreboard included) loads none of the libraries above the core, Pillow first."""
    code = (
        "import sys\n"
        "from companion.config import GameConfig\n"
        "from companion.events import CardArrived\n"
        "from companion.games import kinds\n"
        "from companion.referee import Referee\n"
        "for name, kind in kinds().items():\n"
        "    referee = Referee(GameConfig(name), kind.default_zones())\n"
        "    referee.handle(CardArrived(next(iter(kind.default_zones())), referee.game.deck.cards[0].id), 0.0)\n"
        "    assert referee.view().game is not None\n"
        f"print(' '.join(name for name in {LAYERS[0].keeps_out!r} if name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == [], f"a referee loads {result.stdout.split()}"
