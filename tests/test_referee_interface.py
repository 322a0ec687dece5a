"""The referee is used through its interface only: every attribute read on a referee outside
``companion/referee/`` is a name of the table in docs/DAEMON.md ("The referee's interface"), and none is written.

A referee is what a name says it is: ``referee``, ``x.referee`` or ``x.referee()`` (the virtual table's getter), or
one made on the spot, ``Referee(...)``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import companion
from companion.referee import Referee

PACKAGE = Path(companion.__file__).parent
DOC = PACKAGE.parent / "docs" / "DAEMON.md"


def interface() -> set[str]:
    """The names the doc's table gives, each a method or a property of :class:`Referee`."""
    text = DOC.read_text("utf-8")
    section = text.split("## The referee's interface", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in re.findall(r"^\| (`.*?) \|", section, re.MULTILINE):
        names |= {name.split("(")[0] for name in re.findall(r"`([^`]+)`", row)}
    return names


def _is_referee(node: ast.expr) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Referee":
        return True  # one made on the spot: Referee(config, zones).game
    if isinstance(node, ast.Call):
        node = node.func
    return (isinstance(node, ast.Name) and node.id == "referee") or (
        isinstance(node, ast.Attribute) and node.attr == "referee"
    )


def refused(tree: ast.AST, allowed: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each attribute of a referee in ``tree`` read outside ``allowed``, or written."""
    return [
        (node.lineno, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and _is_referee(node.value)
        and (node.attr not in allowed or not isinstance(node.ctx, ast.Load))
    ]


def outside_accesses(allowed: set[str]) -> list[str]:
    """``file:line name`` for each of them in the package, outside the referee's own."""
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "referee":
            continue
        tree = ast.parse(path.read_text("utf-8"), str(path))
        found += [f"{path.relative_to(PACKAGE.parent)}:{line} {name}" for line, name in refused(tree, allowed)]
    return found


def test_the_interface_names_methods_and_properties_of_the_referee() -> None:
    names = interface()
    assert len(names) > 20, names  # the table was read
    for name in names:
        member = getattr(Referee, name, None)
        assert callable(member) or isinstance(member, property), f"{name} is not a method or property of Referee"


def test_no_module_outside_the_referee_reads_or_writes_its_fields() -> None:
    assert outside_accesses(interface()) == []


def test_the_check_finds_a_field_read_and_a_write_through_the_interface() -> None:
    code = "def f(table, self):\n    table.referee.zones.roles\n    self.referee().pairing_shown = '1'\n"
    code += "    Referee(config, {}).game.deck\n"
    found = sorted(refused(ast.parse(code), interface()))
    assert found == [(2, "zones"), (3, "pairing_shown"), (4, "game")]
