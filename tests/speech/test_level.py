"""How much the table says aloud, changed from the menu or a paired phone: the referee tells it as news, and the
voice says what follows at the new level."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace
from pathlib import Path

from gpiozero.pins.mock import MockFactory
from test_speaker import SLOW, wait_for

from companion.assembly import Devices, assemble
from companion.config import Config, GameConfig
from companion.events import Button, CardArrived, Press
from companion.hardware import load_pinmap
from companion.journal import Journal
from companion.nfc.backends import SimBackend
from companion.nfc.registry import Registry
from companion.referee import LevelChosen, Referee, SpeechLevel
from companion.speech.speaker import Aplay, Speaker, WavFiles


def press(referee: Referee, button: Button, kind: str = "short") -> None:
    referee.handle(Press(button, kind, 0.0), 0.0)  # type: ignore[arg-type]


def test_the_menus_voice_line_changes_what_the_table_says(tmp_path: Path) -> None:
    referee = Referee(GameConfig(language="en"), {"z1": "table"})
    referee.allow_speech("rulings")
    files = WavFiles(tmp_path)
    speaker = Speaker(files, level="rulings")
    press(referee, Button.CONFIRM, "long")
    assert referee.menu_settings().speech == "rulings"
    for button in [Button.PASS] * 4 + [Button.CONFIRM, Button.PASS, Button.CONFIRM]:  # voice: everything
        press(referee, button)
        speaker.hear(referee.told, referee.game_kind, referee, 0.0)
    assert referee.speech_level == "all" and referee.told == (LevelChosen("all"),)
    assert speaker.level == "all"
    press(referee, Button.UNDO, "long")  # the menu closes
    referee.handle(CardArrived("z1", "6O"), 1.0)
    press(referee, Button.CONFIRM)
    speaker.hear(referee.told, referee.game_kind, referee, 1.0)
    assert (tmp_path / "001.txt").read_text("utf-8") == "Seat 2, your turn.\n", "a turn: said at all only"


def test_a_phone_changes_the_level_and_a_table_without_a_voice_ignores_it() -> None:
    referee = Referee(GameConfig(), {"z1": "table"})
    assert referee.handle(SpeechLevel("all"), 0.0) == [] and referee.told == ()
    assert referee.speech_level is None and referee.menu_settings().speech is None
    referee.allow_speech("off")
    referee.handle(SpeechLevel("rulings"), 1.0)
    assert referee.told == (LevelChosen("rulings"),) and referee.menu_settings().speech == "rulings"


def speech_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "speech"]


def test_every_assembled_table_has_a_voice_off_that_runs_nothing_until_switched_on(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    """The config says nothing of speech: the table's voice is "off", the menu offers it, and a silent table costs
    nothing (no thread, no word); switched on, the first sentence starts its thread and reaches the card."""
    log, gate, cards = tmp_path / "played", tmp_path / "gate", tmp_path / "cards"
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")  # the kernel lists a card
    gate.touch()  # the stand-in card plays at once
    now = [0.0]
    config = Config(game=GameConfig(language="en"), zones={"z1": "table"}, backend="sim")
    registry = Registry.load(tmp_path / "registry.toml", deck="spanish-40")
    readers = SimBackend(["z1"], registry)
    readers.init()
    for card in ("6O", "12C"):
        registry.bind(readers.tag(card).uid, card)
    journal = Journal(tmp_path / "journal.db")
    card = Aplay(command=[sys.executable, str(SLOW), str(log), str(gate)], cards=cards)
    devices = Devices(journal, registry, readers, load_pinmap(), mock_factory, lambda: now[0], lambda call: call())
    assembly = assemble(config, replace(devices, voice=card))
    table, speaker = assembly.table, assembly.speaker
    assert speaker is not None and speaker.mute is None and table.referee.speech_level == "off"
    table.start(now[0])

    def lay(card_id: str) -> None:
        readers.put(card_id, "z1")
        for _ in range(3):
            now[0] += 0.01
            for scan in readers.poll(now[0]):
                table.scan(scan, now[0])
        readers.take(card_id)
        for _ in range(3):
            now[0] += 0.01
            for scan in readers.poll(now[0]):
                table.scan(scan, now[0])

    try:
        table.press(Press(Button.CONFIRM, "long", now[0]), now[0])
        menu = table.referee.view().menu
        assert menu is not None and menu.items[4] == "Voice: Off", "every table's menu offers the voice"
        table.press(Press(Button.UNDO, "long", now[0]), now[0])
        lay("12C")  # refused: a ruling, not said at "off"
        assert speaker._thread is None and speech_threads() == [] and speaker.waiting == 0
        table.status(SpeechLevel("rulings"), now[0])  # the phone's settings, or the menu's voice line
        lay("12C")
        wait_for(lambda: log.exists() and log.read_text().count("started") == 1, "the first sentence reaches the card")
        assert speech_threads() == [speaker._thread]
    finally:
        assembly.close()
        journal.close()
    assert speech_threads() == []
