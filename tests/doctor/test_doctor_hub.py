"""The hub check against the hub firmware itself (``companion.hub.simulated``: the firmware on the chip simulator
behind a pty at ``<root>/dev/companion-hub``), through the daemon's own session and pyserial."""

from __future__ import annotations

import os
import pty
import tty
from collections.abc import Iterator

import pytest
from fake_pi import Pi

import companion.sim as sim
from companion.doctor.checks import Check
from companion.doctor.diagnose import diagnose
from companion.hub.simulated import SimulatedHub
from companion.i18n import language, set_language
from companion.readers.hub import check_hub

HUB_ZONES = tuple(f"z{i}" for i in range(1, 9))  # the shipped pin map's [hub] zones


@pytest.fixture
def hub_pi(pi: Pi) -> Pi:
    pi.write_config('[zones]\nz1 = "O"\nz2 = "C"\nz3 = "E"\nz4 = "B"\n[readers]\nbackend = "hub"\n')
    return pi


@pytest.fixture
def running_hub(hub_pi: Pi) -> Iterator[SimulatedHub]:
    hub = SimulatedHub(hub_pi.root / "dev/companion-hub", zones=8)
    yield hub
    hub.stop()


def hub_check(pi: Pi) -> Check:
    return check_hub(pi.system(), "/dev/companion-hub", HUB_ZONES)


def test_a_hub_that_answers(hub_pi: Pi, running_hub: SimulatedHub) -> None:
    running_hub.start()
    found = {check.name: check for check in diagnose(hub_pi.config, hub_pi.system())}
    assert "SPI" not in found  # the readers hang off the hub, not the Pi's SPI
    hub = found["hub"]
    assert hub.ok, hub
    assert hub.detail.startswith("/dev/companion-hub: firmware ") and "zones z1, z2" in hub.detail


def test_a_dead_reader_on_the_hub_is_named(hub_pi: Pi, running_hub: SimulatedHub) -> None:
    sim.unplug(0, 2)  # the hub's zone index 2: z3
    running_hub.start()
    hub = hub_check(hub_pi)
    assert not hub.ok
    assert "the readers of z3 (error 1) did not answer" in hub.detail
    assert "wiring of those readers to the Pico" in hub.fix


def test_a_hub_configured_for_other_zones(hub_pi: Pi) -> None:
    hub = SimulatedHub(hub_pi.root / "dev/companion-hub", zones=4)
    hub.start()
    try:
        check = hub_check(hub_pi)
    finally:
        hub.stop()
    assert not check.ok and "hub has 4 zones, config names 8" in check.detail
    assert check.fix.startswith("flash the hub with a hub_config.py of 8 chip selects")


def test_no_hub_plugged_in(hub_pi: Pi) -> None:
    hub = hub_check(hub_pi)
    assert not hub.ok and hub.detail.startswith("no /dev/companion-hub")
    assert "udev rule" in hub.fix and "readers.hub_port" in hub.fix


def test_a_regular_file_is_not_a_serial_port(hub_pi: Pi) -> None:
    hub_pi.node("dev/companion-hub", "dialout")
    hub = hub_check(hub_pi)
    assert not hub.ok and "is not a serial port" in hub.detail


def test_a_serial_port_with_nothing_behind_it(hub_pi: Pi) -> None:
    """A character device that cannot be opened (no such tty here): the port's own error, and a fix."""
    hub_pi.node("dev/companion-hub", "dialout", char=True)
    hub = hub_check(hub_pi)
    assert not hub.ok and "cannot open" in hub.detail and "plug it in" in hub.fix


def test_the_hub_port_is_checked_for_the_service_user(hub_pi: Pi) -> None:
    hub_pi.node("dev/ttyACM0", "dialout", char=True)
    hub_pi.write_config(
        '[zones]\nz1 = "O"\n[readers]\nbackend = "hub"\nhub_port = "/dev/ttyACM0"\n',
    )
    hub_pi.groups({"i2c": "companion", "gpio": "companion"})
    found = {check.name: check for check in diagnose(hub_pi.config, hub_pi.system())}
    assert found["user companion"].detail == "companion is not in group dialout (for /dev/ttyACM0)"


def test_a_pico_without_the_companion_firmware(hub_pi: Pi) -> None:
    """A tty that takes the SYNC and never answers (a Pico running plain MicroPython): the session's 1 s
    handshake time-out, and the fix is to flash our firmware."""
    master, slave = pty.openpty()
    try:
        tty.setraw(slave)  # a Pico's USB serial does not echo the SYNC back
        (hub_pi.root / "dev/companion-hub").symlink_to(os.ttyname(slave))
        hub = hub_check(hub_pi)
    finally:
        os.close(master)
        os.close(slave)
    assert not hub.ok and "did not answer SYNC" in hub.detail
    assert hub.fix.startswith("flash the hub with this companion's firmware (make firmware-deploy)")


@pytest.fixture
def silent_pico(hub_pi: Pi) -> Iterator[str]:
    """A tty that takes the SYNC and never answers, at the hub's port: the tty's name."""
    master, slave = pty.openpty()
    try:
        tty.setraw(slave)
        (hub_pi.root / "dev/companion-hub").symlink_to(os.ttyname(slave))
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def spoken(lang: str, pi: Pi) -> Check:
    before = language()
    set_language(lang)
    try:
        return hub_check(pi)
    finally:
        set_language(before)


def test_a_port_the_daemon_holds_is_named_by_its_kind(hub_pi: Pi, silent_pico: str) -> None:
    """The port's exclusive lock (the running daemon's): the fix is to stop the service, whatever the words."""
    import serial

    held = serial.Serial(silent_pico, exclusive=True)
    try:
        check = spoken("es", hub_pi)
    finally:
        held.close()
    assert not check.ok and "lo tiene otro programa" in check.detail, check.detail
    assert check.fix.startswith("el servicio tiene el puerto: sudo systemctl stop companion"), check.fix


@pytest.mark.parametrize(
    ("lang", "detail", "fix"),
    [
        (
            "es",
            "/dev/companion-hub: el hub no respondió a SYNC en 1 s: ¿lleva el firmware de companion?",
            "graba en el hub el firmware de este companion (make firmware-deploy)",
        ),
        (
            "en",
            "/dev/companion-hub: the hub did not answer SYNC within 1 s: is it running the companion firmware?",
            "flash the hub with this companion's firmware (make firmware-deploy)",
        ),
    ],
)
def test_the_hub_check_speaks_the_command_lines_language(
    hub_pi: Pi, silent_pico: str, lang: str, detail: str, fix: str
) -> None:
    check = spoken(lang, hub_pi)
    assert not check.ok and check.detail == detail and check.fix.startswith(fix), check


def test_no_hub_is_said_in_spanish(hub_pi: Pi) -> None:
    check = spoken("es", hub_pi)
    assert check.detail == "no hay /dev/companion-hub: el hub no está conectado, o no tiene nombre"
    assert check.fix.startswith("conecta el hub por USB")
