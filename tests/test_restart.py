"""A restart finds the table as it is: the zones' master cards of every 6º SET match (journaled in each game, also
one begun from the menu or the phone), and the cards lying on the zones, which are not plays."""

from __future__ import annotations

from pathlib import Path

from companion.config import GameConfig
from companion.events import CardArrived, CardLeft
from companion.journal import Entry, Journal
from companion.menu import Settings
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import NewGame, Referee
from companion.table import Table

MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")
AUTO = {f"z{k}": "auto" for k in range(1, 9)}
SEXTO = GameConfig("sexto-set", confirm_turns=False)


def sexto_table(folder: Path) -> Table:
    """A 6º SET table whose 8 zones learn their master cards, placements committed at once, started (or resumed)."""
    referee = Referee(SEXTO, AUTO)
    table = Table(referee, TableTracker(Registry.load(folder / "registry.toml")), Journal(folder / "journal.db"))
    table.start(0.0)
    return table


def power_cut(table: Table, folder: Path) -> Table:
    table.journal.close()
    return sexto_table(folder)


def tap(table: Table, zone: str, card: str, t: float = 1.0) -> None:
    table.status(CardArrived(zone, card), t)
    table.status(CardLeft(zone, card), t)


def register(table: Table) -> None:
    for k, master in enumerate(MASTERS, start=1):
        tap(table, f"z{k}", master)


def zones_of(journal: Journal, game: int) -> list[str]:
    return [entry.text for entry in journal.entries(game) if entry.kind == "zone"]


def test_a_match_begun_from_the_phone_journals_its_zones_and_a_restart_knows_them(tmp_path: Path) -> None:
    table = sexto_table(tmp_path)
    register(table)
    first = table.game_id
    table.status(NewGame(Settings(game="sexto-set")), 2.0)
    assert table.game_id != first and not table.referee.registering
    assert zones_of(table.journal, table.game_id) == [f"z{k} {master}" for k, master in enumerate(MASTERS, 1)]
    tap(table, "z1", "N01", 3.0)  # pair A's first placement, on master card 1 red
    table = power_cut(table, tmp_path)
    assert not table.referee.registering, "the master cards' zones are known after the restart"
    tap(table, "z5", "N07", 4.0)  # pair B's, on master card 1 black
    assert [e.text for e in table.journal.entries(table.game_id) if e.kind == "action"] == [
        "play M1R N01",
        "play M1B N07",
    ]


def test_a_new_game_after_a_restart_journals_the_zones_the_last_game_learnt(tmp_path: Path) -> None:
    table = sexto_table(tmp_path)
    register(table)
    table.journal.finish(table.game_id, {"termination": "replaced", "winner": None})  # its match was over
    table = power_cut(table, tmp_path)
    assert table.game_id == 2 and not table.referee.registering
    assert len(zones_of(table.journal, 2)) == 8
    table = power_cut(table, tmp_path)
    assert table.game_id == 2 and not table.referee.registering


def test_a_journal_whose_menu_game_lacks_its_zones_learns_them_from_the_game_before(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")  # as the table wrote it before every game journaled its zones
    first = journal.new_game(SEXTO.settings(), 0.0)
    for k, master in enumerate(MASTERS, start=1):
        journal.append(first, Entry("zone", f"z{k} {master}", 0.0))
    journal.finish(first, {"termination": "replaced", "winner": None})
    second = journal.new_game(SEXTO.settings(), 1.0)
    journal.append(second, Entry("action", "play M1R N01", 2.0))
    journal.close()
    table = sexto_table(tmp_path)
    assert table.game_id == second and not table.referee.registering
    assert len(zones_of(table.journal, second)) == 8, "journaled in the resumed game now"


def test_master_cards_laid_again_after_a_restart_name_the_pair_whose_turn_it_is(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")  # no game of the journal says where the master cards lie
    game = journal.new_game(SEXTO.settings(), 0.0)
    journal.append(game, Entry("action", "play M1R N01", 1.0))
    journal.close()
    table = sexto_table(tmp_path)
    assert table.referee.registering
    register(table)
    message = table.referee.view().message
    assert message is not None and message.title == "Listo: empieza la pareja B"
