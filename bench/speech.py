"""The table's voice: what the demo's story says aloud in each game and language (``companion demo --voice``), how
many sentences, how many distinct, and how long their WAVs last; how long espeak-ng takes to render one.

The scan-to-LED time with the voice on and off is ``bench daemon``'s (the voice runs in the service there).
"""

from __future__ import annotations

import io
import shutil
import statistics
import tempfile
import time
import wave
from pathlib import Path

from companion.demo import Demo
from companion.games import kinds
from companion.speech.espeak import render


def durations(folder: Path) -> list[float]:
    seconds = []
    for path in sorted(folder.glob("*.wav")):
        with wave.open(io.BytesIO(path.read_bytes())) as read:
            seconds.append(read.getnframes() / read.getframerate())
    return seconds


def story(game: str, language: str) -> tuple[int, int, list[float], float]:
    """The sentences of the demo's story (seed 1) said aloud: how many, how many distinct, each WAV's seconds, and
    the median seconds espeak-ng takes to render one of the distinct ones."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-voice-"))
    try:
        Demo(game=game, seed=1, out=lambda line: None, language=language, voice=folder).run()
        said = [path.read_text("utf-8").strip() for path in sorted(folder.glob("*.txt"))]
        took = []
        for text in sorted(set(said)):
            start = time.perf_counter()
            render(text, language)
            took.append(time.perf_counter() - start)
        return len(said), len(set(said)), durations(folder), statistics.median(took)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    print("## Speech (python -m bench speech)")
    for game in kinds():
        for language in ("es", "en"):
            count, distinct, seconds, took = story(game, language)
            print(
                f"{game}, {language}: {count} sentences ({distinct} distinct) in the demo's story; WAVs "
                f"{min(seconds):.2f} to {max(seconds):.2f} s, median {statistics.median(seconds):.2f} s; "
                f"espeak-ng renders one in {took * 1e3:.0f} ms (median)"
            )


if __name__ == "__main__":
    main()
