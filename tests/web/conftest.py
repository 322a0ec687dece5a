"""One headless Chromium for every test of tests/web/ (companion.documents.browser: Debian's chromium, which ``make
test`` installs when missing, driven by Playwright): its start is a second or two of Node.js and Chromium, and each
test's tab is a browser context of its own, so the tests share no cookie or storage. A test runs its coroutine on
the browser's loop (``browser.run``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.documents.browser import Browser, chromium


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running
