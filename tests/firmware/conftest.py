"""The hub firmware in CPython: its board files laid out as on the Pico, MicroPython's modules faked.

``machine``, ``neopixel`` and ``micropython`` come from ``firmware/sim`` (the same fakes the MicroPython VM
gets); ``machine``'s SPI and chip selects are attached to the register-level chip simulator. The firmware's
module names (``protocol``, ``scanner``, ...) are taken out of ``sys.modules`` again after the tests.
"""

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("firmware_build", ROOT / "firmware/build.py")
assert _spec is not None and _spec.loader is not None
firmware_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(firmware_build)

BOARD_MODULES = [name.removesuffix(".py") for name in (*firmware_build.COMPILED, *firmware_build.SOURCE)]
FAKES = ["machine", "neopixel", "micropython", "vm_checks"]


@pytest.fixture(scope="session")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory with the firmware's files as source, first on ``sys.path`` with the fakes."""
    out = tmp_path_factory.mktemp("board")
    firmware_build.build(out, compiled=False)
    paths = [str(out), str(ROOT / "firmware/sim")]
    sys.path[:0] = paths
    yield out
    for path in paths:
        sys.path.remove(path)
    for name in BOARD_MODULES + FAKES:
        sys.modules.pop(name, None)


@pytest.fixture
def sim() -> Iterator[object]:
    import companion.sim

    companion.sim.reset()
    yield companion.sim
    companion.sim.reset()
