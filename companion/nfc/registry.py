"""The card registry: which tag (by UID) is which card, one table per deck, in a TOML file.

::

    # companion card registry: tag UID (hex) = card id, one table per deck
    [decks."spanish-40"]
    04A1B2C3D4E5F6 = "6O"

The file is replaced whole on every save (temporary file, fsync, rename, fsync of the directory), so a crash or
a power cut leaves either the old registry or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from pathlib import Path

from companion.events import hexuid
from companion.files import read_text
from companion.i18n import _

__all__ = ["Registry", "RegistryError", "uid_key"]

_HEADER = "# companion card registry: tag UID (hex) = card id, one table per deck. Written by companion enroll.\n"


class RegistryError(ValueError):
    """A registry that cannot be read or a binding that cannot be made; the message says what to do."""


def uid_key(uid: bytes | str) -> str:
    """A UID as the registry spells it: uppercase hex without separators."""
    if isinstance(uid, bytes):
        return hexuid(uid)
    text = uid.replace(":", "").replace(" ", "").upper()
    try:
        bytes.fromhex(text)
    except ValueError:
        raise RegistryError(f"{uid!r} is not a tag UID in hex (like 04A1B2C3D4E5F6)") from None
    return text


class Registry:
    """Bindings of tag UIDs to card ids. ``deck`` is the deck that ``bind`` writes to and lookups prefer."""

    def __init__(self, path: Path, decks: dict[str, dict[str, str]] | None = None, deck: str | None = None) -> None:
        self.path = path
        self.decks: dict[str, dict[str, str]] = decks or {}
        self.deck = deck

    @classmethod
    def load(cls, path: str | Path, deck: str | None = None) -> Registry:
        """Read the registry at ``path``; a file that does not exist yet is an empty registry."""
        path = Path(path)
        try:
            text = read_text(path)
        except FileNotFoundError:
            return cls(path, {}, deck)
        except (OSError, UnicodeDecodeError) as exc:
            raise RegistryError(f"{path}: cannot read the card registry ({exc}); check its permissions") from exc
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RegistryError(
                f"{path}: the card registry is not valid TOML ({exc}); fix the line or move the file away and "
                "enroll the cards again"
            ) from exc
        decks = data.get("decks", {})
        if not isinstance(decks, dict):
            raise RegistryError(f'{path}: "decks" must be tables like [decks."spanish-40"]')
        clean: dict[str, dict[str, str]] = {}
        for name, table in decks.items():
            if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
                raise RegistryError(f'{path}: [decks."{name}"] must map tag UIDs to card ids (04A1B2C3D4E5F6 = "6O")')
            clean[name] = {}
            spelt: dict[str, str] = {}  # each UID as the file spells it
            for uid, card in table.items():
                try:
                    key = uid_key(uid)
                except RegistryError as exc:
                    said = f'{path}: [decks."{name}"]: {exc}; fix the line or enroll the card again'
                    raise RegistryError(said) from None
                if clean[name].setdefault(key, card) != card:
                    said = _(
                        '{path}: [decks."{deck}"]: {first} and {second} are one tag, bound to {card} and {other}: '
                        "delete the wrong line, or enroll the tag again"
                    )
                    first = spelt[key]
                    raise RegistryError(
                        said.format(path=path, deck=name, first=first, second=uid, card=clean[name][key], other=card)
                    )
                spelt.setdefault(key, uid)
        return cls(path, clean, deck)

    def card_for(self, uid: bytes | str) -> str | None:
        """The card a tag is bound to: in ``deck`` if set, else in any deck."""
        key = uid_key(uid)
        if self.deck is not None:
            return self.decks.get(self.deck, {}).get(key)
        return next((table[key] for table in self.decks.values() if key in table), None)

    def bindings(self, deck: str | None = None) -> dict[str, str]:
        """UID to card id of ``deck`` (default: the registry's deck)."""
        return dict(self.decks.get(deck or self.deck or "", {}))

    def uid_for(self, card_id: str, deck: str | None = None) -> str | None:
        return next((uid for uid, card in self.bindings(deck).items() if card == card_id), None)

    def bind(self, uid: bytes | str, card_id: str, rebind: bool = False) -> bool:
        """Bind a tag to a card of ``deck``; returns whether anything changed.

        A tag already bound to another card is refused unless ``rebind``; the card's previous tag, if any, is
        forgotten (one tag per card).
        """
        if self.deck is None:
            raise RegistryError("say which deck the card belongs to (--deck NAME)")
        key = uid_key(uid)
        for deck, table in self.decks.items():
            bound = table.get(key)
            if bound is None or (deck == self.deck and bound == card_id):
                continue
            if not rebind:
                raise RegistryError(
                    f"tag {key} is already card {bound} of deck {deck}; use --rebind to bind it to {card_id} instead"
                )
            del table[key]
        table = self.decks.setdefault(self.deck, {})
        if table.get(key) == card_id:
            return False
        for old in [u for u, card in table.items() if card == card_id]:
            del table[old]
        table[key] = card_id
        return True

    def dumps(self) -> str:
        lines = [_HEADER]
        for deck in sorted(self.decks):
            lines.append(f"\n[decks.{json.dumps(deck)}]\n")
            lines.extend(f"{uid} = {json.dumps(card)}\n" for uid, card in sorted(self.decks[deck].items()))
        return "".join(lines)

    def save(self) -> None:
        """Write the registry atomically: readers see the old file or the new one, never a torn one.

        The new file takes the old one's owner and mode: ``sudo companion enroll`` must not leave the service's
        registry owned by root and unreadable to the ``companion`` user. A first save gets mode 0644 (the
        registry holds no secret) and the folder's owner.
        """
        directory = self.path.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
            try:
                keep = os.stat(self.path)
                mode, owner, group = keep.st_mode & 0o7777, keep.st_uid, keep.st_gid
            except FileNotFoundError:
                folder = os.stat(directory)
                mode, owner, group = 0o644, folder.st_uid, folder.st_gid
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(self.dumps())
                    out.flush()
                    if os.geteuid() == 0:  # only root can give a file away
                        os.fchown(out.fileno(), owner, group)
                    os.fchmod(out.fileno(), mode)
                    os.fsync(out.fileno())
                os.replace(temp, self.path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            dir_fd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            raise RegistryError(
                f"{self.path}: cannot write the card registry ({exc}); check that the folder exists and is writable"
            ) from exc
