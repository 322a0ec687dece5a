"""The phone speaks: the page says what the table's voice says, with the browser's speech synthesis, once a tap
switched it on (docs/WEB.md, "The phone's voice").

The server and the table are real and the card is laid on the simulated readers; what stands in is the browser's
``speechSynthesis`` alone (headless Chromium has no voice to hear): a stub installed before the page's script runs,
which keeps each utterance the page asks it to say, and each time it is told to stop."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Page, expect
from test_web_server import next_event, serving, until, web_config

import companion.sim as sim
import companion.web.server as server
from companion.config import parse_config
from companion.documents.browser import Browser
from companion.events import CardArrived
from companion.referee import Referee
from companion.speech import utterances

EXTRA = '[game]\nconfirm_turns = false\nlanguage = "en"\n'

# The browser's speech synthesis as the page uses it (https://wicg.github.io/speech-api/#tts-section): speak() keeps
# the utterance, its text and its language, and ends it soon after, as a voice does (or never, while
# window.endless holds); cancel() is kept too.
STUB = """
window.said = [];
window.endless = false;
const synthesis = {
  speaking: false, pending: false, paused: false,
  speak(utterance) {
    window.said.push({ text: utterance.text, lang: utterance.lang });
    if (!window.endless) setTimeout(() => utterance.onend && utterance.onend(new Event("end")), 10);
  },
  cancel() { window.said.push({ cancel: true }); },
  getVoices() { return []; },
  pause() {}, resume() {}, addEventListener() {}, removeEventListener() {},
};
Object.defineProperty(window, "speechSynthesis", { value: synthesis, configurable: true });
"""


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


def refusal(tmp_path: Path, card: str) -> str:
    """The sentence the table's voice says when ``card`` is the first laid on z1: worded apart from the daemon."""
    config = parse_config(web_config(tmp_path, EXTRA), "test")
    referee = Referee(config.game, config.zones)
    referee.handle(CardArrived("z1", card), 0.0)
    [said] = utterances(referee.told, referee.game_kind, referee, "rulings")
    return said.text


async def stubbed(page: Page) -> None:
    await page.add_init_script(STUB)
    await page.reload()  # the stub is in place before the page's script
    await expect(page.locator("#seats")).to_be_attached()


async def said(page: Page) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = await page.evaluate("window.said")
    return result


async def said_at_least(page: Page, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
    """What the page has asked to say, once it is ``count`` things (the page's policy forbids wait_for_function's
    eval)."""
    end = time.monotonic() + timeout
    while len(now := await said(page)) < count:
        assert time.monotonic() < end, f"timed out: the page said {now}"
        await asyncio.sleep(0.01)
    return now


def test_with_its_voice_switched_on_the_page_says_a_refusals_sentence(tmp_path: Path, browser: Browser) -> None:
    async def play() -> tuple[str, list[dict[str, Any]]]:
        async with serving(tmp_path, EXTRA) as (daemon, url), browser.page(f"{url}/") as page:
            await stubbed(page)
            voice = page.locator("#voice")
            await expect(voice).to_have_text("Voice: Off")
            await voice.click()  # the tap browsers require
            await expect(voice).to_have_text("Voice: Rulings")
            assert await voice.get_attribute("aria-pressed") == "true"
            daemon._readers.put("7O", "z1")  # type: ignore[union-attr]  # the first card must be the 6 of coins
            return await voice.inner_text(), await said_at_least(page, 1)

    _, heard = browser.run(play())
    assert heard == [{"text": refusal(tmp_path, "7O"), "lang": "en"}]


def test_nothing_is_said_before_the_tap(tmp_path: Path, browser: Browser) -> None:
    async def play() -> list[dict[str, Any]]:
        async with serving(tmp_path, EXTRA) as (daemon, url), browser.page(f"{url}/") as page:
            await stubbed(page)
            readers = daemon._readers
            assert readers is not None and daemon.table is not None
            readers.put("7O", "z1")  # type: ignore[attr-defined]
            await expect(page.locator("#messages li.illegal")).to_have_count(1)
            readers.take("7O")  # type: ignore[attr-defined]
            await until(lambda: not daemon.table.referee.zones.lying["z1"])  # type: ignore[union-attr]
            readers.put("6O", "z1")  # type: ignore[attr-defined]  # played: the turn passes, said at "all"
            # shown after the refusal's sentence and the turn's were sent: had the page said them, they are kept
            await expect(page.locator('[data-row=O] [data-card="6O"]')).to_be_attached()
            await page.wait_for_timeout(100)
            return await said(page)

    assert browser.run(play()) == []


def test_a_refusal_cuts_short_the_turn_being_said(tmp_path: Path, browser: Browser) -> None:
    """At "all" the turns are said too; a ruling is newer news than the turn being said: the page stops it."""

    async def play() -> tuple[list[dict[str, Any]], str]:
        async with serving(tmp_path, EXTRA) as (daemon, url), browser.page(f"{url}/") as page:
            await stubbed(page)
            readers = daemon._readers
            assert readers is not None and daemon.table is not None
            await page.evaluate("window.endless = true")  # a turn that is still being said
            await page.locator("#voice").click()
            await page.locator("#voice").click()
            await expect(page.locator("#voice")).to_have_text("Voice: Everything")
            readers.put("6O", "z1")  # type: ignore[attr-defined]
            await said_at_least(page, 1)
            turn = str(daemon.table.referee.seat_name(1))
            readers.take("6O")  # type: ignore[attr-defined]
            await until(lambda: not daemon.table.referee.zones.lying["z1"])  # type: ignore[union-attr]
            readers.put("12C", "z1")  # type: ignore[attr-defined]  # neither beside the 6 nor a 6
            return await said_at_least(page, 3), turn

    heard, turn = browser.run(play())
    assert heard[0]["text"].startswith(turn) and heard[1:] == [
        {"cancel": True},
        {"text": heard[2]["text"], "lang": "en"},
    ]
    assert "king of cups" in heard[2]["text"].lower()


async def spoken(events: aiohttp.ClientResponse) -> object:
    """The next "speech" event's sentences, the others skipped."""
    async with asyncio.timeout(5):
        while True:
            data = b""
            while not data.endswith(b"\n\n"):
                data += await events.content.readline()
            if data.startswith(b"event: speech\n"):
                return json.loads(data.rpartition(b"data: ")[2])


def test_the_news_are_worded_once_for_every_page_and_never_for_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No page listening: no sentence built (the table's loop does nothing for the phones); two pages listening:
    one event's news worded once, and both sent the same sentences on their stream."""
    worded: list[list[str]] = []
    word = server.utterances

    def counted(*args: Any) -> Any:
        said = word(*args)
        worded.append([utterance.text for utterance in said])
        return said

    monkeypatch.setattr(server, "utterances", counted)

    async def watch() -> tuple[list[list[str]], list[object]]:
        async with serving(tmp_path, EXTRA) as (daemon, url), aiohttp.ClientSession() as session:
            readers = daemon._readers
            assert readers is not None and daemon.table is not None
            readers.put("7O", "z1")  # type: ignore[attr-defined]  # refused, with nobody listening
            await until(lambda: daemon.table.referee.view().message is not None)  # type: ignore[union-attr]
            readers.take("7O")  # type: ignore[attr-defined]
            await until(lambda: not daemon.table.referee.zones.lying["z1"])  # type: ignore[union-attr]
            await asyncio.sleep(0.05)
            unheard = list(worded)
            async with session.get(f"{url}/api/events") as one, session.get(f"{url}/api/events") as two:
                await next_event(one), await next_event(two)  # the state: both listen
                readers.put("7O", "z1")  # type: ignore[attr-defined]
                said = [await spoken(one), await spoken(two)]
            return unheard, said

    unheard, said = asyncio.run(watch())
    sentence = refusal(tmp_path, "7O")
    assert unheard == []
    assert said == [[{"text": sentence, "lang": "en", "weight": "refusal"}]] * 2
    assert worded == [[sentence]], "worded once for both pages"
