"""``python -m companion.documents.catalogues``: bring every catalogue of the package in step with what the code
and the play mats say, and list what each language has yet to translate (docs/TRANSLATING.md).

A msgid the code says is added to every catalogue (untranslated), one it no longer says is dropped, and the
entries follow the order the code says them in. Each entry names the files that say it, without line numbers: they
would change the catalogues at every edit of the code.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import polib

import companion
from companion.documents.drawings import mat_texts
from companion.hardware import HARDWARE_DIR
from companion.i18n import DOMAIN, LOCALE, SOURCE_LANGUAGE, is_translated, parse_po

__all__ = ["MARKERS", "PLURALS", "format_po", "plurals_in_code", "said", "said_in_code", "update_catalogue"]

PACKAGE = Path(companion.__file__).parent  # the code whose texts the catalogues hold
MARKERS = ("_", "N_", "translate", "ngettext", "translate_n", "Plural")  # the calls whose first argument is a msgid
PLURALS = ("ngettext", "translate_n", "Plural")  # the calls whose second argument is its plural


def said_in_code(package: Path = PACKAGE) -> tuple[dict[str, list[str]], list[str]]:
    """Every msgid the package says (a string literal given to ``_``, ``N_``, ``translate``, ``ngettext`` or
    ``translate_n``) -> where it says it, and where an f-string is given to be translated (no catalogue can hold
    one: translate the template)."""
    said: dict[str, list[str]] = {}
    built: list[str] = []
    for path, node in _calls(package):
        first = node.args[0] if node.args else None
        where = f"{path.relative_to(package.parent).as_posix()}:{node.lineno}"
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            said.setdefault(first.value, []).append(where)
        elif isinstance(first, ast.JoinedStr):
            built.append(where)
    return said, built


def plurals_in_code(package: Path = PACKAGE) -> dict[str, str]:
    """The msgid of every text the package says with plural forms -> its plural (``ngettext``'s second argument)."""
    plurals: dict[str, str] = {}
    for _path, node in _calls(package):
        if isinstance(node.func, ast.Name) and node.func.id in PLURALS and len(node.args) > 1:
            singular, plural = node.args[0], node.args[1]
            if isinstance(singular, ast.Constant) and isinstance(plural, ast.Constant):
                plurals[str(singular.value)] = str(plural.value)
    return plurals


def _calls(package: Path) -> Iterable[tuple[Path, ast.Call]]:
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                yield path, node


def said() -> tuple[dict[str, list[str]], list[str]]:
    """Every msgid the package and the mats say -> where; and where a text is built before it is translated."""
    texts, built = said_in_code()
    for text, where in mat_texts(HARDWARE_DIR / "zones.toml").items():
        texts.setdefault(text, []).extend(where)
    return texts, built


def _place(where: str) -> tuple[str, int]:
    path, _colon, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, 0)


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def format_po(header: str, entries: Iterable[polib.POEntry], texts: Mapping[str, list[str]]) -> str:
    """A catalogue's text: its header (its ``Key: value`` lines), then each entry with the files that say it; an
    entry with plural forms has as many ``msgstr[n]`` as the header's ``Plural-Forms`` says."""
    found = re.search(r"nplurals\s*=\s*(\d+)", header)
    forms = int(found.group(1)) if found else 2
    lines = ['msgid ""', 'msgstr ""', *(_quoted(line + "\n") for line in header.splitlines())]
    for entry in entries:
        files = sorted({_place(where)[0] for where in texts.get(entry.msgid, [])})
        lines.append("")
        lines += [f"#: {' '.join(files)}"] if files else []
        lines += ["#, fuzzy"] if entry.fuzzy else []
        lines.append(f"msgid {_quoted(entry.msgid)}")
        if entry.msgid_plural:
            lines.append(f"msgid_plural {_quoted(entry.msgid_plural)}")
            lines += [f"msgstr[{n}] {_quoted(entry.msgstr_plural.get(n, ''))}" for n in range(forms)]
        else:
            lines.append(f"msgstr {_quoted(entry.msgstr)}")
    return "\n".join(lines) + "\n"


def _entry(msgid: str, plural: str | None, known: polib.POEntry | None) -> polib.POEntry:
    """The catalogue's entry for ``msgid`` as the code says it: the one it has, else a new untranslated one."""
    if known is not None and (known.msgid_plural or None) == plural:
        return known
    if plural is None:
        return polib.POEntry(msgid=msgid, msgstr="")
    return polib.POEntry(msgid=msgid, msgid_plural=plural, msgstr_plural={})


def update_catalogue(path: Path, texts: Mapping[str, list[str]], plurals: Mapping[str, str]) -> list[str]:
    """Brings the catalogue at ``path`` in step with ``texts`` (and the plurals of those said of a count);
    returns the msgids it leaves untranslated."""
    text = path.read_text("utf-8")
    comment = "".join(line + "\n" for line in text.splitlines() if line.startswith("# "))  # the file's own words
    catalogue = parse_po(text, str(path))
    header = "".join(f"{key}: {value}\n" for key, value in catalogue.metadata.items())
    known = {entry.msgid: entry for entry in catalogue if entry.msgid and not entry.obsolete}
    order = sorted(texts, key=lambda msgid: min(_place(where) for where in texts[msgid]))
    kept = [_entry(msgid, plurals.get(msgid), known.get(msgid)) for msgid in order]
    path.write_text(comment + format_po(header, kept, texts), "utf-8")
    return [entry.msgid for entry in kept if not is_translated(entry)]


def main() -> int:
    texts, built = said()
    for where in built:
        print(f"{where}: an f-string is translated; translate its template, then .format() it", file=sys.stderr)
    status = 1 if built else 0
    for path in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        untranslated = update_catalogue(path, texts, plurals_in_code())
        if path.parts[-3] != SOURCE_LANGUAGE and untranslated:
            status = 1
            print(f"{path}: {len(untranslated)} to translate:")
            print("".join(f"  {msgid!r}\n" for msgid in untranslated), end="")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
