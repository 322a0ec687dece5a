"""The firmware's pure modules in the real MicroPython VM (WebAssembly, under Node.js), compared with CPython.

The VM loads the very ``.mpy`` files the build makes for the Pico. It must decode and encode every shared test
vector as the host codec does, and scan simulated zones from a transcript recorded here on the chip simulator,
sending the same SPI bytes and making byte-identical frames.
"""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import companion.sim as sim
from companion.hub.protocol import FrameDecoder, encode_frame
from companion.hub.simulated import FIRMWARE, firmware_build

ROOT = FIRMWARE.parent
BUILD = firmware_build()
VM = ROOT / "firmware/vm"
VECTORS = ROOT / "tests/hub/vectors.json"


class Recorder:
    """Passes SPI transfers to the chip simulator and writes each down as ``[gpio, out, in]``."""

    def __init__(self, spi: Any) -> None:
        self.spi = spi
        self.selected: int | None = None
        self.transcript: list[list[Any]] = []

    def chip_select(self, gpio: int, pin: Any) -> Any:
        recorder = self

        class ChipSelect:
            def value(self, level: int) -> None:
                pin.value(level)
                recorder.selected = None if level else gpio

        return ChipSelect()

    def write_readinto(self, write_buf: bytes, read_buf: bytearray) -> None:
        self.spi.write_readinto(write_buf, read_buf)
        self.transcript.append([self.selected, bytes(write_buf).hex(), bytes(read_buf).hex()])


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None or not (VM / "node_modules/@micropython/micropython-webassembly-pyscript").is_dir():
        pytest.fail("the MicroPython VM is not installed: run `make firmware-vm` (Node.js 20 and npm ci)")
    return path


def test_vm_frames_match_cpython(node: str, board: Path, tmp_path: Path) -> None:
    import machine
    import vm_checks

    tag_a, tag_b, tag_c = sim.Ntag213("04A1B2C3D4E5F6"), sim.Ntag213("04112233445566"), sim.MifareClassic1K("DE0BADF0")
    sim.unplug(0, 2)
    sim.field(0, 1).add(tag_b)
    recorder = Recorder(sim.machine_spi(0))
    machine.attach(
        recorder, {gpio: recorder.chip_select(gpio, sim.machine_pin(0, gpio)) for gpio in vm_checks.CHIP_SELECTS}
    )

    def between(cycle: int) -> None:
        if cycle == 1:
            sim.field(0, 0).add(tag_a)
        if cycle == 2:
            sim.field(0, 1).add(tag_c)
        if cycle == 3:
            sim.field(0, 0).remove(tag_a)

    cpython_frames = vm_checks.scan_frames(between)
    # What the scan must show, read back through the host codec: the scenario, not just agreement.
    messages = [repr(m) for frame in cpython_frames for _, m in FrameDecoder().feed(bytes.fromhex(frame))]
    assert messages[0].startswith("ZoneError(zone=2, code=1, detail=")  # READER_DOWN, in the driver's words
    assert messages[1:] == [
        "ZoneReport(event=1, zone=1, uids=(b'\\x04\\x11\"3DUf',))",
        "ZoneReport(event=2, zone=0, uids=(b'\\x04\\xa1\\xb2\\xc3\\xd4\\xe5\\xf6',))",
        "ZoneReport(event=3, zone=1, uids=(b'\\x04\\x11\"3DUf', b'\\xde\\x0b\\xad\\xf0'))",
        "ZoneReport(event=4, zone=0, uids=())",
        "Snapshot(event=4, zones=((), (b'\\x04\\x11\"3DUf', b'\\xde\\x0b\\xad\\xf0'), ()))",
    ]

    built = BUILD.build(tmp_path / "board")
    (tmp_path / "transcript.json").write_text(json.dumps(recorder.transcript))
    files = {f"/lib/{path.name}": str(path) for path in built if path.suffix == ".mpy"}
    files.update({f"/lib/{name}": str(ROOT / "firmware/sim" / name) for name in ("machine.py", "neopixel.py")})
    files["/data/vectors.json"] = str(VECTORS)
    files["/data/transcript.json"] = str(tmp_path / "transcript.json")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"files": files, "script": str(Path(vm_checks.__file__))}))
    run = subprocess.run([node, str(VM / "run.mjs"), str(manifest)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[-1])

    assert result["scan"] == cpython_frames
    assert result["transfers"] == len(recorder.transcript)
    for vector in json.loads(VECTORS.read_text())["vectors"]:
        got = result["vectors"][vector["name"]]
        assert got["frames"] == vector["frames"], vector["name"]
        assert got["counts"] == vector["counts"], vector["name"]
        if vector.get("encodes"):
            seq, _ = vector["frames"][0]
            [(_, message)] = FrameDecoder().feed(bytes.fromhex(vector["hex"]))
            assert got["encoded"] == vector["hex"] == encode_frame(seq, message).hex(), vector["name"]
