"""The card registry file: bindings, refusals that say what to do, atomic saves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.nfc.registry import Registry, RegistryError

SIX = bytes.fromhex("04A1B2C3D4E5F6")


def test_bindings_survive_a_save_and_a_load(tmp_path: Path) -> None:
    path = tmp_path / "cards" / "registry.toml"
    registry = Registry.load(path, deck="spanish-40")
    assert registry.bind(SIX, "6O")
    assert not registry.bind("04:a1:b2:c3:d4:e5:f6", "6O")  # the same binding, spelt another way
    registry.save()
    again = Registry.load(path, deck="spanish-40")
    assert again.card_for(SIX) == "6O"
    assert again.uid_for("6O") == "04A1B2C3D4E5F6"
    assert Registry.load(path).card_for("04A1B2C3D4E5F6") == "6O"  # any deck
    assert Registry.load(path, deck="squadratik").card_for(SIX) is None
    assert '[decks."spanish-40"]\n04A1B2C3D4E5F6 = "6O"' in path.read_text()


def test_a_tag_bound_to_another_card_is_refused_unless_rebound(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    registry.bind(SIX, "6O")
    with pytest.raises(RegistryError, match="already card 6O of deck spanish-40; use --rebind"):
        registry.bind(SIX, "7O")
    assert registry.bind(SIX, "7O", rebind=True)
    assert registry.card_for(SIX) == "7O"
    assert registry.uid_for("6O") is None


def test_a_card_given_a_new_tag_forgets_the_old_one(tmp_path: Path) -> None:
    registry = Registry.load(tmp_path / "r.toml", deck="spanish-40")
    registry.bind(SIX, "6O")
    registry.bind("04C0FFEE123456", "6O")
    assert registry.bindings() == {"04C0FFEE123456": "6O"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("decks = [", "not valid TOML"),
        ('decks = "x"', "must be tables"),
        ("[decks.d]\n04A1 = 3", "must map tag UIDs"),
        ('[decks.d]\nZZ = "6O"', "not a tag UID in hex"),
    ],
)
def test_an_unreadable_registry_says_what_to_do(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "r.toml"
    path.write_text(text)
    with pytest.raises(RegistryError, match=message):
        Registry.load(path)


def test_binding_needs_a_deck(tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match="--deck"):
        Registry.load(tmp_path / "r.toml").bind(SIX, "6O")


def test_a_failed_save_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.toml"
    registry = Registry.load(path, deck="spanish-40")
    registry.bind(SIX, "6O")
    registry.save()
    before = path.read_text()
    registry.bind("04C0FFEE123456", "7O")

    def power_cut(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(RegistryError, match="cannot write"):
        registry.save()
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.toml"]  # no temporary file left behind


def test_an_unreadable_uid_names_the_registry_file(tmp_path: Path) -> None:
    path = tmp_path / "r.toml"
    path.write_text('[decks.d]\nZZ = "6O"')
    with pytest.raises(RegistryError) as caught:
        Registry.load(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_a_save_keeps_the_files_mode_and_owner(tmp_path: Path) -> None:
    """``sudo companion enroll`` must leave the service's registry readable to the service's user."""
    path = tmp_path / "r.toml"
    path.write_text("")
    os.chmod(path, 0o640)
    owner = (1234, 2345) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    if os.geteuid() == 0:
        os.chown(path, *owner)
    registry = Registry.load(path, deck="spanish-40")
    registry.bind(SIX, "6O")
    registry.save()
    kept = os.stat(path)
    assert (kept.st_mode & 0o7777, kept.st_uid, kept.st_gid) == (0o640, *owner)
    assert Registry.load(path).card_for(SIX) == "6O"


def test_a_first_save_is_readable_by_all_and_owned_like_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    if os.geteuid() == 0:
        os.chown(folder, 1234, 2345)
    registry = Registry.load(folder / "r.toml", deck="spanish-40")
    registry.bind(SIX, "6O")
    registry.save()
    made, parent = os.stat(folder / "r.toml"), os.stat(folder)
    assert made.st_mode & 0o7777 == 0o644
    assert (made.st_uid, made.st_gid) == (parent.st_uid, parent.st_gid)
