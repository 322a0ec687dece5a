"""The reader type a test adds (:mod:`pn532_like`) is known only inside the tests that ask for it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

import companion.readers.registry as registry

collect_ignore = ["pn532_like.py"]  # imported by the tests that register it, not on its own


@pytest.fixture
def pn532(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The ``pn532_like`` module, freshly imported (so registered) into a copy of the registry."""
    registry.names()  # companion's own kinds first, as in a real run
    monkeypatch.setattr(registry, "KINDS", dict(registry.KINDS))
    sys.modules.pop("pn532_like", None)
    yield importlib.import_module("pn532_like")
    sys.modules.pop("pn532_like", None)
