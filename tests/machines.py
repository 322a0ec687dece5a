"""Machines by their locale, as the environment gives it to every program: one whose locale is Spanish
(``LANG=es_ES.UTF-8``) and one whose locale is C (``LC_ALL=C``); ``LANGUAGE`` and the other ``LC_*`` unset.
companion reads the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` (``choose_language``): Spanish,
or English in the C locale. The README's journeys (tests/journey/) run its commands on both; on sys.path through
pyproject.toml's pytest ``pythonpath``.

On a Spanish machine the locale itself is there, so that every program (``ls``, ``make``, a shell) speaks as it
does there: where this machine has not generated es_ES.UTF-8, :func:`spanish_locale` compiles it with Debian's
``localedef`` (package ``locales``, the Makefile's ``debian`` target) into a folder that ``LOCPATH`` names.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["MACHINES", "machine", "spanish_locale"]

MACHINES = {"es": {"LANG": "es_ES.UTF-8"}, "C": {"LC_ALL": "C"}}
SPOKEN = {"es": "es", "C": "en"}  # what companion speaks there


def spanish_locale(folder: Path) -> dict[str, str]:
    """What the environment needs for es_ES.UTF-8 to be a real locale: nothing where the machine has generated it,
    else ``LOCPATH``, ``folder`` with the locale compiled into it."""
    listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=True).stdout.split()
    if "es_ES.utf8" in listed:
        return {}
    assert shutil.which("localedef") and Path("/usr/share/i18n/locales/es_ES").is_file(), (
        "no es_ES locale to compile: sudo apt-get install locales (make debian)"
    )
    subprocess.run(["localedef", "-i", "es_ES", "-f", "UTF-8", str(folder / "es_ES.UTF-8")], check=True)
    return {"LOCPATH": str(folder)}


# What a make running the suite (make test) leaves in its children's environment: a person types the README's
# commands at a shell, where a `make install` is no sub-make (a sub-make says "make[1]: Entering directory", in the
# machine's language, around what it does)
MAKE = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")


def machine(name: str, locale: dict[str, str]) -> dict[str, str]:
    """This process's environment as on a machine whose locale is ``name``'s (``locale``: what
    :func:`spanish_locale` gave, for the Spanish one)."""
    env = {
        key: value for key, value in os.environ.items() if key not in ("LANG", "LANGUAGE", *MAKE) and key[:3] != "LC_"
    }
    return {**env, **MACHINES[name], **(locale if name == "es" else {})}
