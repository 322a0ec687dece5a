"""Settings from a phone (companion.web.settings): refused without the pairing code, taken with the code the table's
OLED shows; enrollment from the phone on the table's own readers. The code is read from the view the screen draws,
and the frame the ssd1306 driver sent is checked to be that view; the menu is opened and walked with the mock
buttons, cards go through the simulated readers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Page, expect
from test_web_server import serving, until, web_config

import companion.sim as sim
import companion.web.settings as settings
from companion.config import GameConfig, parse_config
from companion.daemon import Daemon
from companion.decks import load_deck
from companion.documents.browser import Browser
from companion.events import Button, Press
from companion.hardware import load_pinmap
from companion.i18n import translate
from companion.journal import Journal
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.sim.oled import FakeI2CBus
from companion.table import Table
from companion.ui.screens import render
from companion.view import MessageKind, TableView
from companion.web import WebServer

PINS = load_pinmap()
NAMES = '[game]\nlanguage = "en"\nseat_names = ["Ana", "Luis", "Eva", "Pau"]\n'
PAIR_LINE = 6  # the menu's first level: game, players, deck, language, voice, new game, pair a phone, close


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


class Served:
    """A daemon serving its page, with its mock buttons and the I2C bus its OLED is drawn on."""

    def __init__(self, daemon: Daemon, bus: FakeI2CBus, url: str) -> None:
        self.daemon, self.bus, self.url = daemon, bus, url
        assert daemon.table is not None
        self.table = daemon.table
        self.referee = daemon.table.referee

    async def hold(self, button: str, seconds: float) -> None:
        pin = self.daemon.pin_factory.pin(PINS.buttons[button])
        pin.drive_low()
        await asyncio.sleep(seconds)
        pin.drive_high()
        await asyncio.sleep(0.08)

    async def pairing_code(self) -> str:
        """Hold OK for the menu, go down to "pair a phone", pick it: the code the OLED then shows."""
        await self.hold("confirm", 1.7)
        await until(lambda: self.referee.menu is not None)
        for _ in range(PAIR_LINE):
            await self.hold("pass", 0.08)
        await until(lambda: self.referee.menu is not None and self.referee.menu.selected == PAIR_LINE)
        await self.hold("confirm", 0.08)
        await until(lambda: self.referee.view().pairing is not None)
        view = self.referee.view()
        assert view.pairing is not None
        drawn = render(view).tobytes()
        await until(lambda: self.bus.last_image().convert("1").tobytes() == drawn)  # the screen's own thread
        return view.pairing

    async def pair(self, page: Page) -> None:
        """Pair the phone showing ``page`` (the settings page) with the code the OLED shows."""
        await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
        code = await self.pairing_code()
        await page.locator("#code").fill(code)
        await page.locator("#pair").click()
        await expect(page.locator("body")).to_contain_class("paired")

    def oled(self) -> bytes:
        return self.bus.last_image().convert("1").tobytes()


@asynccontextmanager
async def served(tmp_path: Path, extra: str = NAMES) -> AsyncIterator[Served]:
    bus = FakeI2CBus()
    async with serving(tmp_path, extra, bus) as (daemon, url):
        yield Served(daemon, bus, url)


async def post(session: aiohttp.ClientSession, url: str, body: object) -> tuple[int, Any]:
    async with session.post(url, json=body) as response:
        return response.status, await response.json()


# ---- refused without the code -----------------------------------------------------------------------------------


def test_every_change_without_a_pairing_is_refused_and_says_where_the_code_is(tmp_path: Path) -> None:
    async def try_all() -> list[tuple[int, Any]]:
        async with served(tmp_path) as table, aiohttp.ClientSession() as session:
            before = (table.referee.config, len(table.table.journal.games()))
            answers = [
                await post(session, f"{table.url}/api/seats", {"names": ["A", "B", "C", "D"]}),
                await post(session, f"{table.url}/api/game", {"game": "sexto-set", "deck": "squadratik", "players": 4}),
                await post(session, f"{table.url}/api/pair", {"code": "000000"}),  # no code is shown
            ]
            session.cookie_jar.update_cookies({settings.COOKIE: "made-up"})
            answers.append(await post(session, f"{table.url}/api/seats", {"names": ["A", "B", "C", "D"]}))
            async with session.get(f"{table.url}/api/settings") as response:
                answers.append((response.status, await response.json()))
            assert (table.referee.config, len(table.table.journal.games())) == before, "nothing changed"
            return answers

    seats, game, pair, made_up, read = asyncio.run(try_all())
    not_paired = settings.SETTINGS_STRINGS["not_paired"]
    assert seats == game == made_up == (403, {"error": not_paired})
    assert "hold OK, pick “Pair a phone” in the menu" in not_paired  # English quotes
    assert pair == (403, {"error": settings.SETTINGS_STRINGS["no_code"]})
    assert read[0] == 200 and read[1]["paired"] is False, "reading is for everyone"


def test_the_settings_page_without_the_code_shows_the_refusal(tmp_path: Path, browser: Browser) -> None:
    async def refused() -> tuple[str, tuple[str, ...]]:
        async with served(tmp_path) as table, browser.page(f"{table.url}/settings") as page:
            await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
            await fill_seats(page, ["Zoe", "Yago", "Xia", "Wen"])
            said = await page.locator("#said.refused").text_content()
            return said, table.referee.config.seat_names

    said, names = browser.run(refused())
    assert said == settings.SETTINGS_STRINGS["not_paired"]
    assert names == ("Ana", "Luis", "Eva", "Pau")


def test_the_pairing_button_says_to_pair_the_phone() -> None:
    """English "Pair" is also 6º SET's noun, a pair of players («Pareja»): the button says the menu's «Pair a
    phone», a verb."""
    assert translate(settings.SETTINGS_STRINGS["pair"], "es") == "Emparejar móvil"


# ---- with the code from the OLED --------------------------------------------------------------------------------


def test_a_phone_paired_with_the_oleds_code_renames_the_seats_and_starts_the_next_game(
    tmp_path: Path, browser: Browser
) -> None:
    async def change() -> dict[str, Any]:
        async with served(tmp_path) as table, browser.page(f"{table.url}/settings") as page:
            await table.pair(page)
            assert table.referee.view().pairing is None, "the code is used up"
            paired = table.referee.view().message

            await fill_seats(page, ["Zoe", "Yago", "Xia", "Wen"])
            await until(lambda: table.referee.config.seat_names == ("Zoe", "Yago", "Xia", "Wen"))
            settings_row = table.table.journal.games()[-1].settings
            # The names take effect at the table: at the first play it asks which of them laid it.
            table.daemon._readers.put("6O", "z1")  # type: ignore[union-attr]
            await until(lambda: table.referee.pending is not None)
            await table.hold("confirm", 0.08)
            await until(lambda: table.referee.asking is not None)
            question = table.referee.view().message

            start = page.locator("#start")
            await page.locator("#deck").select_option("spanish-48")
            await page.locator("#players").select_option("6")
            await start.click()  # a first tap on «Start» asks, as the menu's «New game?»
            await expect(start).to_have_attribute("data-sure", "yes")
            asked = (await start.text_content(), table.referee.game.players)
            await start.click()
            await until(lambda: table.referee.game.players == 6)
            started = await start.text_content()
            before_its_first_card = table.table.journal.games()
            table.daemon._readers.take("6O")  # type: ignore[union-attr]
            await until(lambda: not table.referee.zones.lying["z1"])
            table.daemon._readers.put("6O", "z1")  # type: ignore[union-attr]
            await until(lambda: table.referee.pending is not None)
            await table.hold("confirm", 0.08)
            await until(lambda: table.referee.game.actions != [])
            return {
                "paired": paired,
                "row": settings_row,
                "question": question,
                "config": table.referee.config,
                "before": before_its_first_card,
                "games": table.table.journal.games(),
                "offered": await page.evaluate(OFFERED),
                "missing": await page.locator("#missing-games").text_content(),
                "asked": asked,
                "started": started,
            }

    seen = browser.run(change())
    assert seen["paired"].title == "Phone paired"
    assert seen["row"]["seat_names"] == ["Zoe", "Yago", "Xia", "Wen"], "the game's row keeps the new names"
    assert seen["question"].kind is MessageKind.QUESTION and seen["question"].todo.startswith("Zoe:")
    config = seen["config"]
    assert (config.name, config.deck_name, config.players) == ("seises", "spanish-48", 6)
    assert [game.outcome for game in seen["before"]] == [None], "not closed before the new game's first card"
    first, second = seen["games"]
    assert first.outcome == {"termination": "replaced", "winner": None} and second.settings["deck"] == "spanish-48"
    assert seen["offered"] == {
        "games": ["seises"],
        "decks": ["spanish-40", "spanish-48"],
        "players": ["2", "3", "4", "6", "8"],
    }, "only what the menu offers: this table's one zone cannot play 6º SET"
    assert seen["asked"] == ("Tap again: this game ends", 4), "one tap starts nothing"
    assert seen["started"] == "Start"
    assert seen["missing"].startswith("6º SET is not offered: 'table': a 6º SET zone is"), seen["missing"]


def test_a_guest_guessing_codes_leaves_the_code_to_the_phone_at_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Five wrong tries from one phone stop that phone (and it may try only once a TRY_S), not the others."""
    monkeypatch.setattr(settings, "TRY_S", 0.2)

    async def guess() -> tuple[list[tuple[int, Any]], str | None, tuple[int, Any], str | None]:
        async with served(tmp_path) as table, phone("127.0.0.2") as guest, phone("127.0.0.3") as asked:
            code = await table.pairing_code()
            wrong = f"{(int(code) + 1) % 10**6:06d}"
            answers = [await post(session, f"{table.url}/api/pair", {"code": wrong}) for session in (guest, guest)]
            for _ in range(settings.TRIES - 1):
                await asyncio.sleep(settings.TRY_S)
                answers.append(await post(guest, f"{table.url}/api/pair", {"code": wrong}))
            await asyncio.sleep(settings.TRY_S)
            answers.append(await post(guest, f"{table.url}/api/pair", {"code": code}))  # this phone may no more
            still = table.referee.pairing_code
            return answers, still, await post(asked, f"{table.url}/api/pair", {"code": code}), code

    answers, still, paired, code = asyncio.run(guess())
    assert [status for status, _ in answers] == [403, 429, 403, 403, 403, 403, 403]
    assert answers[0][1]["error"] == "Wrong code: type the one the screen shows (4 more tries)."
    assert answers[4][1]["error"] == "Wrong code: type the one the screen shows (1 more try)."  # one, not "tries"
    assert answers[1][1]["error"] == settings.SETTINGS_STRINGS["too_fast"]
    assert answers[5][1]["error"] == answers[6][1]["error"] == settings.SETTINGS_STRINGS["too_many"]
    assert still == code, "the guest's tries did not void the code"
    assert paired == (200, {"paired": True}), "the phone at the table pairs with it"
    failed = [r.getMessage() for r in caplog.records if "wrong pairing code" in r.getMessage()]
    assert len(failed) == settings.TRIES and all("from 127.0.0.2" in line for line in failed), "who failed is logged"


def test_wrong_codes_from_many_phones_void_the_code_and_the_screen_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "TRY_S", 0.0)

    async def guess() -> tuple[list[tuple[int, Any]], str | None, TableView]:
        async with served(tmp_path) as table:
            code = await table.pairing_code()
            wrong = f"{(int(code) + 1) % 10**6:06d}"
            answers = []
            for n in range(settings.VOID_AFTER // settings.TRIES):
                async with phone(f"127.0.0.{10 + n}") as guesser:
                    answers += [await post(guesser, f"{table.url}/api/pair", {"code": wrong}) for _ in range(5)]
            async with phone("127.0.0.3") as late:
                answers.append(await post(late, f"{table.url}/api/pair", {"code": code}))
            return answers, table.referee.pairing_code, table.referee.view()

    answers, code, view = asyncio.run(guess())
    assert [status for status, _ in answers] == [403] * (settings.VOID_AFTER + 1)
    assert answers[-2][1]["error"] == settings.SETTINGS_STRINGS["void"]
    assert answers[-1][1]["error"] == settings.SETTINGS_STRINGS["no_code"]
    assert code is None and view.message is not None and view.message.title == "Too many wrong codes"


def test_the_code_expires_and_any_button_closes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "CODE_S", 0.3)

    async def wait_and_press() -> tuple[TableView, str | None]:
        async with served(tmp_path) as table:
            await table.pairing_code()
            await until(lambda: table.referee.pairing_code is None)
            expired = table.referee.view()
            await table.pairing_code()
            await table.hold("undo", 0.08)
            return expired, table.referee.pairing_code

    expired, after_press = asyncio.run(wait_and_press())
    assert expired.message is not None and expired.message.title == "Code expired" and expired.pairing is None
    assert after_press is None


def test_a_paired_phone_enrolls_cards_on_the_tables_readers_and_sees_the_card_to_lay_and_each_read(
    tmp_path: Path, browser: Browser
) -> None:
    deck = load_deck("spanish-40")
    first, second = deck.cards[0], deck.cards[1]

    async def enroll() -> dict[str, Any]:
        async with served(tmp_path) as table, browser.page(f"{table.url}/settings") as page:
            readers, web = table.daemon._readers, table.daemon.web
            assert readers is not None and web is not None
            await table.pair(page)
            await page.locator("#enroll").click()
            card = page.locator("#card")
            await expect(card).to_have_attribute("data-card", re.compile("."))
            asked, shown = await card.get_attribute("data-card"), await card.text_content()
            assert web._view is not None
            oled = render(web._view).tobytes()  # what the table's outputs were last shown
            await until(lambda: table.oled() == oled)
            title = web._view.message.title if web._view.message else ""

            readers.put(first.id, "z1")  # type: ignore[attr-defined]
            bound = await page.locator(f'#reads li.accepted[data-card="{first.id}"]').text_content()
            await expect(card).to_have_attribute("data-card", second.id)
            readers.take(first.id)  # type: ignore[attr-defined]
            await asyncio.sleep(0.1)
            readers.put(first.id, "z1")  # type: ignore[attr-defined]  # its tag is the first card's already
            refused = await page.locator("#reads li.refused").text_content()
            readers.take(first.id)  # type: ignore[attr-defined]
            await asyncio.sleep(0.1)

            await table.hold("undo", 0.08)  # any button: back to the game
            await until(lambda: table.table.borrower is None)
            await expect(page.locator("body")).not_to_contain_class("enrolling")
            readers.put("6O", "z1")  # type: ignore[attr-defined]  # the referee has the readers again
            await until(lambda: table.referee.pending is not None)
            return {
                "asked": asked,
                "shown": shown,
                "title": title,
                "bound": bound,
                "refused": refused,
                "registry": Registry.load(tmp_path / "registry.toml", deck="spanish-40").bindings(),
            }

    seen = browser.run(enroll())
    assert seen["asked"] == first.id and seen["shown"] == f"Lay: {first.name('en')}"
    assert seen["title"] == f"1/40 {first.name('en')}", "the OLED asks for the card too"
    assert seen["bound"] == f"z1: {first.name('en')} — enrolled"
    assert seen["refused"] == f"z1: Already {first.name('en')}: take it away", "its tag is the first card's"
    assert list(seen["registry"].values()) == [first.id], "saved at once"


def test_enrolling_without_a_pairing_is_refused(tmp_path: Path) -> None:
    async def try_it() -> tuple[tuple[int, Any], object]:
        async with served(tmp_path) as table, aiohttp.ClientSession() as session:
            return await post(session, f"{table.url}/api/enroll", {}), table.table.borrower

    (status, answer), borrower = asyncio.run(try_it())
    assert (status, answer) == (403, {"error": settings.SETTINGS_STRINGS["not_paired"]}) and borrower is None


async def fill_seats(page: Page, names: list[str]) -> None:
    """Type the seats' names and tap «Save»."""
    seats = page.locator("#seats-form input")
    await expect(seats).to_have_count(len(names))
    for seat, name in zip(await seats.all(), names, strict=True):
        await seat.fill(name)
    await page.locator("#save-seats").click()


OFFERED = """(() => ({
  games: [...document.getElementById('game').options].map((o) => o.value),
  decks: [...document.getElementById('deck').options].map((o) => o.value),
  players: [...document.getElementById('players').options].map((o) => o.value),
}))()"""


def test_a_code_shown_while_the_servers_loop_waits_expires_once_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo shows its table between turns of the server's loop (companion.demo): the code's time is kept there."""
    monkeypatch.setattr(settings, "CODE_S", 0.05)
    table = Table(
        Referee(GameConfig(), {"z1": "table"}),
        TableTracker(Registry(tmp_path / "registry.toml")),
        Journal(tmp_path / "journal.db"),
    )
    table.referee.allow_speech("off")  # a voice, as every assembled table has: its menu's line is before "pair"
    table.start(0.0)
    loop = asyncio.new_event_loop()
    server = WebServer(table, ("127.0.0.1", 0))
    table.outputs.append(server)
    serving = loop.create_task(server.serve())
    try:
        loop.run_until_complete(until(lambda: server.port is not None))
        for press in (Press(Button.CONFIRM, "long", 0.0), *[Press(Button.PASS, "short", 0.0)] * PAIR_LINE):
            table.press(press, 0.0)
        table.press(Press(Button.CONFIRM, "short", 0.0), 0.0)  # outside the loop, as the demo's players press
        assert table.referee.pairing_code is not None
        loop.run_until_complete(until(lambda: table.referee.pairing_code is None))  # the loop runs while they wait
    finally:
        serving.cancel()
        loop.run_until_complete(asyncio.gather(serving, return_exceptions=True))
        loop.close()
        table.journal.close()


def phone(address: str = "127.0.0.1") -> aiohttp.ClientSession:
    """A client that keeps the table's cookie as a phone's browser does (aiohttp's jar drops cookies of addresses),
    from ``address`` (127.0.0.0/8 is this machine: a phone on the room's network, by any of its addresses)."""
    connector = aiohttp.TCPConnector(local_addr=(address, 0))
    return aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.CookieJar(unsafe=True), timeout=aiohttp.ClientTimeout(total=30)
    )


async def paired_session(table: Served, session: aiohttp.ClientSession) -> None:
    """Pair ``session`` as a phone would, with the code the OLED shows."""
    code = await table.pairing_code()
    status, _ = await post(session, f"{table.url}/api/pair", {"code": code})
    assert status == 200


@pytest.mark.parametrize(
    ("path", "body", "said"),
    [
        ("/api/game", {"game": "sexto-set", "deck": "spanish-40", "players": 4}, "deck 'spanish-40' does not play "),
        ("/api/game", {"game": "seises", "deck": "spanish-40", "players": 3}, "3 players cannot play seises with "),
        ("/api/game", {"game": "seises", "deck": "spanish-40", "players": 4, "language": "xx"}, "language 'xx': "),
        ("/api/game", {"game": "mus", "deck": "spanish-40", "players": 4}, "game 'mus': choose "),
        ("/api/game", {"game": "seises"}, "give the game, the deck and the players (deck is missing)"),
        ("/api/seats", {"names": ["Ana", "Luis"]}, "give 4 names, one a seat in the order the players sit, not 2"),
        ("/api/seats", {"names": ["Ana", "Ana", "Eva", "Pau"]}, "two seats have the same name"),
        ("/api/seats", {"names": ["Ana", " ", "Eva", "Pau"]}, "every seat needs a name"),
        ("/api/seats", {"names": ["Ana", "\x1b[2JLuis", "Eva", "Pau"]}, "'\\x1b[2JLuis' holds U+001B, a control"),
        ("/api/seats", {"names": ["Ana", "Luis\u202e", "Eva", "Pau"]}, "'Luis\\u202e' holds U+202E, a control or"),
        ("/api/seats", {"names": ["Ana", "Lu\x00is", "Eva", "\x07Pau"]}, "'Lu\\x00is' holds U+0000"),
        ("/api/game", {"game": "sexto-set", "deck": "squadratik", "players": 4}, "'table': a 6º SET zone is"),
    ],
)
def test_a_paired_phone_asking_for_what_the_menu_would_not_offer_is_told_what_is_wrong(
    tmp_path: Path, path: str, body: dict[str, Any], said: str
) -> None:
    async def ask() -> tuple[int, Any, object]:
        async with served(tmp_path) as table, phone() as session:
            await paired_session(table, session)
            status, answer = await post(session, f"{table.url}{path}", body)
            return status, answer, table.referee.config

    status, answer, config = asyncio.run(ask())
    assert status == 400 and answer["error"].startswith(said)
    assert config == parse_config(web_config(tmp_path, NAMES), "t").game, "nothing changed"


def test_renamed_seats_survive_a_power_cut(tmp_path: Path) -> None:
    async def rename() -> None:
        async with served(tmp_path) as table, phone() as session:
            await paired_session(table, session)
            status, _ = await post(session, f"{table.url}/api/seats", {"names": ["Zoe", "Yago", "Xia", "Wen"]})
            assert status == 200

    async def resumed() -> tuple[str, ...]:
        async with served(tmp_path) as table:  # the config still names Ana, Luis, Eva and Pau
            return table.referee.config.seat_names

    asyncio.run(rename())
    sim.reset()
    assert asyncio.run(resumed()) == ("Zoe", "Yago", "Xia", "Wen")
