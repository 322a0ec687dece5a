"""A simulated table (the service with the sim readers, gpiozero's mock pins) publishing to a real mosquitto, and
a subscriber of the room that sees what the club would: every event once, in order, and the retained state."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest
from gpiozero.pins.mock import MockFactory

from companion.cli import main
from companion.club.publisher import CURSOR, Publisher
from companion.config import parse_config, read_mqtt
from companion.daemon import Daemon
from companion.games import DEFAULT_GAME
from companion.hardware import load_pinmap
from companion.journal import Cursor, Entry, Journal
from companion.nfc.backends import SimBackend
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device

if TYPE_CHECKING:
    from brokers import Board, Broker

PINS = load_pinmap()
Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]
Until = Callable[..., Awaitable[None]]


def table_config(tmp_path: Path, broker: Broker | None, table: str = "t1") -> str:
    """A simulated table's config publishing to ``broker`` (None: to the url written as URL, for the test to put)."""
    return (
        f'[readers]\nbackend = "sim"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
        "[game]\nconfirm_turns = false\n"
        f'[mqtt]\nurl = "{broker.url if broker is not None else "URL"}"\ntable = "{table}"\n'
    )


def expected_ids(journal: Journal) -> list[str]:
    """Every id the table's journal makes: each game's start, entries, and end once it has an outcome."""
    ids = []
    for game in journal.games():
        ids.append(f"{game.id}:0")
        ids += [f"{game.id}:{n}" for n in range(1, game.entries + 1)]
        if game.outcome is not None:
            ids.append(f"{game.id}:end")
    return ids


async def lay(hand: SimBackend, until: Until, daemon: Daemon, card: str) -> None:
    """A card laid on the table's zone (once a restarted table has looked at what lay there) and picked up once the
    journal has it."""
    table = daemon.table
    assert table is not None
    await until(lambda: not table.looking)
    count = len(table.journal.entries(table.game_id))
    hand.put(card, "z1")
    await until(lambda: len(table.journal.entries(table.game_id)) == count + 1)
    hand.take(card)
    await asyncio.sleep(0.05)


async def hold_undo(factory: MockFactory, until: Until, daemon: Daemon) -> None:
    table = daemon.table
    assert table is not None
    count = len(table.journal.entries(table.game_id))
    pin = factory.pin(PINS.buttons["undo"])
    pin.drive_low()
    await until(lambda: len(table.journal.entries(table.game_id)) == count + 1)
    pin.drive_high()
    await asyncio.sleep(0.06)


def play_json(game: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What ``companion play GAME FILE --json`` prints last for ``lines``."""
    transcript = tmp_path / "transcript.txt"
    transcript.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    main(["play", game, str(transcript), "--json"])
    result: dict[str, Any] = json.loads(capsys.readouterr().out.splitlines()[-1])
    return result


def transcript(journal: Journal, game: int) -> list[str]:
    return [entry.text if entry.kind == "action" else entry.kind for entry in journal.entries(game)]


def test_a_table_publishes_every_event_once_in_order_and_its_state_as_companion_play_prints_it(
    tmp_path: Path,
    broker: Broker,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    board: Board,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = parse_config(table_config(tmp_path, broker), "t")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with board.watching(), running(daemon):
            for card in ("6O", "7O", "5O"):
                await lay(hand, until, daemon, card)
            await hold_undo(mock_factory, until, daemon)
            await lay(hand, until, daemon, "5O")
            table = daemon.table
            assert table is not None
            await until(lambda: board.ids() == expected_ids(table.journal))
            await until(
                lambda: (
                    board.state.get("t1") == play_json(config.game.name, transcript(table.journal, 1), tmp_path, capsys)
                )
            )
            assert board.status["t1"] == "online"
        await until(lambda: board.status["t1"] == "offline")  # said by the service as it stops

    asyncio.run(play())
    assert board.ids() == ["1:0", "1:1", "1:2", "1:3", "1:4", "1:5"]
    assert [(e["type"], e.get("text")) for e in board.events[1:]] == [
        ("action", "play 6O"),
        ("action", "play 7O"),
        ("action", "play 5O"),
        ("undo", ""),
        ("action", "play 5O"),
    ]
    assert board.events[0]["settings"]["game"] == config.game.name
    assert board.state["t1"]["refused"] == []


def test_the_broker_killed_mid_game_and_started_again_loses_nothing_and_doubles_nothing(
    tmp_path: Path,
    broker: Broker,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    board: Board,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("companion.club.publisher.RETRY_S", (0.1, 0.2))
    config = parse_config(table_config(tmp_path, broker), "t")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with board.watching(), running(daemon):
            table = daemon.table
            assert table is not None and daemon.publisher is not None
            for card in ("6O", "7O"):
                await lay(hand, until, daemon, card)
            await until(lambda: table.journal.cursor(CURSOR) == Cursor(1, 2))
            await until(lambda: len(board.events) == 3)
            broker.kill()
            await until(lambda: not daemon.publisher.connected)  # type: ignore[union-attr]
            for card in ("5O", "4O", "3O"):  # the table plays on while the broker is away
                await lay(hand, until, daemon, card)
            assert table.journal.cursor(CURSOR) == Cursor(1, 2)
            broker.start()
            await until(lambda: board.ids() == expected_ids(table.journal))
            await until(
                lambda: (
                    board.state.get("t1") == play_json(config.game.name, transcript(table.journal, 1), tmp_path, capsys)
                )
            )

    asyncio.run(play())
    assert board.ids() == ["1:0", "1:1", "1:2", "1:3", "1:4", "1:5"]
    assert [e["text"] for e in board.events[3:]] == ["play 5O", "play 4O", "play 3O"]


def test_a_table_started_while_the_broker_is_down_publishes_its_backlog_once_it_is_up(
    tmp_path: Path,
    broker: Broker,
    mock_factory: MockFactory,
    running: Running,
    until: Until,
    hand: SimBackend,
    board: Board,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("companion.club.publisher.RETRY_S", (0.1, 0.2))
    config = parse_config(table_config(tmp_path, broker), "t")

    async def play() -> None:
        async with board.watching():  # the board's session is on the broker, which keeps what comes for it
            pass
        broker.kill()
        first = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))
        async with running(first):
            for card in ("6O", "7O"):
                await lay(hand, until, first, card)
        # a power cut, and the table starts again, the broker still down
        second = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))
        async with running(second):
            await lay(hand, until, second, "5O")
            table = second.table
            assert table is not None
            assert table.journal.cursor(CURSOR) == Cursor()
            broker.start()
            async with board.watching():
                await until(lambda: board.ids() == expected_ids(table.journal))
                await until(lambda: board.status.get("t1") == "online")

    asyncio.run(play())
    assert board.ids() == ["1:0", "1:1", "1:2", "1:3"]


@pytest.mark.slow
def test_companion_demo_mqtt_publishes_a_whole_demo_game_whose_retained_state_ends_with_the_winner(
    tmp_path: Path, board: Board, until: Until, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.db"

    async def watch() -> None:
        async with board.watching():
            status = await asyncio.to_thread(
                main,
                ["demo", "--game", DEFAULT_GAME, "--journal", str(path), "--mqtt", board.broker.url, "--table", "t1"],
            )
            assert status == 0
            journal = Journal(path)
            await until(lambda: board.ids() == expected_ids(journal) and board.status.get("t1") == "offline")

    asyncio.run(watch())
    journal = Journal(path)
    game = journal.last_game()
    assert game is not None and game.outcome is not None and game.outcome["winner"] is not None
    end = {"id": f"{game.id}:end", "game": game.id, "type": "end", "outcome": game.outcome, "after": game.entries}
    assert board.events[-1] == end
    assert board.state["t1"] == play_json(DEFAULT_GAME, transcript(journal, game.id), tmp_path, capsys)
    assert len(board.ids()) == len(set(board.ids())) == game.entries + 2  # its start, its entries and its end


def test_companion_demo_refuses_a_broker_address_or_a_table_name_it_cannot_use_before_playing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--mqtt", "http://club.local", "--table", "t1"]) == 2
    assert "companion demo: --mqtt: 'http://club.local' is not a broker's address" in capsys.readouterr().err
    assert main(["demo", "--mqtt", "mqtt://club.local", "--table", "mesa/3"]) == 2
    assert "companion demo: --table: 'mesa/3' cannot name the table" in capsys.readouterr().err
    assert main(["demo", "--table", "t1"]) == 2
    assert "companion demo: --table: needs --mqtt" in capsys.readouterr().err


def test_the_table_plays_on_while_its_broker_takes_the_connection_and_never_answers(
    tmp_path: Path, mock_factory: MockFactory, running: Running, until: Until, hand: SimBackend
) -> None:
    """A broker that is there but stuck (it accepts the connection, never acknowledges it): the publisher waits on
    its own task, and the table's plays go to the journal and the LEDs meanwhile."""
    stuck = socket.socket()
    stuck.bind(("127.0.0.1", 0))
    stuck.listen()
    url = f"mqtt://127.0.0.1:{stuck.getsockname()[1]}"
    text = table_config(tmp_path, None).replace("URL", url)
    daemon = Daemon(parse_config(text, "t"), pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))

    async def play() -> None:
        async with running(daemon):
            assert daemon.publisher is not None
            for card in ("6O", "7O", "5O"):
                await lay(hand, until, daemon, card)
            assert not daemon.publisher.connected  # still waiting for the broker's CONNACK
            table = daemon.table
            assert table is not None and table.journal.cursor(CURSOR) == Cursor()

    try:
        asyncio.run(play())
    finally:
        stuck.close()


def test_a_stop_that_comes_with_the_broker_s_acknowledgement_stops_the_publisher(
    tmp_path: Path, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiomqtt waits for a publish's acknowledgement with asyncio.wait_for, which on Python 3.11 loses a
    cancellation that comes in the same turn of the loop as the acknowledgement (CPython gh-86296): the service,
    stopped then while it sent a backlog, sent all of it and waited for ever. The stop comes here as the broker's
    PUBACK of the third event is handled (aiomqtt's on_publish), the moment the race needs."""
    mqtt = read_mqtt({"url": broker.url, "table": "t1"}, "t")
    assert mqtt is not None
    journal = Journal(tmp_path / "journal.db")
    game = journal.new_game({"game": DEFAULT_GAME, "players": 4}, t=0.0)
    for n in range(50):
        journal.append_later(game, Entry("action", "play 6O", float(n)))
    journal.flush()
    publisher = Publisher(mqtt, journal, lambda: {})
    tasks: list[asyncio.Task[None]] = []
    acknowledged = aiomqtt.Client._on_publish
    acks = [0]

    def acknowledged_then_stopped(self: aiomqtt.Client, *args: Any) -> None:
        acknowledged(self, *args)
        acks[0] += 1
        if acks[0] == 4:  # "online", then the events 1:0, 1:1 and 1:2
            tasks[0].cancel()

    monkeypatch.setattr(aiomqtt.Client, "_on_publish", acknowledged_then_stopped)

    async def stop() -> None:
        tasks.append(asyncio.create_task(publisher.run()))
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(tasks[0], 10)

    asyncio.run(stop())
    # stopped at the event being acknowledged, the rest kept; that one goes again next time, with its id
    assert journal.cursor(CURSOR) == Cursor(1, 1)
