"""The transcript format of ``companion play``: one action per line, ``#`` starts a comment.

Seises: ``play <card>``, ``pay``, ``undo``. 6º SET: ``play <master-id> <card>``, ``pass``, ``undo``.
Each line is read the same way in both games, so that an action of the other game (``pass`` in Seises) reaches
the engine, which refuses it as ``wrong_action``. The acting seat or pair is always the one whose turn it is,
so a line names only the action::

    >>> parse_line("seises", "play 6O  # the first play")
    Play(card='6O', line=None)
    >>> format_action(Play("N07", line="M2B"))
    'play M2B N07'
"""

from __future__ import annotations

from typing import Final, Literal

from companion.rules.base import Action, Pass, Pay, Play

__all__ = ["UNDO", "TranscriptError", "format_action", "parse_line"]

UNDO: Final = "undo"

_GRAMMAR = {
    "seises": ("play <card>, pay or undo", "play <carta>, pay o undo"),
    "sexto-set": ("play <master-id> <card>, pass or undo", "play <id-maestra> <carta>, pass o undo"),
}


class TranscriptError(ValueError):
    """A line that is not an action of either game (a usage error, not an illegal play)."""

    def __init__(self, english: str, spanish: str) -> None:
        super().__init__(english)
        self.spanish = spanish

    def text(self, lang: str = "es") -> str:
        return str(self) if lang == "en" else self.spanish


def parse_line(game: str, line: str) -> Action | Literal["undo"] | None:
    """The action on ``line``; ``None`` for a blank or comment line."""
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    if verb == UNDO and not args:
        return UNDO
    if verb == "play" and len(args) == 1:
        return Play(args[0])
    if verb == "play" and len(args) == 2:
        return Play(args[1], line=args[0])
    if verb == "pay" and not args:
        return Pay()
    if verb == "pass" and not args:
        return Pass()
    english, spanish = _GRAMMAR[game]
    raise TranscriptError(
        f"not an action: {line.strip()!r} (write {english})", f"no es una acción: {line.strip()!r} (escribe {spanish})"
    )


def format_action(action: Action) -> str:
    """The transcript line for ``action``; ``parse_line`` reads it back."""
    return str(action)
