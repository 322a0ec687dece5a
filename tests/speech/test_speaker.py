"""The voice off the table's loop, at the ALSA boundary: aplay stands in as a sound card that is busy
(``slow_aplay.py``: it reads its pipe only as the card plays). While it is, the table's news are heard at once
(nothing waits for the card), and once it is free the voice says the newest ruling next and drops the stale turns.
"""

from __future__ import annotations

import hashlib
import io
import sys
import time
import wave
from collections.abc import Sequence
from pathlib import Path

import pytest

from companion.config import GameConfig
from companion.games.seises.rules import Seises
from companion.referee import Acted, Referee, Refused
from companion.referee.news import News
from companion.rules import Play
from companion.speech.espeak import render
from companion.speech.speaker import Aplay, Speaker, WavFiles

SLOW = Path(__file__).with_name("slow_aplay.py")


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + 60  # a bound against a hang, not a timing: the condition is what is checked
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def acted(game: Seises, card: str) -> Acted:
    before = game.snapshot()
    game.push(Play(card))
    return Acted(Play(card), before, game.snapshot())


def refused(game: Seises, card: str) -> Refused:
    refusal = game.refusal(Play(card))
    assert refusal is not None
    return Refused(refusal)


def digest(text: str) -> str:
    return hashlib.sha1(render(text, "en")).hexdigest()


def test_a_burst_while_the_card_is_busy_says_the_newest_ruling_then_the_last_turn(tmp_path: Path) -> None:
    log, gate = tmp_path / "played", tmp_path / "gate"
    cards = tmp_path / "cards"  # the kernel's list, with the card the stand-in plays on
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    speaker = Speaker(Aplay(command=[sys.executable, str(SLOW), str(log), str(gate)], cards=cards), level="all")
    referee = Referee(GameConfig(language="en"), {"z1": "table"})  # the voice: card and seat names
    game = Seises(players=4)
    kind = referee.game_kind
    try:  # the speaker starts its thread with the first sentence
        speaker.hear([acted(game, "6O")], kind, referee, 0.0)
        wait_for(lambda: log.exists() and log.read_text().count("started") == 1, "the card starts the first turn")
        burst: list[Sequence[News]] = [
            [refused(game, "9E")],
            [acted(game, "5O")],
            [refused(game, "2C")],
            [acted(game, "7O")],
        ]
        for news in burst:
            speaker.hear(news, kind, referee, 1.0)  # returns at once: the card is still busy with the first
        assert log.read_text().splitlines() == ["started"]
        assert speaker.waiting == 2, "the newest refusal and the newest turn; the rest went stale"
        gate.touch()
        wait_for(lambda: len(log.read_text().splitlines()) == 6, "three sentences played")
    finally:
        gate.touch()
        speaker.close()
    played = [line for line in log.read_text().splitlines() if line != "started"]
    said = [
        "Seat 2, your turn.",
        "There is no row of cups yet: the 6 of cups starts it. Take back the 2 of cups.",
        "Seat 4, your turn.",
    ]
    assert played == [digest(text) for text in said]


def test_a_missing_aplay_is_said_once_and_the_table_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    player = Aplay(command=[str(tmp_path / "no-aplay"), "-"])
    speaker = Speaker(player, level="rulings")
    referee = Referee(GameConfig(language="es"), {"z1": "table"})
    game = Seises(players=4)
    speaker.hear([refused(game, "7O")], referee.game_kind, referee, 0.0)
    wait_for(lambda: caplog.records, "the failure logged")
    speaker.hear([refused(game, "8O")], referee.game_kind, referee, 1.0)
    wait_for(lambda: speaker.waiting == 0, "the second sentence taken")
    speaker.close()  # once the sentence being said is done
    assert [r.getMessage() for r in caplog.records].count(
        f"speech: {tmp_path / 'no-aplay'} is not installed: sudo apt-get install alsa-utils"
    ) == 1


def test_the_files_of_the_demo_are_numbered_wavs_with_their_sentence(tmp_path: Path) -> None:
    speaker = Speaker(WavFiles(tmp_path / "voice"), level="all")
    referee = Referee(GameConfig(language="es"), {"z1": "table"})
    game = Seises(players=4)
    speaker.hear([refused(game, "7O")], referee.game_kind, referee, 0.0)
    speaker.hear([acted(game, "6O")], referee.game_kind, referee, 1.0)
    speaker.say_all()
    files = sorted(path.name for path in (tmp_path / "voice").iterdir())
    assert files == ["001.txt", "001.wav", "002.txt", "002.wav"]
    assert (tmp_path / "voice" / "002.txt").read_text("utf-8") == "Asiento 2, te toca.\n"
    with wave.open(io.BytesIO((tmp_path / "voice" / "001.wav").read_bytes())) as read:
        assert read.getnframes() * 2 + 44 == (tmp_path / "voice" / "001.wav").stat().st_size
