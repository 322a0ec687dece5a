"""Kinds found by entry points: companion's own and an outside package's alike (as Mopidy finds its extensions).

A group (``companion.games``, ``companion.readers``) names each kind by an entry point: its name is the kind's
name, its value the kind itself (``module:KIND``, registered when it is loaded), or the module whose import
registers it.
companion lists its own in ``pyproject.toml`` (``[project.entry-points]``); an outside package lists its own in
its metadata, and ``pip install`` is all it takes: nothing of companion is edited.

The order is the lists': companion's own kinds first, its default one ahead of the others, then each outside
package's, each list by name (setuptools writes a package's entry points sorted by name, so a package's own order
cannot survive its install). An entry point that fails to load is no crash: it is left out, and
:class:`Broken` names the kind, where it was to come from and the error, for the log and for the config that
names it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

__all__ = ["OWN", "Broken", "broken", "load", "ordered"]

OWN = "companion"  # the distribution whose entry points are the built-in kinds
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Broken:
    """An entry point that could not be loaded: which kind, from where, and why."""

    group: str  # companion.games, companion.readers
    name: str  # the kind's name, as the config would give it
    value: str  # the entry point's value: module[:object]
    package: str  # the distribution that declares it
    error: str

    def __str__(self) -> str:
        return f"{self.name!r} ({self.value}, entry point of {self.package}) cannot be loaded: {self.error}"


def _package(point: EntryPoint) -> str:
    dist = point.dist
    return dist.name if dist is not None else "?"


def ordered(points: Iterable[EntryPoint], default: str) -> list[EntryPoint]:
    """``points`` in the lists' order: companion's own first (``default`` ahead), then each outside package's."""
    return sorted(points, key=lambda p: (_package(p) != OWN, p.name != default, _package(p), p.name))


def load(group: str, default: str, register: Callable[[object], object], known: Callable[[str], bool]) -> list[str]:
    """Load every entry point of ``group``; return the names of the kinds loaded, in the lists' order (see the
    module's doc), and :func:`broken` keeps those that failed. ``register`` takes a loaded kind that is not a
    module (a module registers its kinds when imported); ``known`` says whether a kind of that name is registered
    now, so that an entry point whose module registers no kind of its name is told apart too."""
    names: list[str] = []
    _broken[group] = []
    points = ordered(entry_points(group=group), default)
    if not any(_package(point) == OWN for point in points):
        raise RuntimeError(
            f"companion's own {group} are not among the installed entry points: the install predates them; "
            "install it again (pip install -e ., or make .venv/bin/.installed in a checkout)"
        )
    for point in points:
        try:
            loaded = point.load()
            if not isinstance(loaded, ModuleType):
                register(loaded)
            if not known(point.name):
                raise LookupError(f"it registers no kind named {point.name!r}")
        except Exception as exc:  # whatever an outside package's import raises: it is said, the rest goes on
            failure = Broken(group, point.name, point.value, _package(point), f"{type(exc).__name__}: {exc}")
            _broken[group].append(failure)
            log.warning("%s: %s", group, failure)
            continue
        names.append(point.name)
    return names


_broken: dict[str, list[Broken]] = {}


def broken(group: str) -> tuple[Broken, ...]:
    """The entry points of ``group`` that failed to load, once :func:`load` has tried them."""
    return tuple(_broken.get(group, ()))
