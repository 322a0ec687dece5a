"""The hub firmware in CPython: its board files laid out as on the Pico, MicroPython's modules faked.

``machine``, ``neopixel`` and ``micropython`` come from ``firmware/sim`` (the same fakes the MicroPython VM
gets); ``machine``'s SPI and chip selects are attached to the register-level chip simulator. The firmware's
module names (``protocol``, ``scanner``, ...) are taken out of ``sys.modules`` again after the tests.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.hub.simulated import load_firmware, unload_firmware

# Runs inside the MicroPython VM with the firmware's modules on its path; the host cannot import it for doctests
collect_ignore = ["vm_checks.py"]


@pytest.fixture(scope="session")
def board() -> Iterator[Path]:
    """The firmware's files as source, first on ``sys.path`` with the fakes."""
    yield load_firmware()
    unload_firmware()
