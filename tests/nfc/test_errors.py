"""The NFC errors are one tree of their own: every reader kind raises them and every caller catches them, without
importing a driver for it."""

from __future__ import annotations

import ast
from pathlib import Path

import companion
from companion.nfc import errors, rc522

PACKAGE = Path(companion.__file__).parent


def test_the_driver_raises_the_shared_errors() -> None:
    for name in errors.__all__:
        assert getattr(rc522, name) is getattr(errors, name), name


def test_no_module_takes_the_errors_from_a_driver() -> None:
    taken = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.module == "companion.nfc.rc522"
        and any(alias.name in errors.__all__ for alias in node.names)
    ]
    assert not taken, f"import the NFC errors from companion.nfc.errors: {taken}"
