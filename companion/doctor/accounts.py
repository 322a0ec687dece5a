"""The service user as doctor sees it: from the system's user database on this Pi, or from the ``etc/passwd`` and
``etc/group`` files under another root (an SD card mounted on another machine), read as the Pi's own tools do."""

from __future__ import annotations

import grp
import pwd
from dataclasses import dataclass
from pathlib import Path

from companion.doctor.checks import System

__all__ = ["MAX_ACCOUNT_FILE", "Account", "AccountFileError", "account", "group_names"]

MAX_ACCOUNT_FILE = 4 << 20  # a Pi's user and group files are a few kB: anything larger is read no further


class AccountFileError(ValueError):
    """``/etc/passwd`` or ``/etc/group`` under doctor's root cannot be read; the message names the line."""


@dataclass(frozen=True)
class Account:
    """The service user: its uid and every group id it has (primary and supplementary)."""

    name: str
    uid: int
    gids: frozenset[int]


def account(system: System) -> Account | None:
    """The service user, from the system's user database at ``/``, or the root's ``etc/passwd``.

    :class:`AccountFileError` when the root's ``etc/passwd`` or ``etc/group`` has a line it cannot read."""
    user = system.user
    if system.root == Path("/"):
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            return None
        supplementary = {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}
        return Account(user, entry.pw_uid, frozenset({entry.pw_gid} | supplementary))
    users = _colon_file(system, "/etc/passwd", fields=7)
    if user not in users:
        return None
    _, uid, gid = users[user][:3]
    groups = _colon_file(system, "/etc/group", fields=4)
    members = {int(f[1]) for f in groups.values() if user in f[2].split(",")}
    return Account(user, int(uid), frozenset({int(gid)} | members))


def group_names(system: System) -> dict[int, str]:
    if system.root == Path("/"):
        return {g.gr_gid: g.gr_name for g in grp.getgrall()}
    return {int(f[1]): name for name, f in _colon_file(system, "/etc/group", fields=4).items()}


def _colon_file(system: System, name: str, *, fields: int) -> dict[str, list[str]]:
    """``/etc/passwd`` (7 fields) or ``/etc/group`` (4) under the root: name -> the fields after it (x, id,
    ...). A missing file is empty; a line without its fields or with an id that is not a number is an
    :class:`AccountFileError` naming the file and the line (the Pi's own tools would skip that entry)."""
    path = system.path(name)
    try:
        text = path.read_bytes()[:MAX_ACCOUNT_FILE].decode("utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise AccountFileError(f"{name} is not UTF-8 text (byte {exc.start})") from None
    entries: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith(("#", "+", "-")):  # blank, comment, NIS compat entries
            continue
        parts = line.split(":")
        numbers = parts[2:4] if fields == 7 else parts[2:3]
        if len(parts) != fields or not all(part.isdigit() for part in numbers):
            raise AccountFileError(
                f"{name} line {number} is malformed ({line[:60]!r}): it needs {fields} fields separated by ':' "
                "with numeric ids"
            )
        entries.setdefault(parts[0], parts[1:])
    return entries
