"""The package metadata as current setuptools wants it: without it, every ``pip install`` prints a deprecation
banner (setuptools 77 deprecated the ``project.license`` table for an SPDX string and ``license-files``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_is_an_spdx_string_with_its_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    for name in project["project"]["license-files"]:
        assert "MIT License" in (ROOT / name).read_text()
    assert project["build-system"]["requires"] == ["setuptools>=77"], "older setuptools reject the SPDX string"
