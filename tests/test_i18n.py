"""The catalogues: every text the code says is in every shipped catalogue, and a new language is one file."""

from __future__ import annotations

import ast
import gettext
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import i18n
from companion.config import parse_config
from companion.events import Button, Press, UnknownTag
from companion.i18n import LOCALE, compile_po, language_name, languages, parse_po, translate
from companion.menu import Choice, Menu, Settings
from companion.referee import Referee
from companion.ui.screens import render
from companion.view import TableView

PACKAGE = Path(i18n.__file__).parent
MARKERS = {"_", "N_", "translate"}  # the calls whose first argument is a msgid
FIELD = re.compile(r"\{(\w*)[^{}]*\}")


BUILT: list[str] = []  # where an f-string is given to be translated: no catalogue can hold it


def said_in_code() -> dict[str, list[str]]:
    """Every msgid the package says (a string literal given to ``_``, ``N_`` or ``translate``) -> where."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                first = node.args[0] if node.args else None
                where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.setdefault(first.value, []).append(where)
                elif isinstance(first, ast.JoinedStr):
                    BUILT.append(where)
    return found


def shipped() -> dict[str, dict[str, i18n.PoEntry]]:
    catalogues = {}
    for path in sorted(LOCALE.glob("*/LC_MESSAGES/companion.po")):
        entries = parse_po(path.read_text("utf-8"), str(path))
        catalogues[path.parts[-3]] = {entry.msgid: entry for entry in entries if entry.msgid}
    return catalogues


SAID = said_in_code()
SHIPPED = shipped()


def test_the_package_ships_spanish_and_english() -> None:
    assert set(SHIPPED) >= {"es", "en"}
    assert languages()[:2] == ("es", "en")
    assert len(SAID) > 90  # the walk finds the texts (a walk that finds nothing would pass the checks below)


def test_no_text_is_built_before_it_is_translated() -> None:
    assert not BUILT, f"translate the template with its {{fields}}, then .format() it: {BUILT}"


@pytest.mark.parametrize("lang", sorted(SHIPPED))
def test_every_text_the_code_says_is_in_every_shipped_catalogue(lang: str) -> None:
    missing = {msgid: where for msgid, where in SAID.items() if msgid not in SHIPPED[lang]}
    assert not missing, f"{lang}: add these msgids to companion/locale/{lang}/LC_MESSAGES/companion.po: {missing}"


@pytest.mark.parametrize("lang", sorted(set(SHIPPED) - {"en"}))
def test_every_shipped_translation_is_done_and_keeps_the_fields(lang: str) -> None:
    for entry in SHIPPED[lang].values():
        assert entry.translated, f"{lang}: {entry.msgid!r} is untranslated or fuzzy (line {entry.line})"
        fields = [set(FIELD.findall(text)) for text in (entry.msgid, *entry.msgstr)]
        assert all(found == fields[0] for found in fields), f"{lang}: {entry.msgid!r} changes its {{fields}}"


@pytest.mark.parametrize("lang", sorted(SHIPPED))
def test_no_catalogue_keeps_a_text_the_code_no_longer_says(lang: str) -> None:
    stale = set(SHIPPED[lang]) - set(SAID)
    assert not stale, f"{lang}: remove these entries, the code no longer says them: {sorted(stale)}"


def test_english_is_the_msgids_and_translates_nothing() -> None:
    assert not [entry.msgid for entry in SHIPPED["en"].values() if any(entry.msgstr)]
    assert language_name("en") == "English" and language_name("es") == "Español"


def test_the_compiled_catalogue_is_what_gettext_reads_contexts_plurals_and_all() -> None:
    po = r"""
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#, fuzzy
msgid "Pot"
msgstr "Bote viejo"

msgctxt "card"
msgid "Draw"
msgstr "Roba"

msgid "Draw"
msgstr "Empate"

msgid "{n} card"
msgid_plural "{n} cards"
msgstr[0] "{n} carta"
msgstr[1] "{n} cartas"

msgid "Long"
msgstr ""
"Lí"
"nea"
"""
    catalogue = gettext.GNUTranslations(io.BytesIO(compile_po(parse_po(po))))
    assert catalogue.gettext("Pot") == "Pot"  # a fuzzy entry is not used, as msgfmt leaves it out
    assert (catalogue.pgettext("card", "Draw"), catalogue.gettext("Draw")) == ("Roba", "Empate")
    assert [catalogue.ngettext("{n} card", "{n} cards", n) for n in (1, 3)] == ["{n} carta", "{n} cartas"]
    assert catalogue.gettext("Long") == "Línea"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('msgid "a"\nmsgstr b\n', "xx.po:2: a string must be in double quotes"),
        ('msgstr "b"\n', "xx.po:1: msgstr before any msgid"),
        ('msgid "a"\nmsgstring "b"\n', "xx.po:2: not a line of a .po file"),
    ],
)
def test_a_broken_catalogue_names_its_line(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        parse_po(text, "xx.po")


# ---- a third language is one file ---------------------------------------------------------------------------

FRENCH = """
msgid ""
msgstr ""
"Language: fr\\n"
"X-Language-Name: Français\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgid "Unknown card on {zone}"
msgstr "Carte inconnue sur {zone}"

msgid "Language"
msgstr "Langue"

msgid "Menu"
msgstr "Menu"
"""


@pytest.fixture
def french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A partial French catalogue, dropped where ``COMPANION_LOCALES`` points: the only file of the language."""
    path = tmp_path / "locale" / "fr" / "LC_MESSAGES" / "companion.po"
    path.parent.mkdir(parents=True)
    path.write_text(FRENCH, "utf-8")
    monkeypatch.setenv("COMPANION_LOCALES", str(tmp_path / "locale"))
    yield path


def test_without_its_catalogue_french_is_no_language_of_the_table() -> None:
    assert "fr" not in languages()
    with pytest.raises(ValueError, match=r"game\.language: 'fr' is not one of es, en"):
        parse_config('[game]\nlanguage = "fr"', "config.toml")


def test_a_third_language_is_one_catalogue_file_and_the_table_speaks_it(french: Path) -> None:
    assert languages() == ("es", "en", "fr") and language_name("fr") == "Français"
    config = parse_config('[game]\nlanguage = "fr"', "config.toml")
    referee = Referee(config.game, {"z1": "table"})
    referee.handle(UnknownTag("z1", bytes.fromhex("04A1B2C3D4E5F6")), 0.0)
    message = referee.view().message
    assert message is not None and message.title == "Carte inconnue sur z1"
    assert message.todo == "Take it back and enroll it: companion enroll"  # not translated yet: in English
    render(referee.view())  # and it fits the screen
    assert Menu(Settings(language="fr")).view().items[3] == "Langue: Français"
    assert translate("Pot", "fr") == "Pot" and translate("Pot", "es") == "Bote"


def test_the_menu_offers_every_language_a_catalogue_speaks_in_its_own_words(french: Path) -> None:
    menu = Menu(Settings(language="es"))
    for button in ("pass", "pass", "pass", "confirm"):  # down to the language line, and open it
        menu.press(Press(Button(button), "short", 0.0))
    assert menu.view().items == ("Español", "English", "Français")
    for button in ("pass", "pass", "confirm"):
        choice = menu.press(Press(Button(button), "short", 0.0))
    assert choice == Choice("language", "fr") and menu.view().title == "Menu"
    render(TableView(menu=menu.view(), language="fr"))
