"""The table speaks: the referee's news said aloud in the table's language (docs/DAEMON.md, "Speech").

:mod:`.sentences` words the news (a game's own in ``companion/games/<game>/speech.py``), :mod:`.queue` chooses what
is said next, :mod:`.espeak` renders a sentence to WAV bytes and :mod:`.speaker` says them off the table's loop.
"""

from companion.speech.sentences import LEVELS, Utterance, Weight, utterances
from companion.speech.speaker import Aplay, Speaker, WavFiles

__all__ = ["LEVELS", "Aplay", "Speaker", "Utterance", "WavFiles", "Weight", "utterances"]
