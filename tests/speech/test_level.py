"""How much the table says aloud, changed from the menu or a paired phone: the referee tells it as news, and the
voice says what follows at the new level."""

from __future__ import annotations

from pathlib import Path

from companion.config import GameConfig
from companion.events import Button, CardArrived, Press
from companion.referee import LevelChosen, Referee, SpeechLevel
from companion.speech.speaker import Speaker, WavFiles


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
