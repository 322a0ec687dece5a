"""Every command the README prints in its ``sh`` blocks, run as printed on a machine whose locale is Spanish and on
one whose locale is C, each saying what it says in one language.

The list is the README's own (:func:`readme_commands`): a command is run here, or run by the journey of its section
(``WALKED``, which runs it as printed on both machines too), or named in ``NOT_HERE`` with the reason; a command the
README gains or loses that this module does not name fails it, so the README and the tests cannot drift apart.

A machine is its locale, as the environment gives it to every program (tests/machines.py): ``LANG=es_ES.UTF-8``,
the locale itself there (so ``make`` and the shell speak Spanish too), or ``LC_ALL=C``.

Each command runs from a folder of its own that stands for the checkout (its files linked in: ``.venv``, the
sources, the Makefile), so what a command writes beside it is seen, and must be what the README says it writes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from machines import MACHINES, SPOKEN, machine, spanish_locale
from one_language import foreign_lines

ROOT = Path(__file__).resolve().parents[2]

# The blocks (a section's title, the block's place in it) that the journey of their section runs, as printed, on
# both machines: each reads its section's first sh block.
WALKED = {
    ("At the table", 0): "tests/journey/test_journey.py, in a temporary root as on the Pi (sudo, systemd, the hub)",
    ("A club of tables", 0): "tests/journey/test_club_journey.py, with its own broker and with one already there",
}
# Not run here, and why.
NOT_HERE = {
    "make test": "the whole suite, this test among its tests: CI runs it (.ci/run)",
    "make bench": "measures for minutes on an idle machine: docs/PERFORMANCE.md gives its figures",
    ".venv/bin/python -m bench hub --emulator": "measures the hub's scans on the emulated RP2040 for minutes",
    "make firmware-flash UF2=~/Downloads/RPI_PICO-20250415-v1.25.0.uf2": (
        "needs a Pico plugged in holding BOOTSEL (its RPI-RP2 drive) and MicroPython's UF2 from micropython.org"
    ),
}
# What a command run here writes beside it, as the README says (and says how to remove).
WRITES = {".venv/bin/companion run --config systemd/sim.toml": {"companion-sim"}}
# Commands that serve until Ctrl-C, and the line that says they serve.
SERVES = {".venv/bin/companion run --config systemd/sim.toml": "web: the table's page is on http://127.0.0.1:"}
# The service's log is English on every machine (docs/DAEMON.md): the journal's reader is whoever reads the log.
ENGLISH_LOG = {".venv/bin/companion run --config systemd/sim.toml"}


def readme_commands(readme: str) -> list[tuple[tuple[str, int], str]]:
    """Every command line of the README's ``sh`` blocks (an indented block too), comments dropped, each with its
    block: the title of its section ("" before the first) and the block's place in the section."""
    found = []
    for section in re.split(r"\n(?=## )", readme):
        title = section[3:].split("\n", 1)[0] if section.startswith("## ") else ""
        for place, block in enumerate(re.finditer(r"^( *)```sh\n(.*?)^\1```", section, re.S | re.M)):
            for line in block.group(2).splitlines():
                command = line.split(" #", 1)[0].strip()
                if command:
                    found.append(((title, place), command))
    return found


def here() -> list[str]:
    """The README's commands this module runs."""
    commands = readme_commands((ROOT / "README.md").read_text("utf-8"))
    return [command for block, command in commands if block not in WALKED and command not in NOT_HERE]


def test_every_readme_command_is_run_or_said_why_not() -> None:
    commands = readme_commands((ROOT / "README.md").read_text("utf-8"))
    assert set(WALKED) <= {block for block, _ in commands}, "a walked block is no longer in the README"
    assert set(NOT_HERE) <= {command for _, command in commands}, "a command said not run is no longer printed"
    assert set(WRITES) | set(SERVES) | ENGLISH_LOG <= set(here())
    readme = (ROOT / "README.md").read_text("utf-8")
    for written in WRITES.values():  # what a command leaves beside it, the README says how to remove
        assert all(f"`rm -r {name}`" in readme for name in written), written
    assert len(commands) >= 20 and len(here()) >= 7, commands
    # the list is the README's: an indented block (the Reader hub's step 1) is read too
    assert any(command.startswith("make firmware-flash") for _, command in commands)


@pytest.fixture(scope="module")
def locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return spanish_locale(tmp_path_factory.mktemp("locales"))


@pytest.fixture
def checkout(tmp_path: Path) -> Iterator[Path]:
    """A folder standing for the checkout: each of its top-level files and folders linked in."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    for path in ROOT.iterdir():
        if path.name != ".git":
            (folder / path.name).symlink_to(path)
    yield folder


def run_as_printed(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """``command`` in bash (Debian's login shell), as a person types it; one that serves is stopped with Ctrl-C
    (SIGINT to its process group, as a terminal sends it) once it says it serves. Its exit status and what it
    printed."""
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    try:
        if command not in SERVES:
            out, _ = process.communicate(timeout=300)
            return process.returncode, out
        lines = []
        end = time.monotonic() + 60
        for line in process.stdout:
            lines.append(line)
            if SERVES[command] in line:
                os.killpg(process.pid, signal.SIGINT)
                break
            assert time.monotonic() < end, "".join(lines)
        lines += process.stdout.readlines()
        return process.wait(30), "".join(lines)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def said(out: str) -> str:
    """What a command says to a person: its lines without the program's name before them (``companion screens:``,
    a name in no language), and without ``--json``'s line, which is for programs (its keys and codes are the
    program's, in no language) once it is read as JSON.

    >>> said('companion screens: escritos 56 ficheros PNG\\n{"turn": null}\\n')
    'escritos 56 ficheros PNG'
    """
    lines = []
    for line in out.splitlines():
        if line.startswith("{"):
            json.loads(line)
        else:
            lines.append(re.sub(r"^companion [\w-]+: ", "", line))
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MACHINES))
def test_the_readme_s_commands_run_as_printed_in_the_machine_s_language(
    name: str, locale: dict[str, str], checkout: Path
) -> None:
    env = machine(name, locale)
    spoken = SPOKEN[name]
    before = set(os.listdir(checkout))
    screens = Path("/tmp/screens")  # the README's --out: a folder of this machine's, kept as it was
    kept = screens.exists()
    wrong = []
    try:
        for command in here():
            status, out = run_as_printed(command, checkout, env)
            assert status == 0, f"{command}: exit {status}\n{out}"
            assert "Traceback" not in out and out.strip(), f"{command}:\n{out}"
            lang = "en" if "--lang en" in command or command in ENGLISH_LOG else spoken
            wrong += [f"{command} ({name}): {line!r} says {said}" for line, said in foreign_lines(said(out), lang)]
            written = set(os.listdir(checkout)) - before
            assert written <= WRITES.get(command, set()), f"{command} left {written - WRITES.get(command, set())}"
            for left in written:
                shutil.rmtree(checkout / left)  # as the README says to remove it
    finally:
        if not kept:
            shutil.rmtree(screens, ignore_errors=True)
    assert not wrong, "\n".join(wrong)
