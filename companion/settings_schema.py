"""Declared settings: a schema of typed keys, the reader that reads a parsed TOML document by it, and the sample
file it writes (as Mopidy's config types: a key's type, default and bounds declared once, read by the schema,
which returns the values and every error).

A :class:`Key` is one key of a file: its dotted name, its type, its default, its bounds or allowed values, and its
help (an English msgid, translated by the catalogues where a person reads it: the sample file, ``--help``). The
config (:mod:`companion.config`) is such a schema, the reader kinds' own ``[readers]`` keys are keys of the same
form; nothing here knows either::

    >>> keys = (number("table.size", 4, "how many", low=2, high=8), flag("table.lit", True, "its LEDs"))
    >>> read = Document("example", {"table": {"size": 9, "lamp": 1}}, keys)
    >>> read.value("table.size"), read.value("table.lit")
    (4, True)
    >>> read.refuse_unknown()
    >>> print("\\n".join(read.problems))
    example: table.size: 9 is not between 2 and 8
    example: table.lamp: unknown key; did you mean table.lit?

A wrong value is said with the file, the key and what was wrong, and read as its key's default, so that reading
goes on to find the other problems; a key or table that the schema does not declare is refused, with the nearest
declared one, so that a typo is never silently ignored.
"""

from __future__ import annotations

import difflib
import json
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from companion.i18n import N_, _, translate

__all__ = [
    "Document",
    "Key",
    "Plain",
    "choice",
    "flag",
    "number",
    "path",
    "sample",
    "table",
    "text",
    "texts",
]

T = TypeVar("T")
Type = Literal["text", "path", "choice", "number", "flag", "texts", "table"]
Plain = str | int | bool  # a value of a free table (``[zones]``, ``[game.options]``)


@dataclass(frozen=True)
class Key(Generic[T]):
    """One key of a file. Made by :func:`text`, :func:`path`, :func:`choice`, :func:`number`, :func:`flag`,
    :func:`texts` or :func:`table`, which say its type."""

    name: str  # dotted from the file's top: "game.players"; a reader kind's own: its name in [readers]
    type: Type
    default: T
    help: str  # an English msgid (marked N_): what the key is, and what its values mean
    low: int = 0  # a number's bounds
    high: int = 0
    choices: Callable[[], tuple[str, ...]] | None = field(default=None, compare=False)  # a choice's values, now
    option: bool = False  # the command line takes it too (a reader kind's hub_port as enroll's --hub-port)

    def within(self, table: str) -> Key[T]:
        """The same key in ``table``: a reader kind's ``hub_port`` as the config's ``readers.hub_port``."""
        return Key(f"{table}.{self.name}", self.type, self.default, self.help, self.low, self.high, self.choices)

    def bounds(self, language: str) -> str:
        """Its values in words, for the sample: ``2 to 8``, ``es, en``; empty when any value of its type goes."""
        if self.type == "number":
            return translate(N_("{low} to {high}"), language).format(low=self.low, high=self.high)
        if self.type == "choice" and self.choices is not None:
            return ", ".join(self.choices())
        return ""


def text(name: str, default: str, help: str, *, option: bool = False) -> Key[str]:
    return Key(name, "text", default, help, option=option)


def path(name: str, default: str, help: str) -> Key[str]:
    """Text that names a file: never empty."""
    return Key(name, "path", default, help)


def choice(name: str, default: str, help: str, choices: Callable[[], tuple[str, ...]]) -> Key[str]:
    """Text that is one of ``choices()``, asked when the key is read (the games and reader kinds installed)."""
    return Key(name, "choice", default, help, choices=choices)


def number(name: str, default: int, help: str, *, low: int, high: int) -> Key[int]:
    """A whole number from ``low`` to ``high``."""
    return Key(name, "number", default, help, low=low, high=high)


def flag(name: str, default: bool, help: str) -> Key[bool]:
    return Key(name, "flag", default, help)


def texts(name: str, help: str) -> Key[tuple[str, ...]]:
    """A list of texts; none by default."""
    return Key(name, "texts", (), help)


def table(name: str, help: str) -> Key[Mapping[str, Plain]]:
    """A free table of plain values (text, number, true or false), checked by whoever reads it; empty by default."""
    return Key(name, "table", {}, help)


class Document:
    """A parsed TOML document read by ``keys``: :meth:`value` gives each key's value, or its default after
    recording what was wrong (:attr:`problems`: ``file: key: reason``, in the order found; :attr:`failed`: their
    keys); :meth:`refuse_unknown` refuses what no key declares."""

    def __init__(self, source: str, data: Mapping[str, Any], keys: Iterable[Key[Any]]) -> None:
        self.source, self.data = source, data
        self.keys = {key.name: key for key in keys}
        self.problems: list[str] = []
        self.failed: set[str] = set()
        self.asked: set[str] = set()  # the keys whose value was asked for: a key declared and never read is a bug

    def fail(self, key: str, reason: str) -> None:
        """Record a problem; reading goes on (a look-up gives its default) to find the others."""
        self.problems.append(f"{self.source}: {key}: {reason}")
        self.failed.add(key)

    def raw(self, name: str) -> Any:
        """What the document gives for ``name``, unchecked; None when it gives nothing."""
        value = self._get(name)
        return None if value is _MISSING else value

    def value(self, name: str) -> Any:
        """The value of the declared key ``name``, checked by its type; its default when it is left out or wrong."""
        key = self.keys[name]
        self.asked.add(name)
        value = self._get(name)
        if value is _MISSING:
            return key.default
        reason = _READ[key.type](self, key, value)
        if isinstance(reason, _Wrong):
            self.fail(name, reason.said)
            return key.default
        return reason

    def refuse_unknown(self) -> None:
        """Refuse every key or table that no key declares, naming the nearest declared one."""
        known = set(self.keys)
        tables = {key.rsplit(".", i)[0] for key in known for i in range(1, key.count(".") + 1)}

        def walk(node: Mapping[str, Any], prefix: str) -> None:
            for name, value in node.items():
                key = prefix + name
                if key in known:
                    continue
                if key in tables:
                    if not isinstance(value, Mapping):
                        said = _("must be a table ([{key}] and its keys below it), not {value}")
                        self.fail(key, said.format(key=key, value=repr(value)))
                    else:
                        walk(value, key + ".")
                    continue
                what = _("unknown table") if isinstance(value, Mapping) else _("unknown key")
                self.fail(key, what + self._nearest(key, known | tables))

        walk(self.data, "")

    def _nearest(self, key: str, declared: set[str]) -> str:
        valid = sorted(declared)
        near = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
        if not near:  # a key put in the wrong table: look by its own name
            last = key.rsplit(".", 1)[-1]
            near = [k for k in valid if difflib.get_close_matches(last, [k.rsplit(".", 1)[-1]], cutoff=0.8)][:1]
        if not near:
            return _(" (valid: {keys})").format(keys=", ".join(k for k in valid if "." not in k))
        return _("; did you mean {key}?").format(key=near[0])

    def _get(self, name: str) -> Any:
        node: Any = self.data
        for part in name.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return _MISSING
            node = node[part]
        return node

    # -- each type's check: the value, or what is wrong with it ------------------------------------------------

    def _text(self, key: Key[Any], value: Any) -> Any:
        if not isinstance(value, str):
            return _Wrong(_("must be text in quotes, not {value}").format(value=repr(value)))
        return value

    def _path(self, key: Key[Any], value: Any) -> Any:
        if isinstance(checked := self._text(key, value), _Wrong):
            return checked
        return _Wrong(_("must name a file, not be empty")) if not value.strip() else value

    def _choice(self, key: Key[Any], value: Any) -> Any:
        if isinstance(checked := self._text(key, value), _Wrong):
            return checked
        choices = key.choices() if key.choices is not None else ()
        if value not in choices:
            return _Wrong(_("{value} is not one of {choices}").format(value=repr(value), choices=", ".join(choices)))
        return value

    def _number(self, key: Key[Any], value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            return _Wrong(_("must be a whole number, not {value}").format(value=repr(value)))
        if not key.low <= value <= key.high:
            return _Wrong(_("{value} is not between {low} and {high}").format(value=value, low=key.low, high=key.high))
        return value

    def _flag(self, key: Key[Any], value: Any) -> Any:
        if not isinstance(value, bool):
            return _Wrong(_("must be true or false, not {value}").format(value=repr(value)))
        return value

    def _texts(self, key: Key[Any], value: Any) -> Any:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return _Wrong(_("must be a list of texts, not {value}").format(value=repr(value)))
        return tuple(value)

    def _table(self, key: Key[Any], value: Any) -> Any:
        if not isinstance(value, Mapping):
            return _Wrong(_("must be a table of keys"))
        plain = {}
        for name, item in value.items():
            if isinstance(item, Plain):
                plain[name] = item
            else:  # the table's other values are read; this one alone is refused
                self.fail(f"{key.name}.{name}", _("must be a plain value, not {value}").format(value=repr(item)))
        return plain


@dataclass(frozen=True)
class _Wrong:
    said: str


_MISSING = object()
_READ: dict[Type, Callable[[Document, Key[Any], Any], Any]] = {
    "text": Document._text,
    "path": Document._path,
    "choice": Document._choice,
    "number": Document._number,
    "flag": Document._flag,
    "texts": Document._texts,
    "table": Document._table,
}

WIDTH = 118  # the sample's lines, as the code's


def sample(
    keys: Sequence[Key[Any]],
    *,
    head: str,
    language: str,
    notes: Mapping[str, Sequence[str]] | None = None,
    values: Mapping[str, Any] | None = None,
) -> str:
    """The sample file of ``keys``, in their order, a table's keys under its ``[table]`` line: each key's help (in
    ``language``), its bounds and ``notes`` (lines said as they are, given by key name) as comments above it, then
    the key with its default (or its value in ``values``). ``head`` is the file's first comment (a msgid)."""
    notes, values = notes or {}, values or {}
    lines = _comment(translate(head, language))
    current: str | None = None
    for key in keys:
        table, _dot, name = key.name.rpartition(".")
        if key.type == "table":
            table, name = key.name, ""
        if table != current:
            lines += ["", f"[{table}]"]
            current = table
        said = translate(key.help, language)
        if bounds := key.bounds(language):
            said += f" ({bounds})"
        lines += _comment(said)
        for note in notes.get(key.name, ()):
            lines += _comment(note)
        value = values.get(key.name, key.default)
        if key.type == "table":
            lines += [f"{item} = {_toml(entry)}" for item, entry in value.items()]
        else:
            lines.append(f"{name} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _comment(said: str) -> list[str]:
    return textwrap.wrap(said, WIDTH, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)


def _toml(value: Any) -> str:
    """A value as TOML writes it: its text in quotes, true or false, a number, a list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")
