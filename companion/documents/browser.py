"""Headless Chromium driven by Playwright (its asyncio API): the page's browser tests (``tests/web/``, the club's
board in ``tests/club/``), its screenshots in docs/ (:mod:`companion.documents.pages`) and ``python -m bench web``.

The browser is Debian's ``chromium`` (``.ci/debian`` installs it), launched by its path: Playwright's own browsers
(``playwright install``) are never downloaded, as no browser download is reachable from the table's CI. Playwright
is a development dependency (``.[dev]``), imported when a browser starts: the table itself never runs a browser.

Playwright's objects belong to the event loop they were made on, so the browser lives on a loop of its own for as
long as it runs, and whatever uses it runs on that loop: :meth:`Browser.run` in place of :func:`asyncio.run`.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright.async_api import Browser as Chromium
    from playwright.async_api import Page

__all__ = ["WAIT_S", "Browser", "BrowserError", "chromium"]

START_S = 30.0  # how long Chromium may take to start (a cold start on a busy machine)
WAIT_S = 10.0  # how long a page may take to show what is waited for (Playwright's auto-waiting and its expect)

T = TypeVar("T")


class BrowserError(RuntimeError):
    """Chromium or Playwright is missing, or Chromium did not start; the message says what to do."""


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium for as long as the block runs, with a profile of its own that is removed after."""
    program = shutil.which("chromium")
    if program is None:
        raise BrowserError("no chromium: install Debian's (sudo apt-get install chromium; make test does)")
    try:
        from playwright.async_api import Error, async_playwright, expect
    except ImportError as exc:
        raise BrowserError(f"no playwright ({exc}): install the development tools (pip install -e '.[dev]')") from exc
    expect.set_options(timeout=WAIT_S * 1000)
    loop = asyncio.new_event_loop()
    try:
        playwright = loop.run_until_complete(async_playwright().start())
        try:
            running = loop.run_until_complete(
                playwright.chromium.launch(
                    executable_path=program,
                    chromium_sandbox=False,  # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
                    args=["--disable-gpu"],
                    timeout=START_S * 1000,
                )
            )
        except Error as exc:
            raise BrowserError(f"{program} did not start: {exc.message}") from exc
        try:
            yield Browser(loop, running)
        finally:
            loop.run_until_complete(running.close())
            loop.run_until_complete(playwright.stop())
    finally:
        loop.close()


@dataclass
class Browser:
    loop: asyncio.AbstractEventLoop  # the loop Playwright's objects belong to
    chromium: Chromium

    def run(self, job: Coroutine[Any, Any, T]) -> T:
        """``job`` run to its end on the browser's loop, as :func:`asyncio.run` runs it on a new one: the tasks it
        leaves behind are cancelled."""
        before = asyncio.all_tasks(self.loop)
        try:
            return self.loop.run_until_complete(job)
        finally:
            left = asyncio.all_tasks(self.loop) - before
            if left:
                for task in left:
                    task.cancel()
                self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))

    @contextlib.asynccontextmanager
    async def page(self, url: str) -> AsyncIterator[Page]:
        """A new tab on ``url``, loaded, in a profile of its own (no cookie of another tab's); closed afterwards."""
        context = await self.chromium.new_context()
        context.set_default_timeout(WAIT_S * 1000)
        try:
            page = await context.new_page()
            await page.goto(url)
            yield page
        finally:
            await context.close()
