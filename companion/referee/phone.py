"""What a paired phone may change at the table, as events the referee takes like a button press (docs/WEB.md).

The phone changes nothing itself: the table's page turns each request into one of these events, and the referee
applies it by the very paths of the buttons and the menu (a new game as the menu's "new game", the pairing code
shown from the menu's "pair a phone"). Pure values and checks, no I/O.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Literal

from companion.menu import Settings
from companion.names import refused

__all__ = ["CODE_DIGITS", "NAME_CHARS", "NewGame", "PairingEnded", "SeatNames", "SpeechLevel", "new_code", "seat_names"]

CODE_DIGITS = 6  # a million codes: five wrong tries void the one shown (docs/WEB.md, "Pairing")
NAME_CHARS = 20  # a seat's name; the screen shortens it further (Maribel -> Mari.)


@dataclass(frozen=True, slots=True)
class SeatNames:
    """The players' names in the order they sit, as the config's ``seat_names`` gives them."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a new game with ``settings``: the menu's "new game" after choosing them."""

    settings: Settings


@dataclass(frozen=True, slots=True)
class SpeechLevel:
    """How much the table says aloud from now on (one of ``SPEECH_LEVELS``): the menu's "voice" line."""

    level: str


@dataclass(frozen=True, slots=True)
class PairingEnded:
    """The pairing code on the screen is done with: a phone paired with it, too many wrong codes were typed, or
    its time ran out."""

    why: Literal["paired", "too_many", "expired"]


def new_code() -> str:
    """A pairing code: ``CODE_DIGITS`` random digits."""
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


def seat_names(names: object, players: int) -> tuple[str, ...]:
    """``names`` as seat names for ``players`` seats; ValueError says what is wrong with them."""
    if not isinstance(names, list | tuple) or not all(isinstance(name, str) for name in names):
        raise ValueError("give the names as a list of texts, one a seat in the order the players sit")
    clean = tuple(" ".join(name.split()) for name in names)
    if len(clean) != players:
        raise ValueError(f"give {players} names, one a seat in the order the players sit, not {len(clean)}")
    if not all(clean):
        raise ValueError("every seat needs a name")
    for name in clean:
        if (char := refused(name)) is not None:  # ESC, NUL, BEL, U+202E...: drawn and logged as they are
            raise ValueError(f"{name!a} holds {char}, a control or direction character: write it in plain letters")
    if any(len(name) > NAME_CHARS for name in clean):
        raise ValueError(f"a name has at most {NAME_CHARS} letters")
    if len(set(clean)) != len(clean):
        raise ValueError("two seats have the same name: the table asks who laid the first card by name")
    return clean
