"""Games and reader kinds found by entry points: an outside package installed beside companion adds its own with no
edit of companion, after companion's own; one whose entry point fails to load is named, not a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import companion.games as games
import companion.plugins as plugins
import companion.readers.registry as registry
from companion.config import ConfigError, parse_config
from companion.games import find_kind, kinds
from companion.plugins import broken, load, ordered
from companion.readers import kind

TESTS = Path(__file__).parent
# The outside package: its metadata as pip leaves it (a dist-info folder on sys.path), its entry points the toy game
# (companion/games/escalera/, which no entry point of companion's names: one that names the kind itself), the
# PN532-like reader of tests/readers (one that names its module, which registers the kind when imported), and an
# entry point whose module is not there.
ENTRY_POINTS = """\
[companion.games]
escalera = companion.games.escalera:KIND
lost = outside_lost_module:KIND

[companion.readers]
pn532 = pn532_like
"""


def install_outside(site: Path) -> Path:
    dist = site / "outside_kinds-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-kinds\nVersion: 1.0\n", "utf-8")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, "utf-8")
    return site


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The outside package on sys.path, and both registries as at a fresh start (copies, put back after)."""
    for folder in (install_outside(tmp_path / "site"), TESTS / "readers"):
        monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(games, "_KINDS", {})
    monkeypatch.setattr(games, "_loaded", False)
    monkeypatch.setattr(registry, "KINDS", {})
    monkeypatch.setattr(registry, "_found", None)
    monkeypatch.setattr(plugins, "_broken", {})
    monkeypatch.delitem(sys.modules, "pn532_like", raising=False)  # imported afresh: it registers into the copy
    yield
    sys.modules.pop("pn532_like", None)


def test_companions_own_kinds_are_its_entry_points() -> None:
    own = {
        point.name for point in entry_points(group="companion.games") if point.dist and point.dist.name == "companion"
    }
    assert own == set(kinds()) == {"seises", "sexto-set"}
    readers = entry_points(group="companion.readers")
    assert {point.name for point in readers if point.dist and point.dist.name == "companion"} == set(registry.names())


@pytest.mark.usefixtures("outside")
def test_an_outside_packages_game_and_reader_come_after_companions_own() -> None:
    assert list(kinds()) == ["seises", "sexto-set", "escalera"]  # the menu's order: the built-in games first
    assert registry.names() == ("spi", "hub", "mfrc522", "sim", "pn532")
    config = parse_config('[game]\nname = "escalera"\nplayers = 2\n[readers]\nbackend = "pn532"', "config.toml")
    assert (config.game.name, config.backend) == ("escalera", "pn532")
    assert find_kind("escalera").caption == "Escalera" and kind("pn532").name == "pn532"


@pytest.mark.usefixtures("outside")
def test_an_entry_point_that_fails_to_load_is_named_and_the_others_load(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(ConfigError) as info:  # the config's is the first look-up
        parse_config('[game]\nname = "lost"', "config.toml")
    said = "ModuleNotFoundError: No module named 'outside_lost_module'"
    assert str(info.value) == (
        f"config.toml: game.name: 'lost' is installed but cannot be loaded ({said}): install outside-kinds again, or "
        "choose another"
    )
    assert "lost" not in kinds() and "escalera" in kinds()
    [lost] = broken("companion.games")
    assert (lost.name, lost.value, lost.package) == ("lost", "outside_lost_module:KIND", "outside-kinds")
    assert lost.error == said
    assert (
        f"companion.games: 'lost' (outside_lost_module:KIND, entry point of outside-kinds) cannot be loaded: {said}"
        in caplog.text
    )


def test_a_fresh_process_finds_an_outside_package_by_its_metadata_alone(tmp_path: Path) -> None:
    """No test fixture, no import of the outside modules: the package on the path is all it takes."""
    site = install_outside(tmp_path / "site")
    path = os.pathsep.join(str(folder) for folder in (site, TESTS / "readers"))
    code = (
        "from companion.games import kinds\nfrom companion.readers.registry import names\nprint(list(kinds()), names())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.stdout.strip() == "['seises', 'sexto-set', 'escalera'] ('spi', 'hub', 'mfrc522', 'sim', 'pn532')"
    assert "'lost' (outside_lost_module:KIND, entry point of outside-kinds) cannot be loaded" in done.stderr


def test_the_order_is_companions_own_with_its_default_first_then_each_outside_package() -> None:
    points = [
        point
        for point in entry_points(group="companion.readers")
        if point.dist is not None and point.dist.name == "companion"
    ]
    assert [point.name for point in ordered(reversed(points), "spi")] == ["spi", "hub", "mfrc522", "sim"]


def test_an_install_without_companions_own_entry_points_says_what_to_run() -> None:
    """An editable install made before the entry points were declared has none: every game would be missing."""
    with pytest.raises(RuntimeError, match=r"install it again \(pip install -e \., or make \.venv/bin/\.installed"):
        load("companion.no-such-group", "x", register=lambda kind: kind, known=lambda name: False)
