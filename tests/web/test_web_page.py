"""The table's page in a real browser (headless Chromium, tests/web/conftest.py): a card laid on a simulated zone
shows on the page, an illegal one shows its message, and the page is light and loads nothing from elsewhere.
Cards go through the simulated readers' field, as at the table, never straight to the referee."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import Browser
from test_web_server import serving, until

import companion.sim as sim

PAGE_WEIGHT_GOAL = 150_000  # bytes, the goal for the page and everything it loads


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


def test_a_card_laid_on_a_zone_shows_on_the_page_and_an_illegal_one_its_message(
    tmp_path: Path, browser: Browser
) -> None:
    async def play() -> tuple[str, str, int, list[str]]:
        async with serving(tmp_path, '[game]\nconfirm_turns = false\nlanguage = "en"\n') as (daemon, url):
            readers = daemon._readers
            assert readers is not None and daemon.table is not None
            async with browser.page(f"{url}/") as page:
                await page.until("!!document.querySelector('#seats')")
                assert await page.evaluate("document.documentElement.lang") == "en"
                assert await page.evaluate("document.querySelectorAll('#game [data-card]').length") == 0
                readers.put("6O", "z1")  # type: ignore[attr-defined]
                await page.until("!!document.querySelector('[data-row=O] [data-card=\"6O\"]')")
                readers.take("6O")  # type: ignore[attr-defined]
                await until(lambda: not daemon.table.referee.zones.lying["z1"])  # type: ignore[union-attr]
                readers.put("12C", "z1")  # type: ignore[attr-defined]  # after the 6 of oros: no
                said = await page.until("document.querySelector('#messages li.illegal')?.innerText")
                message = daemon.table.referee.view().message
                assert message is not None
                weight = await page.evaluate(
                    "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
                    ".reduce((sum, entry) => sum + entry.decodedBodySize, 0)"
                )
                origins = await page.evaluate(
                    "performance.getEntriesByType('resource').map((entry) => new URL(entry.name).origin)"
                )
                return said, f"{message.title}\n{message.todo}", weight, origins

    said, expected, weight, origins = asyncio.run(play())
    assert said == expected
    assert 0 < weight <= PAGE_WEIGHT_GOAL
    assert origins and set(origins) == {origins[0]} and origins[0].startswith("http://127.0.0.1:")
