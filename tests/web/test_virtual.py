"""The virtual table: the page lays cards from a hand on the simulated readers' zones, lifts them and presses the
mock buttons, and the table answers as it answers cards: on the page, on the zone's LED (its gpiozero mock pin)
and on the OLED (the real ssd1306 driver's frame on a fake I2C bus). Tapped by Playwright's clicks, headless
Chromium's own mouse events (tests/web/conftest.py); a real table's page refuses the input. ``companion demo
--web``'s person is played here too: a few turns by clicking, and a whole game through the POST routes."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from PIL import Image
from playwright.async_api import Page, expect
from test_settings import fill_seats
from test_web_server import serving, until

from companion.config import load_config
from companion.daemon import Daemon
from companion.demo import Demo, served
from companion.documents.browser import Browser
from companion.games.sexto_set.rules import SextoSet
from companion.hardware import load_pinmap
from companion.i18n import translate
from companion.rules import Pass, Play
from companion.sim.oled import FakeI2CBus
from companion.ui.reading import read, words
from companion.ui.screens import render
from companion.view import STRINGS
from companion.web import WebServer
from companion.web.virtual import WORDS

PINS = load_pinmap()
ENGLISH = '[game]\nlanguage = "en"\n'

# The page's mirror of the OLED, read back from its canvas: a pixel is lit when it is not black.
MIRRORED = """(() => {
  const canvas = document.getElementById('oled');
  if (canvas.hidden) return null;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const lit = [];
  for (let i = 0; i < data.length; i += 4) lit.push(data[i] ? 1 : 0);
  return [canvas.width, canvas.height, lit];
})()"""


async def mirrored(page: Page) -> Image.Image | None:
    """The frame the page's canvas shows, as a 1-bit picture (None before its first frame)."""
    shown = await page.evaluate(MIRRORED)
    if shown is None:
        return None
    width, height, lit = shown
    image = Image.new("1", (width, height))
    image.putdata([255 * bit for bit in lit])
    return image


async def mirror_is_the_panel(page: Page, bus: FakeI2CBus) -> Image.Image:
    """The page's mirror, once it is the very frame the driver last sent to the panel (decoded from its bytes)."""
    end = time.monotonic() + 10
    while True:
        image = await mirrored(page)
        panel = bus.last_image().convert("1")
        if image is not None and image.tobytes() == panel.tobytes():
            return image
        assert time.monotonic() < end, "the page's mirror is not the panel's frame"
        await asyncio.sleep(0.02)


@asynccontextmanager
async def virtual_table(tmp_path: Path, extra: str = ENGLISH) -> AsyncIterator[tuple[Daemon, str, FakeI2CBus]]:
    """``companion run`` with ``backend = "sim"`` serving its page on a free port: a virtual table."""
    bus = FakeI2CBus()
    async with serving(tmp_path, extra, bus) as (daemon, url):
        yield daemon, url, bus


def frame_is_the_view(daemon: Daemon, bus: FakeI2CBus) -> bool:
    """The OLED's last frame, as the driver sent it, is the table's view drawn."""
    assert daemon.table is not None
    screen = daemon.screen
    return (
        screen is not None
        and screen.idle
        and bus.last_image().convert("1").tobytes() == render(daemon.table.referee.view()).convert("1").tobytes()
    )


def on_zone(card: str = "", light: str = "", zone: str = "z1", without: str = "") -> str:
    """The page's zone (a selector) once it shows ``card`` lying on it and not ``without``, its LED as ``light``."""
    pad = f"#zones [data-zone={zone}]" + (f"[data-light={light}]" if light else "")
    if card:
        pad += f':has([data-card="{card}"])'
    if without:
        pad += f':not(:has([data-card="{without}"]))'
    return pad


def test_a_card_laid_from_the_page_shows_on_the_page_the_zone_led_and_the_oled(
    tmp_path: Path, browser: Browser
) -> None:
    async def play() -> list[str]:
        async with virtual_table(tmp_path) as (daemon, url, bus):
            table, factory = daemon.table, daemon.pin_factory
            assert table is not None
            green = factory.pin(PINS.zones["z1"].green)
            async with browser.page(f"{url}/") as page:
                await expect(page.locator('#hand [data-card="6O"]')).to_be_attached()
                assert await page.locator("#hand [data-card]").count() == 40
                await until(lambda: frame_is_the_view(daemon, bus))
                before = bus.last_image().tobytes()
                assert not green.state

                await page.locator('#hand [data-card="6O"]').click()
                await expect(page.locator(on_zone("6O", "pending_ok"))).to_be_attached()
                assert green.state, "the zone's LED is green: a legal card waits for OK"
                assert table.referee.pending is not None and not table.referee.game.actions, "read, not played yet"
                await until(lambda: frame_is_the_view(daemon, bus))
                assert await page.locator('#hand [data-card="6O"]').count() == 0

                await page.locator("#confirm").click()  # the mock pin: gpiozero's edges and debounce make the press
                await expect(page.locator('#game [data-row=O] [data-card="6O"]')).to_be_attached()
                await expect(page.locator('#plays [data-play="play 6O"] [data-card="6O"]')).to_be_attached()
                await until(lambda: not green.state)
                await until(lambda: frame_is_the_view(daemon, bus))
                assert bus.last_image().tobytes() != before, "the OLED's scoreboard has the 6 of coins played"
                assert await page.locator("#plays-head").text_content() == "Plays (1)"
                who = await page.locator('#plays [data-play="play 6O"] .who').text_content()
                assert who == table.referee.seat_name(0), "each play says who made it"
                await mirror_is_the_panel(page, bus)  # the page mirrors the panel's very frame

                await page.locator('#hand [data-card="7O"]').click()  # the 6 is put aside into its row, the 7 laid
                await expect(page.locator(on_zone("7O", without="6O"))).to_be_attached()
                await page.locator("#confirm").click()
                await expect(page.locator('#plays [data-play="play 7O"]')).to_be_attached()
                return [str(action) for action in table.referee.game.actions]

    assert browser.run(play()) == ["play 6O", "play 7O"]


def test_an_illegal_card_from_the_page_shows_its_message_and_blinks_red_until_lifted(
    tmp_path: Path, browser: Browser
) -> None:
    async def play() -> tuple[str, str, list[bool]]:
        async with virtual_table(tmp_path) as (daemon, url, bus):
            table, factory = daemon.table, daemon.pin_factory
            assert table is not None
            red = factory.pin(PINS.zones["z1"].red)
            async with browser.page(f"{url}/") as page:
                await page.locator('#hand [data-card="12C"]').click()  # the game opens with the 6 of coins
                said = await page.locator("#messages li.illegal").inner_text()
                await expect(page.locator(on_zone("12C", "illegal"))).to_be_attached()
                message = table.referee.view().message
                assert message is not None
                await until(lambda: frame_is_the_view(daemon, bus))
                blinked = [state.state > 0 for state in red.states]
                # the reason beside the zone that turned red, where the hand is, not only in Messages below
                beside = await page.locator(f"{on_zone('12C', 'illegal')} .why").inner_text()
                assert beside == f"{message.title}\n{message.todo}"
                assert await page.locator("#alert").inner_text() == "", "said once: at the zone"
                # and on the mirrored OLED, as the panel shows it
                oled = words(await mirror_is_the_panel(page, bus))
                assert message.title.split(":")[0] in oled.replace("\n", " "), oled

                await page.locator('#zones [data-card="12C"]').click()  # lifted back into the hand
                await expect(page.locator('#hand [data-card="12C"]')).to_be_attached()
                await expect(page.locator(on_zone(light="off", without="12C"))).to_be_attached()
                await until(lambda: not red.state)
                await expect(page.locator("#zones .why")).to_have_count(0)
                assert not table.referee.game.actions
                return said, f"{message.title}\n{message.todo}", blinked

    said, expected, blinked = browser.run(play())
    assert said == expected
    assert blinked.count(True) >= 1, "the zone's red LED came on"


def test_the_buttons_are_pressed_on_their_mock_pins_and_a_long_undo_takes_the_play_back(tmp_path: Path) -> None:
    async def play() -> tuple[list[str], list[bool]]:
        async with virtual_table(tmp_path) as (daemon, url, _bus), aiohttp.ClientSession() as session:
            table, factory = daemon.table, daemon.pin_factory
            assert table is not None
            undo = factory.pin(PINS.buttons["undo"])
            await post(session, f"{url}/api/virtual/lay", {"card": "6O", "zone": "z1"})
            await until(lambda: table.referee.pending is not None)
            await post(session, f"{url}/api/virtual/press", {"button": "confirm"})
            await until(lambda: len(table.referee.game.actions) == 1)
            status, text = await post(session, f"{url}/api/virtual/press", {"button": "undo", "long": True})
            assert status == 200, text
            status, said = await post(session, f"{url}/api/virtual/press", {"button": "undo"})
            assert (status, said) == (409, "UNDO is already held down: let it go first.")
            await until(lambda: not table.referee.game.actions, timeout=5)  # a long press counts while held
            await until(lambda: bool(undo.state), timeout=5)  # then the finger lets go
            return [str(action) for action in table.referee.game.actions], [s.state > 0 for s in undo.states]

    actions, undo_states = asyncio.run(play())
    assert actions == []
    assert undo_states[-2:] == [False, True], "pressed (pulled low), then let go"


def test_a_phone_pairs_with_the_code_read_off_the_mirrored_oled_and_renames_the_seats(
    tmp_path: Path, browser: Browser
) -> None:
    """All on the virtual table's page, as a person on a PC tries it: "Hold OK" opens the table's menu, PASS walks
    it to "Pair a phone" and OK picks it, each seen on the page's mirror of the OLED (read as words, the chosen line
    dark on a lit bar); the code is read off the mirror, typed on the settings page, and the seats renamed."""
    names = ["Zoe", "Yago", "Xia", "Wen"]
    pair = translate(STRINGS["pair"], "en")

    async def journey() -> tuple[str, str | None, tuple[str, ...], str]:
        async with virtual_table(tmp_path) as (daemon, url, bus):
            table = daemon.table
            assert table is not None
            async with browser.page(f"{url}/") as page, browser.page(f"{url}/settings") as phone:
                await expect(page.locator("#hand [data-card]")).to_have_count(40)
                await mirror_is_the_panel(page, bus)
                await page.locator("#confirm-long").click()  # held past the long press on its mock pin
                chosen = await chosen_lines(page, bus, before=[])
                for _ in range(10):
                    if pair in chosen:
                        break
                    await page.locator("#pass").click()
                    chosen = await chosen_lines(page, bus, before=chosen)
                await page.locator("#confirm").click()
                code = await code_on_the_mirror(page, bus)

                await expect(phone.locator("body")).to_have_attribute("data-ready", "yes")
                await phone.locator("#code").fill(code)
                await phone.locator("#pair").click()
                await expect(phone.locator("body")).to_contain_class("paired")
                await fill_seats(phone, names)
                await until(lambda: table.referee.config.seat_names == tuple(names))
                # at the first play the table asks, by the new names, who laid the 6 of coins
                await page.locator('#hand [data-card="6O"]').click()
                await expect(page.locator(on_zone("6O", "pending_ok"))).to_be_attached()
                await page.locator("#confirm").click()
                oled = await said_on_the_mirror(page, bus, names[0])
                return code, table.referee.pairing_shown, table.referee.config.seat_names, oled

    code, shown_after, seat_names, oled = browser.run(journey())
    assert len(code) == 6 and code.isdigit()
    assert shown_after is None, "the code was used up: the screen shows the game again"
    assert seat_names == tuple(names)
    assert oled.replace("\n", " ").startswith("Who laid the 6 of coins? Zoe: OK yes"), oled


async def chosen_lines(page: Page, bus: FakeI2CBus, before: list[str]) -> list[str]:
    """The mirrored OLED's lines drawn dark on a lit bar (the menu's title and its chosen line), once they are not
    ``before``."""
    end = time.monotonic() + 10
    while True:
        chosen = [line.text for line in read(await mirror_is_the_panel(page, bus)) if line.inverted]
        if chosen and chosen != before:
            return chosen
        assert time.monotonic() < end, f"the menu stayed on {before}"
        await asyncio.sleep(0.05)


async def said_on_the_mirror(page: Page, bus: FakeI2CBus, text: str) -> str:
    """The mirrored OLED's words, once they say ``text``."""
    end = time.monotonic() + 10
    while text not in (said := words(await mirror_is_the_panel(page, bus))):
        assert time.monotonic() < end, f"the screen never said {text!r}: {said!r}"
        await asyncio.sleep(0.05)
    return said


async def code_on_the_mirror(page: Page, bus: FakeI2CBus) -> str:
    """The six digits the mirrored OLED shows, read as a person reads them."""
    end = time.monotonic() + 10
    while True:
        said = words(await mirror_is_the_panel(page, bus))
        found = re.search(r"\b(\d{3}) ?(\d{3})\b", said)
        if found:
            return found[1] + found[2]
        assert time.monotonic() < end, f"no code on the screen: {said!r}"
        await asyncio.sleep(0.05)


async def post(session: aiohttp.ClientSession, url: str, body: object) -> tuple[int, str]:
    async with session.post(url, json=body) as response:
        return response.status, await response.text()


@pytest.mark.parametrize(
    ("path", "body", "status", "said"),
    [
        ("lay", {"card": "6O", "zone": "z9"}, 400, "No zone z9: the zones are z1."),
        ("lay", {"card": "XX", "zone": "z1"}, 409, "XX is neither in your hand nor on a zone: pick a card"),
        ("lift", {"card": "6O"}, 409, "6O lies on no zone."),
        ("press", {"button": "pass", "long": True}, 400, "No button pass: the buttons are confirm, pass and undo"),
        ("press", {"button": "menu"}, 400, "No button menu"),
        ("press", ["confirm"], 400, "Send a JSON object (Content-Type: application/json)."),
    ],
)
def test_wrong_input_is_refused_saying_what_to_do(
    tmp_path: Path, path: str, body: object, status: int, said: str
) -> None:
    async def ask() -> tuple[int, str]:
        async with virtual_table(tmp_path) as (_daemon, url, _bus), aiohttp.ClientSession() as session:
            return await post(session, f"{url}/api/virtual/{path}", body)

    answer = asyncio.run(ask())
    assert answer[0] == status and answer[1].startswith(said), answer


def test_companion_run_on_a_pc_is_a_virtual_table() -> None:
    config = load_config(Path(__file__).parents[2] / "systemd/sim.toml")
    assert (config.backend, config.web) == ("sim", ("127.0.0.1", 0)), "the README's run on a PC serves its page"


def test_a_real_tables_page_only_shows_and_refuses_the_input(tmp_path: Path, browser: Browser) -> None:
    """A table whose readers are not simulated serves no virtual table: the same routes say why; a refused card
    is said at the top of the page."""

    async def ask() -> tuple[dict[str, Any], int, str, bool, str, str]:
        async with virtual_table(tmp_path) as (daemon, _url, _bus), aiohttp.ClientSession() as session:
            table = daemon.table
            assert table is not None
            real = WebServer(table, ("127.0.0.1", 0))  # what a table of real readers serves
            daemon._readers.put("12C", "z1")  # type: ignore[union-attr]  # a card laid by hand: not the 6 of coins
            await until(lambda: "illegal" in table.referee.view().zone_lights.values())
            message = table.referee.view().message
            assert message is not None
            serving = asyncio.create_task(real.serve())
            try:
                await until(lambda: real.port is not None)
                url = f"http://127.0.0.1:{real.port}"
                async with session.get(f"{url}/api/virtual") as response:
                    shown = await response.json()
                status, said = await post(session, f"{url}/api/virtual/lay", {"card": "6O", "zone": "z1"})
                async with browser.page(f"{url}/") as page:
                    await expect(page.locator("#game table")).to_be_attached()
                    await asyncio.sleep(0.2)  # the page has asked /api/virtual
                    hidden = await page.locator("#virtual").evaluate("(node) => node.hidden")
                    # no pads to write it beside: the refusal is at the top, where a phone shows it
                    alert = await page.locator("#alert").inner_text()
                return shown, status, said, hidden, alert, f"{message.title}\n{message.todo}"
            finally:
                serving.cancel()
                await asyncio.gather(serving, return_exceptions=True)

    shown, status, said, hidden, alert, refused = browser.run(ask())
    real = WORDS["real"]
    assert shown == {"virtual": False, "why": real}
    assert (status, said) == (403, real)
    assert hidden
    assert alert == refused


# ---- companion demo --web: a person plays a seat, the robots the others -----------------------------------------


@contextmanager
def demo_served(game: str, seat: int, speed: float = 1000.0) -> Iterator[tuple[Demo, str]]:
    """``companion demo --game GAME --web 127.0.0.1:0 --seat SEAT``, in a thread of its own."""
    said: list[str] = []
    demo = Demo(game=game, seed=3, language="en", web=("127.0.0.1", 0), speed=speed, seat=seat, out=said.append)
    with served(demo) as url:
        yield demo, url.rstrip("/")
    assert "you play seat 1 on the page; the robots play the others and wait for your turn" in said


def playing(demo: Demo) -> bool:
    return demo.robots is None or not demo.robots.over()


def my_turn(demo: Demo) -> Callable[[], bool]:
    return lambda: demo._awaiting is not None and demo._awaiting == len(demo.referee.game.actions)


async def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


def test_the_demos_person_plays_turns_by_clicking_on_the_page(browser: Browser) -> None:
    """Seises, seat 1: the person's hand is the one the robots dealt it; the robots wait for its turn."""
    with demo_served("seises", seat=1) as (demo, url):

        async def play() -> int:
            async with browser.page(url) as page:
                played = 0
                while played < 4:
                    await wait_for(my_turn(demo))
                    game = demo.referee.game
                    robots = demo.robots
                    assert robots is not None
                    hand = robots.held(0)[0]
                    # the page takes the person's input now
                    await expect(page.locator("#virtual:not(.waiting) #hand [data-card]")).to_have_count(len(hand))
                    before = len(game.actions)
                    legal = [card for card in game.legal_cards() if card in hand]
                    if legal:
                        await page.locator(f'#hand [data-card="{legal[0]}"]').click()
                        await expect(page.locator(on_zone(legal[0], "pending_ok"))).to_be_attached()
                    else:
                        await page.locator("#pass").click()
                        await expect(page.locator("#pending")).not_to_have_text("")
                    await page.locator("#confirm").click()
                    await wait_for(lambda: len(game.actions) > before, 10)  # noqa: B023
                    assert not legal or str(game.actions[before]) == f"play {legal[0]}"
                    if legal:  # the card leaves the person's hand, and the pad for its row
                        await wait_for(lambda: legal[0] not in hand, 10)  # noqa: B023
                        await expect(page.locator(on_zone(legal[0]))).not_to_be_attached()
                    played += 1
                await expect(page.locator("#virtual")).to_contain_class("waiting")
                return played

        assert browser.run(play()) == 4


def test_in_the_demo_a_long_ok_opens_the_menu_a_phone_pairs_and_starts_the_next_game() -> None:
    """``companion demo --web``: on the person's turn the page's "Hold OK" opens the table's menu; its "Pair a
    phone" code pairs a phone, which enrolls cards while the robots wait, then starts the next game (2 players,
    the 48-card deck) and names its seats; the robots sit down at it."""
    with demo_served("seises", seat=1) as (demo, url):

        async def press(session: aiohttp.ClientSession, button: str, long: bool = False) -> None:
            status, said = await post(session, f"{url}/api/virtual/press", {"button": button, "long": long})
            assert status == 200, said
            await asyncio.sleep(1.8 if long else 0.2)  # let go

        async def journey() -> tuple[bool, tuple[str, ...], int]:
            referee = demo.referee
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:  # at an address
                await wait_for(my_turn(demo))
                await press(session, "confirm", long=True)
                await wait_for(lambda: referee.menu is not None, 10)
                pair = translate(STRINGS["pair"], "en")
                for _ in range(10):
                    menu = referee.view().menu
                    assert menu is not None
                    if menu.items[menu.selected] == pair:
                        break
                    await press(session, "pass")
                await press(session, "confirm")
                await wait_for(lambda: referee.pairing_shown is not None, 10)
                status, said = await post(session, f"{url}/api/pair", {"code": referee.pairing_shown})
                assert status == 200, said
                # the person plays, and while the robots play a phone enrolls cards: they wait for the table
                await post(session, f"{url}/api/virtual/lay", {"card": "6O", "zone": "z1"})
                await wait_for(lambda: referee.pending is not None, 10)
                await press(session, "confirm")
                status, said = await post(session, f"{url}/api/enroll", {})
                assert status == 200, said
                await wait_for(lambda: demo.table.borrower is not None, 10)
                played = len(referee.current_game.actions)
                await asyncio.sleep(0.5)  # 500 s of the robots' time
                assert demo.table.borrower is not None and len(referee.current_game.actions) == played
                status, said = await post(session, f"{url}/api/enroll/stop", {})
                assert status == 200, said
                await wait_for(my_turn(demo), 30)  # the robots played on
                old = referee.current_game
                body = {"game": "seises", "deck": "spanish-48", "players": 2}
                status, said = await post(session, f"{url}/api/game", body)
                assert status == 200, said
                status, said = await post(session, f"{url}/api/seats", {"names": ["Zoe", "Yago"]})
                assert status == 200, said
                new = referee.current_game
                await wait_for(lambda: my_turn(demo)() and demo.robots is not None and demo.robots.game is new, 30)
                return old is not new, referee.config.seat_names, len(new.deck)

        replaced, names, cards = asyncio.run(journey())
        assert replaced and names == ("Zoe", "Yago") and cards == 48
        assert demo.robots is not None and demo.robots.turn() == 0, "the robots wait for the person at the new game"


@pytest.mark.slow
def test_a_whole_game_is_played_from_the_page_by_a_person_and_the_robots() -> None:
    """6º SET, pair A: the person plays every turn of the match through the page's routes, the robots pair B."""
    with demo_served("sexto-set", seat=1) as (demo, url):

        async def turn(session: aiohttp.ClientSession) -> None:
            """One turn of pair A's, as a person who knows the rules: a card that links, else PASS."""
            game, referee = demo.referee.game, demo.referee
            assert isinstance(game, SextoSet)
            async with session.get(f"{url}/api/virtual") as response:
                offered = await response.json()
            assert offered["wait"] is None
            before = len(game.actions)
            options = list(game.placements(offered["hand"]))
            if options:
                card, line = options[0]
                zone = next(zone for zone, head in referee.zones.heads.items() if head == line)
                status, text = await post(session, f"{url}/api/virtual/lay", {"card": card, "zone": zone})
                assert status == 200, text
                meant: Play | Pass = Play(card, line)
            else:
                await post(session, f"{url}/api/virtual/press", {"button": "pass"})
                meant = Pass()
            await wait_for(lambda: referee.pending is not None, 10)
            assert referee.pending is not None and referee.pending.action == meant
            await post(session, f"{url}/api/virtual/press", {"button": "confirm"})
            await wait_for(lambda: len(game.actions) > before or not playing(demo), 10)

        async def play() -> int:
            turns = 0
            async with aiohttp.ClientSession() as session:
                while True:
                    await wait_for(lambda: my_turn(demo)() or not playing(demo))
                    if not playing(demo):
                        return turns
                    await turn(session)
                    turns += 1

        turns = asyncio.run(play())
        game = demo.referee.game
        assert isinstance(game, SextoSet)
        robots = demo.robots
        assert game.outcome() is not None and game.set_number == 3, (
            f"the match was played to its end: {turns} turns, {len(game.actions)} actions, set {game.set_number}, "
            f"the robots' game {'is' if getattr(robots, 'game', None) is game else 'is not'} the table's"
        )
        assert turns >= 10, turns
