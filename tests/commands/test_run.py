"""`companion run --check`: the config and the pin map it uses are checked, every problem is named with the file,
the key and the reason (and the nearest key for a typo), and nothing is started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.hardware import DEFAULT_PINMAP

ROOT = Path(__file__).resolve().parents[2]
COMPANION = Path(sys.executable).parent / "companion"


def check(config: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMPANION, "run", "--config", config, "--check"], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_the_readme_config_checks_clean_and_nothing_starts(tmp_path: Path) -> None:
    done = check(ROOT / "systemd/sim.toml", cwd=tmp_path)  # the README's command
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{ROOT / 'systemd/sim.toml'}: ok: seises, 4 players, deck spanish-40, zones z1")
    assert list(tmp_path.iterdir()) == [], "no journal, no registry, no frames: nothing was started"


def test_every_problem_is_named_at_once(tmp_path: Path) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(DEFAULT_PINMAP.read_text("utf-8").replace("undo = 13", 'undo = "GPIO40"'))
    config = tmp_path / "config.toml"
    config.write_text(
        '[game]\nplayers = 6\nconfim_turns = false\n[zones]\nz1 = "table"\nz3 = "O"\n'
        '[readers]\nbackend = "sim"\npoll_interval_ms = 0\n[display]\ndim_after_s = "soon"\n'
        f'[pins]\nmap = "{pinmap}"\n[jounral]\npath = "x.db"\n'
    )
    done = check(config, cwd=tmp_path)
    assert done.returncode == 2
    said = done.stderr.splitlines()
    assert said == [
        f"{config}: game.players: 6 cannot share 40 cards evenly: use 2, 4, 5 or 8 (the rule sheet recommends 4 to 8)",
        f"{config}: readers.poll_interval_ms: 0 is not between 1 and 1000",
        f"{config}: display.dim_after_s: must be a whole number, not 'soon'",
        f"{config}: game.confim_turns: unknown key; did you mean game.confirm_turns?",
        f"{config}: jounral: unknown table; did you mean journal?",
        f"{config}: pins.map: {pinmap}: buttons.undo: 'GPIO40': GPIO40 is not a valid pin name on the Raspberry Pi "
        '4B\'s header; write 17, "GPIO17", "BCM17" or the header pin "BOARD11"',
        f"{config}: 6 problem(s); nothing was started",
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config.toml", "pinmap.toml"]


def test_zones_the_pin_map_does_not_wire_are_named(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[zones]\nz1 = "table"\nz3 = "O"\n[pins]\nmap = "{DEFAULT_PINMAP}"\n')
    done = check(config)
    assert done.returncode == 2
    assert (
        f"{config}: zones.z3: no LEDs for it in the pin map {DEFAULT_PINMAP} (it has z1, z2): add them there, "
        "or use the hub back-end for more zones"
    ) in done.stderr.splitlines()


@pytest.mark.parametrize(
    ("lang", "seises", "sexto_set"),
    [
        (
            "es",
            [
                "game.players: 6 no pueden repartirse 40 cartas por igual: usa 2, 4, 5 o 8 (el reglamento recomienda "
                "de 4 a 8)",
                "game.options: seises no tiene la opción 'renege': sus opciones son renege_penalty, renege_points o "
                "reserve_exhausted.",
                "zones.z2: 'X': una zona del Seises es \"table\" o la letra de un palo (O, C, E, B)",
                "3 problema(s); no se ha puesto nada en marcha",
            ],
            [
                "game.deck: 'nope' no es una baraja incorporada (spanish-40, spanish-48, squadratik) ni un fichero",
                "game.players: 5 no pueden jugar al 6º SET con 48 cartas: usa 4",
                "zones.z1: 'M9': una zona del 6º SET es \"auto\" o el id de una maestra, como M1R",
                "zones: el 6º SET necesita una zona por maestra: 8 zonas, no 1",
            ],
        ),
        (
            "en",
            [
                "game.players: 6 cannot share 40 cards evenly: use 2, 4, 5 or 8 (the rule sheet recommends 4 to 8)",
                "game.options: seises has no option 'renege': its options are renege_penalty, renege_points or "
                "reserve_exhausted.",
                "zones.z2: 'X': a Seises zone is \"table\" or a suit letter (O, C, E, B)",
                "3 problem(s); nothing was started",
            ],
            [
                "game.deck: 'nope' is neither a built-in deck (spanish-40, spanish-48, squadratik) nor a file",
                "game.players: 5 cannot play 6º SET with 48 cards: use 4",
                "zones.z1: 'M9': a 6º SET zone is \"auto\" or a master card id such as M1R",
                "zones: 6º SET needs one zone per master card: 8 zones, not 1",
            ],
        ),
    ],
)
def test_the_games_problems_speak_the_command_lines_language(
    lang: str, seises: list[str], sexto_set: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    for text, lines in (
        ('[game]\nplayers = 6\n[game.options]\nrenege = "x"\n[zones]\nz1 = "table"\nz2 = "X"\n', seises),
        ('[game]\nname = "sexto-set"\nplayers = 5\ndeck = "nope"\n[zones]\nz1 = "M9"\n', sexto_set),
    ):
        config.write_text(text, "utf-8")
        assert main(["run", "--config", str(config), "--check", "--lang", lang]) == 2
        said = capsys.readouterr().err.splitlines()
        assert all(f"{config}: {line}" in said for line in lines), said
