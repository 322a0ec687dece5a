"""The reader kind registry: companion names a reader type only in that type's module of ``companion/readers/``
(and the registry, and the data and config files), so a new type is one module and one registry line."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import companion
from companion.readers import ReaderKind, kind
from companion.readers.registry import names, register

PACKAGE = Path(companion.__file__).parent

# The same words where they mean something else than a reader type; how many times each module writes them.
OTHER_MEANINGS = {
    ("doctor/pi.py", "spi"): (1, "the Linux group that owns /dev/spidev*"),
    ("documents/assembly.py", "spi"): (2, "the colour of the SPI bus's wires"),
    ("documents/drawings.py", "spi"): (3, "the colour of the SPI bus's wires"),
    ("documents/layers.py", "mfrc522"): (1, "the mfrc522 package, a library the core may not load"),
    ("hardware.py", "hub"): (2, "the pin map's [hub] table, the Pico's own pins"),
    ("hub/simulated.py", "hub"): (1, "the firmware's mode, as its status reports it"),
    ("hub/simulated.py", "sim"): (2, "firmware/sim, the firmware's simulated machine module"),
    ("sim/pi.py", "mfrc522"): (1, "the mfrc522 package's module name"),
}


def named_kinds() -> Counter[tuple[str, str]]:
    """Each string in companion's code that is a reader kind's name, by module, outside companion/readers/."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith("readers/"):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names():
                found[module, node.value] += 1
    return found


def test_no_module_outside_the_kinds_names_a_reader_type() -> None:
    """Not ``backend == "hub"``, not ``choose("sim")``: the daemon, doctor, enroll and run ask the registry."""
    expected = Counter({key: count for key, (count, _) in OTHER_MEANINGS.items()})
    assert named_kinds() == expected


def test_every_kind_is_known_by_its_name_and_a_name_is_taken_once() -> None:
    assert names()[:4] == ("spi", "hub", "mfrc522", "sim")
    assert all(kind(name).name == name for name in names())
    with pytest.raises(KeyError, match="no reader kind 'usb'; the kinds are spi, hub, mfrc522, sim"):
        kind("usb")

    class Another(ReaderKind):
        name = "hub"

    with pytest.raises(ValueError, match="a reader kind named 'hub' is registered already"):
        register(Another())
    assert register(kind("hub")) is kind("hub")  # registering the same kind again changes nothing


def test_the_kinds_are_listed_in_the_same_order_whichever_module_was_imported_first() -> None:
    """``pytest --doctest-modules companion`` imports the hub's module before the registry lists the kinds: the
    list (enroll's --help, the registry's doctest) was then in import order."""
    code = "import companion.readers.hub\nfrom companion.readers.registry import names\nprint(names())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "('spi', 'hub', 'mfrc522', 'sim')"
