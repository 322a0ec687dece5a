"""A paired phone changes how much the table says aloud, as the menu's "voice" line does; every table offers it,
"off" until someone switches it on, and a table that cannot sound (no sound card) says what to do."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect
from test_settings import NAMES, paired_session, phone, post, served
from test_web_server import until

import companion.sim as sim
import companion.speech.speaker
from companion.documents.browser import Browser

VOICE = NAMES + '[speech]\nlevel = "rulings"\ndevice = "null"\n'  # ALSA's null PCM: plays to nowhere


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


@pytest.fixture
def no_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel lists no sound card (linux's sound/core/info.c says so in these words)."""
    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    monkeypatch.setattr(companion.speech.speaker, "CARDS", cards)


def test_a_paired_phone_sets_the_tables_voice_as_the_menu_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
        "mute": None,  # ALSA's null PCM needs no card, and espeak-ng is installed
    }
    assert refused == (400, {"error": "level 'loud': choose off, rulings, all"})
    assert done == (200, {"level": "all"}) and level == "all"


@pytest.mark.usefixtures("no_card")
def test_a_table_whose_config_says_nothing_offers_the_voice_off_and_without_a_card_says_what_to_do(
    tmp_path: Path,
) -> None:
    async def ask() -> tuple[Any, tuple[int, Any], bool]:
        async with served(tmp_path) as table, phone() as session:
            async with session.get(f"{table.url}/api/settings") as response:
                offered = (await response.json())["speech"]
            await paired_session(table, session)
            answer = await post(session, f"{table.url}/api/speech", {"level": "all"})
            speaker = table.daemon.speaker
            assert speaker is not None
            return offered, answer, speaker._thread is None

    offered, answer, idle = asyncio.run(ask())
    assert offered["level"] == "off" and offered["mute"] == "Silent: companion doctor"
    assert answer == (200, {"level": "all"})
    assert idle, "a voice that cannot sound runs no thread"


def test_the_settings_page_offers_the_voice_and_its_choice_reaches_the_table(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
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


@pytest.mark.usefixtures("no_card")
def test_the_settings_page_of_a_table_without_a_card_says_what_to_do_once_the_voice_is_on(
    tmp_path: Path, browser: Browser
) -> None:
    async def look() -> tuple[bool, str]:
        async with served(tmp_path, NAMES) as table, browser.page(f"{table.url}/settings") as page:
            await table.pair(page)
            await expect(page.locator("#voice")).to_be_visible()
            hidden_while_off = await page.locator("#mute").is_hidden()
            await page.locator("#speech").select_option("rulings")
            await expect(page.locator("#mute")).to_be_visible()
            return hidden_while_off, await page.locator("#mute").inner_text()

    hidden_while_off, said = browser.run(look())
    assert hidden_while_off and said == "Silent: companion doctor"
