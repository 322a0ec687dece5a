"""One language per output: ``run --check``, ``doctor`` (on the Pi in a folder), ``history`` and ``play``, each
under ``--lang es`` and ``--lang en``, say no sentence of the other language: a word of the other catalogue that
this one never uses gives a line away (tests/one_language.py).
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_pi import Pi
from one_language import FOREIGN, foreign_lines

import companion.sim as sim
from companion.cli import build_parser, main
from companion.commands.doctor import run as doctor
from companion.hardware import DEFAULT_PINMAP
from companion.i18n import language, set_language
from companion.journal import Entry, Journal

ROOT = Path(__file__).resolve().parents[2]


def test_the_check_tells_the_languages_apart() -> None:
    """The check itself: the catalogues' own sentences are caught in the other language, and pass in their own."""
    assert foreign_lines("pick a free GPIO (free now: 5, 6)", "es") == [
        ("pick a free GPIO (free now: 5, 6)", ["free", "now", "pick"])
    ]
    assert foreign_lines("3 problema(s); no se ha puesto nada en marcha", "en")
    assert not foreign_lines("elige un GPIO libre (libres ahora: 5, 6)", "es")
    assert not foreign_lines("/etc/companion/pinmap.toml: buttons.undo = 2: z1, seises, GPIO2", "en")
    assert len(FOREIGN["es"]) > 300 and len(FOREIGN["en"]) > 300


# ---- what each command says --------------------------------------------------------------------------------


def captured(capsys: pytest.CaptureFixture[str], call: Callable[[], object]) -> str:
    call()
    out = capsys.readouterr()
    return out.out + out.err


def run_check(tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]) -> Iterator[str]:
    """``run --check`` on a config with every kind of problem, on broken pin maps (one that is not there too),
    and on the README's config."""
    (tmp_path / "check").mkdir()
    config = tmp_path / "check/config.toml"
    pinmap = tmp_path / "check/pinmap.toml"
    config.write_text(f'[pins]\nmap = "{pinmap}"\n', "utf-8")
    yield captured(capsys, lambda: main(["run", "--config", str(config), "--check", "--lang", lang]))
    shipped = DEFAULT_PINMAP.read_text("utf-8")
    config.write_text(
        '[game]\nplayers = 6\nconfim_turns = false\n[zones]\nz1 = "table"\nz3 = "O"\n'
        '[readers]\nbackend = "sim"\npoll_interval_ms = 0\n[display]\ndim_after_s = "soon"\n'
        f'[pins]\nmap = "{pinmap}"\n[jounral]\npath = "x.db"\n',
        "utf-8",
    )
    for broken in ('undo = "GPIO40"', "undo = 2", "undo = 10", "undo = 30", "undo = true"):
        pinmap.write_text(shipped.replace("undo = 13", broken), "utf-8")
        yield captured(capsys, lambda: main(["run", "--config", str(config), "--check", "--lang", lang]))
    pinmap.write_text(shipped.replace("[buttons]", "[buttons]\nsnooze = 5"), "utf-8")
    yield captured(capsys, lambda: main(["run", "--config", str(config), "--check", "--lang", lang]))
    config.write_text(f'[zones]\nz1 = "table"\n[pins]\nmap = "{pinmap}"\n', "utf-8")
    pinmap.write_text(shipped.replace("red = 22", "red = 17"), "utf-8")  # one problem: said in the singular
    yield captured(capsys, lambda: main(["run", "--config", str(config), "--check", "--lang", lang]))
    sim = ROOT / "systemd/sim.toml"
    yield captured(capsys, lambda: main(["run", "--config", str(sim), "--check", "--lang", lang]))


def run_doctor(pi: Pi, lang: str) -> Iterator[str]:
    """``doctor`` on a ready Pi, on one with a broken config and pin map, and on a hub table with no hub."""

    def once() -> str:
        args = build_parser().parse_args(["doctor", "--config", str(pi.config), "--root", str(pi.root)])
        out = io.StringIO()
        before = language()
        set_language(lang)
        try:
            doctor(args, pi.system(), out)
        finally:
            set_language(before)
        return out.getvalue()

    yield once()
    sim.unplug(0, 1)  # a reader that does not answer, SPI and I2C off, the user in no group, no display
    pi.boot("dtparam=audio=on\n")
    pi.groups({})
    pi.i2c.devices[1] = set()
    yield once()
    pi.write_config('[game]\nplayers = 9\n[zones]\nz1 = "table"\nz2 = "O"\n')
    (pi.root / "etc/companion").mkdir(exist_ok=True)
    shipped = DEFAULT_PINMAP.read_text("utf-8")
    (pi.root / "etc/companion/pinmap.toml").write_text(shipped.replace("undo = 13", "undo = 8"), "utf-8")
    yield once()
    pi.write_config('[pins]\nmap = "/etc/companion/nothing.toml"\n')
    yield once()
    (pi.root / "etc/companion/pinmap.toml").unlink()
    pi.write_config('[zones]\nz1 = "O"\nz2 = "C"\n[readers]\nbackend = "hub"\n')
    yield once()


def run_history(tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]) -> Iterator[str]:
    journal_path = tmp_path / "journal.db"
    journal = Journal(journal_path)
    game = journal.new_game({"game": "seises", "players": 4}, t=1.0)
    for t, action in enumerate(("play 6O", "play 7O", "pay", "play 5O"), start=2):
        journal.append(game, Entry("action", action, float(t)))
    second = journal.new_game({"game": "sexto-set", "players": 4}, t=10.0)
    journal.append(second, Entry("zone", "z1 M1R", 11.0))
    journal.close()
    listed = captured(capsys, lambda: main(["history", "--journal", str(journal_path), "--lang", lang]))
    one = {"es": "1 entrada", "en": "1 entry"}[lang]  # a count in the singular, a game by its caption
    assert re.search(rf"  6º SET +{one}  ", listed) and "sexto-set" not in listed, listed
    yield listed
    yield captured(capsys, lambda: main(["history", "--journal", str(tmp_path / "none.db"), "--lang", lang]))


def run_play(lang: str, capsys: pytest.CaptureFixture[str]) -> Iterator[str]:
    transcripts = {
        "seises": "# a comment\nplay 6O\nplay 7O\npay\nplay 9O\nplay 4O\nplay 5C\nnonsense\nplay 6C\n",
        "sexto-set": "play M1R N01\nplay M1R M1R\npass\n",
    }
    for game, transcript in transcripts.items():
        for extra in ([], ["--keep-going"]):
            old = sys.stdin
            sys.stdin = io.StringIO(transcript)
            try:
                yield captured(capsys, lambda args=["play", game, "--lang", lang, *extra, "-"]: main(args))
            finally:
                sys.stdin = old


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_command_says_one_language(
    lang: str, pi: Pi, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = {
        "run --check": "".join(run_check(tmp_path, lang, capsys)),
        "doctor": "".join(run_doctor(pi, lang)),
        "history": "".join(run_history(tmp_path, lang, capsys)),
        "play": "".join(run_play(lang, capsys)),
    }
    for command, output in outputs.items():
        assert len(output.splitlines()) >= 3, f"{command} said next to nothing: {output!r}"
    wrong = {command: foreign_lines(output, lang) for command, output in outputs.items()}
    assert not any(wrong.values()), "\n".join(
        f"{command} --lang {lang}: {line!r} says {said}" for command, found in wrong.items() for line, said in found
    )
