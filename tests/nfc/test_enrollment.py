"""Enrollment end to end on simulated readers: the real command, the real driver, a simulated player."""

from __future__ import annotations

import asyncio
import os
import sys
import tomllib
import types
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import companion.sim as sim
from companion.cli import main
from companion.config import parse_config
from companion.daemon import Daemon
from companion.decks import load_deck
from companion.nfc.ndef import NdefError, card_id_from_ndef
from companion.nfc.registry import Registry

DECK = """name = "mini"
[[cards]]
id = "1O"
kind = "spanish"
suit = "O"
rank = 1
[[cards]]
id = "6O"
kind = "spanish"
suit = "O"
rank = 6
[[cards]]
id = "12C"
kind = "spanish"
suit = "C"
rank = 12
[[cards]]
id = "7E"
kind = "spanish"
suit = "E"
rank = 7
"""


class Player:
    """Reads what the command prints and lays the card it asks for on the reader, lifting the one before."""

    def __init__(self, deck_path: Path, stop_at: int | None = None) -> None:
        self.names = {card.name("en"): card for card in load_deck(deck_path)}  # the C locale: English
        self.tags = {
            card.id: sim.Ntag213(bytes((0x04, i, 0x11, 0x22, 0x33, 0x44, i)))
            for i, card in enumerate(self.names.values(), 1)
        }
        self.lines: list[str] = []
        self.asked = 0
        self.stop_at = stop_at

    def write(self, text: str) -> int:
        self.lines.append(text)
        if " place " in text:
            self.asked += 1
            if self.asked == self.stop_at:
                raise KeyboardInterrupt
            name = text.split(" place ", 1)[1].rsplit(" (", 1)[0]
            sim.field(0, 0).clear()
            sim.field(0, 0).add(self.tags[self.names[name].id])
        return len(text)

    def flush(self) -> None:
        pass


@pytest.fixture
def deck_path(tmp_path: Path) -> Path:
    path = tmp_path / "mini.toml"
    path.write_text(DECK)
    return path


@pytest.fixture
def quick_player(spidev: types.ModuleType, mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The readers on the simulated SPI bus, their reset lines on mock pins, and a player who does not wait."""
    monkeypatch.setattr("time.sleep", lambda seconds: None)  # the player is quick; modeled time still counts


def load_deck_text(name: str) -> str:
    from importlib import resources

    return resources.files("companion.decks").joinpath(f"{name}.toml").read_text("utf-8")


def enroll(player: Player, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdout", player)
    return main(["enroll", *args])


@pytest.mark.usefixtures("quick_player")
def test_every_card_is_asked_for_bound_and_written(
    deck_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry_path = tmp_path / "registry.toml"
    player = Player(deck_path)
    status = enroll(
        player, "--deck", str(deck_path), "--registry", str(registry_path), "--write-tags", monkeypatch=monkeypatch
    )
    assert status == 0
    text = "".join(player.lines)
    assert "[----" in text and "place ace of coins (4 left)" in text and "place 7 of swords (1 left)" in text
    assert "4/4 done" in text
    registry = Registry.load(registry_path, deck="mini")
    for card_id, tag in player.tags.items():
        assert registry.card_for(tag.uid) == card_id
        assert card_id_from_ndef(bytes(tag.memory[16:160])) == card_id


@pytest.mark.usefixtures("quick_player")
def test_a_crash_half_way_keeps_what_was_done_and_the_next_run_goes_on(
    deck_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry_path = tmp_path / "registry.toml"
    first = Player(deck_path, stop_at=3)
    assert enroll(first, "--deck", str(deck_path), "--registry", str(registry_path), monkeypatch=monkeypatch) == 130
    saved = tomllib.loads(registry_path.read_text())["decks"]["mini"]
    assert sorted(saved.values()) == ["1O", "6O"]
    second = Player(deck_path)
    second.tags = first.tags
    assert enroll(second, "--deck", str(deck_path), "--registry", str(registry_path), monkeypatch=monkeypatch) == 0
    assert "place ace of coins" not in "".join(second.lines)
    assert sorted(Registry.load(registry_path, deck="mini").bindings().values()) == ["12C", "1O", "6O", "7E"]


@pytest.mark.usefixtures("quick_player")
def test_a_power_cut_during_a_save_never_leaves_a_half_written_registry(
    deck_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry_path = tmp_path / "registry.toml"
    replace = os.replace
    saves = []

    def cut_on_third(src: str, dst: str) -> None:
        saves.append(dst)
        if len(saves) == 3:
            raise SystemExit("power cut")  # not an OSError: nothing in the program handles it
        replace(src, dst)

    monkeypatch.setattr(os, "replace", cut_on_third)
    with pytest.raises(SystemExit):
        enroll(Player(deck_path), "--deck", str(deck_path), "--registry", str(registry_path), monkeypatch=monkeypatch)
    assert sorted(tomllib.loads(registry_path.read_text())["decks"]["mini"].values()) == ["1O", "6O"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.usefixtures("quick_player")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deck", "nope"], "no such deck"),
        (["--deck", "spanish-40", "--zone", "z9"], "zone 'z9' has no reader on the Pi; zones with one: z1, z2"),
    ],
)
def test_bad_arguments_get_a_clear_message(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["enroll", *args, "--registry", str(tmp_path / "r.toml")]) == 2
    assert message in capsys.readouterr().err


def test_an_unreadable_registry_is_refused_with_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.toml").write_text("decks = [")
    assert main(["cards", "--deck", "spanish-40", "--registry", str(tmp_path / "r.toml")]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_cards_lists_bindings_and_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    registry.bind("04A1B2C3D4E5F6", "6O")
    registry.save()
    assert main(["cards", "--deck", "spanish-40", "--registry", str(tmp_path / "r.toml"), "--lang", "es"]) == 0
    out = capsys.readouterr().out
    assert "1 de 40 cartas inscritas" in out
    assert "6O   04A1B2C3D4E5F6  6 de oros" in out
    assert "faltan (39): 1O (as de oros)" in out
    assert main(["cards", "--deck", "spanish-40", "--registry", str(tmp_path / "r.toml"), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "1 of 40 cards enrolled" in out and "missing (39): 1O (ace of coins)" in out


@pytest.mark.usefixtures("quick_player")
def test_a_custom_decks_enrolled_tag_is_known_at_the_table(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mock_factory: MockFactory,
    running: Callable[[Daemon], AbstractAsyncContextManager[Daemon]],
    until: Callable[..., Awaitable[None]],
) -> None:
    """``enroll --deck FILE`` binds under the deck's name; the service, given the same file, must look there."""
    deck_path = tmp_path / "my-deck.toml"
    deck_path.write_text(
        load_deck_text("spanish-40").replace('name = "spanish-40"', 'name = "mi baraja"'), encoding="utf-8"
    )
    registry_path = tmp_path / "registry.toml"
    player = Player(deck_path, stop_at=2)  # the first card asked for (1O) is enrolled, then Ctrl-C
    assert enroll(player, "--deck", str(deck_path), "--registry", str(registry_path), monkeypatch=monkeypatch) == 130
    blank = player.tags["1O"]  # enrolled without --write-tags: only the registry knows it
    with pytest.raises(NdefError, match="no Text record"):  # as shipped: an empty NDEF message
        card_id_from_ndef(bytes(blank.memory[16:160]))
    monkeypatch.undo()
    sim.reset()
    config = parse_config(
        f'[game]\ndeck = "{deck_path}"\n[readers]\nbackend = "sim"\nregistry = "{registry_path}"\n'
        f'poll_interval_ms = 5\n[journal]\npath = "{tmp_path / "journal.db"}"\n',
        "test",
    )
    daemon = Daemon(config, pin_factory=mock_factory)

    async def lay_the_card() -> list[str]:
        async with running(daemon):
            assert daemon.table is not None
            tracker, zone = daemon.table.tracker, next(iter(config.zones))
            sim.field(0, 0).add(blank)
            await until(lambda: tracker.tags_on(zone))
            return tracker.cards_on(zone)

    assert asyncio.run(lay_the_card()) == ["1O"]
