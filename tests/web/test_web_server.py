"""The table's page served from the daemon (companion.web): its config key, its JSON faces against the commands
they repeat (``companion play --json``, ``companion history``), the state pushed on every change, and a page that
never holds the table up. The readers are the simulated back-end, the pins gpiozero's mock ones."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from PIL import Image

import companion.sim as sim
import companion.web.server as server
from companion.config import ConfigError, GameConfig, load_config, parse_config
from companion.daemon import Daemon
from companion.games import kinds
from companion.i18n import translate
from companion.journal import Entry, Journal
from companion.referee.history import standing
from companion.referee.texts import TEXT
from companion.rules.transcript import UNDO, parse_line
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device
from companion.ui.reading import words
from companion.view import Message, MessageKind
from companion.web.page import PAGE_STRINGS, PAGE_TODO, message_json
from companion.web.settings import SETTINGS_STRINGS

GAMES = Path(__file__).parent.parent / "games"
SAMPLE_CONFIG = Path(__file__).parent.parent.parent / "systemd" / "config.toml"


@pytest.fixture(autouse=True)
def fresh_sim() -> None:
    sim.reset()


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.005)


def web_config(tmp_path: Path, extra: str = "") -> str:
    return (
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n[web]\nlisten = "127.0.0.1:0"\n{extra}'
    )


@asynccontextmanager
async def serving(tmp_path: Path, extra: str = "", bus: FakeI2CBus | None = None) -> AsyncIterator[tuple[Daemon, str]]:
    """A daemon serving its page on a free port, and the page's address; its OLED is drawn on ``bus`` (one of its
    own if None)."""
    daemon = Daemon(
        parse_config(web_config(tmp_path, extra), "test"),
        pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin),
        display=make_device([], bus=bus or FakeI2CBus()),
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        await until(lambda: daemon.web is not None and daemon.web.port is not None)
        assert daemon.web is not None
        yield daemon, f"http://127.0.0.1:{daemon.web.port}"
    finally:
        stop.set()
        assert await task == 0


def journal_with(tmp_path: Path, transcript: Path, language: str = "es") -> str:
    """A journal holding ``transcript``'s game, unfinished (the table resumes it); its settings from the header."""
    lines = transcript.read_text("utf-8").splitlines()
    words = lines[0].removeprefix("#").split()
    players = int(words[words.index("--players") + 1]) if "--players" in words else 4
    deck = words[words.index("--deck") + 1] if "--deck" in words else ""
    options = dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "--option")
    config = GameConfig(name=words[0], players=players, deck=deck, options=options, language=language)
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game(config.settings(), 0.0)
    kinds()  # the games' own verbs (Seises's pay) are known once their rules are loaded
    for line in lines:
        action = parse_line(line)
        if action is not None:
            journal.append(game, Entry("undo" if action == UNDO else "action", str(action), 1.0))
    journal.close()
    return "\n".join(lines)


async def get_json(tmp_path: Path, path: str) -> object:
    """What the daemon's page serves at ``path``, as JSON."""
    async with (
        serving(tmp_path) as (_daemon, url),
        aiohttp.ClientSession() as session,
        session.get(f"{url}{path}") as response,
    ):
        assert response.status == 200, await response.text()
        return await response.json()


# ---- the config -----------------------------------------------------------------------------------------------


def test_the_page_is_served_where_web_listen_says_and_not_at_all_by_default() -> None:
    assert parse_config('[web]\nlisten = "0.0.0.0:8080"', "t").web == ("0.0.0.0", 8080)
    assert parse_config('[web]\nlisten = "[::]:8080"', "t").web == ("::", 8080)
    assert parse_config("", "t").web is None
    assert load_config(SAMPLE_CONFIG).web is None, "the sample config serves no page"


@pytest.mark.parametrize("wrong", ["8080", "localhost", "127.0.0.1:http", "127.0.0.1:70000", ":8080", "a b:80"])
def test_a_wrong_address_says_what_to_write(wrong: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config(f'[web]\nlisten = "{wrong}"', "t")
    assert str(refused.value) == (
        f't: web.listen: {wrong!r} is not an address: write HOST:PORT, such as "127.0.0.1:8080" (this machine '
        'only) or "0.0.0.0:8080" (every network it is on), or "" for no page'
    )


# ---- what it serves -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("recorded", ["seises-2-players", "sexto-set-pass"])
def test_api_state_is_what_companion_play_json_prints_for_the_same_actions(tmp_path: Path, recorded: str) -> None:
    transcript = GAMES / f"{recorded}.txt"
    journal_with(tmp_path, transcript)
    game = transcript.read_text("utf-8").split()[1]
    played = subprocess.run(
        [sys.executable, "-m", "companion", "play", game, str(transcript), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(played.stdout.splitlines()[-1])

    assert asyncio.run(get_json(tmp_path, "/api/state")) == expected


def test_api_history_lists_the_journals_games_as_companion_history_does(tmp_path: Path) -> None:
    journal_with(tmp_path, GAMES / "seises-2-players.txt")  # won, and not yet closed: the table resumes it
    config = tmp_path / "config.toml"
    config.write_text(web_config(tmp_path), "utf-8")

    listed = asyncio.run(get_json(tmp_path, "/api/history"))
    history = subprocess.run(
        [sys.executable, "-m", "companion", "history", "--config", str(config), "--lang", "es"],  # the table's
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert isinstance(listed, list) and len(listed) == len(history) == 1
    [game] = listed
    assert (game["id"], game["game"], game["damage"]) == (1, "seises", "")
    assert history[0].startswith("   1  ") and f"{game['entries']:5d} entradas" in history[0]
    assert game["winner"] is not None and history[0].endswith(f"{game['score']}  gana {game['winner']}")
    assert game["score"].startswith("puntos ") and game["winner"].startswith("asiento ")  # the table's language
    assert game["title"] == "Seises" and game["title"] in history[0], "the game as players write it, for people"


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_page_says_what_a_person_at_it_does_never_a_command_to_type(language: str) -> None:
    """The referee's "what to do" that names a command (``companion enroll``, ``companion doctor``) is for the
    table's terminal; the page says what its reader does instead, in the table's language."""
    for key, instead in PAGE_TODO.items():
        todo = translate(TEXT[key], language)
        assert "companion " in todo, "the referee's words name a command"
        shown = message_json(Message(MessageKind.INFO, "title", todo), language)
        assert shown["todo"] == translate(instead, language) and "companion" not in shown["todo"]
    kept = message_json(Message(MessageKind.ILLEGAL, "title", translate(TEXT["two_cards_do"], language)), language)
    assert kept["todo"] == translate(TEXT["two_cards_do"], language), "other messages are shown as said"
    texts = [translate(text, language) for text in (*PAGE_STRINGS.values(), *SETTINGS_STRINGS.values())]
    assert not [text for text in texts if "companion " in text]


def test_api_history_never_holds_the_loop_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long journal takes its time to replay; the loop, which a card's LED waits for, goes on meanwhile: the
    replay runs on another thread than the loop's (told apart by thread, not by a clock the machine's load moves),
    and the loop keeps turning while it does."""
    journal_with(tmp_path, GAMES / "seises-2-players.txt")
    slow = 0.5  # seconds to replay each game: a journal of many long games
    replayed_on: list[int] = []

    def replayed_slowly(*args, **kwargs):  # type: ignore[no-untyped-def]
        replayed_on.append(threading.get_ident())
        time.sleep(slow)
        return standing(*args, **kwargs)

    monkeypatch.setattr(server, "standing", replayed_slowly)

    async def ask() -> tuple[int, int, object]:
        async with serving(tmp_path) as (_daemon, url), aiohttp.ClientSession() as session:
            async with session.get(f"{url}/api/history") as response:  # the first request's imports
                assert response.status == 200
            turns = 0
            asking = asyncio.ensure_future(session.get(f"{url}/api/history"))
            while not asking.done():
                await asyncio.sleep(0.005)
                turns += 1
            async with asking.result() as response:
                return threading.get_ident(), turns, await response.json()

    loop_thread, turns, listed = asyncio.run(ask())
    assert isinstance(listed, list) and [game["id"] for game in listed] == [1]
    assert replayed_on and loop_thread not in replayed_on, "the history was replayed on the loop's own thread"
    assert turns >= 10, f"the loop turned {turns} times in the {slow} s the history took"


def test_every_change_is_pushed_to_the_connected_pages(tmp_path: Path) -> None:
    async def watch() -> tuple[dict[str, object], dict[str, object]]:
        async with (
            serving(tmp_path, "[game]\nconfirm_turns = false\n") as (daemon, url),
            aiohttp.ClientSession() as session,
            session.get(f"{url}/api/events") as events,
        ):
            assert events.headers["Content-Type"] == "text/event-stream"
            first = await next_event(events)
            daemon._readers.put("6O", "z1")  # type: ignore[union-attr]
            second = await next_event(events)
            return first, second

    first, second = asyncio.run(watch())
    assert first["state"]["rows"]["O"] is None  # type: ignore[index]
    assert second["state"]["rows"]["O"] == [6, 6]  # type: ignore[index]
    assert second["messages"] == [], "a legal play is no message"


def test_each_frame_the_oled_was_sent_is_pushed_to_the_pages_as_its_bits(tmp_path: Path) -> None:
    """The page's mirror is the very frame the ssd1306 driver sent (decoded from its I2C bytes by the fake bus):
    on connecting, the last one; then each new one, from the screen's own thread."""
    bus = FakeI2CBus()

    async def frame(events: aiohttp.ClientResponse) -> bytes:
        sent = await next_event(events, "oled")
        assert (sent["width"], sent["height"]) == (128, 64)
        return base64.b64decode(str(sent["bits"]))

    async def watch() -> tuple[bytes, bytes, bytes, bytes]:
        async with (
            serving(tmp_path, '[game]\nconfirm_turns = false\nlanguage = "en"\n', bus) as (daemon, url),
            aiohttp.ClientSession() as session,
            session.get(f"{url}/api/events") as events,
        ):
            await until(lambda: daemon.screen is not None and daemon.screen.idle and bus.frames > 0)
            first, panel = await frame(events), bus.last_image().convert("1").tobytes()
            daemon._readers.put("6O", "z1")  # type: ignore[union-attr]
            await until(lambda: daemon.table is not None and len(daemon.table.referee.game.actions) == 1)
            await until(lambda: daemon.screen is not None and daemon.screen.idle)
            second = await frame(events)
            while second != bus.last_image().convert("1").tobytes():  # the panel may have had one more since
                second = await frame(events)
            return first, panel, second, bus.last_image().convert("1").tobytes()

    first, panel, second, panel_after = asyncio.run(watch())
    assert first == panel and second == panel_after and first != second
    assert "Turn: Seat 2" in words(Image.frombytes("1", (128, 64), second)), "the 6 of coins played"


async def next_event(events: aiohttp.ClientResponse, name: str = "") -> dict[str, object]:
    """The next event ``name`` (the state: the stream's plain messages; "oled": the OLED's frame), skipping others."""
    async with asyncio.timeout(5):
        while True:
            data = b""
            while not data.endswith(b"\n\n"):
                data += await events.content.readline()
            event = data.removeprefix(b"event: ").partition(b"\n")[0].decode() if data.startswith(b"event: ") else ""
            if event == name:
                return dict(json.loads(data.rpartition(b"data: ")[2]))


def test_the_page_is_built_after_the_table_is_done_never_while_it_shows(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The web comes after the LEDs and the screen and only notes the view: they never wait for the page's JSON."""
    built: list[float] = []
    table_json = server.table_json

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(time.monotonic())
        return table_json(*args, **kwargs)

    monkeypatch.setattr(server, "table_json", counted)

    async def show() -> tuple[int, int]:
        async with (
            serving(tmp_path) as (daemon, url),
            aiohttp.ClientSession() as session,
            session.get(f"{url}/api/events") as events,
        ):
            await next_event(events)
            assert daemon.table is not None and daemon.web is not None
            outputs = daemon.table.outputs
            assert outputs.index(daemon.web) > outputs.index(daemon.screen)  # type: ignore[arg-type]
            before = len(built)
            daemon.table.show(0.0)  # every output shows the view, as after each event of the table
            during = len(built) - before
            await until(lambda: len(built) > before)  # once the loop is free
            return during, len(built) - before

    assert asyncio.run(show()) == (0, 1)


def test_a_busy_address_leaves_the_table_refereeing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        daemon = Daemon(
            parse_config(web_config(tmp_path).replace("127.0.0.1:0", f"127.0.0.1:{port}"), "t"),
            pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin),
            display=make_device([], bus=FakeI2CBus()),
        )

        async def busy() -> None:
            stop = asyncio.Event()
            task = asyncio.create_task(daemon.run(stop))
            await until(lambda: "cannot listen" in caplog.text)
            assert daemon._readers is not None and daemon.table is not None
            daemon._readers.put("6O", "z1")  # type: ignore[attr-defined]
            await until(lambda: daemon.table.referee.pending is not None)  # type: ignore[union-attr]
            stop.set()
            assert await task == 0

        asyncio.run(busy())
    assert f"web: cannot listen on 127.0.0.1:{port}" in caplog.text
    assert "the table referees without its page; free the port or change web.listen" in caplog.text
