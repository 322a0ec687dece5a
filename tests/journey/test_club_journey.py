"""The README's "A club of tables", walked as a person does: its three commands, in order, as real processes. The
club starts its own mosquitto and serves its board; two demo tables play a whole Seises game each and publish it;
the board's standings are the two tables' own (each seat's points as the demo prints them at the end of its game);
SIGTERM (the person's ``kill %1``) stops the club and its broker. A command the test cannot run fails it, so the
README and the test cannot drift apart.

What the test changes, and nothing else: the ports (free ones instead of 1883 and 8090, which another program of
the machine may hold), and ``companion`` is the one of the environment running the tests.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from processes import as_typed, free_port

ROOT = Path(__file__).resolve().parents[2]


def club_commands(readme: str) -> list[str]:
    """The commands of the README's "A club of tables" (its ``sh`` block, one a line, comments dropped)."""
    section = readme.split("\n## A club of tables\n", 1)[1].split("\n## ", 1)[0]
    shell = re.search(r"```sh\n(.*?)```", section, re.S)
    assert shell, "A club of tables: a sh block of commands"
    commands = [line.split(" #", 1)[0].strip() for line in shell.group(1).splitlines()]
    return [command for command in commands if command]


def printed_standings(output: str) -> dict[str, int]:
    """The seats' points the demo prints at the end of its game (``Asiento 3      50``), by seat in lower case."""
    block = output.split("Clasificación:\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]  # after the head and rule
    rows = [re.fullmatch(r"\s*(.+?)\s+(-?\d+)\s*", line) for line in block]
    return {row.group(1).lower(): int(row.group(2)) for row in rows if row}


@pytest.mark.slow
def test_the_readme_s_club_of_tables_runs_two_demo_tables_and_the_club_s_board(tmp_path: Path) -> None:
    commands = club_commands((ROOT / "README.md").read_text())
    assert len(commands) == 3, commands
    mqtt, web = free_port(), free_port()
    env = {**os.environ, "LANG": "es_ES.UTF-8", "LANGUAGE": "es"}  # a Spanish-speaking machine
    typed = [shlex.split(command.replace(":1883", f":{mqtt}").replace(":8090", f":{web}")) for command in commands]
    words = [as_typed(command) for command in typed]
    assert typed[0][-1] == "&" and typed[0][1] == "club", "first the club, in the background"
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    club = subprocess.Popen(words[0][:-1], cwd=tmp_path, env=env, **pipes)
    try:
        assert club.stdout is not None
        said = club.stdout.readline() + club.stdout.readline()
        assert f"http://127.0.0.1:{web}/" in said and "su propio mosquitto" in said, said  # Spanish
        printed: dict[str, dict[str, int]] = {}
        for command in words[1:]:
            assert command[1] == "demo"
            demo = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
            assert demo.returncode == 0, demo.stderr
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
        _, stderr = club.communicate(timeout=20)
    assert club.returncode == 0, stderr
    with pytest.raises(OSError):  # its mosquitto went with it
        socket.create_connection(("127.0.0.1", mqtt), timeout=1).close()
    assert (tmp_path / "club.db").exists()
