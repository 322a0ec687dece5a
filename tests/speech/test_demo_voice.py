"""``companion demo --voice DIR``: the demo's story said aloud, each sentence a numbered WAV with its words beside it,
through the daemon's own wiring (the assembly's speaker, at ``all``, writing files instead of playing them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from wav_samples import samples

from companion.cli import main
from companion.demo import Demo


@pytest.mark.slow
def test_the_demo_writes_every_sentence_of_its_story_as_a_numbered_wav(tmp_path: Path) -> None:
    voice = tmp_path / "voice"
    lines: list[str] = []
    assert Demo(game="sexto-set", seed=1, out=lines.append, language="es", voice=voice).run() == 0
    wavs = sorted(voice.glob("*.wav"))
    assert [wav.name for wav in wavs] == [f"sexto-set-{n:03d}.wav" for n in range(1, len(wavs) + 1)]
    said = [wav.with_suffix(".txt").read_text("utf-8") for wav in wavs]
    assert all(text.endswith("\n") and text.count("\n") == 1 for text in said)
    assert sum(text.startswith("Pareja") and "os toca" in text for text in said) > 20, "the turns"
    assert any("gana el set, con" in text for text in said), "a set won, with the master cards"
    assert any("gana la partida" in text for text in said), "the match won"
    assert any(text.startswith("Deshecho:") for text in said), "the demo's undo"
    assert any("Prueba otra carta" in text or "Retírala" in text for text in said), "the demo's illegal attempt"
    for wav in wavs[:40]:  # the sentences repeat; the render test reads them all
        seconds, loudest = samples(wav.read_bytes())
        assert loudest > 2000 and 0.5 < seconds < 15, wav.name


def test_a_voice_folder_that_cannot_be_written_is_said_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert main(["demo", "--game", "seises", "--lang", "en", "--voice", str(tmp_path / "file" / "voice")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"companion demo: --voice {tmp_path}/file/voice: cannot write there"), err
