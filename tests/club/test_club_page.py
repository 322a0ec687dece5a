"""The room's board in a real browser (headless Chromium driven by Playwright, companion.documents.browser): every
table and the standings drawn as the league has them, redrawn live when a table's game moves on, in the board's
language; light, and nothing loaded from elsewhere."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from nights import a_night
from playwright.async_api import expect

from companion.club.room import Room
from companion.club.service import Update
from companion.club.standings import League
from companion.documents.browser import Browser, chromium

WEIGHT_GOAL = 150_000  # bytes, the table's page's goal: the board and everything it loads


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running


@contextlib.asynccontextmanager
async def board(league: League, language: str) -> AsyncIterator[tuple[Room, str]]:
    room = Room(league, ("127.0.0.1", 0), language)
    task = asyncio.create_task(room.serve())
    while room.port is None:
        assert not task.done(), task
        await asyncio.sleep(0.01)
    try:
        yield room, f"http://127.0.0.1:{room.port}/"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


STANDINGS = """[...document.querySelectorAll('.standings')].map((game) => [game.dataset.game,
  [...game.querySelectorAll('tr')].slice(1).map((row) => [...row.children].map((cell) => cell.innerText))])"""
TABLES = """[...document.querySelectorAll('.table')].map((table) => [table.dataset.table,
  table.querySelector('.status').innerText, table.querySelector('.turn')?.innerText ?? ''])"""


def test_the_board_draws_every_table_and_the_standings_and_redraws_them_live(tmp_path: Path, browser: Browser) -> None:
    night = a_night(tmp_path)
    league = League(":memory:")
    everything = night.everything()
    live = next(k for k, (table, text) in enumerate(everything) if table == "t1" and json.loads(text)["id"] == "2:40")
    for table, text in everything[:live]:  # t1 in the middle of its second game; t2 not yet
        league.receive(table, text)
    league.status("t1", "online")
    league.commit()
    (t1,) = league.tables()
    turn = t1.turn
    assert turn is not None and t1.number == 2

    async def look() -> tuple[Any, ...]:
        async with board(league, "en") as (room, url), browser.page(url) as page:
            await expect(page.locator(".table")).to_have_count(1)
            tables = await page.evaluate(TABLES)
            standings = await page.evaluate(STANDINGS)
            for table, text in everything[live:]:
                league.receive(table, text)
            league.commit()
            room.changed([Update("t2", "3:end", 0.0)])
            await expect(page.locator(".table")).to_have_count(2)
            await expect(page.locator(".standings tr")).to_have_count(len(league.standings()) + 2)
            later_tables, later = await page.evaluate(TABLES), await page.evaluate(STANDINGS)
            heads = await page.locator("#standings-head").inner_text()
            weight = await page.evaluate(
                "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
                ".reduce((sum, entry) => sum + entry.decodedBodySize, 0)"
            )
            origins = await page.evaluate(
                "performance.getEntriesByType('resource').map((entry) => new URL(entry.name).origin)"
            )
            return url, tables, standings, later_tables, later, heads, weight, origins

    url, tables, standings, later_tables, later, head, weight, origins = browser.run(look())
    assert tables == [["t1", "online", f"Turn: {turn}"]]  # its second game under way
    assert [game for game, _ in standings] == ["seises"] and len(standings[0][1]) == 4  # its first game
    over = {now.table: f"Over: {now.result}" if now.result else "Over" for now in league.tables()}
    assert over["t1"].startswith("Over: "), "a game won: its winner and the rule, as the table says it"
    assert later_tables == [["t1", "online", over["t1"]], ["t2", "", over["t2"]]]
    assert later == [
        [game, [[row.player, str(row.played), str(row.won), str(row.points), str(row.renuncios)] for row in rows]]
        for game, rows in _by_game(league).items()
    ]
    assert head == "Standings"
    assert 0 < weight <= WEIGHT_GOAL
    assert origins and set(origins) == {url.rstrip("/")}  # the board's own files only


def _by_game(league: League) -> dict[str, list[object]]:
    found: dict[str, list[object]] = {}
    for row in league.standings():
        found.setdefault(row.game, []).append(row)
    return found


def test_the_board_speaks_the_club_s_language(tmp_path: Path, browser: Browser) -> None:
    league = League(":memory:")

    async def look() -> tuple[str, str, str]:
        async with board(league, "es") as (_, url), browser.page(url) as page:
            said = await page.locator("#tables p").inner_text()
            return said, await page.title(), await page.locator("html").get_attribute("lang")

    assert browser.run(look()) == ("Ninguna mesa ha publicado aún", "El club", "es")


def test_the_board_says_which_games_of_a_table_never_came(tmp_path: Path, browser: Browser) -> None:
    """Games 1, 3 and 4 of t2 lost on the way (a session another login took): the board says so, in its language."""
    night = a_night(tmp_path)
    league = League(":memory:")
    for table, text in night.everything():
        if table == "t1" or json.loads(text)["game"] == 2:
            league.receive(table, text)
    for number in (5, 6):
        start = {"id": f"{number}:0", "game": number, "type": "start", "settings": {"game": "seises"}}
        league.receive("t2", json.dumps(start))
    league.commit()

    async def look() -> list[str]:
        async with board(league, "es") as (_, url), browser.page(url) as page:
            tables = page.locator(".table")
            await expect(tables).to_have_count(2)
            return await tables.all_inner_texts()

    t1, t2 = browser.run(look())
    assert "no llegaron" not in t1
    assert "las partidas 1, 3-4 no llegaron: no cuentan" in t2
