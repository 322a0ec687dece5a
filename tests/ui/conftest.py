"""gpiozero on its mock pin factory, as in gpiozero's own tests: a fresh factory per test, reset afterwards.

The factory pretends to be a Raspberry Pi 4, so a pin the board lacks fails as it would on the table.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

PI4 = "c03111"


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    Device.pin_factory = MockFactory(revision=PI4)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved
