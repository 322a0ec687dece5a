"""`companion run --check`: the config and the pin map it uses are checked, every problem is named with the file,
the key and the reason (and the nearest key for a typo), and nothing is started."""

from __future__ import annotations

import os
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
    shipped = DEFAULT_PINMAP.read_text("utf-8")
    pinmap.write_text(shipped.replace("undo = 13", 'undo = "GPIO40"').replace("green = 23", "green = 17"))
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
        f"{config}: pins.map: {pinmap}: buttons.undo: 'GPIO40' is not a GPIO of the Raspberry Pi 4B's header; "
        'write 17, "GPIO17", "BCM17" or the header pin "BOARD11"',
        f"{config}: pins.map: {pinmap}: zones.z2.green = 17: GPIO17 is already zones.z1.red; "
        "give each part its own GPIO",  # every mistake of the pin map, not its first alone
        f"{config}: 7 problems; nothing was started",
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
                "3 problemas; no se ha puesto nada en marcha",
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
                "3 problems; nothing was started",
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


def start(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A real start (``companion run`` without ``--check``), which must refuse before it opens anything."""
    return subprocess.run([COMPANION, "run", "--config", config], cwd=cwd, capture_output=True, text=True, timeout=60)


def refused_alike(config: Path, cwd: Path) -> list[str]:
    """The problems ``run --check`` names (exit 2, no traceback), checked to be the ones a real start refuses in
    the same words, before it made any file."""
    before = sorted(cwd.iterdir())
    done = check(config, cwd=cwd)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    problems = done.stderr.splitlines()[:-1]
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    assert done.stderr.splitlines()[-1] == f"{config}: {count}; nothing was started"
    started = start(config, cwd)
    assert started.returncode == 2, started.stderr
    assert "Traceback" not in started.stderr, started.stderr
    logged = [line.split("cannot start: ", 1)[1] for line in started.stderr.splitlines() if "cannot start: " in line]
    assert logged == problems
    assert sorted(cwd.iterdir()) == before, "a refused start makes no journal, registry or frames"
    return problems


def sim_config(folder: Path, text: str, **tables: str) -> Path:
    """A table of simulated readers in ``folder`` with ``text`` added to its config; ``tables`` add keys to its
    ``[readers]``, ``[display]`` or ``[journal]`` (a key given there replaces the default one)."""
    keys = {
        "readers": {"backend": '"sim"', "registry": f'"{folder / "registry.toml"}"'},
        "display": {"frames": f'"{folder / "screen"}"'},
        "journal": {"path": f'"{folder / "journal.db"}"'},
    }
    for table, lines in tables.items():
        keys[table].update(line.split(" = ", 1) for line in lines.splitlines())
    config = folder / "config.toml"
    head = "".join(f"[{table}]\n" + "".join(f"{k} = {v}\n" for k, v in items.items()) for table, items in keys.items())
    config.write_text(head + text)
    return config


SPANISH = 'name = "mine"\n[[cards]]\nid = "6O"\nkind = "spanish"\nsuit = "O"\nrank = 6\n'


@pytest.mark.parametrize(
    ("deck", "said"),
    [
        ("name = ", "game.deck: {deck}: not valid TOML"),
        ("[[cards]]\nid = 'x'\n", "game.deck: {deck}: the deck needs a name"),
        ('name = "empty"\n', "game.deck: {deck}: the deck has no cards"),
        (SPANISH.replace("rank = 6\n", ""), "game.deck: {deck}: card #1 (6O): field 'rank' is missing"),
        (SPANISH + SPANISH.split("\n", 1)[1], "game.deck: {deck}: card #2 (6O): field 'id': duplicate id '6O'"),
        (SPANISH.replace('"spanish"', '"joker"'), "game.deck: {deck}: card #1 (6O): field 'kind': unknown kind"),
        (SPANISH, "game.players: 1 cards cannot be dealt evenly to 2 to 8 players: use a deck of 40 or 48 cards"),
        ("folder", "game.deck: {deck}: cannot read the deck file ([Errno 22] a folder, not a companion file"),
        ("pipe", "game.deck: {deck}: cannot read the deck file ([Errno 22] a named pipe, not a companion file"),
    ],
)
def test_a_broken_deck_is_named_at_check_and_at_start(tmp_path: Path, deck: str, said: str) -> None:
    path = tmp_path / "deck.toml"
    if deck == "folder":
        path.mkdir()
    elif deck == "pipe":
        os.mkfifo(path)  # a blocking open would wait for ever for a writer
    else:
        path.write_text(deck)
    config = sim_config(tmp_path, f'[game]\ndeck = "{path}"\n')
    problems = refused_alike(config, tmp_path)
    assert len(problems) == 1 and problems[0].startswith(f"{config}: {said.format(deck=path)}"), problems


def test_a_config_that_is_a_named_pipe_is_refused_not_waited_for(tmp_path: Path) -> None:
    pipe = tmp_path / "config.toml"
    os.mkfifo(pipe)
    problems = refused_alike(pipe, tmp_path)
    assert problems == [f"{pipe}: cannot read the config ([Errno 22] a named pipe, not a companion file: '{pipe}')"]


def test_what_a_start_would_trip_on_is_named_with_its_fix(tmp_path: Path) -> None:
    (tmp_path / "journal").mkdir()
    (tmp_path / "hub").mkdir()
    (tmp_path / "registry.toml").write_text(
        '[decks."spanish-40"]\n04A1B2C3D4E5F6 = "6O"\n"04:a1:b2:c3:d4:e5:f6" = "7O"\n'
    )
    config = sim_config(
        tmp_path,
        '[game]\nseat_names = ["Ana", "Luis", "Ana", "Eva"]\n[mqtt]\nurl = "mqtt://127.0.0.1:0"\ntable = "mesa-1"\n',
        journal=f'path = "{tmp_path / "journal"}"',
        readers=f'hub_port = "{tmp_path / "hub"}"',
    )
    assert refused_alike(config, tmp_path) == [
        f"{config}: game.seat_names: 'Ana' names two seats: give each player a name of their own",
        f"{config}: journal.path: {tmp_path / 'journal'} is a folder: name the journal's file in it, such as "
        f"{tmp_path / 'journal' / 'journal.db'}",
        f"{config}: mqtt.url: 'mqtt://127.0.0.1:0': port 0 is no broker's port: write its port (mqtt://host:1883), "
        "or none for 1883 (8883 for TLS)",
        f'{config}: readers.registry: {tmp_path / "registry.toml"}: [decks."spanish-40"]: 04A1B2C3D4E5F6 and '
        "04:a1:b2:c3:d4:e5:f6 are one tag, bound to 6O and 7O: delete the wrong line, or enroll the tag again",
    ]
    # the hub's port is the hub kind's own setting: judged when the hub reads the zones
    hub = config.read_text().replace('backend = "sim"', 'backend = "hub"')
    config.write_text(hub.replace('"Ana", "Luis", "Ana"', '"Ana", "Luis", "Rosa"'))
    problems = refused_alike(config, tmp_path)
    assert (
        f"{config}: readers.hub_port: {tmp_path / 'hub'} is a folder, not a serial port: write the hub's port "
        '(ls /dev/ttyACM*), or "auto"'
    ) in problems


def test_a_registry_card_the_deck_has_not_is_named(tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(
        '[decks."spanish-40"]\n04A1B2C3D4E5F6 = "6O"\n04A1B2C3D4E5F7 = "9O"\n'
        '[decks.squadratik]\n04A1B2C3D4E5F8 = "N01"\n'
    )
    config = sim_config(tmp_path, "")
    assert refused_alike(config, tmp_path) == [
        f"{config}: readers.registry: {tmp_path / 'registry.toml'}: tag 04A1B2C3D4E5F7 is bound to '9O', which the "
        "deck spanish-40 has not: enroll the tag again, or delete its line"
    ]  # spanish-40 has no nines; the other deck's table is that deck's business


def test_sexto_set_zones_are_refused_with_every_problem_at_check_and_at_start(tmp_path: Path) -> None:
    roles = ("M1R", "M1R", "M9X", "M2R", "M3R", "M4R", "M1B", "M2B")
    zones = "".join(f'z{i} = "{role}"\n' for i, role in enumerate(roles, start=1))
    config = sim_config(tmp_path, f'[game]\nname = "sexto-set"\n[zones]\n{zones}')
    problems = refused_alike(config, tmp_path)
    assert problems[0] == (
        f"{config}: zones: M1R heads z1, z2: give each line one zone; z3 = M9X: no master card of the deck is M9X "
        "(its master cards: M1R, M2R, M3R, M4R, M1B, M2B, M3B, M4B); no zone for the lines of M3B, M4B: name each "
        'on a zone, or leave zones "auto" to learn them'
    )


def test_the_new_problems_speak_the_command_lines_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "journal").mkdir()
    roles = ("M1R", "M1R", "M9X", "M2R", "M3R", "M4R", "M1B", "M2B")
    zones = "".join(f'z{i} = "{role}"\n' for i, role in enumerate(roles, start=1))
    config = sim_config(
        tmp_path,
        f'[game]\nname = "sexto-set"\nseat_names = ["Ana", "Luis", "ana", "Eva"]\n[zones]\n{zones}'
        '[mqtt]\nurl = "mqtt://127.0.0.1:0"\ntable = "mesa-1"\n',
        journal='path = "/proc/journal.db"',
    )
    assert main(["run", "--config", str(config), "--check", "--lang", "es"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said[-1] == f"{config}: {len(said) - 1} problemas; no se ha puesto nada en marcha"
    assert said[:4] == [  # then the zones the pin map has no LEDs for (8 zones, 2 in the default pin map)
        f"{config}: game.seat_names: 'Ana' nombra dos asientos: da a cada jugador un nombre propio",
        f"{config}: zones: M1R encabeza z1, z2: da a cada línea una zona; z3 = M9X: ninguna maestra de la baraja es "
        "M9X (sus maestras: M1R, M2R, M3R, M4R, M1B, M2B, M3B, M4B); ninguna zona para las líneas de M3B, M4B: "
        'nombra cada una en una zona, o deja zonas en "auto" para que las aprendan',
        f"{config}: journal.path: /proc/journal.db está en /proc, los ficheros del núcleo, no en un disco: nombra un "
        "fichero como /var/lib/companion/journal.db",
        f"{config}: mqtt.url: 'mqtt://127.0.0.1:0': el puerto 0 no es el de ningún broker: escribe su puerto "
        "(mqtt://host:1883), o ninguno para 1883 (8883 con TLS)",
    ]


def test_two_seises_players_check_ok_with_the_sheets_advice(tmp_path: Path) -> None:
    config = sim_config(tmp_path, "[game]\nplayers = 2\n")
    done = check(config, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        f"{config}: game.players: the rule sheet recommends 4 to 8 players; 2 can play, with equal hands"
    ]
    config.write_text(config.read_text().replace("players = 2", "players = 4"))
    assert len(check(config, cwd=tmp_path).stdout.splitlines()) == 1


def test_a_broker_password_every_user_can_read_is_said(tmp_path: Path) -> None:
    config = sim_config(tmp_path, '[mqtt]\nurl = "mqtt://127.0.0.1"\ntable = "t1"\nusername = "t1"\npassword = "s"\n')
    config.chmod(0o644)
    done = check(config, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        f"{config}: mqtt.password: every user of this machine can read the broker's password in this file: "
        f"sudo chmod 0640 {config} && sudo chgrp companion {config}"
    ]
    config.chmod(0o640)
    assert len(check(config, cwd=tmp_path).stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("lang", "said", "one_problem"),
    [
        (
            "es",
            [
                "buttons.undo: 'GPIO40' no es un GPIO del conector de la Raspberry Pi 4B; escribe 17, \"GPIO17\", "
                '"BCM17" o el pin del conector "BOARD11"',
                "zones.z2.red = 10: GPIO10 es MOSI de SPI0, el bus de los lectores; elige un GPIO libre (libres ahora:",
                "no es TOML válido (",
            ],
            "1 problema; no se ha puesto nada en marcha",
        ),
        (
            "en",
            [
                "buttons.undo: 'GPIO40' is not a GPIO of the Raspberry Pi 4B's header; write 17, \"GPIO17\", "
                '"BCM17" or the header pin "BOARD11"',
                "zones.z2.red = 10: GPIO10 is MOSI of SPI0, the readers' bus; pick a free GPIO (free now:",
                "not valid TOML (",
            ],
            "1 problem; nothing was started",
        ),
    ],
)
def test_a_broken_pin_map_is_said_in_the_command_lines_language(
    lang: str, said: list[str], one_problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pinmap = tmp_path / "pinmap.toml"
    config = tmp_path / "config.toml"
    config.write_text(f'[pins]\nmap = "{pinmap}"\n', "utf-8")
    shipped = DEFAULT_PINMAP.read_text("utf-8")
    broken = (
        shipped.replace("undo = 13", 'undo = "GPIO40"'),
        shipped.replace("red = 22", "red = 10"),
        shipped + "\n[[[",
    )
    for text, expected in zip(broken, said, strict=True):
        pinmap.write_text(text, "utf-8")
        assert main(["run", "--config", str(config), "--check", "--lang", lang]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err[0].startswith(f"{config}: pins.map: {pinmap}: {expected}"), err
        assert err[1:] == [f"{config}: {one_problem}"]  # one, in the singular: the catalogue's plural forms
    started = start(config, tmp_path)  # the service's log stays English whatever the table speaks
    assert f"cannot start: {config}: pins.map: {pinmap}: not valid TOML (" in started.stderr, started.stderr


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("es", "buttons.undo = 2: GPIO2 es SDA de I2C1, el bus de la OLED; elige un GPIO libre"),
        ("en", "buttons.undo = 2: GPIO2 is SDA of I2C1, the OLED's bus; pick a free GPIO"),
    ],
)
def test_enroll_says_a_broken_pin_map_in_the_command_lines_language(
    lang: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(DEFAULT_PINMAP.read_text("utf-8").replace("undo = 13", "undo = 2"), "utf-8")
    config = tmp_path / "config.toml"
    config.write_text(f'[pins]\nmap = "{pinmap}"\n', "utf-8")
    assert main(["enroll", "--config", str(config), "--lang", lang]) == 2
    assert capsys.readouterr().err.startswith(f"companion enroll: {pinmap}: {said}")
