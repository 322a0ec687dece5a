"""``python -m companion.documents /etc/companion/pinmap.toml`` on a table installed as the README installs it
(``sudo make install`` into a temporary root, ``DESTDIR``, as tests/journey/test_journey.py does: the real
``systemd/install.sh`` and a virtual environment pip fills, with no checkout's hardware/ or docs/ beside the
package): the installed pin map, as the README's "At the table" copies it there, gives its wiring diagrams in the
folder the owner runs it in, and a pin map with mistakes is refused with each of them, in the machine's language."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("root")
    env = {**os.environ, "DESTDIR": str(root)}
    done = subprocess.run(["make", "install"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    layout = ROOT / "hardware/layouts/seises-hub-4/pinmap.toml"  # the README's cp
    (root / "etc/companion/pinmap.toml").write_bytes(layout.read_bytes())
    yield root


def documents(root: Path, cwd: Path, lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    python = root / "opt/companion/venv/bin/python"
    env = {key: value for key, value in os.environ.items() if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = {"es": "es_ES.UTF-8", "en": "C.UTF-8"}[lang]
    return subprocess.run(
        [python, "-m", "companion.documents", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "above: the wiring diagrams of {pinmap}. The play mats"),
        ("es", "arriba: los esquemas de cableado de {pinmap}. Los tapetes"),
    ],
)
def test_the_installed_pin_map_s_wiring_is_drawn_where_it_is_asked(
    installed: Path, tmp_path: Path, lang: str, said: str
) -> None:
    pinmap = installed / "etc/companion/pinmap.toml"
    done = documents(installed, tmp_path, lang, str(pinmap))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    drawn = sorted(path.name for path in tmp_path.iterdir())
    assert drawn == ["wiring-hub.png", "wiring-hub.svg", "wiring-pi.png", "wiring-pi.svg"]
    assert sorted(done.stdout.splitlines()[:4]) == [str(tmp_path / name) for name in drawn]  # each file named
    assert done.stdout.splitlines()[-1].startswith(said.format(pinmap=pinmap)), done.stdout
    assert "GPIO" in (tmp_path / "wiring-hub.svg").read_text("utf-8")


@pytest.mark.slow
def test_an_installed_pin_map_with_mistakes_names_each(installed: Path, tmp_path: Path) -> None:
    pinmap = tmp_path / "pinmap.toml"
    shipped = (installed / "etc/companion/pinmap.toml").read_text("utf-8")
    pinmap.write_text(shipped.replace("undo = 13", "undo = 2").replace("pin = 26", "pin = 5"), "utf-8")
    done = documents(installed, tmp_path, "es", str(pinmap))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"{pinmap}: buttons.undo = 2: GPIO2 es SDA de I2C1, el bus de la OLED; elige un GPIO libre (libres ahora: "
        + done.stderr.split("(libres ahora: ", 1)[1].split(")", 1)[0]
        + ")",
        f"{pinmap}: status_led.pin = 5: GPIO5 ya es buttons.confirm; da a cada pieza su propio GPIO",
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pinmap.toml"], "nothing drawn"


@pytest.mark.slow
def test_a_drawing_it_cannot_write_is_said(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "wiring-pi.svg").mkdir()  # a folder where a drawing goes: refused even to root
    done = documents(installed, tmp_path, "en", str(installed / "etc/companion/pinmap.toml"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == (
        f"cannot write the wiring diagrams into {tmp_path} (it is a folder): run it in a folder of yours (cd ~)\n"
    )
