"""``python -m companion.documents.pages``: screenshots of the table's page in docs/web/, one a game and language,
its settings page in each language (``LANG-settings.png``), and the virtual table of ``companion demo --web``
(``virtual-table.png``, the README's).

Each is a game the robots played part of (a fixed seed), resumed from its journal by the daemon (simulated
readers, mock pins), served on a free port and photographed by headless Chromium (:mod:`.browser`) at a phone's
width. The virtual table is the demo's own game, its person's seat played by clicking the page a few turns.
Needs Debian's chromium (``.ci/debian`` installs it) and Playwright (the development tools, ``.[dev]``)."""

from __future__ import annotations

import asyncio
import io
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from gpiozero.pins.mock import MockFactory, MockPWMPin
from PIL import Image, PngImagePlugin

from companion.config import GameConfig, parse_config
from companion.daemon import Daemon
from companion.decks import load_deck
from companion.demo import Demo, served
from companion.documents.browser import Browser, BrowserError, chromium
from companion.documents.layers import DOCS_DIR
from companion.games import find_kind, kinds
from companion.i18n import languages
from companion.journal import Entry, Journal
from companion.rules import Play
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = ["PHONE_WIDTH", "SETTINGS", "TABLE", "TEXT_KEY", "VIRTUAL", "pictures", "robot_actions", "write_pages"]

PHONE_WIDTH = 420  # CSS pixels: the page as a player's phone shows it
SEED = 14
TEXT_KEY = "page-text"  # the PNG's text chunk holding what the page said when it was drawn
ACTIONS = 24  # how far the robots play: a board with something on every part of it


def robot_actions(game_name: str, count: int, seed: int = SEED) -> list[str]:
    """The first ``count`` actions robots take in a new game (4 players, the game's own deck)."""
    kind = find_kind(game_name)
    game = kind.new_game(4, load_deck(kind.default_deck), {})
    robots = kind.robots(game, random.Random(seed))
    actions: list[str] = []
    while len(actions) < count and game.outcome() is None:
        action, hand = robots.choose()
        game.push(action)
        robots.played(action, hand)
        actions.append(str(action))
    return actions


# What each page picture shows: its path on the table's server, and what is on the page once it is drawn
TABLE = ("/", "#game table")
SETTINGS = ("/settings", "body[data-ready=yes]")  # as a phone not yet paired sees it
VIRTUAL = "virtual-table"  # the README's picture


async def shoot(browser: Browser, game_name: str, language: str, workdir: Path, page: tuple[str, str] = TABLE) -> bytes:
    """``page`` (:data:`TABLE`, :data:`SETTINGS`) of a table playing a robot game of ``game_name`` half-played, in
    ``language``, as PNG."""
    settings = GameConfig(name=game_name, language=language).settings()
    journal = Journal(workdir / "journal.db")
    game_id = journal.new_game(settings, 0.0)
    for text in robot_actions(game_name, ACTIONS):
        journal.append(game_id, Entry("action", text, 1.0))
    journal.close()
    config = parse_config(
        # the game, its language and its seats come from the journal; the config's game gives only the zones
        f'[readers]\nbackend = "sim"\nregistry = "{workdir / "registry.toml"}"\n'
        f'[journal]\npath = "{workdir / "journal.db"}"\n[web]\nlisten = "127.0.0.1:0"\n',
        "pages",
    )
    pins = MockFactory(revision="c03111", pin_class=MockPWMPin)
    daemon = Daemon(config, pin_factory=pins, display=make_device([], bus=FakeI2CBus()))
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        end = time.monotonic() + 10
        while daemon.web is None or daemon.web.port is None:
            if task.done() or time.monotonic() > end:
                raise RuntimeError("the daemon did not serve its page")
            await asyncio.sleep(0.01)
        path, drawn = page
        async with browser.page(f"http://127.0.0.1:{daemon.web.port}{path}") as tab:
            await tab.locator(drawn).wait_for(state="attached")
            return await photo(tab)
    finally:
        stop.set()
        await task


async def shoot_virtual(browser: Browser, turns: int = 3) -> bytes:
    """``companion demo --lang en --web ... --seat 1``'s page (the default game) once the person has played
    ``turns`` turns by clicking (the first card that fits, else PASS), the next card laid and waiting for OK."""
    demo = Demo(seed=SEED, language="en", web=("127.0.0.1", 0), speed=1000.0, seat=1, out=lambda _: None)
    with served(demo) as url:
        async with browser.page(url) as page:
            for turn in range(turns + 1):
                end = time.monotonic() + 60
                while demo._awaiting != len(demo.referee.current_game.actions):  # the robots play
                    if time.monotonic() > end:
                        raise RuntimeError("the robots did not come to the person's turn")
                    await asyncio.sleep(0.01)
                hand = page.locator("#virtual:not([hidden]):not(.waiting) #hand [data-card]")
                await hand.first.wait_for(state="attached")  # the person's turn on the page
                game, robots = demo.referee.current_game, demo.robots
                assert robots is not None
                held = {card for hand in robots.held(0) for card in hand}
                fits = [a for a in game.legal_actions() if isinstance(a, Play) and a.card in held]
                if fits:
                    zone = next((z for z, head in demo.referee.zone_heads.items() if head == fits[0].line), None)
                    if zone is not None:
                        await page.locator(f"#zones [data-zone={zone}]").click()
                    await page.locator(f'#hand [data-card="{fits[0].card}"]').click()
                    await page.locator("#zones [data-light=pending_ok]").wait_for(state="attached")
                else:
                    await page.locator("#pass").click()
                    await page.locator("#pending:not(:empty)").wait_for(state="attached")
                if turn < turns:
                    before = len(game.actions)
                    await page.locator("#confirm").click()
                    while len(game.actions) == before:
                        await asyncio.sleep(0.01)
            return await photo(page)


async def photo(page: Page) -> bytes:
    """The page as PNG, at a phone's width, with its words (``innerText``) in the file's :data:`TEXT_KEY` chunk.

    The words are what tests/web/test_page_pictures.py compares with a fresh drawing: the pixels depend on the
    machine's fonts (``system-ui, sans-serif`` is whatever fontconfig finds), the words do not."""
    words = str(await page.evaluate("document.body.innerText"))
    info = PngImagePlugin.PngInfo()
    info.add_itxt(TEXT_KEY, words)
    await page.set_viewport_size({"width": PHONE_WIDTH, "height": 600})
    out = io.BytesIO()
    Image.open(io.BytesIO(await page.screenshot(full_page=True))).save(out, "PNG", pnginfo=info, optimize=True)
    return out.getvalue()


def pictures() -> list[tuple[str, str, str, tuple[str, str]]]:
    """Each picture of a table's pages: its file's name without ``.png``, the game, the language and the page
    (:data:`TABLE` or :data:`SETTINGS`). The virtual table's, :data:`VIRTUAL`, is the demo's own game."""
    table = [(f"{language}-{name}", name, language, TABLE) for name in kinds() for language in languages()]
    # the settings page at the table of a game whose seats have names, so that every part of the page is drawn
    named = next(name for name, kind in kinds().items() if kind.names_first_seat)
    return table + [(f"{language}-settings", named, language, SETTINGS) for language in languages()]


def write_pages(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium() as browser:
        for stem, game_name, language, page in pictures():
            with tempfile.TemporaryDirectory(prefix="companion-pages-") as workdir:
                png = browser.run(shoot(browser, game_name, language, Path(workdir), page))
            path = folder / f"{stem}.png"
            path.write_bytes(png)
            written.append(path)
        path = folder / f"{VIRTUAL}.png"
        path.write_bytes(browser.run(shoot_virtual(browser)))
        written.append(path)
    return written


def main() -> int:
    try:
        for path in write_pages(DOCS_DIR / "web"):
            print(path)
    except BrowserError as exc:
        print(f"python -m companion.documents.pages: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
