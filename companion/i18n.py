"""The table's words in every language: one gettext catalogue per language, read by Python's own :mod:`gettext`.

Texts are written in the code in English, as gettext's msgids, and each language is one file,
``companion/locale/<lang>/LC_MESSAGES/companion.po``. The English catalogue lists every msgid and translates none:
it is the template a translator copies. A text a catalogue lacks is said in English, as gettext does::

    >>> translate("Unknown card on {zone}", "es"), translate("Unknown card on {zone}", "en")
    ('Carta desconocida en {zone}', 'Unknown card on {zone}')
    >>> language_name("es"), language_name("en")
    ('Español', 'English')

The table speaks the language of its config (``game.language``, :func:`translate` with the table's language); the
command line speaks one language for the whole process, chosen once by :func:`companion.cli.main`
(:func:`choose_language`), in which :func:`_` translates. A text defined in one place and said in another (a table
of texts by key) is marked with :func:`N_`, so that the check of the catalogues (``tests/test_i18n.py``) finds it
(:mod:`companion.documents.catalogues` reads the code for them).

The ``.po`` files are read as they are, by polib (:func:`parse_po`); :func:`compile_po` turns one into the binary
``.mo`` form that :class:`gettext.GNUTranslations` loads, in memory, so there is no build step and no second file
to keep in step. A text said of a count has plural forms (:func:`ngettext`, :func:`translate_n`), chosen by the
catalogue's ``Plural-Forms`` header.
Folders named in ``COMPANION_LOCALES`` (separated by ``:``) are searched before the package's own.
"""

from __future__ import annotations

import errno
import gettext
import io
import os
import stat
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import polib

__all__ = [
    "DEFAULT_LANGUAGE",
    "DOMAIN",
    "LOCALE",
    "N_",
    "SOURCE_LANGUAGE",
    "Plural",
    "Said",
    "SaidError",
    "_",
    "choose_language",
    "compile_po",
    "is_translated",
    "language",
    "language_name",
    "languages",
    "ngettext",
    "os_reason",
    "parse_po",
    "say",
    "set_language",
    "translate",
    "translate_n",
    "translation",
]

DOMAIN = "companion"
LOCALE = Path(__file__).parent / "locale"
SOURCE_LANGUAGE = "en"  # the language of the msgids
DEFAULT_LANGUAGE = "es"  # what a table speaks when nothing says otherwise: the games are Spanish
LOCALES_VARIABLE = "COMPANION_LOCALES"


class Said:
    """A text to say later, in whatever language it is asked for: an English msgid and the fields that fill it
    (a field that is itself Said is said in the same language). ``str()`` says it in English.

    >>> Said(N_("{path}: damaged ({check})"), path="j.db", check="ok").text("es")
    'j.db: dañado (ok)'
    """

    def __init__(self, msgid: str, **fields: object) -> None:
        self.msgid, self.fields = msgid, fields

    def text(self, lang: str) -> str:
        fields = {key: value.text(lang) if isinstance(value, Said) else value for key, value in self.fields.items()}
        return translate(self.msgid, lang).format(**fields)

    def __str__(self) -> str:
        return self.text(SOURCE_LANGUAGE)

    def __repr__(self) -> str:
        return f"Said({self.msgid!r}, **{self.fields!r})"


class SaidError(ValueError):
    """An error said in any language: ``str()`` is English (logs, tracebacks); :meth:`text` says it in ``lang``."""

    def __init__(self, said: Said) -> None:
        super().__init__(str(said))
        self.said = said

    def text(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return self.said.text(lang)


def N_(message: str) -> str:
    """Marks ``message`` as a msgid said later through :func:`translate` or :func:`_`; returns it as it is."""
    return message


# The system's commonest reasons, which it says in English only (Python's strerror ignores the locale).
OS_ERRORS = {
    errno.ENOENT: N_("no such file"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENOTDIR: N_("a part of its path is not a folder"),
    errno.ENOSPC: N_("the disk is full"),
    errno.EROFS: N_("the disk is read-only"),
}


def os_reason(exc: OSError) -> Said | str:
    """Why ``exc`` happened, in any language for the commonest reasons; else the system's own words.

    >>> os_reason(FileNotFoundError(errno.ENOENT, "No such file or directory")).text("es")
    'no existe el fichero'
    """
    if exc.errno in OS_ERRORS:
        return Said(OS_ERRORS[exc.errno])
    return exc.strerror or str(exc)


# ---- reading a .po file --------------------------------------------------------------------------------------


def parse_po(text: str, source: str = "<po>") -> polib.POFile:
    """The catalogue a ``.po`` file's text holds (polib's reading of it); a broken one raises ``ValueError`` with
    its line.

    >>> [(e.msgid, e.msgstr) for e in parse_po('msgid "Pot"\\nmsgstr "Bote"\\n')]
    [('Pot', 'Bote')]
    """
    try:
        return polib.pofile(text, wrapwidth=0)
    except OSError as exc:  # polib says a syntax error so: "Syntax error in po file (line 2)"
        raise ValueError(f"{source}: {exc}") from None


def compile_po(catalogue: polib.POFile) -> bytes:
    """The ``.mo`` form of ``catalogue``, as msgfmt writes it: its header and its translated entries (a fuzzy or
    empty one is left out), contexts and plural forms kept."""
    return bytes(catalogue.to_binary())


def is_translated(entry: polib.POEntry) -> bool:
    """Whether gettext would say ``entry``'s translation: every form filled in, and not fuzzy."""
    return bool(entry.translated())


# ---- finding and loading catalogues ---------------------------------------------------------------------------


def _folders() -> tuple[Path, ...]:
    extra = [Path(folder) for folder in os.environ.get(LOCALES_VARIABLE, "").split(os.pathsep) if folder]
    return (*extra, LOCALE)


def catalogue_path(lang: str) -> Path | None:
    """The ``.po`` file of ``lang``: the first found in ``COMPANION_LOCALES``'s folders, then the package's."""
    for path, _name in _places(os.environ.get(LOCALES_VARIABLE, ""), lang):
        if path.is_file():
            return path
    return None


def languages() -> tuple[str, ...]:
    """Every language a catalogue is found for: Spanish and English first, then the others by their code."""
    found = {path.parts[-3] for folder in _folders() for path in folder.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    first = (DEFAULT_LANGUAGE, SOURCE_LANGUAGE)
    return first + tuple(sorted(found - set(first)))


def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue of ``lang``; a language without one says everything in English (the msgids).

    A catalogue dropped or edited since is read again (a translator trying theirs on a running table): each call
    looks at the files, one ``stat`` each, the places to look made once (every sentence on the screen, the page and
    the voice asks, so the look costs a few microseconds, not the tens that building the paths took)."""
    for path, name in _places(os.environ.get(LOCALES_VARIABLE, ""), lang):
        try:
            found = os.stat(name)
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode):
            return _load(path, found.st_mtime_ns)
    return _load(None, 0)


@cache
def _places(_folders_named: str, lang: str) -> tuple[tuple[Path, str], ...]:
    """Where ``lang``'s catalogue may be, in the order :func:`catalogue_path` looks (for ``COMPANION_LOCALES`` as
    it reads now), each path with its name for ``os.stat``."""
    paths = [folder / lang / "LC_MESSAGES" / f"{DOMAIN}.po" for folder in _folders()]
    return tuple((path, str(path)) for path in paths)


@cache
def _load(path: Path | None, _modified: int) -> gettext.NullTranslations:
    if path is None:
        return gettext.NullTranslations()
    mo = compile_po(parse_po(path.read_text("utf-8"), str(path)))
    return gettext.GNUTranslations(io.BytesIO(mo))  # its Plural-Forms header chooses the plural forms


def translate(message: str, lang: str) -> str:
    """``message`` (an English msgid) in ``lang``, the table's or the page's language."""
    return translation(lang).gettext(message)


def translate_n(singular: str, plural: str, n: int, lang: str) -> str:
    """The form of ``singular``/``plural`` (English msgids) for ``n`` in ``lang``, as its catalogue's
    ``Plural-Forms`` chooses it.

    >>> one, more = "{path}: {count} problem; nothing was started", "{path}: {count} problems; nothing was started"
    >>> [translate_n(one, more, n, "es").split(";")[0] for n in (1, 2)]
    ['{path}: {count} problema', '{path}: {count} problemas']
    """
    return translation(lang).ngettext(singular, plural, n)


class Plural(str):
    """A text of a table of texts (the referee's, a game kind's, the rules' sentences) said of a count: the string is
    its singular msgid, ``plural`` its plural and ``counted`` the field that counts. It is a ``str``, so a table of
    texts stays one of strings; :func:`say` picks the form the language's catalogue gives the count (ngettext)."""

    plural: str
    counted: str

    def __new__(cls, singular: str, plural: str, counted: str) -> Plural:
        text = super().__new__(cls, singular)
        text.plural, text.counted = plural, counted
        return text


def say(text: str, lang: str, **fields: Any) -> str:
    """A text of a table of texts in ``lang``, filled with ``fields``; a :class:`Plural` in the form its count asks::

    >>> left = Plural("A master on each zone: {left} left", "A master on each zone: {left} left", "left")
    >>> say(left, "es", left=1), say(left, "es", left=2), say("Hub lost", "es")
    ('Maestra en cada zona: falta 1', 'Maestra en cada zona: faltan 2', 'Concentrador perdido')
    """
    if isinstance(text, Plural):
        return translate_n(text, text.plural, int(fields[text.counted]), lang).format(**fields)
    return translate(text, lang).format(**fields)


def language_name(lang: str) -> str:
    """``lang`` as its own speakers write it: the ``X-Language-Name`` of its catalogue's header, else its code."""
    return str(translation(lang).info().get("x-language-name", lang))


# ---- the command line's one language -------------------------------------------------------------------------

_language = SOURCE_LANGUAGE


def set_language(lang: str) -> None:
    """Makes ``lang`` the language :func:`_` speaks in (the command line's, for the whole process)."""
    global _language
    _language = lang


def language() -> str:
    """The command line's language, as :func:`set_language` last set it (English until then)."""
    return _language


def _(message: str) -> str:
    """``message`` (an English msgid) in the command line's language."""
    return translate(message, _language)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the command line's language."""
    return translate_n(singular, plural, n, _language)


def choose_language(given: str | None, config: str | None, environ: Mapping[str, str]) -> str:
    """The command line's language: ``given`` (``--lang``), else the config's, else the environment's as gettext
    reads it (the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set; its first language a
    catalogue speaks), else English: the C locale, which a service and a bare shell run in, is untranslated.

    >>> choose_language(None, None, {"LANG": "es_ES.UTF-8"}), choose_language(None, None, {"LANG": "C.UTF-8"})
    ('es', 'en')
    >>> choose_language(None, "es", {"LANG": "en_GB.UTF-8"}), choose_language("en", "es", {})
    ('es', 'en')
    """
    if given or config:
        return given or config or ""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(variable):
            known = languages()
            for word in environ[variable].split(":"):
                lang = word.split(".")[0].split("@")[0].split("_")[0]
                if lang in known:
                    return lang
            break
    return SOURCE_LANGUAGE
