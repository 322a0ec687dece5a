"""One headless Chromium for a whole test module (companion.documents.browser: Debian's chromium driven by
Playwright, which ``make test`` installs when missing); each test runs its coroutine on the browser's loop
(``browser.run``) and opens its own tab."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.documents.browser import Browser, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running
