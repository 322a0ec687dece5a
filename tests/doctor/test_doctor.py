"""``companion doctor`` on a Pi in a folder: what each fault looks like, and that its fix is the right one."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pytest
from fake_pi import Pi

import companion.sim as sim
from companion.cli import build_parser, main
from companion.commands.doctor import run
from companion.doctor.checks import Check, System
from companion.doctor.diagnose import diagnose
from companion.doctor.pi import boot_config, check_access
from companion.hardware import ReaderPins
from companion.readers.rc522_spi import check_reader


def doctor(pi: Pi, system: System | None = None) -> tuple[int, str]:
    """The command as typed, through the CLI's parser, on ``pi`` with simulated readers and I2C."""
    args = build_parser().parse_args(["doctor", "--config", str(pi.config), "--root", str(pi.root)])
    out = io.StringIO()
    status = run(args, system or pi.system(), out)
    return status, out.getvalue()


def checks(pi: Pi) -> dict[str, Check]:
    return {check.name: check for check in diagnose(pi.config, pi.system())}


def test_a_ready_pi_passes_every_check(pi: Pi) -> None:
    status, out = doctor(pi)
    assert status == 0, out
    assert "✗" not in out and "fix:" not in out
    names = [line.split(":")[0] for line in out.splitlines()]
    assert names == [
        "✓ config",
        "✓ pin map",
        "✓ SPI",
        "✓ I2C",
        "✓ I2C speed",
        "✓ GPIO",
        "✓ pins",
        "✓ user companion",
        "✓ reader z1",
        "✓ reader z2",
        "✓ display",
        "✓ journal",
    ]
    assert "SPI0 CE1 (/dev/spidev0.1): VersionReg 0x92, MFRC522 v2.0" in out
    assert "dtparam=spi=on in /boot/firmware/config.txt" in out  # the commented-out line did not count
    assert pi.i2c.opened == [1] and pi.i2c.closed == 1


def test_a_reader_that_does_not_answer_is_named_with_its_wiring(pi: Pi) -> None:
    sim.unplug(0, 1)
    status, out = doctor(pi)
    assert status == 1
    found = checks(pi)
    assert found["reader z1"].ok
    z2 = found["reader z2"]
    assert not z2.ok
    assert "VersionReg reads 0x00: no chip answers" in z2.detail
    # z2 is SPI0 CE1 with reset on GPIO25 in the shipped pin map: the fix points at those very pins.
    assert "SDA to CE1 (pin 26)" in z2.fix and "RST to GPIO25" in z2.fix
    assert "✗ reader z2" in out and f"    fix: {z2.fix}" in out


def test_the_version_read_leaves_a_running_reader_as_it_was(pi: Pi) -> None:
    """The daemon may be polling this reader: doctor reads a register, it does not soft-reset the chip."""
    chip = sim.reader(0, 0)
    chip.regs[0x14] = 0x83  # TxControlReg: the daemon switched the antenna on
    check = check_reader(pi.system(), "z1", ReaderPins(0, 0, 24))
    assert check.ok, check
    assert sim.reader(0, 0).regs[0x14] == 0x83


def test_a_chip_that_is_not_an_mfrc522(pi: Pi) -> None:
    sim.reader(0, 0).regs[0x37] = 0x15  # something on CE0 that is not a reader
    check = check_reader(pi.system(), "z1", ReaderPins(0, 0, 24))
    assert not check.ok and "0x15: something answers, but not an MFRC522" in check.detail


def test_no_display_at_the_address(pi: Pi) -> None:
    pi.i2c.devices[1] = {0x3D}  # the OLED strapped to the other address
    status, _ = doctor(pi)
    display = checks(pi)["display"]
    assert status == 1 and not display.ok
    assert display.detail == "ssd1306 at 0x3C on /dev/i2c-1: nothing answers at 0x3C"
    assert "i2cdetect -y 1" in display.fix and '"0x3D"' in display.fix
    assert pi.i2c.closed == len(pi.i2c.opened)  # the bus is closed after a failed probe too


def test_a_bus_held_low_is_not_taken_for_a_missing_display(pi: Pi) -> None:
    pi.i2c.fault = errno.ETIMEDOUT
    display = checks(pi)["display"]
    assert not display.ok and "the bus fails" in display.detail and "shorted or held low" in display.fix


def test_a_bad_config_value_gives_status_2_and_the_rest_is_still_checked(pi: Pi) -> None:
    pi.write_config("[game]\nplayers = 12\n")
    status, out = doctor(pi)
    assert status == 2
    lines = out.splitlines()
    assert lines[0] == f"✗ config: {pi.config}: game.players: 12 is not between 2 and 8"
    assert lines[1] == "  (the checks below use what could be read of it)"
    assert lines[2].startswith(f"    fix: edit {pi.config}")
    assert [line.split(":")[0] for line in lines[3:]][:3] == ["✓ pin map", "✓ SPI", "✓ I2C"]


def test_an_empty_root_checks_everything_it_can(tmp_path: Path) -> None:
    """An SD card before anything is set up: no config, but the interfaces, the pins and the user are checked."""
    out = io.StringIO()
    status = run(build_parser().parse_args(["doctor", "--root", str(tmp_path)]), out=out)
    said = out.getvalue()
    assert status == 2, said
    names = [line.split(":")[0] for line in said.splitlines() if line[:1] in "✓✗"]
    assert names == [
        "✗ config",
        "✓ pin map",
        "✗ SPI",
        "✗ I2C",
        "✗ I2C speed",
        "✗ GPIO",
        "✓ pins",
        "✗ user companion",
        "✗ reader z1",
        "✗ display",
        "✓ journal",
    ]
    assert "no config file" in said and "(the checks below use the defaults)" in said


def test_no_config_file_says_how_to_install_one(pi: Pi) -> None:
    pi.config.unlink()
    status, out = doctor(pi)
    assert status == 2 and "no config file" in out and "sudo make install" in out


def test_the_default_config_is_looked_for_under_the_root(pi: Pi) -> None:
    (pi.root / "etc/companion").mkdir()
    (pi.root / "etc/companion/config.toml").write_text('[game]\nlanguage = "fr"\n', "utf-8")
    status = main(["doctor", "--root", str(pi.root)])
    assert status == 2  # the root's config (language fr) was read, not this machine's /etc


def test_a_missing_root_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--root", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().out


def test_a_config_zone_without_a_reader_in_the_pin_map(pi: Pi) -> None:
    pi.write_config('[zones]\nz1 = "table"\nz3 = "O"\n')
    status, out = doctor(pi)
    assert status == 1
    assert "the config's zone z3 is not among the pin map's zones with a reader (z1, z2)" in out
    assert "reader z" not in out  # the readers were not probed against a wrong zone list


def test_user_not_in_the_spi_group(pi: Pi) -> None:
    pi.groups({"i2c": "companion", "gpio": "companion"})
    access = checks(pi)["user companion"]
    assert not access.ok
    assert access.detail == "companion is not in group spi (for /dev/spidev0.0)"
    assert access.fix == "sudo usermod -aG spi companion, then sudo systemctl restart companion"


def test_the_units_supplementary_groups_count(pi: Pi) -> None:
    """The shipped unit gives the daemon its groups whatever /etc/group says: no false alarm then."""
    pi.groups({})
    unit = pi.root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    unit.write_text((Path(__file__).parents[2] / "systemd/companion.service").read_text("utf-8"), "utf-8")
    assert checks(pi)["user companion"].ok
    # ... unless a group it names does not exist: systemd then refuses to start the service.
    (pi.root / "etc/group").write_text("spi:x:999:\ni2c:x:998:\ngpio:x:997:\naudio:x:29:\n", "utf-8")
    access = checks(pi)["user companion"]
    assert not access.ok and access.fix == "sudo groupadd --system dialout"


def test_a_root_only_node_needs_its_group_not_usermod(pi: Pi) -> None:
    pi.node("dev/i2c-1", "i2c", 0o600)
    access = check_access(pi.system(), ["/dev/i2c-1"])
    assert not access.ok and "only root can open it" in access.detail
    assert access.fix.startswith("sudo chgrp i2c /dev/i2c-1 && sudo chmod g+rw /dev/i2c-1")


def test_no_service_user(pi: Pi) -> None:
    (pi.root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n", "utf-8")
    access = checks(pi)["user companion"]
    assert not access.ok and access.fix.startswith("sudo useradd --system")


def test_spi_not_switched_on(pi: Pi) -> None:
    pi.boot("dtparam=i2c_arm=on\n# dtparam=spi=on\n")
    for node in ("dev/spidev0.0", "dev/spidev0.1"):
        (pi.root / node).unlink()
    status, _ = doctor(pi)
    found = checks(pi)
    assert status == 1
    assert found["SPI"].detail == (
        "dtparam=spi=on is not in /boot/firmware/config.txt; /dev/spidev0.0 /dev/spidev0.1 are missing"
    )
    assert found["SPI"].fix.startswith("sudo raspi-config nonint do_spi 0")
    assert found["SPI"].fix.endswith("then sudo reboot")
    assert found["I2C"].ok  # only SPI is off
    assert not found["reader z1"].ok and "see the SPI check" in found["reader z1"].fix


def test_spi_switched_on_but_not_rebooted(pi: Pi) -> None:
    (pi.root / "dev/spidev0.1").unlink()
    spi = checks(pi)["SPI"]
    assert not spi.ok and spi.fix == "sudo reboot" and "/dev/spidev0.1 is missing" in spi.detail


def test_the_last_dtparam_wins_and_comma_lists_are_read(pi: Pi) -> None:
    pi.boot("dtparam=spi=on\ndtparam=i2c=on,spi=off\n")
    _, params, _ = boot_config(pi.system())
    assert params == {"spi": "off", "i2c_arm": "on"}


def test_the_older_boot_path_is_used_when_bookworms_is_absent(pi: Pi) -> None:
    (pi.root / "boot/firmware/config.txt").unlink()
    (pi.root / "boot/config.txt").write_text("dtparam=i2c_arm=on\n", "utf-8")
    path, params, _ = boot_config(pi.system())
    assert path == pi.root / "boot/config.txt" and params == {"i2c_arm": "on"}
    for node in ("dev/spidev0.0", "dev/spidev0.1"):
        (pi.root / node).unlink()
    assert "to /boot/config.txt" in checks(pi)["SPI"].fix


def test_a_reader_on_spi1_needs_its_overlay(pi: Pi) -> None:
    pinmap = (Path(__file__).parents[2] / "hardware/pinmap.toml").read_text("utf-8")
    # SPI1 takes GPIO16-21: z1's red LED moves off GPIO17 (CE1 of SPI1) to the free GPIO4.
    pinmap = pinmap.replace("spi_port = 0, spi_device = 1", "spi_port = 1, spi_device = 1").replace(
        "red = 17", "red = 4"
    )
    (pi.root / "etc/companion").mkdir()
    (pi.root / "etc/companion/wiring.toml").write_text(pinmap, "utf-8")
    pi.write_config('[zones]\nz1 = "table"\nz2 = "O"\n[pins]\nmap = "/etc/companion/wiring.toml"\n')
    spi = checks(pi)["SPI"]
    assert not spi.ok and spi.fix == "add dtoverlay=spi1-2cs to /boot/firmware/config.txt, then sudo reboot"
    pi.boot(BOOT_WITH_SPI1)
    pi.node("dev/spidev1.1", "spi")
    found = checks(pi)
    assert found["SPI"].ok and found["reader z2"].ok and "SPI1 CE1" in found["reader z2"].detail


BOOT_WITH_SPI1 = "dtparam=spi=on\ndtparam=i2c_arm=on\ndtoverlay=spi1-3cs\n"


def test_no_gpio_chips(pi: Pi) -> None:
    for node in ("dev/gpiochip0", "dev/gpiochip4"):
        (pi.root / node).unlink()
    gpio = checks(pi)["GPIO"]
    assert not gpio.ok and "no /dev/gpiochip*" in gpio.detail


def test_simulated_readers_are_not_probed(pi: Pi) -> None:
    pi.write_config('[zones]\nz1 = "table"\n[readers]\nbackend = "sim"\n')
    for node in ("dev/spidev0.0", "dev/spidev0.1"):
        (pi.root / node).unlink()  # SPI is not needed: no SPI check may fail
    status, out = doctor(pi)
    assert status == 0, out
    assert "✓ readers: backend sim: the readers are simulated" in out and "SPI" not in out


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("etc/passwd", "root:x:0:0:root:/root:/bin/bash\ncompanion:x:1001\n", "/etc/passwd line 2 is malformed"),
        ("etc/passwd", "companion:x:abc:1001::/var/lib/companion:/usr/sbin/nologin\n", "/etc/passwd line 1"),
        ("etc/group", "root:x:0:\nspi:x:nine:companion\n", "/etc/group line 2 is malformed"),
        ("etc/group", "root:x:0:\ni2c:x:998\n", "/etc/group line 2 is malformed"),
    ],
)
def test_a_malformed_account_file_is_named_not_a_traceback(pi: Pi, name: str, text: str, said: str) -> None:
    (pi.root / name).write_text(text, "utf-8")
    status, out = doctor(pi)
    access = checks(pi)["user companion"]
    assert status == 1 and not access.ok and said in access.detail, out
    assert "sudo vipw" in access.fix


def test_an_account_file_that_is_not_utf8_is_named(pi: Pi) -> None:
    (pi.root / "etc/group").write_bytes(b"root:x:0:\nspi:x:999:companion,jos\xe9\n")
    access = checks(pi)["user companion"]
    assert not access.ok and access.detail.startswith("/etc/group is not UTF-8 text")


def test_the_installed_pin_map_is_the_one_read_and_edits_to_it_count(pi: Pi) -> None:
    """sudo make install copies the pin map to /etc/companion: editing it there changes what the service reads."""
    assert "the one shipped with companion: no /etc/companion/pinmap.toml" in checks(pi)["pin map"].detail
    shipped = (Path(__file__).parents[2] / "hardware/pinmap.toml").read_text("utf-8")
    (pi.root / "etc/companion").mkdir()
    installed = pi.root / "etc/companion/pinmap.toml"
    installed.write_text(shipped.replace("[zones.z2]", "[zones.z9]"), "utf-8")  # the owner renamed a zone
    found = checks(pi)["pin map"]
    assert not found.ok and "zone z2 is not among the pin map's zones with a reader (z1, z9)" in found.detail
    assert str(installed) in found.detail
    pi.write_config('[zones]\nz1 = "table"\nz9 = "O"\n[pins]\nmap = "/etc/companion/pinmap.toml"\n')
    assert checks(pi)["pin map"].ok


def test_doctor_says_which_pin_factory_and_why(pi: Pi) -> None:
    pins = checks(pi)["pins"]
    assert pins.ok and pins.detail.startswith("lgpio: Raspberry Pi 4 Model B Rev 1.5 (/proc/device-tree/model)")
    unit = pi.root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    shipped = (Path(__file__).parents[2] / "systemd/companion.service").read_text("utf-8")
    unit.write_text(shipped, "utf-8")
    assert checks(pi)["pins"].ok
    # An older unit, without a working directory: lgpio cannot make its pipe in a read-only /.
    unit.write_text(shipped.replace("WorkingDirectory=/var/lib/companion\n", ""), "utf-8")
    pins = checks(pi)["pins"]
    assert not pins.ok and "the installed unit has no WorkingDirectory=" in pins.detail
    assert pins.fix.startswith("sudo make install")
    # Off a Pi with simulated readers: mock pins.
    (pi.root / "proc/device-tree/model").unlink()
    pi.write_config('[zones]\nz1 = "table"\n[readers]\nbackend = "sim"\n')
    assert checks(pi)["pins"].detail.startswith("mock: not a Raspberry Pi")


def test_the_oleds_bus_runs_at_400_khz(pi: Pi) -> None:
    assert checks(pi)["I2C speed"].detail == (
        "I2C1 runs at 400 kHz (/boot/firmware/config.txt): a full frame holds the bus 23 ms"
    )
    pi.boot("dtparam=spi=on\ndtparam=i2c_arm=on\n")  # Raspberry Pi OS's default: 100 kHz
    speed = checks(pi)["I2C speed"]
    assert not speed.ok and "runs at 100 kHz" in speed.detail and "holds the bus 92 ms" in speed.detail
    assert speed.fix.startswith("add dtparam=i2c_arm_baudrate=400000 to /boot/firmware/config.txt")
    # Set, but the kernel still runs the bus at the old rate: a reboot is missing.
    pi.boot("dtparam=spi=on\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n")
    node = pi.root / "sys/class/i2c-adapter/i2c-1/of_node"
    node.mkdir(parents=True)
    (node / "clock-frequency").write_bytes((100_000).to_bytes(4, "big"))
    speed = checks(pi)["I2C speed"]
    assert not speed.ok and "(the kernel says)" in speed.detail and speed.fix == "sudo reboot"
    (node / "clock-frequency").write_bytes((400_000).to_bytes(4, "big"))
    assert checks(pi)["I2C speed"].ok


def test_doctor_looks_the_board_up_in_the_services_own_proc(pi: Pi) -> None:
    """doctor, run from a shell, sees /proc/cpuinfo; the service sees the /proc its unit mounts. A unit whose /proc
    hides what gpiozero reads (ProcSubset=pid) fails the pins check with its fix, tried in a /proc mounted with the
    unit's options (CI runs as root)."""
    unit = pi.root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    shipped = (Path(__file__).parents[2] / "systemd/companion.service").read_text("utf-8")
    unit.write_text(shipped, "utf-8")
    pins = checks(pi)["pins"]
    assert pins.ok and pins.detail.endswith("; the service's /proc shows what gpiozero reads of the board")
    unit.write_text(shipped.replace("ProtectProc=invisible\n", "ProtectProc=invisible\nProcSubset=pid\n"), "utf-8")
    pins = checks(pi)["pins"]
    assert not pins.ok
    assert "the installed unit's /proc (ProtectProc=invisible ProcSubset=pid) hides /proc/cpuinfo" in pins.detail
    assert pins.fix.startswith("remove ProcSubset= from /etc/systemd/system/companion.service")


README = Path(__file__).parents[2] / "README.md"


def readme_sample() -> tuple[str, str]:
    """The README's doctor sample: the command typed, and what it printed."""
    section = README.read_text("utf-8").split("\n## Checking the table: companion doctor\n", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    typed, printed = block.split("\n", 1)
    return typed, printed


def test_the_readme_s_doctor_sample_is_what_doctor_says(pi: Pi) -> None:
    """The README shows doctor on a Pi set up by ``sudo make install`` (the unit, the pin map to edit) whose second
    reader does not answer: the same Pi in a folder prints the same lines (its paths as on the Pi)."""
    typed, printed = readme_sample()
    assert typed == "$ sudo /opt/companion/venv/bin/companion doctor"
    sim.unplug(0, 1)
    unit = pi.root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    unit.write_text((Path(__file__).parents[2] / "systemd/companion.service").read_text("utf-8"), "utf-8")
    (pi.root / "etc/companion").mkdir()
    (pi.root / "etc/companion/pinmap.toml").write_bytes(
        (Path(__file__).parents[2] / "hardware/pinmap.toml").read_bytes()
    )
    status, out = doctor(pi)
    assert status == 1
    assert out.replace(str(pi.config), "/etc/companion/config.toml").replace(str(pi.root), "") == printed


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("es", "buttons.undo = 2: GPIO2 es SDA de I2C1, el bus de la OLED; elige un GPIO libre"),
        ("en", "buttons.undo = 2: GPIO2 is SDA of I2C1, the OLED's bus; pick a free GPIO"),
    ],
)
def test_a_broken_pin_map_is_said_in_the_command_lines_language(pi: Pi, lang: str, said: str) -> None:
    from companion.i18n import language, set_language

    shipped = (Path(__file__).parents[2] / "hardware/pinmap.toml").read_text("utf-8")
    (pi.root / "etc/companion").mkdir()
    (pi.root / "etc/companion/pinmap.toml").write_text(shipped.replace("undo = 13", "undo = 2"), "utf-8")
    before = language()
    set_language(lang)
    try:
        found = checks(pi)["mapa de pines" if lang == "es" else "pin map"]
    finally:
        set_language(before)
    assert not found.ok and f"/etc/companion/pinmap.toml: {said}" in found.detail, found.detail
