"""The pin factory: lgpio on every Pi, mock pins for simulated readers off a Pi, and lgpio's own failures said
with what to check. The lgpio cases run the real library in a process of their own, in a folder of the test's:
importing lgpio makes its notification pipe in the working directory, as it does under systemd."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.i18n import language, set_language
from companion.pins import board_model, choose
from companion.readers import kind

MODELS = {"Pi 4": b"Raspberry Pi 4 Model B Rev 1.5\0", "Pi 5": b"Raspberry Pi 5 Model B Rev 1.0\0"}


def pi_root(tmp_path: Path, model: bytes) -> Path:
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(model)
    return tmp_path


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("backend", ["spi", "mfrc522", "hub", "sim"])
def test_a_pi_always_gets_lgpio(tmp_path: Path, model: str, backend: str) -> None:
    choice = choose(kind(backend), pi_root(tmp_path, MODELS[model]))
    assert choice.name == "lgpio" and choice.chip is None  # gpiozero picks the Pi's chip
    assert str(choice.reason).startswith(MODELS[model].decode().strip("\0") + " (/proc/device-tree/model): lgpio")
    assert "RPi.GPIO fails edge detection on kernel 6.6+" in str(choice.reason)


def test_off_a_pi_simulated_readers_get_mock_pins_and_real_ones_lgpio(tmp_path: Path) -> None:
    assert choose(kind("sim"), tmp_path).name == "mock"
    reason = "not a Raspberry Pi (no /proc/device-tree/model), but the readers are real (spi): lgpio on gpiochip0"
    real = choose(kind("spi"), tmp_path)
    assert (real.name, str(real.reason), real.chip) == ("lgpio", reason, 0)
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(b"Generic ARM board\0")
    assert board_model(tmp_path) is None and choose(kind("sim"), tmp_path).name == "mock"


def test_the_reason_is_english_in_the_service_s_log_and_the_command_line_s_language_in_doctor(
    tmp_path: Path,
) -> None:
    """The service logs the choice in English whatever the machine's language (a Spanish line in an English log
    was what a Spanish machine's service said); doctor says it in its own."""
    before = language()
    set_language("es")  # the command line of a Spanish machine
    try:
        reason = choose(kind("sim"), tmp_path).reason
        assert str(reason) == "not a Raspberry Pi (no /proc/device-tree/model) and the readers are simulated: mock pins"
        assert reason.text("es").startswith("no es una Raspberry Pi")
    finally:
        set_language(before)


def test_gpiozeros_own_setting_gives_mock_pins_whatever_the_readers_and_the_board(tmp_path: Path) -> None:
    mock = ("mock", "GPIOZERO_PIN_FACTORY=mock (gpiozero's own setting): mock pins")
    for backend in ("spi", "mfrc522", "hub", "sim"):
        for root in (tmp_path, pi_root(tmp_path / backend, MODELS["Pi 5"])):
            choice = choose(kind(backend), root, environ={"GPIOZERO_PIN_FACTORY": "mock"})
            assert (choice.name, str(choice.reason)) == mock
    assert choose(kind("hub"), tmp_path, environ={}).name == "lgpio"


def run(code: str, cwd: Path) -> dict[str, str]:
    """``code`` in a fresh interpreter in ``cwd``; what it prints, as JSON."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    output: dict[str, str] = json.loads(result.stdout.splitlines()[-1])
    return output


NO_CHIP = "lgpio cannot open a GPIO chip ('can not open gpiochip'); there is no /dev/gpiochip*"
WHAT_TO_CHECK = "check that this is a Raspberry Pi under Raspberry Pi OS (ls -l /dev/gpiochip*) and that the user"


def test_the_daemon_enroll_and_doctor_build_their_pins_on_lgpio_and_say_what_to_check(tmp_path: Path) -> None:
    """Here there is no /dev/gpiochip*: lgpio itself refuses to open one, and each command says what to check."""
    assert not list(Path("/dev").glob("gpiochip*")), "this test is for a machine without GPIO chips (CI), not a Pi"
    said = run(
        f"""
        import asyncio, contextlib, io, json
        from pathlib import Path
        from companion.cli import main
        from companion.config import parse_config
        from companion.daemon import Daemon, StartError
        from companion.doctor.checks import System
        from companion.doctor.pi import check_pins
        from companion.readers import kind
        folder = Path({str(tmp_path)!r})
        config = parse_config(
            f'[readers]\\nbackend = "spi"\\nregistry = "{{folder}}/r.toml"\\n[journal]\\npath = "{{folder}}/j.db"\\n',
            "test",
        )
        try:
            asyncio.run(Daemon(config).run())
            daemon = "started"
        except StartError as exc:
            daemon = str(exc)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["enroll", "--deck", "spanish-40", "--registry", str(folder / "r.toml")])
        doctor = check_pins(System(), kind("spi"))
        print(json.dumps({{"daemon": daemon, "enroll": f"{{status}} {{err.getvalue()}}", "doctor": doctor.detail,
                          "fix": doctor.fix, "pipe": str(sorted(Path().glob(".lgd-nfy*")))}}))
        """,
        tmp_path,
    )
    assert said["daemon"].startswith(f"GPIO: {NO_CHIP}: {WHAT_TO_CHECK}"), said
    assert said["enroll"].startswith(f"2 companion enroll: {NO_CHIP}: {WHAT_TO_CHECK}"), said
    assert said["doctor"] == (
        "lgpio: not a Raspberry Pi (no /proc/device-tree/model), but the readers are real (spi): lgpio on gpiochip0; "
        f"{NO_CHIP}"
    )
    assert said["fix"].startswith(WHAT_TO_CHECK)
    assert said["pipe"] == "[PosixPath('.lgd-nfy0')]"  # lgpio was loaded for real, and made its pipe here


def test_lgpio_in_a_read_only_working_directory_is_said(tmp_path: Path) -> None:
    """As under ProtectSystem=strict without WorkingDirectory=: lgpio cannot make its pipe. (/proc/sys refuses a
    new file even to root.)"""
    said = run(
        """
        import json
        from companion.i18n import Said
        from companion.pins import PinChoice, PinFactoryError, make_factory
        try:
            make_factory(PinChoice("lgpio", Said("test"), chip=0))
            print(json.dumps({"error": ""}))
        except PinFactoryError as exc:
            print(json.dumps({"error": str(exc)}))
        """,
        Path("/proc/sys"),
    )
    assert said["error"].startswith("lgpio could not make its notification pipe in the working directory /proc/sys")
    assert said["error"].endswith("the service's unit sets WorkingDirectory=/var/lib/companion)")
