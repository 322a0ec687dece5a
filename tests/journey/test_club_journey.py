"""The README's "A club of tables", walked as a person does: its three commands, in order, as real processes. The
club starts its own mosquitto and serves its board; two demo tables play a whole Seises game each and publish it;
the board's standings are the two tables' own (each seat's points as the demo prints them at the end of its game);
SIGTERM (the person's ``kill %1``) stops the club and its broker. A command the test cannot run fails it, so the
README and the test cannot drift apart.

On two machines (tests/machines.py): one whose locale is Spanish, and one whose locale is C where a broker already
answers on the port, as the system's mosquitto does on 1883 once ``apt install mosquitto`` has run on Debian (the
``broker`` fixture's mosquitto): the club says so and reads it, and stopping the club leaves it running. Every line
the commands print is in the machine's language, and the folder they run in keeps only what the README says.

What the test changes, and nothing else: the ports (free ones, or the fixture broker's, instead of 1883 and 8090,
which another program of the machine may hold), and ``companion`` is the one of the environment running the tests.
"""

from __future__ import annotations

import csv
import io
import re
import shlex
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from machines import SPOKEN, machine, spanish_locale
from one_language import foreign_lines
from processes import as_typed, free_port

from companion.club.broker import listening

if TYPE_CHECKING:
    from brokers import Broker

ROOT = Path(__file__).resolve().parents[2]


def club_commands(readme: str) -> list[str]:
    """The commands of the README's "A club of tables" (its ``sh`` block, one a line, comments dropped)."""
    section = readme.split("\n## A club of tables\n", 1)[1].split("\n## ", 1)[0]
    shell = re.search(r"```sh\n(.*?)```", section, re.S)
    assert shell, "A club of tables: a sh block of commands"
    commands = [line.split(" #", 1)[0].strip() for line in shell.group(1).splitlines()]
    return [command for command in commands if command]


def printed_standings(output: str) -> dict[str, int]:
    """The seats' points the demo prints at the end of its game (``Asiento 3      50``, ``Seat 3      50``), by seat
    in lower case."""
    head = "Clasificación:\n" if "Clasificación:\n" in output else "Standings:\n"
    block = output.split(head, 1)[1].split("\n\n", 1)[0].splitlines()[2:]  # after the head and rule
    rows = [re.fullmatch(r"\s*(.+?)\s+(-?\d+)\s*", line) for line in block]
    return {row.group(1).lower(): int(row.group(2)) for row in rows if row}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["es", "C"])
def test_the_readme_s_club_of_tables_runs_two_demo_tables_and_the_club_s_board(
    name: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    commands = club_commands((ROOT / "README.md").read_text())
    assert len(commands) == 3, commands
    env = machine(name, spanish_locale(tmp_path_factory.mktemp("locales")) if name == "es" else {})
    there: Broker | None = request.getfixturevalue("broker") if name == "C" else None  # the system's mosquitto
    mqtt, web = (free_port() if there is None else there.port), free_port()
    typed = [shlex.split(command.replace(":1883", f":{mqtt}").replace(":8090", f":{web}")) for command in commands]
    words = [as_typed(command) for command in typed]
    assert typed[0][-1] == "&" and typed[0][1] == "club", "first the club, in the background"
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    (tmp_path / "here").mkdir()
    here = tmp_path / "here"  # where the person runs the three
    club = subprocess.Popen(words[0][:-1], cwd=here, env=env, **pipes)
    said = ""
    try:
        assert club.stdout is not None
        said = "".join(club.stdout.readline() for _ in range(2 if there is None else 3))
        assert f"http://127.0.0.1:{web}/" in said, said
        if there is None:
            assert "su propio mosquitto" in said, said  # Spanish
        else:
            assert f"a broker already answers on 127.0.0.1:{mqtt}" in said and "its own" not in said, said
        printed: dict[str, dict[str, int]] = {}
        for command in words[1:]:
            assert command[1] == "demo"
            demo = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=300)
            assert demo.returncode == 0, demo.stderr
            said += demo.stdout + demo.stderr
            printed[command[command.index("--table") + 1]] = printed_standings(demo.stdout)
        expected = {f"{table} {seat}": points for table, seats in printed.items() for seat, points in seats.items()}
        assert len(expected) == 8, printed

        end = time.monotonic() + 30
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{web}/standings.csv", timeout=5) as response:
                rows = list(csv.DictReader(io.StringIO(response.read().decode())))
            if len(rows) == 8 or time.monotonic() > end:
                break
            time.sleep(0.2)
        assert {row["player"]: int(row["points"]) for row in rows} == expected
        assert all(row["played"] == "1" for row in rows)
        assert sorted(row["player"].split()[0] for row in rows if row["won"] == "1") == ["t1", "t2"]
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=5) as response:
            assert "/static/room.js" in response.read().decode()
    finally:
        club.send_signal(signal.SIGTERM)  # kill %1
        out, stderr = club.communicate(timeout=20)
    assert club.returncode == 0, stderr
    wrong = foreign_lines(said + out, SPOKEN[name])
    assert not wrong, wrong
    if there is None:
        with pytest.raises(OSError):  # its mosquitto went with it
            socket.create_connection(("127.0.0.1", mqtt), timeout=1).close()
        assert sorted(path.name for path in here.iterdir()) == ["club-broker", "club.db"]  # as the README says
    else:
        assert listening(mqtt) == "mqtt", "the system's broker is left running"
        assert sorted(path.name for path in here.iterdir()) == ["club.db"]
    readme = (ROOT / "README.md").read_text()
    assert "`rm -r club.db club-broker`" in readme
