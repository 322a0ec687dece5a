"""Another login takes the club's session: any client of the broker that connects as ``companion.club`` with a clean
session throws the club's session away, with what the broker kept for it, while the tables' cursors move past it.
The sample config binds client ids to usernames (``use_username_as_clientid``), so no login can; a broker without
it loses the game, and the club says so on its board instead of silently missing it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from brokers import Broker, sample_broker
from clubs import Watch, mqtt, until
from nights import replaced

from companion.club.publisher import publish_journal
from companion.club.room import room_json
from companion.club.service import CLIENT_ID
from companion.club.standings import League
from companion.journal import Journal

pytestmark = pytest.mark.slow

ACCOUNTS = {"t1": "t1-secret", "t2": "t2-secret", "club": "club-secret"}
AWAY_S = 3.0  # how long a club thrown off waits before it connects again: the table sends meanwhile


@pytest.fixture(params=["sample", "unbound"])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Broker]:
    """The sample's broker; and the same without client ids bound to usernames (the sample before it had them)."""
    leave_out = ("use_username_as_clientid",) if request.param == "unbound" else ()
    broker = sample_broker(tmp_path / "broker", ACCOUNTS, leave_out=leave_out)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def played(league: League, table: str) -> int:
    return max((row.played for row in league.standings() if row.player.startswith(f"{table} ")), default=0)


def test_another_login_as_the_club_s_client_id_loses_no_game_or_the_board_says_which(
    tmp_path: Path,
    broker: Broker,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr("companion.club.service.RETRY_S", (AWAY_S, AWAY_S))
    caplog.set_level(logging.WARNING, "companion.club")
    bound = "unbound" not in request.node.callspec.id
    journal = Journal(tmp_path / "t1.db")
    table = mqtt(broker, "t1", "t1", ACCOUNTS["t1"])

    async def go() -> dict[str, object]:
        async with Watch(broker, tmp_path / "club.db", login=("club", ACCOUNTS["club"])).running() as watch:
            async with aiomqtt.Client(
                "127.0.0.1",
                broker.port,
                username="t2",
                password=ACCOUNTS["t2"],
                identifier=CLIENT_ID,
                clean_session=True,
            ):
                await asyncio.sleep(0.3)  # the broker has thrown the club off, if it does
                replaced(journal, 1)
                await publish_journal(table, journal)  # the table's cursor moves past its first game
            replaced(journal, 2)
            await asyncio.sleep(AWAY_S + 0.5)  # the club is back, if it was thrown off
            await publish_journal(table, journal)
            await until(lambda: played(watch.league, "t1") >= 1)
            await asyncio.sleep(0.3)
            return room_json(watch.league, "en")

    room = asyncio.run(go())
    (board,) = room["tables"]  # type: ignore[misc]
    lost = [record.getMessage() for record in caplog.records if "no event came" in record.getMessage()]
    league = League(tmp_path / "club.db")
    if bound:
        assert played(league, "t1") == 2, "both games counted: the other login took no session"
        assert board["missing"] == "" and lost == []
    else:
        assert played(league, "t1") == 1, "the first game went with the club's session"
        assert board["missing"] == "1", "the board says which game never came"
        assert room["texts"]["missing"] == "games {games} never came: not counted"  # type: ignore[index]
        assert len(lost) == 1 and "table t1" in lost[0] and "games 1;" in lost[0]
    league.close()
