"""One headless Chromium for a whole test module (companion.documents.browser: Debian's chromium over the DevTools
protocol, which ``make test`` installs when missing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.documents.browser import Browser, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running
