"""A WAV read back as a listener would measure it: how long it lasts and how loud it gets."""

from __future__ import annotations

import array
import io
import wave


def samples(wav: bytes) -> tuple[float, int]:
    """A WAV's length in seconds and its loudest sample (16-bit mono, as espeak-ng writes)."""
    with wave.open(io.BytesIO(wav)) as read:
        assert (read.getnchannels(), read.getsampwidth()) == (1, 2)
        frames = read.readframes(read.getnframes())
        seconds = read.getnframes() / read.getframerate()
    values = array.array("h", frames)
    return seconds, max(map(abs, values), default=0)
