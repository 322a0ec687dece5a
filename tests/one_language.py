"""Which language a text is in, word by word: what tests/doctor/test_one_language.py and the README's journeys
(tests/journey/) check each output with. On sys.path through pyproject.toml's pytest ``pythonpath``.

A word gives a line away when the other catalogue uses it and this one never does: "the", "pick" or "write" in
Spanish output (English msgids use them, no Spanish msgstr does), "problema" or "conector" in English output.
Names, keys, paths and numbers are no words of either language (``game.players``, ``/dev/spidev0.0``, ``z1``);
a word neither catalogue knows (a seat's name, a library's own message) says nothing either way.
"""

from __future__ import annotations

import re

import polib

from companion.i18n import LOCALE

__all__ = ["FOREIGN", "foreign_lines", "said_words", "words"]

FIELD = re.compile(r"\{[^{}]*\}")
WORD = re.compile(r"[^\W\d_]+")
PUNCTUATION = ".,;:()[]¿?¡!«»\"'—-–…✓✗*"


def words(text: str) -> set[str]:
    """The words of ``text``: its tokens made of letters alone (a key, a path, a number or a name with digits is
    not a word), lower-cased, without the ``{fields}`` of a msgid."""
    found = set()
    for token in FIELD.sub(" ", text).split():
        token = token.strip(PUNCTUATION)
        if WORD.fullmatch(token):
            found.add(token.lower())
    return found


def said_words(line: str) -> set[str]:
    """The words of a line a command wrote, but for a command line's names: an option (``--keep``), a value's name
    in capitals (``SEED``), the command after ``companion``."""
    tokens = line.split()
    names = {
        token
        for before, token in zip(["", *tokens], tokens, strict=False)
        if token.lstrip("[(").startswith("-") or before == "companion" or _capitals(token.strip(PUNCTUATION))
    }
    return words(" ".join(token for token in tokens if token not in names))


def _capitals(token: str) -> bool:
    return len(token) > 1 and token.isupper()


def vocabularies() -> dict[str, set[str]]:
    """Each language's words: English's the msgids', another language's its translations'."""
    catalogue = polib.pofile(str(LOCALE / "es/LC_MESSAGES/companion.po"))
    spanish: set[str] = set()
    english: set[str] = set()
    for entry in catalogue:
        english |= words(entry.msgid) | words(entry.msgid_plural or "")
        for text in [entry.msgstr, *entry.msgstr_plural.values()]:
            spanish |= words(text)
    return {"es": spanish, "en": english}


VOCABULARIES = vocabularies()
FOREIGN = {"es": VOCABULARIES["en"] - VOCABULARIES["es"], "en": VOCABULARIES["es"] - VOCABULARIES["en"]}


def foreign_lines(output: str, lang: str) -> list[tuple[str, list[str]]]:
    """The lines of ``output`` that say a word of the other language, each with those words."""
    found = []
    for line in output.splitlines():
        said = sorted(said_words(line) & FOREIGN[lang])
        if said:
            found.append((line, said))
    return found
