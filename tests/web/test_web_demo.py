"""``companion demo --web HOST:PORT``: the demo's game served live while the robots play it, and with ``--hold``
after it ends, until interrupted."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import answers, free_port, get, interrupted, started

DEMO = [sys.executable, "-m", "companion", "demo", "--game", "seises"]


def test_the_demo_serves_its_game_while_it_is_played_and_holds_it_until_interrupted(tmp_path: Path) -> None:
    port = free_port()
    argv = [*DEMO, "--lang", "en", "--web", f"127.0.0.1:{port}", "--speed", "100", "--hold", "--seat", "0"]
    seen: list[int] = []  # the plays laid, each time the page was asked
    with started(argv, tmp_path) as demo:
        for table in answers(demo, f"http://127.0.0.1:{port}/api/table", "the demo's game did not end"):
            seen.append(sum(table["state"]["hand_sizes"]))
            if table["state"]["winner"] is not None:
                break
        time.sleep(0.5)
        assert demo.poll() is None, "--hold keeps serving after the game"
        assert get(f"http://127.0.0.1:{port}/api/state")["winner"] is not None
        out = interrupted(demo)
    assert demo.returncode == 0, out
    assert len(set(seen)) > 3, "the page followed the game as it was played"
    assert f"the table in a browser: http://127.0.0.1:{port}/" in out
    assert f"still on http://127.0.0.1:{port}/ until Ctrl-C" in out
    assert "Traceback" not in out


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--web", "8080"], "companion demo: --web: '8080' is not an address: write HOST:PORT"),
        (["--hold"], "companion demo: --hold, --speed and --seat go with --web HOST:PORT"),
        (["--web", "127.0.0.1:0", "--speed", "0"], "companion demo: --speed 0: give a number above 0"),
        (["--seat", "2"], "companion demo: --hold, --speed and --seat go with --web HOST:PORT"),
        (
            ["--web", "127.0.0.1:0", "--seat", "5", "--lang", "en"],
            "companion demo: --seat 5: seises has seats 1 to 4 (0: the robots play them all)",
        ),
    ],
)
def test_wrong_web_arguments_are_said(arguments: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--game", "seises", *arguments], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.startswith(said), done.stderr


def test_a_busy_address_is_said(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "companion", "demo", "--game", "seises", "--web", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
    assert done.returncode == 1
    assert f"companion demo: --web: cannot listen on 127.0.0.1:{port}; give a free address" in done.stderr


def test_by_default_a_person_plays_seat_1_and_the_robots_wait_for_it_until_interrupted(tmp_path: Path) -> None:
    port = free_port()
    with started([*DEMO, "--lang", "en", "--web", f"127.0.0.1:{port}", "--speed", "100"], tmp_path) as demo:
        offered = answers(demo, f"http://127.0.0.1:{port}/api/virtual", "the person's turn did not come", 60)
        virtual = next(virtual for virtual in offered if virtual["wait"] is None)
        table = get(f"http://127.0.0.1:{port}/api/table")
        assert table["state"]["turn"] == 1 and "6O" in virtual["hand"], "seat 1 holds the 6 of coins and opens"
        time.sleep(0.5)
        assert get(f"http://127.0.0.1:{port}/api/table")["state"] == table["state"], "the robots wait"
        out = interrupted(demo)
    assert demo.returncode == 130, out
    assert "you play seat 1 on the page; the robots play the others and wait for your turn" in out
    assert out.rstrip().endswith("stopped: the game is left unfinished")
    assert "Traceback" not in out
