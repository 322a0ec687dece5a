"""One language per output: every command (``run --check``, ``doctor`` on the Pi in a folder, ``history``, ``play``,
``export``, ``screens``, ``cards``, ``enroll`` on simulated readers, ``demo``, ``club --csv``, and every command's
``--help``) and every OLED screen (read back from the frames the real driver sent), each under ``--lang es`` and
``--lang en``, say no sentence of the other language.

A word of the other catalogue that this one never uses gives a line away (tests/one_language.py).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import polib
import pytest
from fake_pi import Pi
from one_language import FOREIGN, foreign_lines

import companion.sim as sim
from companion.cli import build_parser, main
from companion.commands.doctor import run as doctor
from companion.examples import example_views
from companion.examples.contact import game_frames, page_frames
from companion.games import kinds
from companion.hardware import DEFAULT_PINMAP
from companion.i18n import LOCALE, language, set_language
from companion.journal import Entry, Journal
from companion.ui.reading import words as read_words

ROOT = Path(__file__).resolve().parents[2]


def test_the_check_tells_the_languages_apart() -> None:
    """The check itself: the catalogues' own sentences are caught in the other language, and pass in their own."""
    assert foreign_lines("pick a free GPIO (free now: 5, 6)", "es") == [
        ("pick a free GPIO (free now: 5, 6)", ["free", "now", "pick"])
    ]
    assert foreign_lines("3 problema(s); no se ha puesto nada en marcha", "en")
    assert not foreign_lines("elige un GPIO libre (libres ahora: 5, 6)", "es")
    assert not foreign_lines("/etc/companion/pinmap.toml: buttons.undo = 2: z1, seises, GPIO2", "en")
    assert not foreign_lines("uso: companion demo [-h] [--seed SEED] [--keep]", "es")
    assert "keep" in foreign_lines("  --keep  keep the temporary folder", "es")[0][1]
    assert len(FOREIGN["es"]) > 300 and len(FOREIGN["en"]) > 300


def test_no_sentence_makes_its_plural_by_hand() -> None:
    """A count's noun takes its form from the catalogue's plural forms (ngettext, :class:`companion.i18n.Plural`):
    no "problema(s)", "card(s)" left for a reader to sort out."""
    by_hand = re.compile(r"\w\((s|es)\)")
    for lang in ("es", "en"):
        catalogue = polib.pofile(str(LOCALE / f"{lang}/LC_MESSAGES/companion.po"))
        texts = [text for entry in catalogue for text in (entry.msgid, entry.msgstr, *entry.msgstr_plural.values())]
        assert not [text for text in texts if by_hand.search(text)], lang


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


def run_quietly(lang: str, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What ``companion ARGS --lang LANG`` says, whether it ends by returning or by exiting (``--help``)."""

    def call() -> None:
        with suppress(SystemExit):  # --help exits
            main([*args, "--lang", lang])

    return captured(capsys, call)


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
    yield run_quietly(lang, capsys, "export", "--journal", str(journal_path), "1")  # a game as a transcript
    yield run_quietly(lang, capsys, "export", "--journal", str(journal_path), "9")  # no such game


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


def run_others(tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]) -> Iterator[str]:
    """Every command's ``--help``, and the commands that need no table: ``screens``, ``cards`` of a deck, ``enroll``
    of a whole deck on simulated readers (and with a reader that does not answer), ``demo`` of every game,
    ``club --csv`` of an empty league."""
    subcommands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command in subcommands.choices:
        yield run_quietly(lang, capsys, command, "--help")
    yield run_quietly(lang, capsys, "screens", "--out", str(tmp_path / "screens"))
    registry = str(tmp_path / "registry.toml")
    yield run_quietly(lang, capsys, "cards", "--deck", "squadratik", "--registry", registry)
    yield run_quietly(lang, capsys, "enroll", "--auto", "--deck", "spanish-40", "--registry", registry)
    yield run_quietly(lang, capsys, "cards", "--deck", "spanish-40", "--registry", registry)
    yield run_quietly(lang, capsys, "demo", "--game", "all")
    yield run_quietly(lang, capsys, "club", "--csv", "-", "--db", str(tmp_path / "club.db"))
    sim.unplug(0, 0)  # the first zone's reader does not answer: enroll says which zone, and what to check
    yield run_quietly(lang, capsys, "enroll", "--auto", "--deck", "spanish-40", "--registry", registry)
    sim.WORLD.reader(0, 0).unplugged = False


def screens_read(lang: str) -> str:
    """Every example screen (a moment of each game, each message kind, the menu) and a whole game of each kind (its
    contact sheet's frames) as a person reads the panel, every page of it."""
    said = []
    for view in example_views(lang).values():
        said += [read_words(frame) for frame in page_frames(view)]
    said += [read_words(frame) for game in kinds() for frame in game_frames(game, lang)]  # a whole game of each
    return "\n".join(said)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_command_says_one_language(
    lang: str, pi: Pi, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = {
        "the others": "".join(run_others(tmp_path, lang, capsys)),  # before doctor unplugs a simulated reader
        "run --check": "".join(run_check(tmp_path, lang, capsys)),
        "doctor": "".join(run_doctor(pi, lang)),
        "history": "".join(run_history(tmp_path, lang, capsys)),
        "play": "".join(run_play(lang, capsys)),
        "the screens": screens_read(lang),
    }
    for command, output in outputs.items():
        assert len(output.splitlines()) >= 3, f"{command} said next to nothing: {output!r}"
    wrong = {command: foreign_lines(output, lang) for command, output in outputs.items()}
    assert not any(wrong.values()), "\n".join(
        f"{command} --lang {lang}: {line!r} says {said}" for command, found in wrong.items() for line, said in found
    )
