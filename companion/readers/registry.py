"""The registry of reader kinds: their names, what each is, and its own ``[readers]`` keys.

It sits with the core, below everything that reads cards: the config checks ``readers.backend`` and the kinds'
keys against it without importing a single reader. The kinds (:mod:`companion.readers`) register themselves when
their module is imported; the modules are found by the ``companion.readers`` entry points (:mod:`companion.plugins`:
``pyproject.toml`` lists companion's own, an outside package its own) the first time the registry is asked, so no
import in the core names a reader module::

    >>> names()[:4]
    ('spi', 'hub', 'mfrc522', 'sim')
    >>> [(key.name, key.default) for key in registered("hub").settings]
    [('hub_port', 'auto')]
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

from companion.plugins import load
from companion.settings_schema import Key

__all__ = ["DEFAULT", "GROUP", "KINDS", "Registered", "names", "register", "registered"]

GROUP = "companion.readers"  # the entry points of the reader kinds (pyproject.toml lists companion's own)
DEFAULT = "spi"  # readers.backend when the config leaves it out: an MFRC522 on the Pi's SPI, read by our driver


@runtime_checkable
class Registered(Protocol):
    """What the registry knows of a kind (a :class:`companion.readers.ReaderKind` is all of it and more)."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...  # what it is, for enroll's --help

    @property
    def simulated(self) -> bool: ...  # off a Pi, mock pins (companion.pins.choose) and enroll --auto

    @property
    def settings(self) -> tuple[Key[Any], ...]: ...  # its own [readers] keys (named within [readers])


KINDS: dict[str, Registered] = {}  # every registered kind by name (as python-chess's VARIANTS)
K = TypeVar("K", bound=Registered)


def register(kind: K) -> K:
    """Make ``kind`` known by its name (a second kind of the same name is refused)."""
    known = KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"a reader kind named {kind.name!r} is registered already ({type(known).__name__})")
    KINDS[kind.name] = kind
    return kind


_found: list[str] | None = None  # the entry points' kinds, in their order, once loaded


def _load() -> list[str]:
    global _found
    if _found is None:
        _found = []  # a kind module that asks the registry while it is imported finds it loading, not again
        _found = load(GROUP, DEFAULT, _register_loaded, lambda name: name in KINDS)
    return _found


def _register_loaded(kind: object) -> object:
    """An entry point that names a kind rather than its module."""
    if not isinstance(kind, Registered):
        raise TypeError(f"it is a {type(kind).__name__}, not a companion.readers.ReaderKind")
    return register(kind)


def names() -> tuple[str, ...]:
    """Every registered kind's name: the entry points' first, in their order (:mod:`companion.plugins`:
    companion's own, the default ahead), whichever module was imported first, then those registered by an import
    of their own (a test's), as they registered."""
    rank = {name: index for index, name in enumerate(_load())}
    return tuple(sorted(KINDS, key=lambda name: rank.get(name, len(rank))))


def registered(name: str) -> Registered:
    """The kind registered as ``name``; a ``KeyError`` names the known ones."""
    _load()
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no reader kind {name!r}; the kinds are {', '.join(names())}") from None
