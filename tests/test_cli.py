"""The ``companion`` command itself: its version, a reader that leaves the pipe early, argparse's own words."""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from companion.cli import ARGPARSE_WORDS, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
COMPANION = Path(sys.executable).parent / "companion"  # .venv/bin/companion, as the README runs it


def companion(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([COMPANION, *args], cwd=ROOT, timeout=60, check=False, **kwargs)


def test_version() -> None:
    done = companion("--version", capture_output=True)
    assert done.returncode == 0
    assert done.stdout.decode() == f"companion {version('companion')}\n"


@pytest.mark.parametrize(
    "command",
    [
        ["play", "seises", "companion/games/seises/example.txt"],
        ["demo", "--game", "seises"],
        ["cards", "--backend", "sim", "--deck", "spanish-40", "--registry", "{tmp}/r.toml", "--identify", "--auto"],
    ],
    ids=["play", "demo", "cards --identify"],
)
def test_a_pipe_closed_by_its_reader_ends_quietly(command: list[str], tmp_path: Path) -> None:
    """`companion play ... | head`, `companion demo | head`: the reader is gone before the lines are written."""
    read, write = os.pipe()
    os.close(read)  # every write now fails with EPIPE, as after head has read its lines and left
    try:
        done = companion(*(word.format(tmp=tmp_path) for word in command), stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.stderr.decode() == "", "no BrokenPipeError traceback"
    assert done.returncode == 141  # what a shell reports for a program SIGPIPE ended


def test_argparse_still_says_each_of_its_words_the_catalogues_translate() -> None:
    """ARGPARSE_WORDS are argparse's msgids: a Python whose argparse words them otherwise would leave them English."""
    tree = ast.parse(inspect.getsource(argparse))
    said = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
        if node.args and isinstance(node.args[0], ast.Constant)
    }
    assert set(ARGPARSE_WORDS) <= said, set(ARGPARSE_WORDS) - said


@pytest.mark.parametrize(
    ("lang", "head", "lines"),
    [
        ("es", "uso: companion history", ["opciones:", "-h, --help", "muestra esta ayuda y termina"]),
        ("en", "usage: companion history", ["options:", "-h, --help", "show this help message and exit"]),
    ],
)
def test_argparse_s_own_words_speak_the_language(
    lang: str, head: str, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["history", "--help", "--lang", lang])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(head)
    assert all(line in out for line in lines), out


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("es", "companion export: error: argumento game_id: valor int no válido: 'siete'"),
        ("en", "companion export: error: argument game_id: invalid int value: 'siete'"),
    ],
)
def test_a_wrong_argument_is_refused_in_the_language(lang: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["export", "siete", "--lang", lang])
    assert done.value.code == 2 and said in capsys.readouterr().err


def test_each_option_s_help_says_what_it_does_in_its_own_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The options several commands share are helped for each: only run and demo start a table, cards identifies
    rather than enrolls, and cards --auto without --identify is refused rather than ignored."""
    parser = build_parser()
    subparsers = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    for name, command in subparsers.choices.items():
        (lang,) = [action.help or "" for action in command._actions if "--lang" in action.option_strings]
        assert ("table" in lang) == (name in ("run", "demo")), (name, lang)
    cards = subparsers.choices["cards"]
    (zone,) = [action.help or "" for action in cards._actions if "--zone" in action.option_strings]
    assert zone.startswith("with --identify:") and "enroll" not in zone
    assert main(["cards", "--backend", "sim", "--auto", "--lang", "en"]) == 2
    assert capsys.readouterr().err == "companion cards: --auto lays cards for --identify: add --identify\n"
