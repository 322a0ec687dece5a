"""``python -m companion.documents.catalogues``: bring every catalogue of the package in step with what the code
and the play mats say, and list what each language has yet to translate (docs/TRANSLATING.md).

A msgid the code says is added to every catalogue (untranslated), one it no longer says is dropped, and the
entries follow the order the code says them in. Each entry names the files that say it, without line numbers: they
would change the catalogues at every edit of the code.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from companion.documents.drawings import mat_texts
from companion.hardware import HARDWARE_DIR
from companion.i18n import DOMAIN, LOCALE, SOURCE_LANGUAGE, PoEntry, parse_po, said_in_code

__all__ = ["format_po", "said", "update_catalogue"]


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


def format_po(header: PoEntry, entries: Iterable[PoEntry], texts: Mapping[str, list[str]]) -> str:
    """A catalogue's text: its header, then each entry with the files that say it."""
    lines = ['msgid ""', 'msgstr ""', *(_quoted(line + "\n") for line in header.msgstr[0].splitlines())]
    for entry in entries:
        files = sorted({_place(where)[0] for where in texts.get(entry.msgid, [])})
        lines.append("")
        lines += [f"#: {' '.join(files)}"] if files else []
        lines += ["#, fuzzy"] if entry.fuzzy else []
        lines.append(f"msgid {_quoted(entry.msgid)}")
        lines.append(f"msgstr {_quoted(entry.msgstr[0] if entry.msgstr else '')}")
    return "\n".join(lines) + "\n"


def update_catalogue(path: Path, texts: Mapping[str, list[str]]) -> list[str]:
    """Brings the catalogue at ``path`` in step with ``texts``; returns the msgids it leaves untranslated."""
    text = path.read_text("utf-8")
    comment = "".join(line + "\n" for line in text.splitlines() if line.startswith("# "))  # the file's own words
    entries = parse_po(text, str(path))
    header = next(entry for entry in entries if not entry.msgid)
    known = {entry.msgid: entry for entry in entries if entry.msgid}
    order = sorted(texts, key=lambda msgid: min(_place(where) for where in texts[msgid]))
    kept = [known.get(msgid) or PoEntry(msgid, [""]) for msgid in order]
    path.write_text(comment + format_po(header, kept, texts), "utf-8")
    return [entry.msgid for entry in kept if not entry.translated]


def main() -> int:
    texts, built = said()
    for where in built:
        print(f"{where}: an f-string is translated; translate its template, then .format() it", file=sys.stderr)
    status = 1 if built else 0
    for path in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        untranslated = update_catalogue(path, texts)
        if path.parts[-3] != SOURCE_LANGUAGE and untranslated:
            status = 1
            print(f"{path}: {len(untranslated)} to translate:")
            print("".join(f"  {msgid!r}\n" for msgid in untranslated), end="")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
