"""The simulated bench is emptied around every test."""

from collections.abc import Iterator

import pytest

import companion.sim as sim


@pytest.fixture(autouse=True)
def bench() -> Iterator[None]:
    sim.reset()
    yield
    sim.reset()
