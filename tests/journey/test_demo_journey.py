"""The README's "To play it yourself, in a browser", walked as a person does: its command run as it is written, the
address it says to open asked for the page, a card laid and played through the page's own input routes (what a tap
on the hand and on OK send), and Ctrl-C to stop, with the exit status docs/WEB.md gives for a game left unfinished.
A change to that sentence that this test cannot follow fails it, so the README and the test cannot drift apart.

What the test changes, and nothing else: the port, only if another program of the machine holds the README's;
``companion`` is the one of the environment running the tests, on a machine in the C locale (the README: English).
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import urllib.request
from pathlib import Path

from processes import answers, as_typed, free_port, interrupted, post, started

ROOT = Path(__file__).resolve().parents[2]


def web_demo(readme: str) -> tuple[str, str]:
    """The README's command to play the demo in a browser, and the address it says to open."""
    found = re.search(
        r"To play it yourself, in a browser: `(\S*companion demo [^`]+)`.*?\(open\s+<([^>]+)>\)", readme, re.S
    )
    assert found, "README: «To play it yourself, in a browser: `companion demo --web …`» (open <the address>)"
    return found.group(1), found.group(2)


def taken(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    with socket.socket() as probe:
        try:
            probe.bind((host, int(port)))
        except OSError:
            return True
    return False


def test_the_readme_s_web_demo_is_played_on_its_page_and_stopped_with_ctrl_c(tmp_path: Path) -> None:
    command, url = web_demo((ROOT / "README.md").read_text("utf-8"))
    words = shlex.split(command)
    address = words[words.index("--web") + 1]
    assert url == f"http://{address}/", "the address to open is the one served"
    if taken(address):  # another program has the README's port: the same command on a free one
        words[words.index("--web") + 1] = address = f"127.0.0.1:{free_port()}"
        url = f"http://{address}/"
    env = {key: value for key, value in os.environ.items() if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env |= {"LANG": "C.UTF-8"}
    with started(as_typed(words), tmp_path, env) as demo:
        virtual = next(
            offered for offered in answers(demo, f"{url}api/virtual", "your turn") if offered["wait"] is None
        )
        with urllib.request.urlopen(url, timeout=5) as response:
            assert '<script src="/static/table.js"' in response.read().decode()
        (zone,) = virtual["zones"]  # Seises, first: one zone, the table
        assert "6O" in virtual["hand"], "you play seat 1, who holds the 6 of oros and opens"
        post(f"{url}api/virtual/lay", {"card": "6O", "zone": zone})  # a tap on the card in your hand
        pending = next(table for table in answers(demo, f"{url}api/table", "6O laid") if table["pending"])
        assert pending["pending"]["action"] == "play 6O"
        post(f"{url}api/virtual/press", {"button": "confirm"})  # a tap on OK
        played = next(table for table in answers(demo, f"{url}api/table", "6O played") if table["plays"])
        out = interrupted(demo)
    assert played["plays"][0] == "play 6O" and played["state"]["rows"]["O"] == [6, 6]
    assert demo.returncode == 130, out  # docs/WEB.md: Ctrl-C stops a game left unfinished (status 130)
    assert f"the table in a browser: {url}" in out
    assert out.rstrip().endswith("stopped: the game is left unfinished") and "Traceback" not in out
