"""``companion club`` as a person runs it: a real process reading a real mosquitto, its room's board and CSV served,
stopped by SIGTERM; ``--csv`` from the league's file; wrong options said before anything starts."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp
import pytest
from nights import a_night, expected

from companion.cli import main
from companion.club.broker import listening
from companion.club.publisher import publish_journal
from companion.club.standings import League
from companion.config import read_mqtt

if TYPE_CHECKING:
    from brokers import Broker


def club(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "club", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def board_url(process: subprocess.Popen[str]) -> str:
    """The board's address, from the line the club prints once it serves."""
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"the room's board on (http://\S+/)", line)
    assert found, line + (process.stderr.read() if process.stderr else "")
    return found.group(1)


def test_the_club_serves_the_journals_standings_on_its_board_and_as_csv_and_stops_on_sigterm(
    tmp_path: Path, broker: Broker
) -> None:
    night = a_night(tmp_path)
    process = club("--mqtt", broker.url, "--web", "127.0.0.1:0", "--db", "club.db", "--lang", "en", cwd=tmp_path)
    try:
        url = board_url(process)

        async def go() -> tuple[str, dict[str, object], str]:
            for table in ("t1", "t2"):
                config = read_mqtt({"url": broker.url, "table": table}, "test")
                assert config is not None
                await publish_journal(config, night.journals[table])
            played = sum(row.played for row in expected(night.journals))
            async with aiohttp.ClientSession() as session:
                end = time.monotonic() + 30
                while True:
                    async with session.get(url + "standings.csv") as response:
                        text = await response.text()
                    if sum(int(row["played"]) for row in csv.DictReader(io.StringIO(text))) == played:
                        break
                    assert time.monotonic() < end, text
                    await asyncio.sleep(0.1)
                async with session.get(url + "api/room") as response:
                    room = await response.json()
                async with session.get(url + "api/events") as response:
                    first = (await response.content.readline()).decode()
            return text, room, first

        text, room, first = asyncio.run(go())
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["game"], r["player"], int(r["won"]), int(r["points"])) for r in rows] == [
        (row.game, row.player, row.won, row.points) for row in expected(night.journals)
    ]
    assert room["language"] == "en" and room["texts"]["standings"] == "Standings"  # type: ignore[index]
    tables = room["tables"]
    assert isinstance(tables, list) and [t["table"] for t in tables] == ["t1", "t2"]
    assert tables[0]["status"] == "offline" and tables[0]["title"] == "Seises"
    assert first.startswith("data: ") and json.loads(first[6:])["tables"] == tables
    # the same league from its file
    league = League(tmp_path / "club.db")
    assert league.csv() == text
    league.close()


def test_csv_writes_the_standings_from_the_league_s_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    night = a_night(tmp_path)
    league = League(tmp_path / "club.db")
    for table, text in night.everything():
        league.receive(table, text)
    league.commit()
    league.close()
    assert main(["club", "--db", str(tmp_path / "club.db"), "--csv", str(tmp_path / "standings.csv")]) == 0
    lines = (tmp_path / "standings.csv").read_text().splitlines()
    assert lines[0] == "game,player,played,won,points,reneges" and len(lines) == 1 + len(expected(night.journals))
    assert main(["club", "--db", str(tmp_path / "club.db"), "--csv", "-"]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    assert main(["club", "--db", str(tmp_path / "none.db"), "--csv", "-"]) == 2
    assert "--db" in capsys.readouterr().err and not (tmp_path / "none.db").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--mqtt", "http://club.local"], "--mqtt: 'http://club.local' is not a broker's address"),
        (["--web", "nowhere"], "--web: 'nowhere' is not an address"),
        (["--broker", "--mqtt", "mqtt://club.local:1883"], "--broker starts a broker on this machine"),
        (["--password-file", "/nonexistent/club-password"], "--password-file: No such file"),
    ],
)
def test_a_wrong_option_is_said_before_anything_starts(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["club", *args]) == 2
    assert said in capsys.readouterr().err


def test_a_busy_board_address_is_said_and_the_club_stops(tmp_path: Path, broker: Broker) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        process = club("--mqtt", broker.url, "--web", f"127.0.0.1:{port}", cwd=tmp_path)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 1
    assert f"--web: cannot listen on 127.0.0.1:{port}" in stderr


def test_with_broker_a_broker_already_on_the_port_is_used_and_left_running(tmp_path: Path, broker: Broker) -> None:
    """A stock Debian's ``apt install mosquitto`` already runs a broker on the README's port: ``--broker`` reads
    that one (here the ``broker`` fixture's mosquitto, on the port the command is given) and starts none of its own,
    and stopping the club leaves the system's broker running."""
    night = a_night(tmp_path)
    process = club("--broker", "--mqtt", broker.url, "--web", "127.0.0.1:0", "--lang", "es", cwd=tmp_path)
    try:
        assert process.stdout is not None
        said = process.stdout.readline()
        assert said == (
            f"companion club: --broker: ya responde un bróker en 127.0.0.1:{broker.port} (¿el mosquitto del "
            "sistema?): el club lo lee\n"
        ), said + (process.stderr.read() if process.stderr else "")
        found = re.search(r"el tablero de la sala en (http://\S+/)", process.stdout.readline())
        assert found
        assert process.stdout.readline() == f"companion club: las mesas desde {broker.url}\n"  # not "its own"

        async def go() -> int:
            config = read_mqtt({"url": broker.url, "table": "t1"}, "test")
            assert config is not None
            await publish_journal(config, night.journals["t1"])
            played = sum(row.played for row in expected({"t1": night.journals["t1"]}))
            async with aiohttp.ClientSession() as session:
                end = time.monotonic() + 30
                while True:
                    async with session.get(found.group(1) + "standings.csv") as response:
                        rows = list(csv.DictReader(io.StringIO(await response.text())))
                    if sum(int(row["played"]) for row in rows) == played or time.monotonic() > end:
                        return sum(int(row["played"]) for row in rows)
                    await asyncio.sleep(0.1)

        assert asyncio.run(go()) > 0, "the club reads the tables from the broker that was there"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr
    assert listening(broker.port) == "mqtt", "the system's broker is left running"
    assert not (tmp_path / "club-broker").exists(), "no broker of its own"


def test_with_broker_a_port_taken_by_another_program_is_said(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        address = f"mqtt://127.0.0.1:{port}"
        process = club("--broker", "--mqtt", address, "--web", "127.0.0.1:0", "--lang", "en", cwd=tmp_path)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 1
    assert stderr == (
        f"companion club: --broker: 127.0.0.1:{port} is taken by a program that is no MQTT broker: give --mqtt "
        "another port, and the tables the same\n"
    )
    assert listening(port) is None
