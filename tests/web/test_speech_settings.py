"""A paired phone changes how much the table says aloud, as the menu's "voice" line does; a table whose config
says "off" has no voice, and neither the menu nor the phone offers one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import test_settings
from playwright.async_api import expect
from test_settings import NAMES, paired_session, phone, post, served
from test_web_server import until

import companion.sim as sim
from companion.documents.browser import Browser

VOICE = NAMES + '[speech]\nlevel = "rulings"\ndevice = "null"\n'  # ALSA's null PCM: plays to nowhere


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


def test_a_paired_phone_sets_the_tables_voice_as_the_menu_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_settings, "PAIR_LINE", test_settings.PAIR_LINE + 1)  # the voice's line comes before

    async def change() -> tuple[Any, tuple[int, Any], tuple[int, Any], str | None]:
        async with served(tmp_path, VOICE) as table, phone() as session:
            async with session.get(f"{table.url}/api/settings") as response:
                offered = (await response.json())["speech"]
            await paired_session(table, session)
            refused = await post(session, f"{table.url}/api/speech", {"level": "loud"})
            done = await post(session, f"{table.url}/api/speech", {"level": "all"})
            assert table.daemon.table is not None
            return offered, refused, done, table.referee.speech_level

    offered, refused, done, level = asyncio.run(change())
    assert offered == {
        "level": "rulings",
        "levels": [
            {"name": "off", "label": "Off"},
            {"name": "rulings", "label": "Rulings"},
            {"name": "all", "label": "Everything"},
        ],
    }
    assert refused == (400, {"error": "level 'loud': choose off, rulings, all"})
    assert done == (200, {"level": "all"}) and level == "all"


def test_a_table_without_a_voice_offers_none(tmp_path: Path) -> None:
    async def ask() -> tuple[Any, tuple[int, Any]]:
        async with served(tmp_path) as table, phone() as session:
            async with session.get(f"{table.url}/api/settings") as response:
                offered = (await response.json())["speech"]
            await paired_session(table, session)
            return offered, await post(session, f"{table.url}/api/speech", {"level": "all"})

    offered, answer = asyncio.run(ask())
    assert offered is None
    assert answer[0] == 400 and answer[1]["error"].startswith("this table has no voice")


def test_the_settings_page_offers_the_voice_and_its_choice_reaches_the_table(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_settings, "PAIR_LINE", test_settings.PAIR_LINE + 1)

    async def choose() -> tuple[list[str], str | None]:
        async with served(tmp_path, VOICE) as table, browser.page(f"{table.url}/settings") as page:
            await table.pair(page)
            await expect(page.locator("#voice")).to_be_visible()
            offered = await page.locator("#speech option").all_text_contents()
            await page.locator("#speech").select_option("all")
            await until(lambda: table.referee.speech_level == "all")
            return offered, table.referee.speech_level

    offered, level = browser.run(choose())
    assert offered == ["Off", "Rulings", "Everything"] and level == "all"


def test_the_settings_page_of_a_table_without_a_voice_hides_it(tmp_path: Path, browser: Browser) -> None:
    async def look() -> bool:
        async with served(tmp_path) as table, browser.page(f"{table.url}/settings") as page:
            await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
            return await page.locator("#voice").is_hidden()

    assert browser.run(look())
