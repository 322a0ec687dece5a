"""The table's page in a real browser (headless Chromium, tests/web/conftest.py): a card laid on a simulated zone
shows on the page, an illegal one shows its message, the page is light and loads nothing from elsewhere, and it
draws the whole state of recorded games.
Cards go through the simulated readers' field, as at the table, never straight to the referee."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect
from test_web_server import GAMES, journal_with, serving, until

import companion.sim as sim
from companion.decks import SUITS, Card, load_deck
from companion.documents.browser import Browser
from companion.games import ending
from companion.hardware import load_pinmap
from companion.i18n import translate
from companion.journal import Entry
from companion.referee import Referee
from companion.rules.transcript import parse_line, state
from companion.view import STRINGS
from companion.web.page import PAGE_STRINGS
from companion.web.settings import SETTINGS_STRINGS

PAGE_WEIGHT_GOAL = 150_000  # bytes, the goal for the page and everything it loads


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


def test_the_browser_is_debians_chromium(browser: Browser) -> None:
    """Playwright drives the chromium on the PATH (Debian's, which make test installs), never a browser of its own:
    none can be downloaded on the table's CI."""
    said = subprocess.run(["chromium", "--version"], capture_output=True, text=True, check=True).stdout
    assert said.startswith(f"Chromium {browser.chromium.version} "), said


def test_a_card_laid_on_a_zone_shows_on_the_page_and_an_illegal_one_its_message(
    tmp_path: Path, browser: Browser
) -> None:
    async def play() -> tuple[str, str, int, list[str]]:
        async with serving(tmp_path, '[game]\nconfirm_turns = false\nlanguage = "en"\n') as (daemon, url):
            readers = daemon._readers
            assert readers is not None and daemon.table is not None
            async with browser.page(f"{url}/") as page:
                await expect(page.locator("#seats")).to_be_attached()
                assert await page.locator("html").get_attribute("lang") == "en"
                assert await page.locator("#game [data-card]").count() == 0
                readers.put("6O", "z1")  # type: ignore[attr-defined]
                await expect(page.locator('[data-row=O] [data-card="6O"]')).to_be_attached()
                readers.take("6O")  # type: ignore[attr-defined]
                await until(lambda: not daemon.table.referee.zones.lying["z1"])  # type: ignore[union-attr]
                readers.put("12C", "z1")  # type: ignore[attr-defined]  # after the 6 of oros: no
                said = await page.locator("#messages li.illegal").inner_text()
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

    said, expected, weight, origins = browser.run(play())
    assert said == expected
    assert 0 < weight <= PAGE_WEIGHT_GOAL
    assert origins and set(origins) == {origins[0]} and origins[0].startswith("http://127.0.0.1:")


def test_the_page_links_to_the_settings_page_in_the_table_s_language(tmp_path: Path, browser: Browser) -> None:
    """A phone at the table's page reaches the settings page by a tap on its link, worded in the table's language."""

    async def follow() -> tuple[str, str, str]:
        async with serving(tmp_path, '[game]\nlanguage = "es"\n') as (_, url), browser.page(f"{url}/") as page:
            await expect(page.locator("#seats")).to_be_attached()  # drawn: the texts are the table's
            link = await page.locator("#settings-link").text_content()
            await page.locator("#settings-link").click()
            await expect(page).to_have_url(f"{url}/settings")
            # once its script has drawn what /api/settings said (the title is "Companion" before)
            head = page.locator("#settings-head")
            await expect(head).not_to_have_text("Companion")
            return link, await head.text_content()

    link, title = browser.run(follow())
    assert link == translate(PAGE_STRINGS["settings"], "es") == "Ajustes de la mesa"
    assert title == link


@pytest.mark.parametrize(
    ("recorded", "language"),
    [
        ("seises-2-players", "es"),
        ("seises-2-players", "en"),
        ("sexto-set-pass", "en"),
        ("sexto-set-equal-sets-decided-by-masters", "es"),
    ],
)
def test_the_page_draws_a_recorded_games_whole_state(
    tmp_path: Path, browser: Browser, recorded: str, language: str
) -> None:
    journal_with(tmp_path, GAMES / f"{recorded}.txt", language)  # the daemon resumes it, in its language

    async def look() -> tuple[dict[str, Any], dict[str, Any], list[str], str]:
        async with serving(tmp_path) as (daemon, url):
            assert daemon.table is not None
            async with browser.page(f"{url}/") as page:
                await expect(page.locator("#game table")).to_be_attached()
                await expect(page.locator("#oled")).to_be_visible()  # the mirror's first frame
                shown = await page.evaluate(DRAWN)
                rows = await page.locator("[data-row] > span").all_text_contents()
                text = await page.locator("body").inner_text()
                await page.locator("#settings-link").click()
                await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
                return shown, drawing(daemon.table.referee), rows, text + "\n" + await page.locator("body").inner_text()

    shown, expected, rows, text = browser.run(look())
    assert shown["lang"] == language
    assert shown["messagesHead"] == tr_page("messages", language)
    assert drawn(shown) == expected
    if rows:  # Seises: each row named by its suit, in the table's words
        assert rows == [translate(SUITS[suit], language).capitalize() for suit in "OCEB"]
    assert not other_language(text, language), "the table's page and its settings page speak one language"


@pytest.mark.parametrize(
    ("recorded", "language", "actions"),
    [
        ("seises-renege-points", "en", None),  # 4 hands won, renuncios paid in points
        ("sexto-set-match-of-three", "es", None),  # three sets: each new set's lines start empty
        ("seises-reserve-exhausted", "es", 120),  # the reserve runs out: chips owed from the 53rd action on
    ],
)
def test_the_page_draws_the_state_after_each_action_of_a_recorded_game(
    tmp_path: Path, browser: Browser, recorded: str, language: str, actions: int | None
) -> None:
    """Each action goes to the table's referee as the journal gives it back after a power cut, the table shows
    it, and the page must draw that state before the next action: every row, line and count, whose turn.
    (Laying the cards through the readers is the virtual table's and the demo's test; this one is about what the
    page draws, over hundreds of states.) The whole game, or its first ``actions``."""
    lines = (GAMES / f"{recorded}.txt").read_text("utf-8").splitlines()
    header = tmp_path / "header.txt"
    header.write_text("\n".join(line for line in lines if line.startswith("#")), "utf-8")
    journal_with(tmp_path, header, language)  # the game at its start, with the recorded game's settings
    played = [line for line in lines if parse_line(line) is not None][:actions]

    headers: set[str] = set()

    async def follow() -> tuple[int, str]:
        async with serving(tmp_path) as (daemon, url):
            table = daemon.table
            assert table is not None
            async with browser.page(f"{url}/") as page:
                await expect(page.locator("#game table")).to_be_attached()
                await page.evaluate(COUNT_RENDERS)
                renders = 0
                for done, line in enumerate(played, 1):
                    table.referee.replay([Entry("action", line, 1.0)])
                    table.show(1.0)
                    expected = drawing(table.referee)
                    headers.add(expected["header"])
                    end = time.monotonic() + 10
                    while True:
                        renders, shown = await page.evaluate(f"{NEXT_RENDER}({renders})")
                        if drawn(shown) == expected:
                            break
                        if time.monotonic() > end:
                            return done, f"after {line!r}: drew {drawn(shown)}, not {expected}"
                return len(played), ""

    done, wrong = browser.run(follow())
    assert not wrong, f"action {done} of {len(played)}: {wrong}"
    assert done == len(played) >= 100
    if recorded.startswith("sexto-set"):  # between sets whose turn it is, never "Over"; then the match's winner
        over = [header for header in headers if header.startswith(tr_page("over", language))]
        assert not over and any(header.startswith(f"{tr_page('winner', language)}: ") for header in headers)


def test_after_a_set_that_does_not_end_the_match_the_header_says_the_game_goes_on(
    tmp_path: Path, browser: Browser
) -> None:
    """6º SET resumed one action before its first set ends (pair B passes: pair B cannot link and loses it); PASS
    and OK pressed on the buttons' mock pins end it: the header says the set's result and that the game goes on,
    never "Over", and whose turn it is."""
    lines = (GAMES / "sexto-set-match-of-three.txt").read_text("utf-8").splitlines()
    played = [line for line in lines if parse_line(line) is not None]
    assert played[32] == "pass"
    transcript = tmp_path / "first-set.txt"
    transcript.write_text("\n".join([lines[0], *played[:32]]), "utf-8")
    journal_with(tmp_path, transcript, "en")

    async def press(daemon: Any, button: str) -> None:
        pin = daemon.pin_factory.pin(load_pinmap().buttons[button])
        pin.drive_low()
        await asyncio.sleep(0.1)
        pin.drive_high()
        await asyncio.sleep(0.1)

    async def end_the_set() -> tuple[str, str, str]:
        async with serving(tmp_path) as (daemon, url), browser.page(f"{url}/") as page:
            referee = daemon.table.referee
            await expect(page.locator("#game table")).to_be_attached()
            await press(daemon, "pass")
            await until(lambda: referee.pending is not None)
            await press(daemon, "confirm")
            await until(lambda: len(referee.game.actions) == 33)
            message = referee.view().message
            assert message is not None and message.kind.milestone
            await expect(page.locator("#turn")).to_contain_text(tr_page("goes_on", "en"))
            return await page.locator("#turn").inner_text(), message.title, headline(referee)

    shown, title, expected = browser.run(end_the_set())
    assert shown == expected == f"{title}, the game goes on. Turn: Pair B", shown


# The page counts its renders (each a batch of changes to its DOM), and NEXT_RENDER(n) waits for one after the
# n-th (or 50 ms, for a state that draws the same) and gives back the count and DRAWN: no polling between states.
COUNT_RENDERS = """(() => {
  window.renders = 0;
  new MutationObserver(() => { window.renders += 1; window.rendered?.(); })
    .observe(document.body, { subtree: true, childList: true, characterData: true });
})()"""
NEXT_RENDER = """(async (seen) => {
  if (window.renders <= seen) {
    await new Promise((done) => { window.rendered = done; setTimeout(done, 50); });
  }
  return [window.renders, DRAWN];
})"""


def drawing(referee: Referee) -> dict[str, Any]:
    """What the page must draw of the referee's game, from its state (``companion play --json``'s object)."""
    game = state(referee.game)
    header = headline(referee)
    if "rows" in game:  # Seises: every card between each row's ends, the pot, the reserve, a line a seat
        cards = load_deck(game["deck"])
        return {
            "rows": {
                suit: [c.id for c in sorted(cards, key=by_rank) if c.suit == suit and span[0] <= by_rank(c) <= span[1]]
                for suit, span in game["rows"].items()
                if span
            },
            "pot": str(game["pot"]),
            "reserve": str(game["reserve"]),
            "seats": [
                [str(left), str(score), str(owed or "")]
                for left, score, owed in zip(game["hand_sizes"], game["scores"], game["owed"], strict=True)
            ],
            "now": game["turn"] or -1,  # the seat's line (1-based, after the heads)
            "mano": game["mano"],  # the seat that leads the hand (1-based), marked beside its name
            "header": header,
        }
    # 6º SET: the 8 lines with their master card first, then the cards placed, in order, who leads each and each
    # pair's count; the draw pile; a line a pair
    return {
        "lines": {m: [m] + [p["card"] for p in placed] for m, placed in game["lines"].items()},
        "counts": {
            m: f"A {sum(p['pair'] == 'A' for p in placed)} · B {sum(p['pair'] == 'B' for p in placed)}"
            for m, placed in game["lines"].items()
        },
        "leaders": {m: game["masters"][m] for m in game["lines"]},
        "drawPile": str(game["draw_pile"]),
        "seats": [  # in hand, master cards led in the set, won over the match, sets won
            [str(count[pair]) for count in (game["held"], game["masters_won"], match["master_cards"], match["sets"])]
            for pair in ("A", "B")
            for match in [game["match"]]
        ],
        "now": " AB".find(game["turn"]) if game["turn"] else -1,
        "header": header,
    }


def headline(referee: Referee) -> str:
    """The page's header: whose turn; once over, the winner (or, drawn, "Over") and the rule; after a set or a hand
    that did not end the game, its result and that the game goes on (never "Over")."""
    language = referee.language
    end = ending(referee.game)
    if end is not None:
        result = referee.kind.verdict(referee.game, end, referee).text(language)
        return f"{tr_page('over' if end.winner is None else 'winner', language)}: {result}"
    turn = f"{tr_page('turn', language)}: {referee.kind.whose_turn(referee.game, referee)}"
    message = referee.view().message
    if message is not None and message.kind.milestone:
        return f"{message.title}, {tr_page('goes_on', language)}. {turn}"
    return turn


def drawn(shown: dict[str, Any]) -> dict[str, Any]:
    """What the page drew, read back from its DOM (DRAWN), in :func:`drawing`'s shape."""
    if shown["lines"]:
        return {
            "lines": shown["lines"],
            "counts": {m: text.rpartition("\n")[2] for m, text in shown["leads"].items()},
            "leaders": {m: text.partition("\n")[0].rpartition(" ")[2] or None for m, text in shown["leads"].items()},
            "drawPile": shown["drawPile"],
            "seats": [row[1:] for row in shown["table"][1:]],
            "now": shown["now"],
            "header": shown["turn"],
        }
    mark = f" ({tr_page('mano', shown['lang'])})"  # beside the mano's name
    return {
        "rows": {suit: ids for suit, ids in shown["rows"].items() if ids},
        "pot": shown["pot"],
        "reserve": shown["reserve"],
        "seats": [row[1:] for row in shown["table"][1:]],
        "now": shown["now"],
        "mano": next((n for n, row in enumerate(shown["table"][1:], start=1) if row[0].endswith(mark)), None),
        "header": shown["turn"],
    }


# What the page drew, read back from its DOM.
DRAWN = """(() => {
  const ids = (node) => [...node.querySelectorAll('[data-card]')].map((card) => card.dataset.card);
  const text = (selector) => document.querySelector(selector)?.textContent;
  const rows = [...document.querySelectorAll('#game table tr')];
  return {
    lang: document.documentElement.lang,
    messagesHead: text('#messages-head'),
    turn: text('#turn'),
    rows: Object.fromEntries([...document.querySelectorAll('[data-row]')].map((r) => [r.dataset.row, ids(r)])),
    lines: Object.fromEntries([...document.querySelectorAll('[data-line]')].map((l) => [l.dataset.line, ids(l)])),
    leads: Object.fromEntries(
      [...document.querySelectorAll('[data-line] > span')].map((s) => [s.parentNode.dataset.line, s.innerText])
    ),
    pot: text('#pot'), reserve: text('#reserve'), drawPile: text('#draw-pile'),
    table: rows.map((tr) => [...tr.cells].map((c) => c.textContent)),
    now: rows.findIndex((tr) => tr.classList.contains('now')),
  };
})()"""
NEXT_RENDER = NEXT_RENDER.replace("DRAWN", DRAWN)


def other_language(text: str, language: str) -> list[str]:
    """The texts of the page's catalogue entries (its labels, the screen's, the settings page's, the suits, the
    virtual table's refusals) that ``text`` says in the other language: a word or sentence whose translation
    differs, found whole (not inside another word)."""
    other = "en" if language == "es" else "es"
    found = []
    for msgid in {*STRINGS.values(), *PAGE_STRINGS.values(), *SETTINGS_STRINGS.values(), *SUITS.values()}:
        mine, theirs = translate(msgid, language), translate(msgid, other)
        if "{" in msgid or theirs.lower() == mine.lower():
            continue
        for said in {theirs, theirs.capitalize()}:
            if re.search(rf"(?<!\w){re.escape(said)}(?!\w)", text):
                found.append(said)
    return found


def by_rank(card: Card) -> int:
    return card.rank or 0


def tr_page(key: str, language: str) -> str:
    return translate((STRINGS | PAGE_STRINGS)[key], language)
