from pathlib import Path

import pytest

from companion.decks import BUILTIN_DECKS, DeckError, Kind, load_deck


@pytest.mark.parametrize(("name", "size"), [("spanish-40", 40), ("spanish-48", 48), ("squadratik", 48)])
def test_builtin_decks_have_their_size_and_unique_ids(name: str, size: int) -> None:
    deck = load_deck(name)
    assert len(deck) == size
    assert len({card.id for card in deck}) == size


def test_spanish_40_has_no_eights_or_nines() -> None:
    ranks = {card.rank for card in load_deck("spanish-40")}
    assert ranks == {1, 2, 3, 4, 5, 6, 7, 10, 11, 12}


def test_squadratik_has_eight_masters_one_central_and_empties() -> None:
    deck = load_deck("squadratik")
    masters = deck.of_kind(Kind.MASTER)
    assert sorted(card.master_end for card in masters) == sorted(
        f"{dots}{colour}" for dots in range(1, 5) for colour in "RB"
    )
    assert len(deck.of_kind(Kind.CENTRAL)) == 1
    assert len(deck.of_kind(Kind.EMPTY)) >= 5


def test_card_names_in_both_languages() -> None:
    deck = load_deck("spanish-48")
    assert deck["6O"].name("es") == "6 de oros"
    assert deck["12C"].name("es") == "rey de copas"
    assert deck["1E"].name("en") == "ace of swords"


def test_a_user_file_loads_with_no_other_knowledge(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "my deck"\n'
        '[[cards]]\nid = "M1R"\nkind = "master"\ndots = 1\ncolor = "red"\n'
        '[[cards]]\nid = "N07"\nkind = "normal"\nends = ["2R", "0"]\npoints = 5\n'
        '[[cards]]\nid = "6O"\nkind = "spanish"\nsuit = "O"\nrank = 6\n',
        encoding="utf-8",
    )
    deck = load_deck(path)
    assert deck.name == "my deck"
    assert deck["N07"].ends == ("2R", "0")
    assert deck["M1R"].master_end == "1R"


BAD_CARDS = [
    ('id = "A"\nkind = "joker"', "field 'kind'"),
    ('id = "N1"\nkind = "normal"\nends = ["2R", "2G"]\npoints = 2', "field 'ends'"),
    ('id = "N1"\nkind = "normal"\nends = ["2R", "0"]', "field 'points' is missing"),
    ('id = "N1"\nkind = "normal"\nends = ["2R", "0"]\npoints = "5"', "field 'points' must be a whole number"),
    ('id = "M1"\nkind = "master"\ndots = 5\ncolor = "red"', "field 'dots'"),
    ('id = "M1"\nkind = "master"\ndots = 1\ncolor = "green"', "field 'color'"),
    ('id = "6X"\nkind = "spanish"\nsuit = "X"\nrank = 6', "field 'suit'"),
    ('id = "7O"\nkind = "spanish"\nsuit = "O"\nrank = 6', "field 'id'"),
    ('id = "V1"\nkind = "empty"\npoints = 3', "field 'points' does not belong"),
]


@pytest.mark.parametrize(("body", "expected"), BAD_CARDS)
def test_a_malformed_card_is_refused_naming_file_card_and_field(tmp_path: Path, body: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "bad"\n[[cards]]\nid = "OK"\nkind = "empty"\n[[cards]]\n{body}\n', encoding="utf-8")
    with pytest.raises(DeckError) as info:
        load_deck(path)
    message = str(info.value)
    assert str(path) in message
    assert "card #2" in message
    assert expected in message


@pytest.mark.parametrize(("body", "expected"), BAD_CARDS)
def test_a_malformed_card_is_said_in_spanish_too(tmp_path: Path, body: str, expected: str) -> None:
    """``text(lang)`` gives the table's language, as the game's set-up errors do; ``str()`` stays English."""
    path = tmp_path / "mala.toml"
    path.write_text(f'name = "mala"\n[[cards]]\nid = "OK"\nkind = "empty"\n[[cards]]\n{body}\n', encoding="utf-8")
    with pytest.raises(DeckError) as info:
        load_deck(path)
    spanish = info.value.text("es")
    assert spanish.startswith(f"{path}: carta n.º 2 (")
    assert expected.split()[1] in spanish  # the field, as the file spells it
    assert not {"field", "must", "is", "not"} & set(spanish.split()), spanish
    assert info.value.text("en") == str(info.value) != spanish


def test_a_file_that_is_no_deck_is_said_in_spanish_too(tmp_path: Path) -> None:
    spanish = {
        "": "la baraja necesita un nombre",
        'name = "x"': "la baraja no tiene cartas (añade una tabla [[cards]] por carta)",
        "name = ": "no es TOML válido",
        'name = "d"\n[[cards]]\nid = "V"\nkind = "empty"\n[[cards]]\nid = "V"\nkind = "empty"': "id repetido 'V'",
    }
    for text, said in spanish.items():
        (tmp_path / "d.toml").write_text(text)
        with pytest.raises(DeckError) as info:
            load_deck(tmp_path / "d.toml")
        assert said in info.value.text("es")
    with pytest.raises(DeckError) as info:
        load_deck(tmp_path / "nope.toml")
    assert info.value.text("es") == (
        f"{tmp_path / 'nope.toml'}: no existe esa baraja. Da una baraja incluida (spanish-40, spanish-48, squadratik) "
        "o la ruta de un archivo de baraja."
    )


def test_a_duplicate_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.toml"
    path.write_text('name = "d"\n[[cards]]\nid = "V"\nkind = "empty"\n[[cards]]\nid = "V"\nkind = "empty"\n')
    with pytest.raises(DeckError, match="duplicate id 'V'"):
        load_deck(path)


def test_a_missing_file_names_the_builtin_decks(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(tmp_path / "nope.toml")
    assert all(name in str(info.value) for name in BUILTIN_DECKS)
