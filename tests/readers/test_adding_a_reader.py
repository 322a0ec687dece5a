"""A reader type added in one module (:mod:`pn532_like`) and registered once: the daemon plays a game on it from
a config that names it, ``run --check`` and doctor check it, enroll says it cannot enroll with it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import ModuleType

import pytest
from gpiozero.pins.mock import MockFactory

from companion.cli import main
from companion.config import ConfigError, parse_config
from companion.daemon import Daemon
from companion.doctor.checks import System
from companion.doctor.diagnose import diagnose
from companion.events import Button
from companion.hardware import load_pinmap
from companion.journal import Journal
from companion.nfc.registry import Registry
from companion.sim.oled import FakeI2CBus
from companion.ui.display import make_device

UID = bytes.fromhex("04A1B2C3D4E5F6")
PINS = load_pinmap()
Running = Callable[[Daemon], AbstractAsyncContextManager[Daemon]]  # the root conftest's fixtures
Until = Callable[..., Awaitable[None]]


def config_text(tmp_path: Path) -> str:
    return (
        f'[readers]\nbackend = "pn532"\nregistry = "{tmp_path / "registry.toml"}"\npoll_interval_ms = 5\n'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
    )


def test_a_config_names_it_only_once_it_is_registered(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with pytest.raises(ConfigError, match=r"readers\.backend: 'pn532' is not one of spi, hub, mfrc522, sim"):
        parse_config(config_text(tmp_path), "test")
    request.getfixturevalue("pn532")
    assert parse_config(config_text(tmp_path), "test").backend == "pn532"


def test_the_daemon_plays_a_card_laid_on_it(
    tmp_path: Path, pn532: ModuleType, mock_factory: MockFactory, running: Running, until: Until
) -> None:
    registry = Registry.load(tmp_path / "registry.toml", deck="spanish-40")
    registry.bind(UID, "6O")
    registry.save()
    config = parse_config(config_text(tmp_path), "test")
    daemon = Daemon(config, pin_factory=mock_factory, display=make_device([], bus=FakeI2CBus()))
    confirm = mock_factory.pin(PINS.buttons[Button.CONFIRM])

    async def play() -> None:
        async with running(daemon):
            table = daemon.table
            assert table is not None
            pn532.BUS["z1"].field.append(UID)  # the card's tag, on the chip of zone z1
            await until(lambda: table.referee.pending is not None)
            assert mock_factory.pin(PINS.zones["z1"].green).state, "the zone is green while the play waits"
            confirm.drive_low()
            await asyncio.sleep(0.08)
            confirm.drive_high()
            await until(lambda: [e.text for e in table.journal.entries(table.game_id)] == ["play 6O"])
            pn532.BUS["z1"].field.clear()
            await until(lambda: not mock_factory.pin(PINS.zones["z1"].green).state)

    asyncio.run(play())
    assert [e.text for e in Journal(tmp_path / "journal.db").entries(1)] == ["play 6O"]


def test_run_check_and_doctor_check_it(tmp_path: Path, pn532: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(config_text(tmp_path), "utf-8")
    assert main(["run", "--check", "--config", str(config)]) == 0
    assert "readers pn532" in capsys.readouterr().out
    found = {check.name: check for check in diagnose(config, System(root=tmp_path))}
    assert found["reader z1"].ok and found["reader z1"].detail == "PN32 firmware 1.6", found
    assert "SPI" not in found  # its chips are not on the Pi's SPI: nothing asks for it
    assert found["pins"].detail.startswith("mock: not a Raspberry Pi")  # a simulated kind gets mock pins
    pn532.BUS["z1"].answers = False
    reader = {check.name: check for check in diagnose(config, System(root=tmp_path))}["reader z1"]
    assert not reader.ok and reader.detail == "PN532: the PN532 does not answer"


def test_enroll_says_it_cannot_enroll_with_it(
    tmp_path: Path, pn532: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["enroll", "--deck", "spanish-40", "--backend", "pn532", "--registry", str(tmp_path / "registry.toml")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "pn532 readers cannot enroll tags; enroll with --backend spi, hub, mfrc522, sim" in err
    assert "Traceback" not in err


def test_its_chip_lists_two_cards_at_most(pn532: ModuleType) -> None:
    """InListPassiveTarget's MaxTg is 2 (UM0701-02, 7.3.5): a third card in the field is not seen."""
    chip = pn532.Chip(field=[bytes([4, 0, 0, 0, 0, 0, n]) for n in range(3)])
    assert pn532.Pn532(chip.exchange).scan() == chip.field[:2]
