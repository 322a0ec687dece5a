"""The registry of reader kinds: their names, what each is, and its own ``[readers]`` keys.

It sits with the core, below everything that reads cards: the config checks ``readers.backend`` and the kinds'
keys against it without importing a single reader. The kinds (:mod:`companion.readers`) register themselves when
their module is imported; companion's own are loaded by module name (:data:`BUILTIN`) the first time the registry
is asked, as an extension is by its entry point, so no import in the core names a reader module::

    >>> names()[:4]
    ('spi', 'mfrc522', 'hub', 'sim')
    >>> registered("hub").settings["hub_port"].default
    'auto'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = ["BUILTIN", "DEFAULT", "KINDS", "Registered", "Setting", "names", "register", "registered"]

# The modules of the kinds companion ships; each registers its kinds when imported.
BUILTIN = ("companion.readers.rc522_spi", "companion.readers.hub", "companion.readers.sim")
DEFAULT = "spi"  # readers.backend when the config leaves it out: an MFRC522 on the Pi's SPI, read by our driver


@dataclass(frozen=True)
class Setting:
    """A ``[readers]`` key of one kind: its default and what it is. ``option``: enroll and ``cards`` take it on
    the command line too (``hub_port`` as ``--hub-port``)."""

    default: str
    about: str
    option: bool = False


class Registered(Protocol):
    """What the registry knows of a kind (a :class:`companion.readers.ReaderKind` is all of it and more)."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...  # what it is, for enroll's --help

    @property
    def simulated(self) -> bool: ...  # off a Pi, mock pins (companion.pins.choose) and enroll --auto

    @property
    def settings(self) -> Mapping[str, Setting]: ...  # its own [readers] keys


KINDS: dict[str, Registered] = {}  # every registered kind by name (as python-chess's VARIANTS)
K = TypeVar("K", bound=Registered)


def register(kind: K) -> K:
    """Make ``kind`` known by its name (a second kind of the same name is refused)."""
    known = KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"a reader kind named {kind.name!r} is registered already ({type(known).__name__})")
    KINDS[kind.name] = kind
    return kind


def _load_builtin() -> None:
    for module in BUILTIN:
        importlib.import_module(module)  # a kind module registers itself when imported


def names() -> tuple[str, ...]:
    """Every registered kind's name, companion's own first, in :data:`BUILTIN`'s order whichever module was
    imported first (each module's kinds as it registers them), then the others as they registered."""
    _load_builtin()
    order = {module: index for index, module in enumerate(BUILTIN)}
    return tuple(sorted(KINDS, key=lambda name: order.get(type(KINDS[name]).__module__, len(order))))


def registered(name: str) -> Registered:
    """The kind registered as ``name``; a ``KeyError`` names the known ones."""
    _load_builtin()
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no reader kind {name!r}; the kinds are {', '.join(KINDS)}") from None
