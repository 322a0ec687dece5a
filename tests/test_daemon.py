"""The service: parts started and stopped in order, a game played through it, and what it does when a part is
missing or fails. The readers are simulated chips, gpiozero runs on its mock pins and the real ssd1306 driver
draws on a fake I2C bus."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import companion.sim as sim
from companion.config import parse_config
from companion.daemon import Daemon
from companion.hardware import load_pinmap
from companion.journal import Entry, Journal
from companion.nfc.backends import SimBackend
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device
from companion.ui.screens import render
from companion.view import MessageKind, StatusLight

PINS = load_pinmap()
Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]
Until = Callable[..., Awaitable[None]]
Service = Callable[..., subprocess.Popen[str]]
MOCK_PINS: dict[str, str | None] = {"GPIOZERO_PIN_FACTORY": "mock"}


def config_text(tmp_path: Path, extra: str = "") -> str:
    return (
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n{extra}'
    )


async def tap_button(factory: MockFactory, name: str) -> None:
    pin = factory.pin(PINS.buttons[name])
    pin.drive_low()
    await asyncio.sleep(0.08)
    pin.drive_high()
    await asyncio.sleep(0.06)


def test_a_play_goes_through_the_service_to_the_journal_and_the_screen_says_it_stopped(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until, hand: SimBackend
) -> None:
    bus = FakeI2CBus()
    config = parse_config(config_text(tmp_path), "test")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=bus))
    green = mock_factory.pin(PINS.zones["z1"].green)

    async def play() -> None:
        async with running(daemon):
            table = daemon.table
            assert table is not None
            hand.put("6O", "z1")
            await until(lambda: table.referee.pending is not None)
            assert green.state, "the zone is green while the play waits"
            await tap_button(mock_factory, "confirm")
            await until(lambda: len(table.journal.entries(table.game_id)) == 1)
            hand.take("6O")
            await until(lambda: not green.state)

    asyncio.run(play())
    stopped = daemon.stopped_view
    assert stopped is not None and stopped.message is not None and stopped.message.title == "Companion parado"
    assert bus.last_image().convert("1").tobytes() == render(stopped).convert("1").tobytes()
    journal = Journal(tmp_path / "journal.db")
    assert [e.text for e in journal.entries(1)] == ["play 6O"]


def test_the_service_resumes_the_game_from_the_journal(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until, hand: SimBackend
) -> None:
    config = parse_config(config_text(tmp_path, "[game]\nconfirm_turns = false\n"), "t")

    async def session(cards: tuple[str, ...]) -> Daemon:
        daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))
        async with running(daemon):
            table = daemon.table
            assert table is not None
            for card in cards:
                hand.put(card, "z1")
                await until(lambda card=card: f"play {card}" in [e.text for e in table.journal.entries(table.game_id)])
                hand.take(card)
                await asyncio.sleep(0.05)
        return daemon

    first = asyncio.run(session(("6O", "7O", "5O")))
    sim.reset()
    mock_factory.reset()
    second = asyncio.run(session(()))
    assert second.table is not None and first.table is not None
    assert second.table.referee.game.snapshot() == first.table.referee.game.snapshot()
    assert second.table.game_id == first.table.game_id


def test_a_journal_that_cannot_be_opened_is_said_retried_and_gets_the_backlog(
    tmp_path: Path,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("companion.daemon.JOURNAL_RETRY_S", 0.1)
    (tmp_path / "state").write_text("a file where the journal's folder should be")
    journal = tmp_path / "state" / "journal.db"
    text = config_text(tmp_path, "[game]\nconfirm_turns = false\n").replace(str(tmp_path / "journal.db"), str(journal))
    bus = FakeI2CBus()
    daemon = Daemon(parse_config(text, "t"), pin_factory=mock_factory, display=make_device([], bus=bus))

    async def play() -> None:
        async with running(daemon):
            table, screen = daemon.table, daemon.screen
            assert table is not None and screen is not None
            view = table.referee.view()
            assert view.message is not None and view.message.title == "La mesa no graba"
            assert view.status is StatusLight.ERROR
            await until(lambda: screen.idle)  # frames leave from their own thread
            assert bus.last_image().convert("1").tobytes() == render(view).convert("1").tobytes()
            hand.put("6O", "z1")
            await until(lambda: len(table.referee.game.actions) == 1)
            await asyncio.sleep(0.3)  # retried, still failing: the screen keeps saying so
            assert not table.referee.journal_ok
            (tmp_path / "state").unlink()
            (tmp_path / "state").mkdir()
            await until(lambda: table.referee.journal_ok)
            assert table.referee.view().status is StatusLight.READY

    asyncio.run(play())
    said = [r for r in caplog.records if r.levelname == "ERROR" and "NOT recording" in r.getMessage()]
    assert said and str(journal) in said[0].getMessage()
    assert [e.text for e in Journal(journal).entries(1)] == ["play 6O"]


def test_a_damaged_journal_is_set_aside_and_a_new_one_started(
    tmp_path: Path, mock_factory: MockFactory, running: Running
) -> None:
    (tmp_path / "journal.db").write_bytes(b"not a database at all" * 300)
    config = parse_config(config_text(tmp_path), "t")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with running(daemon):
            assert daemon.table is not None
            view = daemon.table.referee.view()
            assert view.message is not None and view.message.title == "Diario dañado: apartado"

    asyncio.run(play())
    (aside,) = tmp_path.glob("journal.db.damaged-*")
    assert aside.read_bytes() == b"not a database at all" * 300
    assert [g.id for g in Journal(tmp_path / "journal.db").games()] == [1]


def test_a_missing_display_leaves_the_table_refereeing(
    tmp_path: Path, mock_factory: MockFactory, running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    text = config_text(tmp_path, '[display]\noptions = ["--display", "ssd1306", "--i2c-port", "9"]\n')
    daemon = Daemon(parse_config(text, "t"), pin_factory=mock_factory)

    async def play() -> None:
        async with running(daemon):
            assert daemon.table is not None and daemon.screen is None

    asyncio.run(play())
    assert "no display" in caplog.text


def test_a_reader_that_stops_answering_is_said_and_comes_back(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until
) -> None:
    config = parse_config(config_text(tmp_path), "t")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with running(daemon):
            referee = daemon.table.referee  # type: ignore[union-attr]
            sim.unplug(0, 0)
            await until(lambda: "z1" in referee.readers_down)
            view = referee.view()
            assert view.status is StatusLight.ERROR and view.message is not None
            assert view.message.kind is MessageKind.READER_DOWN
            sim.reader(0, 0).unplugged = False
            await until(lambda: not referee.readers_down)

    asyncio.run(play())


def config_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_sigterm_stops_the_service_cleanly(tmp_path: Path, service: Service) -> None:
    process = service(config_file(tmp_path, config_text(tmp_path)), env=MOCK_PINS)
    assert process.stdout is not None
    for line in process.stdout:
        if "table ready" in line:
            break
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=10)
    assert process.returncode == 0, out
    assert "stopped: Companion stopped" in out  # the log is English; the table speaks Spanish


def test_the_service_comes_up_on_a_journal_with_a_damaged_game(tmp_path: Path, service: Service) -> None:
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": "seises", "players": 4}, 0.0)
    journal.append(game, Entry("action", "play 1B", 1.0))  # illegal: a hand opens with a six
    journal.close()
    process = service(config_file(tmp_path, config_text(tmp_path)), env=MOCK_PINS)
    assert process.stdout is not None
    said = []
    for line in process.stdout:
        said.append(line)
        if "table ready" in line:
            break
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=10)
    out = "".join(said) + out
    assert process.returncode == 0, out
    assert "game 1 in" in out and "closed as damaged" in out
    games = Journal(tmp_path / "journal.db").games()
    assert [g.outcome["termination"] if g.outcome else None for g in games] == ["damaged", None]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            ("[journal]", "[game]\nplayers = 6\n[journal]"),
            "game.players: 6 cannot share 40 cards evenly: use 2, 4, 5 or 8",
        ),
        (('backend = "sim"', 'backend = "usb"'), "readers.backend"),
        (("[readers]", "[reader]"), "reader: unknown table; did you mean readers?"),
        (('backend = "sim"', 'backend = "sim"\nscenario = "/nonexistent/steps.txt"'), "readers.scenario: "),
        (('backend = "sim"', 'backend = "sim"\nscenario = "STEPS"'), "readers.scenario: STEPS, line 1"),
    ],
)
def test_a_wrong_config_stops_the_service_at_start_with_the_key(
    tmp_path: Path, change: tuple[str, str], said: str, service: Service
) -> None:
    (tmp_path / "steps.txt").write_text("0.5 dance 6O\n")
    text = config_text(tmp_path).replace(*change).replace("STEPS", str(tmp_path / "steps.txt"))
    process = service(config_file(tmp_path, text), env=MOCK_PINS)
    out, _ = process.communicate(timeout=20)
    assert process.returncode == 2, out
    assert "cannot start" in out and said.replace("STEPS", str(tmp_path / "steps.txt")) in out
    assert "Traceback" not in out
