"""The table's page in a real browser (headless Chromium, tests/web/conftest.py): a card laid on a simulated zone
shows on the page, an illegal one shows its message, the page is light and loads nothing from elsewhere, and it
draws the whole state of recorded games.
Cards go through the simulated readers' field, as at the table, never straight to the referee."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from test_web_server import GAMES, journal_with, serving, until

import companion.sim as sim
from companion.decks import Card, load_deck
from companion.documents.browser import Browser
from companion.i18n import translate
from companion.rules.transcript import state
from companion.web.page import PAGE_STRINGS

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


@pytest.mark.parametrize(("recorded", "language"), [("seises-2-players", "es"), ("sexto-set-pass", "en")])
def test_the_page_draws_a_recorded_games_whole_state(
    tmp_path: Path, browser: Browser, recorded: str, language: str
) -> None:
    journal_with(tmp_path, GAMES / f"{recorded}.txt", language)  # the daemon resumes it, in its language

    async def look() -> tuple[dict[str, Any], dict[str, Any]]:
        async with serving(tmp_path) as (daemon, url):
            assert daemon.table is not None
            async with browser.page(f"{url}/") as page:
                await page.until("!!document.querySelector('#game table')")
                shown = await page.evaluate(DRAWN)
                return shown, state(daemon.table.referee.game)

    shown, game = asyncio.run(look())
    assert shown["lang"] == language
    assert shown["messagesHead"] == tr_page("messages", language)
    if "rows" in game:  # Seises: every card between each row's ends, the pot, the reserve, a line a seat
        cards = load_deck(game["deck"])
        expected = {
            suit: [
                c.id
                for c in sorted(cards, key=lambda c: c.rank or 0)
                if c.suit == suit and span[0] <= (c.rank or 0) <= span[1]
            ]
            for suit, span in game["rows"].items()
            if span
        }
        assert {suit: ids for suit, ids in shown["rows"].items() if ids} == expected
        assert (shown["pot"], shown["reserve"]) == (str(game["pot"]), str(game["reserve"]))
        assert [row[1:3] for row in shown["table"][1:]] == [
            [str(left), str(score)] for left, score in zip(game["hand_sizes"], game["scores"], strict=True)
        ]
    else:  # 6º SET: the 8 lines with their master card first, then the cards placed, in order; the draw pile
        assert shown["lines"] == {m: [m] + [p["card"] for p in placed] for m, placed in game["lines"].items()}
        assert shown["drawPile"] == str(game["draw_pile"])
        assert [row[1:] for row in shown["table"][1:]] == [
            [str(game[key][pair]) for key in ("held", "masters_won", "sets_won")] for pair in ("A", "B")
        ]


# What the page drew, read back from its DOM.
DRAWN = """(() => {
  const ids = (node) => [...node.querySelectorAll('[data-card]')].map((card) => card.dataset.card);
  const text = (selector) => document.querySelector(selector)?.textContent;
  return {
    lang: document.documentElement.lang,
    messagesHead: text('#messages-head'),
    rows: Object.fromEntries([...document.querySelectorAll('[data-row]')].map((r) => [r.dataset.row, ids(r)])),
    lines: Object.fromEntries([...document.querySelectorAll('[data-line]')].map((l) => [l.dataset.line, ids(l)])),
    pot: text('#pot'), reserve: text('#reserve'), drawPile: text('#draw-pile'),
    table: [...document.querySelectorAll('#game table tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
  };
})()"""


def by_rank(card: Card) -> int:
    return card.rank or 0


def tr_page(key: str, language: str) -> str:
    return translate(PAGE_STRINGS[key], language)
