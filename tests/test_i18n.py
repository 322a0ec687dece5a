"""The catalogues: every text the code says is in every shipped catalogue, and a new language is one file."""

from __future__ import annotations

import gettext
import io
import re
from collections.abc import Iterator
from pathlib import Path

import polib
import pytest

from companion.cli import language_of, main
from companion.config import parse_config
from companion.documents.catalogues import plurals_in_code, said, update_catalogue
from companion.events import Button, Press, UnknownTag
from companion.games.seises.rules import Seises
from companion.i18n import (
    LOCALE,
    compile_po,
    is_translated,
    language_name,
    languages,
    parse_po,
    translate,
    translate_n,
)
from companion.journal import Journal
from companion.menu import Choice, Menu, Settings
from companion.referee import Referee
from companion.rules import Play
from companion.ui.screens import render
from companion.view import TableView

FIELD = re.compile(r"\{(\w*)[^{}]*\}")
PERCENT = re.compile(r"%(?:\(\w+\))?[a-z]")  # argparse's words fill theirs with %: "%(prog)s", "%s"


def shipped() -> dict[str, dict[str, polib.POEntry]]:
    catalogues = {}
    for path in sorted(LOCALE.glob("*/LC_MESSAGES/companion.po")):
        entries = parse_po(path.read_text("utf-8"), str(path))
        catalogues[path.parts[-3]] = {entry.msgid: entry for entry in entries if entry.msgid}
    return catalogues


def texts(entry: polib.POEntry) -> list[str]:
    """An entry's msgid (and plural) and each of its translations."""
    said = [entry.msgid, *([entry.msgid_plural] if entry.msgid_plural else [])]
    return said + (
        [entry.msgstr_plural[n] for n in sorted(entry.msgstr_plural)] if entry.msgid_plural else [entry.msgstr]
    )


SAID, BUILT = said()  # the code's texts and the play mats'
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
    assert not missing, f"{lang}: run python -m companion.documents.catalogues, then translate these texts: {missing}"


@pytest.mark.parametrize("lang", sorted(set(SHIPPED) - {"en"}))
def test_every_shipped_translation_is_done_and_keeps_the_fields(lang: str) -> None:
    for entry in SHIPPED[lang].values():
        assert is_translated(entry), f"{lang}: {entry.msgid!r} is untranslated or fuzzy (line {entry.linenum})"
        fields = [set(FIELD.findall(text)) for text in texts(entry)]
        assert all(found == fields[0] for found in fields), f"{lang}: {entry.msgid!r} changes its {{fields}}"
        percents = [sorted(PERCENT.findall(text)) for text in texts(entry)]
        assert all(found == percents[0] for found in percents), f"{lang}: {entry.msgid!r} changes its %fields"


@pytest.mark.parametrize("lang", sorted(SHIPPED))
def test_no_catalogue_keeps_a_text_the_code_no_longer_says(lang: str) -> None:
    stale = set(SHIPPED[lang]) - set(SAID)
    assert not stale, (
        f"{lang}: the code no longer says these (python -m companion.documents.catalogues drops them): {sorted(stale)}"
    )


def test_english_is_the_msgids_and_translates_nothing() -> None:
    assert not [entry.msgid for entry in SHIPPED["en"].values() if any(texts(entry)[1 + bool(entry.msgid_plural) :])]
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
        ('msgstr "b"\n', "xx.po: Syntax error in po file (line 1)"),
        ('msgid "a"\nmsgstring "b"\n', "xx.po: Syntax error in po file (line 2)"),
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

msgid "A table companion that referees card games played with NFC-tagged cards."
msgstr "Un compagnon de table qui arbitre les jeux de cartes aux étiquettes NFC."

msgid "config"
msgstr "configuration"

msgid "fix:"
msgstr "correctif :"

msgid "{rank} of {suit}"
msgstr "{rank} de {suit}"

msgid "coins"
msgstr "deniers"

msgid "{path}: {count} game"
msgid_plural "{path}: {count} games"
msgstr[0] "{path} : {count} partie"
msgstr[1] "{path} : {count} parties"
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


def test_a_count_is_said_in_the_form_its_catalogues_plural_forms_choose(french: Path) -> None:
    """French says 0 in the singular (plural=(n > 1)), Spanish and English in the plural (n != 1)."""
    one, more = "{path}: {count} game", "{path}: {count} games"
    said = {lang: [translate_n(one, more, n, lang) for n in (0, 1, 2)] for lang in ("fr", "es", "en")}
    assert said == {
        "fr": ["{path} : {count} partie", "{path} : {count} partie", "{path} : {count} parties"],
        "es": ["{path}: {count} partidas", "{path}: {count} partida", "{path}: {count} partidas"],
        "en": [more, one, more],
    }


def test_the_menu_offers_every_language_a_catalogue_speaks_in_its_own_words(french: Path) -> None:
    menu = Menu(Settings(language="es"))
    for button in ("pass", "pass", "pass", "confirm"):  # down to the language line, and open it
        menu.press(Press(Button(button), "short", 0.0))
    assert menu.view().items == ("Español", "English", "Français")
    for button in ("pass", "pass", "confirm"):
        choice = menu.press(Press(Button(button), "short", 0.0))
    assert choice == Choice("language", "fr") and menu.view().title == "Menu"
    render(TableView(menu=menu.view(), language="fr"))


def test_the_command_line_and_doctor_speak_a_dropped_catalogues_language(
    french: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "Un compagnon de table qui arbitre" in capsys.readouterr().out
    root = tmp_path / "root"
    root.mkdir()
    assert main(["doctor", "--root", str(root)]) == 2
    out = capsys.readouterr().out
    assert "✗ configuration: " in out and "correctif : sudo install" in out
    assert "no config file" in out  # what the catalogue lacks is said in English


# ---- the command line follows the language ----------------------------------------------------------------


def test_the_language_is_lang_else_the_configs_else_the_environments_else_english(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[game]\nlanguage = "en"\n', "utf-8")
    spanish = {"LANG": "es_ES.UTF-8"}
    assert language_of(["doctor", "--lang", "es", "--config", str(config)], {}) == "es"
    assert language_of(["run", "--check", "--config", str(config)], spanish) == "en"
    assert language_of(["doctor", "--config", str(tmp_path / "none.toml")], spanish) == "es"
    assert language_of(["doctor"], {"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"}) == "en"  # LC_ALL comes first
    assert language_of(["doctor"], {"LANGUAGE": "fr:es", "LANG": "en_GB.UTF-8"}) == "es"  # the first one known
    config.write_text('[game]\nlanguage = "fr"\n', "utf-8")  # the config check will say it: not now
    assert language_of(["run", "--check", "--config", str(config)], spanish) == "es"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("es", "Comprueba que esta Pi puede llevar la mesa"),
        ("en", "Check that this Pi can run the table"),
    ],
)
def test_the_help_speaks_the_language(lang: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["doctor", "--help", "--lang", lang])
    assert said in " ".join(capsys.readouterr().out.split())


def test_without_lang_the_help_speaks_the_environments_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "comprueba la configuración y su mapa de pines" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (
            "es",
            [
                "✗ configuración: ",
                "no hay fichero de configuración; copia ahí systemd/config.toml y edítalo",
                "(las comprobaciones siguientes usan los valores por omisión)",
                "    arreglo: sudo install -D -m 0644 systemd/config.toml",
                "✗ usuario companion: no existe el usuario companion: el servicio se ejecuta como companion",
                "✗ GPIO: no hay /dev/gpiochip*",
                "aún no existe (el servicio lo crea al arrancar)",
            ],
        ),
        (
            "en",
            [
                "✗ config: ",
                "no config file; copy systemd/config.toml there and edit it",
                "(the checks below use the defaults)",
                "    fix: sudo install -D -m 0644 systemd/config.toml",
                "✗ user companion: no user companion: the service runs as companion",
                "✗ GPIO: no /dev/gpiochip*",
                "not made yet (the service makes it at start)",
            ],
        ),
    ],
)
def test_doctor_on_an_empty_root_speaks_the_language(
    lang: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--root", str(tmp_path), "--lang", lang]) == 2
    out = capsys.readouterr().out
    assert all(line in out for line in lines), out


CONFIG_WITH_PROBLEMS = '[game]\nlanguage = "{lang}"\nplayers = 9\nconfirm_turn = true\n'


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (
            "es",
            [
                "game.players: 9 no está entre 2 y 8",
                "game.confirm_turn: clave desconocida; ¿querías decir game.confirm_turns?",
                "2 problemas; no se ha puesto nada en marcha",
            ],
        ),
        (
            "en",
            [
                "game.players: 9 is not between 2 and 8",
                "game.confirm_turn: unknown key; did you mean game.confirm_turns?",
                "2 problems; nothing was started",
            ],
        ),
    ],
)
def test_the_config_check_speaks_the_configs_language(
    lang: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG_WITH_PROBLEMS.format(lang=lang), "utf-8")
    assert main(["run", "--check", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert all(line in err for line in lines), err
    other = "en" if lang == "es" else "es"  # --lang overrides the config's
    assert main(["run", "--check", "--config", str(config), "--lang", other]) == 2
    assert not any(line in capsys.readouterr().err for line in lines)


@pytest.mark.parametrize(
    ("lang", "no_deck", "auto"),
    [
        ("es", "¿qué baraja? da --deck NOMBRE", "--auto pone etiquetas simuladas: va con --backend sim"),
        ("en", "which deck? give --deck NAME", "--auto lays simulated tags: it goes with --backend sim"),
    ],
)
def test_enrolls_errors_speak_the_language(
    lang: str,
    no_deck: str,
    auto: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("companion.commands.enroll.CONFIG_PATH", tmp_path / "none.toml")
    registry = ["--registry", str(tmp_path / "r.toml"), "--lang", lang]
    assert main(["enroll", *registry]) == 2
    assert no_deck in capsys.readouterr().err
    assert main(["enroll", "--deck", "spanish-40", "--backend", "hub", "--auto", *registry]) == 2
    assert auto in capsys.readouterr().err


def test_a_refusal_in_a_third_language_names_the_cards_its_catalogue_names(french: Path) -> None:
    refusal = Seises(players=4).refusal(Play("7O"))
    assert refusal is not None
    assert refusal.todo("fr") == "Take back the 7 de deniers; play the 6 of coins"  # the sentence: not yet
    assert refusal.todo("es") == "Retira 7 de oros; juega el 6 de oros"
    assert (
        refusal.todo("en")
        == str(refusal).split(". ", 1)[1].rstrip(".")
        == "Take back the 7 of coins; play the 6 of coins"
    )


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "es",
            [
                "no existe el fichero; da --journal RUTA",
                "no hay partida 7 en",
                "ya existe: da otro fichero, o --force para sobrescribirlo",
                "no existe esa liga (el servicio la crea al arrancar)",
                "dañado, SQLite no lo puede leer",
            ],
        ),
        (
            "en",
            [
                "no such file; give --journal PATH",
                "no game 7 in",
                "exists: give another file, or --force to write over it",
                "no such league (the service makes it when it starts)",
                "damaged, not a journal SQLite can read",
            ],
        ),
    ],
)
def test_history_export_and_club_speak_the_language(
    lang: str, said: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.db"
    lang_and_journal = ["--lang", lang, "--journal", str(journal)]
    assert main(["history", *lang_and_journal]) == 2
    Journal(journal).close()
    assert main(["export", "7", *lang_and_journal]) == 2
    assert main(["export", "1", "--out", str(journal), "--force", *lang_and_journal]) == 2  # the journal itself
    (tmp_path / "kept.txt").write_text("mine")
    assert main(["export", "1", "--out", str(tmp_path / "kept.txt"), *lang_and_journal]) == 2
    assert main(["club", "--csv", "-", "--db", str(tmp_path / "none.db"), "--lang", lang]) == 2
    (tmp_path / "notes.db").write_bytes(b"not a journal at all, " * 100)
    assert main(["history", "--lang", lang, "--journal", str(tmp_path / "notes.db")]) == 2
    err = capsys.readouterr().err
    assert all(line in err for line in said), err
    assert "--out" in err and ("propio diario" if lang == "es" else "the journal itself") in err


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_catalogue_tool_leaves_a_catalogue_in_step_as_it_is(lang: str, tmp_path: Path) -> None:
    """``python -m companion.documents.catalogues`` rewrites no entry of a catalogue in step with the code (plural
    forms, header and all): its edits are only the texts that came or went."""
    shipped = LOCALE / lang / "LC_MESSAGES/companion.po"
    copy = tmp_path / "companion.po"
    copy.write_text(shipped.read_text("utf-8"), "utf-8")
    untranslated = update_catalogue(copy, SAID, plurals_in_code())
    assert set(untranslated) == (set() if lang == "es" else set(SAID))  # English translates none
    assert copy.read_text("utf-8") == shipped.read_text("utf-8")
