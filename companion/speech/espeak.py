"""Sentences to sound: espeak-ng (Debian's ``espeak-ng``, with its Spanish and English voices) renders one to WAV
bytes, which the player sends to the sound card (:mod:`companion.speech.speaker`) or the demo writes to a file.

espeak-ng writing to its standard output cannot seek back to fill in the WAV header's sizes once it knows them:
it writes ``0x7ffff000``-ish placeholders instead (espeak-ng's ``src/espeak-ng.c``, ``OpenWavFile`` with
``"stdout"``). :func:`render` fills in the true sizes, so the bytes are a WAV any reader (Python's :mod:`wave`,
``aplay``, a browser) takes as it is.
"""

from __future__ import annotations

import struct

from companion.config import SpeechConfig
from companion.speech.process import run

__all__ = ["DEFAULT_RATE", "DEFAULT_VOLUME", "VOICES", "RenderError", "render", "true_sizes"]

VOICES = {"es": "es", "en": "en"}  # the table's language -> espeak-ng's voice
DEFAULT_RATE = SpeechConfig.rate  # words a minute: a little slower than espeak-ng's 175, for a noisy table
DEFAULT_VOLUME = SpeechConfig.volume  # espeak-ng's amplitude, 0 to 200; 100 is its own default
ESPEAK = "espeak-ng"
# espeak-ng is the voice's one CPU-bound step (tens of ms a sentence): run below the service's priority, so that a
# scan arriving meanwhile gets the CPU first (coreutils' nice; the Pi's cores are few and the service shares them)
NICE = ("nice", "-n", "10")


class RenderError(RuntimeError):
    """espeak-ng is missing or failed: the message says what to install or what it said."""


def render(text: str, lang: str, rate: int = DEFAULT_RATE, volume: int = DEFAULT_VOLUME) -> bytes:
    """``text`` said in ``lang`` (a table language; another is said with the English voice) as WAV bytes: 16-bit
    mono at espeak-ng's 22050 Hz."""
    voice = VOICES.get(lang, "en")
    command = [*NICE, ESPEAK, "-v", voice, "-s", str(rate), "-a", str(volume), "--stdout", "--", text]
    try:
        done = run(command, timeout=30)
    except FileNotFoundError:
        raise RenderError("espeak-ng is not installed: sudo apt-get install espeak-ng") from None
    if done.killed:
        raise RenderError(f"espeak-ng took over 30 s to say {text!r}")
    if done.returncode != 0 or len(done.stdout) <= 44:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise RenderError(f"espeak-ng could not say {text!r} with the voice {voice!r}: {said}")
    return true_sizes(done.stdout)


def true_sizes(wav: bytes) -> bytes:
    """``wav`` with its RIFF and data chunk sizes set to what it holds (see the module's note).

    >>> header = b"RIFF" + struct.pack("<I", 0x7FFFF024) + b"WAVEfmt " + struct.pack("<I", 16) + bytes(16)
    >>> fixed = true_sizes(header + b"data" + struct.pack("<I", 0x7FFFF000) + bytes(10))
    >>> struct.unpack_from("<I", fixed, 4)[0], struct.unpack_from("<I", fixed, 40)[0]
    (46, 10)
    """
    if wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        raise RenderError("espeak-ng wrote no WAV")
    fixed = bytearray(wav)
    struct.pack_into("<I", fixed, 4, len(wav) - 8)
    at = 12
    while at + 8 <= len(fixed):
        chunk, size = fixed[at : at + 4], struct.unpack_from("<I", fixed, at + 4)[0]
        if chunk == b"data":
            struct.pack_into("<I", fixed, at + 4, len(fixed) - at - 8)
            return bytes(fixed)
        at += 8 + size
    raise RenderError("espeak-ng wrote a WAV with no sound in it")
