"""Every firmware file goes through MicroPython's own compiler, and the build lays out the board as documented."""

from pathlib import Path

import pytest

from companion.hub.simulated import FIRMWARE, firmware_build

ROOT = FIRMWARE.parent
BUILD = firmware_build()
SOURCES = sorted({*ROOT.glob("firmware/**/*.py"), *BUILD.COMPILED.values(), ROOT / "tests/firmware/vm_checks.py"})


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_mpy_cross_compiles(source: Path, tmp_path: Path) -> None:
    BUILD.compile_mpy(source, tmp_path / "out.mpy", source.name)
    assert (tmp_path / "out.mpy").read_bytes()[:1] == b"M"  # the .mpy magic


def test_mpy_cross_refuses_what_micropython_cannot_run(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    return (yield from)\n")
    with pytest.raises(BUILD.BuildError, match=r"bad\.py"):
        BUILD.compile_mpy(bad, tmp_path / "bad.mpy", "bad.py")


def test_build_lays_out_the_board(tmp_path: Path) -> None:
    names = sorted(path.name for path in BUILD.build(tmp_path))
    assert names == [
        "hub_app.mpy",
        "hub_config.py",
        "main.py",
        "nfc_errors.mpy",
        "protocol.mpy",
        "rc522.mpy",
        "scanner.mpy",
        "spi_rp2.mpy",
    ]
