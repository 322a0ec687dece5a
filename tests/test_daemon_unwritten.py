"""Plays the journal could not write when the service stopped (the disk gone read-only): each one logged, the
screen left saying how many, all kept in a side file that the next start offers to replay (CONFIRM) or set aside
(UNDO). Before, they went with the process, without a word."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from gpiozero.pins.mock import MockFactory

import companion.sim as sim
from companion.config import GameConfig, parse_config
from companion.daemon import Daemon
from companion.events import Button, CardArrived, CardLeft, Press
from companion.journal import Entry, Journal, Unwritten, health, keep_unwritten, kept_unwritten
from companion.nfc.backends import SimBackend
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.sim.oled import FakeI2CBus
from companion.table import Table
from companion.ui.display import make_device

if TYPE_CHECKING:
    from disks import Disk

Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]
Until = Callable[..., Awaitable[None]]


def service(tmp_path: Path, mock_factory: MockFactory) -> Daemon:
    text = (
        f'[game]\nconfirm_turns = false\n[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\n'
        f'poll_interval_ms = 5\n[journal]\npath = "{tmp_path / "journal.db"}"\n'
    )
    return Daemon(parse_config(text, "t"), pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))


def stop_with_plays_unwritten(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until, hand: SimBackend, disk: Disk
) -> Daemon:
    """6O written; then the disk refuses writes (SQLite's read-only) and 7O, 5O are played; the service stops."""
    daemon = service(tmp_path, mock_factory)

    async def play() -> None:
        async with running(daemon):
            table = daemon.table
            assert table is not None
            for n, card in enumerate(("6O", "7O", "5O")):
                if n == 1:
                    for db in disk.open():
                        db.execute("PRAGMA query_only = 1")  # every write now fails as on a read-only disk
                hand.put(card, "z1")
                await until(lambda n=n: len(table.referee.game.actions) == n + 1)
                hand.take(card)
                await asyncio.sleep(0.05)
            assert not table.referee.journal_ok

    asyncio.run(play())
    sim.reset()
    mock_factory.reset()
    return daemon


def press(daemon: Daemon, button: Button) -> None:
    assert daemon.table is not None
    daemon.table.press(Press(button, "short", daemon.clock()), daemon.clock())


def test_plays_not_written_at_stop_are_logged_shown_kept_and_replayed_at_the_next_start(
    tmp_path: Path,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    disk: Disk,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    first = stop_with_plays_unwritten(tmp_path, mock_factory, running, until, hand, disk)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    unwritten = [e.split(" (t=")[0] for e in errors if e.startswith("not written")]
    assert unwritten == ["not written: game 1: action play 7O", "not written: game 1: action play 5O"], errors
    assert any("2 entries not written are kept in " + str(tmp_path / "journal.db.unwritten") in e for e in errors)
    assert first.stopped_view is not None and first.stopped_view.message is not None
    assert first.stopped_view.message.title == "Parado: 2 sin guardar"
    assert first.stopped_view.message.todo == "Se ofrecen al arrancar"
    side = tmp_path / "journal.db.unwritten"
    assert [e["text"] for e in json.loads(side.read_text())[0]["entries"]] == ["play 7O", "play 5O"]
    assert [e.text for e in Journal.read_only(tmp_path / "journal.db").entries(1)] == ["play 6O"]
    ok, found, fix = health(tmp_path / "journal.db")  # companion doctor
    assert not ok and "journal.db.unwritten" in found and "replay" in fix

    second = service(tmp_path, mock_factory)

    async def answer() -> None:
        async with running(second):
            table = second.table
            assert table is not None and table.game_id == 1 and len(table.referee.game.actions) == 1
            view = table.referee.view()
            assert view.message is not None and view.message.title == "Jugadas sin guardar"
            assert view.message.todo == "OK las repone, DESHACER no"
            press(second, Button.CONFIRM)
            assert len(table.referee.game.actions) == 3 and table.referee.journal_ok

    asyncio.run(answer())
    assert [e.text for e in Journal.read_only(tmp_path / "journal.db").entries(1)] == ["play 6O", "play 7O", "play 5O"]
    assert not side.exists(), "written to the journal: the side file has done its work"
    assert health(tmp_path / "journal.db")[0]


def test_undo_sets_the_kept_plays_aside_and_the_game_goes_on_without_them(
    tmp_path: Path,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    disk: Disk,
) -> None:
    stop_with_plays_unwritten(tmp_path, mock_factory, running, until, hand, disk)
    second = service(tmp_path, mock_factory)

    async def answer() -> None:
        async with running(second):
            press(second, Button.UNDO)
            assert second.table is not None and len(second.table.referee.game.actions) == 1
            view = second.table.referee.view()
            assert view.message is not None and view.message.title == "Jugadas apartadas"

    asyncio.run(answer())
    (declined,) = tmp_path.glob("journal.db.unwritten.declined-*")
    assert [e["text"] for e in json.loads(declined.read_text())[0]["entries"]] == ["play 7O", "play 5O"], "kept"
    assert [e.text for e in Journal.read_only(tmp_path / "journal.db").entries(1)] == ["play 6O"]


def test_a_folder_that_cannot_be_written_sends_the_side_file_to_the_runtime_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "journal.db.unwritten.partial").mkdir()  # the journal's folder refuses the file
    runtime = tmp_path / "run"
    runtime.mkdir()
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(runtime))
    kept = [Unwritten(3, (Entry("action", "play 6O", 1.0), Entry("undo", "", 2.0)))]
    assert keep_unwritten(tmp_path / "journal.db", kept, runtime) == runtime / "journal.db.unwritten"
    assert kept_unwritten(tmp_path / "journal.db", runtime) == (runtime / "journal.db.unwritten", kept)
    with pytest.raises(OSError):
        keep_unwritten(tmp_path / "journal.db", kept, tmp_path / "no such folder")


def a_table(tmp_path: Path, plays: tuple[str, ...] = ()) -> Table:
    """A table started on the journal, after another had played ``plays`` on it (it resumes their game)."""

    def started() -> Table:
        referee = Referee(GameConfig(confirm_turns=False), {"z1": "table"})
        journal = Journal(tmp_path / "journal.db")
        table = Table(referee, TableTracker(Registry.load(tmp_path / "registry.toml")), journal)
        table.start(1.0)
        return table

    if plays:
        before = started()
        for n, card in enumerate(plays):
            before.status(CardArrived("z1", card), 2.0 + n)
            before.status(CardLeft("z1", card), 2.5 + n)
        before.journal.close()
    return started()


def test_plays_kept_that_do_not_follow_the_game_are_not_offered_and_the_table_going_on_withdraws_the_offer(
    tmp_path: Path,
) -> None:
    table = a_table(tmp_path, ("6O",))
    side = tmp_path / "journal.db.unwritten"
    assert not table.offer(side, [Unwritten(7, (Entry("action", "play 7O", 3.0),))], 3.0), "another game's"
    assert not table.offer(side, [Unwritten(0, (Entry("action", "play 7O", 3.0),), {"game": "seises"})], 3.0)
    assert table.offer(side, [Unwritten(table.game_id, (Entry("action", "play 7O", 3.0),))], 3.0)
    table.status(CardArrived("z1", "7O"), 4.0)  # the players went on instead of answering
    assert table.offered is None
    table.status(CardLeft("z1", "7O"), 4.5)
    table.press(Press(Button.UNDO, "long", 5.0), 5.0)  # UNDO held takes back the last play: the game's again
    assert [e.kind for e in table.journal.entries(table.game_id)] == ["action", "action", "undo"]


def test_plays_of_a_game_never_written_are_offered_to_the_new_game_with_its_settings(tmp_path: Path) -> None:
    table = a_table(tmp_path)
    kept = Unwritten(0, (Entry("action", "play 6O", 3.0),), {**table.referee.config.settings(), "players": 2})
    assert table.offer(tmp_path / "journal.db.unwritten", [kept], 3.0)
    (tmp_path / "journal.db.unwritten").write_text("[]")
    table.press(Press(Button.CONFIRM, "short", 4.0), 4.0)
    assert table.referee.config.players == 2 and len(table.referee.game.actions) == 1
    record = table.journal.game(table.game_id)
    assert record is not None and record.settings["players"] == 2 and record.entries == 1


def test_kept_plays_that_do_not_replay_change_nothing_and_are_set_aside(tmp_path: Path) -> None:
    table = a_table(tmp_path, ("6O",))
    side = tmp_path / "journal.db.unwritten"
    side.write_text("[]")
    kept = Unwritten(table.game_id, (Entry("action", "play 7O", 3.0), Entry("action", "play 1B", 3.5)))
    assert table.offer(side, [kept], 3.0)
    table.press(Press(Button.CONFIRM, "short", 4.0), 4.0)
    assert len(table.referee.game.actions) == 1, "not even the 7O that did replay"
    assert [e.text for e in table.journal.entries(table.game_id)] == ["play 6O"]
    view = table.referee.view()
    assert view.message is not None and view.message.title == "Jugadas apartadas"
    assert not side.exists() and len(list(tmp_path.glob("journal.db.unwritten.declined-*"))) == 1
