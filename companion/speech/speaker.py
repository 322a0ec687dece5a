"""The table's voice: it hears the referee's news (a :class:`~companion.table.Listener`), words them
(:mod:`.sentences`), queues them (:mod:`.queue`) and says them off the table's loop, on a thread of its own: the
table only takes the lock to put a sentence in the queue, so no LED ever waits for a word.

Saying a sentence is two steps, both on that thread: espeak-ng renders it to WAV bytes (:mod:`.espeak`), and the
player takes them: :class:`Aplay` sends them to the sound card through ALSA (``aplay`` reads its standard input at
the pace the card plays it, so the thread is busy exactly as long as the voice speaks), :class:`WavFiles` writes
them to a folder (``companion demo --voice DIR``). docs/decisions/ says why espeak-ng and aplay rather than a
library (``012-the-voice-is-espeak-ng-and-aplay.md``).
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from companion.games import AnyKind, Voice
from companion.i18n import N_
from companion.referee.news import LevelChosen, News
from companion.speech.espeak import DEFAULT_RATE, DEFAULT_VOLUME, ESPEAK, RenderError, render
from companion.speech.process import run
from companion.speech.queue import Queue
from companion.speech.sentences import LEVELS, Utterance, utterances

__all__ = ["Aplay", "Player", "Speaker", "WavFiles"]

log = logging.getLogger(__name__)

Render = Callable[[str, str, int, int], bytes]  # (text, language, rate, volume) -> WAV bytes
# The kernel's list of ALSA's sound cards, a line "N [id ]: driver - name" each, or " --- no soundcards ---"
# (linux's sound/core/info.c, snd_card_info_read); absent with no ALSA at all
CARDS = Path("/proc/asound/cards")
# What the screen says when a person switches on a voice that cannot sound: what to do (the menu's hint, 128 pixels
# of its small font; the log says which part is missing)
SILENT = N_("Silent: companion doctor")


class Player(Protocol):
    """Where the voice's WAV bytes go. ``paced``: saying takes as long as the sentence lasts (a sound card), so the
    speaker says them on its own thread; else (files on a simulated clock) each is said at once, as it is heard,
    and none goes stale."""

    paced: bool

    def play(self, wav: bytes, utterance: Utterance) -> None:
        """Say ``wav`` (``utterance`` rendered), returning once it is said."""

    def trouble(self) -> str | None:
        """Why it cannot sound (English, for the log, saying what to do), or None: it can."""


class Aplay:
    """The sound card, through ALSA's ``aplay`` (Debian's ``alsa-utils``) on the PCM ``device`` (``default``, or
    one ``aplay -L`` lists, such as ``hw:CARD=MAX98357A``). A failure is logged, once for each distinct message,
    and the table goes on silent."""

    paced = True

    def __init__(
        self, device: str = "default", command: Sequence[str] | None = None, cards: Path | None = None
    ) -> None:
        self.command = list(command) if command is not None else ["aplay", "-q", "-D", device, "-"]
        self.device, self.cards = device, cards  # None: the kernel's list (CARDS)
        self._said: set[str] = set()  # the failures already logged

    def trouble(self) -> str | None:
        """aplay missing, or no sound card at all (ALSA's ``null`` PCM needs none): what a table without a voice
        lacks. A card that is there but fails says so when it is first used."""
        if shutil.which(self.command[0]) is None:
            return f"{self.command[0]} is not installed: sudo apt-get install alsa-utils"
        if self.device != "null" and not has_cards(self.cards or CARDS):
            return "no sound card: companion doctor says how to give the table one"
        return None

    def play(self, wav: bytes, utterance: Utterance) -> None:
        try:
            done = run(self.command, wav, timeout=120)
        except FileNotFoundError:
            self._failed(f"{self.command[0]} is not installed: sudo apt-get install alsa-utils")
            return
        if done.killed:
            self._failed(f"{self.command[0]} took over 2 minutes to say {utterance.text!r}: is the sound card stuck?")
            return
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
            self._failed(f"{' '.join(self.command)}: {said} (the sound card: companion doctor; aplay -L lists them)")

    def _failed(self, message: str) -> None:
        if message not in self._said:
            self._said.add(message)
            log.error("speech: %s", message)


class WavFiles:
    """A folder the voice writes to: each utterance as ``NNN.wav`` with ``NNN.txt`` beside it (its sentence), after
    ``prefix`` (the demo's game: ``<game>-001.wav``)."""

    paced = False

    def __init__(self, folder: Path, prefix: str = "") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.prefix = folder, prefix
        self.written = 0

    def trouble(self) -> str | None:
        return None  # a folder takes any WAV

    def play(self, wav: bytes, utterance: Utterance) -> None:
        self.written += 1
        stem = self.folder / f"{self.prefix}{self.written:03d}"
        stem.with_suffix(".wav").write_bytes(wav)
        stem.with_suffix(".txt").write_text(utterance.text + "\n", "utf-8")


def has_cards(cards: Path) -> bool:
    """Whether the kernel lists a sound card (``cards``: its list, :data:`CARDS`).

    >>> import tempfile
    >>> listed = Path(tempfile.mkdtemp()) / "cards"
    >>> _ = listed.write_text(" 0 [sndrpihifiberry]: RPi-simple - snd_rpi_hifiberry_dac\\n")
    >>> has_cards(listed), has_cards(listed.with_name("none"))
    (True, False)
    >>> _ = listed.write_text("--- no soundcards ---\\n"); has_cards(listed)
    False
    """
    try:
        listed = cards.read_text("utf-8", "replace")
    except OSError:  # no /proc/asound: a kernel without ALSA, or a container
        return False
    return any(line.split("[", 1)[0].strip().isdigit() for line in listed.splitlines())


class Speaker:
    """The table's voice at ``level`` (one of :data:`~companion.speech.sentences.LEVELS`; it may change at any
    time). With a paced player it says its sentences on its own thread, started with the first one heard (a table
    that says nothing runs none); else at once, in the caller's thread (the demo's files, on its simulated
    clock). :meth:`say_all` says what waits, here and now (the tests). A table that cannot sound (:meth:`trouble`)
    says so in its log once, when it starts with a voice or when one is chosen."""

    def __init__(
        self,
        player: Player,
        level: str = "rulings",
        rate: int = DEFAULT_RATE,
        volume: int = DEFAULT_VOLUME,
        renderer: Render = render,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"speech level {level!r}: choose {', '.join(LEVELS)}")
        self.player, self.level, self.rate, self.volume, self.renderer = player, level, rate, volume, renderer
        self._queue = Queue()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._failed: set[str] = set()
        self._told: set[str] = set()  # the troubles logged when a voice was chosen
        self.mute = self.trouble()  # why it cannot sound, or None: checked once, at the start
        if self.mute is not None:
            (log.info if level == "off" else log.error)("speech: %s", self.mute)

    def trouble(self) -> str | None:
        """Why the table cannot sound (English, saying what to do), or None: espeak-ng missing, or the player's."""
        if shutil.which(ESPEAK) is None:
            return "espeak-ng is not installed: sudo apt-get install espeak-ng (companion doctor checks the voice)"
        return self.player.trouble()

    def hear(self, news: Sequence[News], kind: AnyKind, voice: Voice, now: float) -> None:
        for item in news:
            if isinstance(item, LevelChosen):  # the menu's or the phone's: what follows is said at it
                self.level = item.level
                if self.mute is not None and item.level != "off" and self.mute not in self._told:
                    self._told.add(self.mute)  # once: the screen says it each time (the menu's hint)
                    log.warning("speech: %s; the voice was switched on, and the table stays silent", self.mute)
        if self.mute is not None:
            return  # nothing worded, no thread: it would only fail
        said = utterances(news, kind, voice, self.level)
        if not said:
            return
        with self._ready:
            for utterance in said:
                self._queue.put(utterance)
            self._ready.notify()
        if not self.player.paced:
            self.say_all()
        elif self._thread is None and not self._stopping:
            self.start()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop after the sentence being said (what waits is dropped)."""
        with self._ready:
            self._stopping = True
            self._ready.notify()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def say_all(self) -> None:
        """Say every sentence that waits, here and now."""
        while (utterance := self._next(wait=False)) is not None:
            self._say(utterance)

    @property
    def waiting(self) -> int:
        with self._ready:
            return len(self._queue)

    def _run(self) -> None:
        while (utterance := self._next(wait=True)) is not None:
            self._say(utterance)

    def _next(self, wait: bool) -> Utterance | None:
        with self._ready:
            while wait and not self._queue and not self._stopping:
                self._ready.wait()
            if self._stopping or not self._queue:
                return None
            return self._queue.take()

    def _say(self, utterance: Utterance) -> None:
        try:
            wav = self.renderer(utterance.text, utterance.lang, self.rate, self.volume)
        except RenderError as exc:
            if str(exc) not in self._failed:  # once: a missing espeak-ng would fill the log
                self._failed.add(str(exc))
                log.error("speech: %s", exc)
            return
        self.player.play(wav, utterance)
