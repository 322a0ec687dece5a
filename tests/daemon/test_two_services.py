"""Two services started on one journal (a second unit, a ``companion run`` left running by hand): the second is
refused the journal, says who holds it, and referees without recording; the first's game is the journal's alone.
Without the lock both resumed the journal's last game and interleaved their plays in it."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.journal import Journal

Service = Callable[..., subprocess.Popen[str]]
PLAYS = ["6O", "7O", "5O"]  # a Seises hand's first plays, each legal after the one before


def start(service: Service, folder: Path, journal: Path) -> tuple[subprocess.Popen[str], list[str]]:
    """A service of its own folder (config, scenario laying PLAYS on z1) writing ``journal``, and its output lines."""
    folder.mkdir()
    (folder / "scenario.txt").write_text(
        "\n".join(f"{0.3 + i * 0.2:.2f} on {card} z1\n{0.4 + i * 0.2:.2f} off {card}" for i, card in enumerate(PLAYS))
    )
    (folder / "config.toml").write_text(
        "[game]\nconfirm_turns = false\n"
        f'[readers]\nbackend = "sim"\npoll_interval_ms = 5\nscenario = "{folder / "scenario.txt"}"\n'
        f'registry = "{folder / "registry.toml"}"\n'
        f'[journal]\npath = "{journal}"\n'
    )
    process = service(folder / "config.toml", env={"GPIOZERO_PIN_FACTORY": "mock"})
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        lines.extend(process.stdout)

    threading.Thread(target=read, daemon=True).start()
    return process, lines


def wait_for(lines: list[str], text: str, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not any(text in line for line in lines):
        assert time.monotonic() < end, f"never said {text!r}: {''.join(lines)}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_second_service_on_the_journal_is_refused_it_and_says_who_holds_it(tmp_path: Path, service: Service) -> None:
    journal = tmp_path / "journal.db"
    first, first_said = start(service, tmp_path / "first", journal)
    wait_for(first_said, f"game 1: action play {PLAYS[-1]}")
    second, second_said = start(service, tmp_path / "second", journal)
    wait_for(second_said, "table ready")
    time.sleep(0.3 + 0.2 * len(PLAYS))  # the second table's players lay the same cards on its zone
    for process in (second, first):
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    time.sleep(0.1)
    refused = [line for line in second_said if "in use by another process" in line]
    assert refused and f"(pid {first.pid}: " in refused[0] and "companion run --config" in refused[0], second_said
    assert "NOT recording" in refused[0]
    assert not any("resumed game" in line for line in second_said), "it never read the other's game"
    written = Journal.read_only(journal)
    assert [g.id for g in written.games()] == [1]
    assert [e.text for e in written.entries(1)] == [f"play {card}" for card in PLAYS], "the first's plays, once each"
