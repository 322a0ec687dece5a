"""A restart finds the table as it is: the zones' master cards of every 6º SET match (journaled in each game, also
one begun from the menu or the phone), and the cards lying on the zones, which are not plays."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press, ZoneScan
from companion.journal import Entry, Journal
from companion.menu import Settings
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import NewGame, Referee
from companion.rules import Play
from companion.table import Table
from companion.view import ZoneLight

sys.path.insert(0, str(Path(__file__).parent / "games"))
import record

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
    assert table.game_id == first and not table.referee.registering, "a new game is journaled with its first card"
    tap(table, "z1", "N01", 3.0)  # pair A's first placement, on master card 1 red: the new match's first entry
    assert table.game_id != first
    assert zones_of(table.journal, table.game_id) == [f"z{k} {master}" for k, master in enumerate(MASTERS, 1)]
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


# ---- cards lying on the zones when the table comes back --------------------------------------------------------

UIDS = {
    "6O": bytes.fromhex("04000000000001"),
    "7O": bytes.fromhex("04000000000002"),
    "5O": bytes.fromhex("04000000000003"),
}


def seises_table(folder: Path, *, confirm: bool = False) -> Table:
    """A 4-seat Seises table on one zone, its cards' tags bound in the registry; started (or resumed)."""
    registry = Registry.load(folder / "registry.toml", deck="spanish-40")
    for card, uid in UIDS.items():
        registry.bind(uid, card)
    referee = Referee(GameConfig(confirm_turns=confirm), {"z1": "table"})
    table = Table(referee, TableTracker(registry), Journal(folder / "journal.db"))
    table.start(0.0)
    return table


def scan(table: Table, t: float, *cards: str) -> None:
    table.scan(ZoneScan("z1", tuple(UIDS[card] for card in cards), t), t)


def lift_all(table: Table, t: float) -> None:
    for k in range(table.tracker.absences):
        scan(table, t + k / 10)


def actions(table: Table) -> list[str]:
    return [entry.text if entry.kind == "action" else entry.kind for entry in table.journal.entries(table.game_id)]


def test_a_play_taken_back_and_left_on_its_zone_is_not_played_again_after_a_power_cut(tmp_path: Path) -> None:
    table = seises_table(tmp_path)
    scan(table, 1.0, "6O")
    lift_all(table, 1.1)
    scan(table, 2.0, "7O")
    table.press(Press(Button.UNDO, "long", 3.0), 3.0)  # the 7 taken back, and left lying on the zone
    assert actions(table) == ["play 6O", "play 7O", "undo"]
    table.journal.close()
    table = seises_table(tmp_path)
    scan(table, 10.0, "7O")
    assert actions(table) == ["play 6O", "play 7O", "undo"], "the undone play is not made again"
    view = table.referee.view()
    assert view.zone_lights["z1"] is ZoneLight.ILLEGAL
    assert view.message is not None and (view.message.title, view.message.todo) == (
        "7 de oros estaba en z1",
        "Levántala y vuelve a ponerla",
    )
    lift_all(table, 10.1)
    assert table.referee.view().zone_lights["z1"] is ZoneLight.OFF and table.referee.view().message is None
    scan(table, 11.0, "7O")  # laid again: now it is a play
    assert actions(table)[-1] == "play 7O"


def test_with_confirmation_a_card_found_lying_is_not_pending_and_says_what_to_do(tmp_path: Path) -> None:
    table = seises_table(tmp_path, confirm=True)
    scan(table, 1.0, "6O")
    table.press(Press(Button.CONFIRM, "short", 1.5), 1.5)
    lift_all(table, 1.6)
    scan(table, 2.0, "7O")  # laid, waiting for OK, when the power goes
    table.journal.close()
    table = seises_table(tmp_path, confirm=True)
    scan(table, 10.0, "7O")
    assert table.referee.pending is None
    view = table.referee.view()
    assert view.zone_lights["z1"] is ZoneLight.ILLEGAL and view.message is not None
    assert view.message.title == "7 de oros estaba en z1"


def test_a_card_whose_play_is_on_the_table_lies_there_quietly_after_a_restart(tmp_path: Path) -> None:
    table = seises_table(tmp_path)
    scan(table, 1.0, "6O")
    table.journal.close()
    table = seises_table(tmp_path)
    assert table.looking
    scan(table, 10.0, "6O")
    assert actions(table) == ["play 6O"]
    view = table.referee.view()
    assert view.zone_lights["z1"] is ZoneLight.OFF and view.message is None
    lift_all(table, 10.1)
    assert not table.looking
    scan(table, 11.0, "7O")  # the zone's first look is over: a card laid now is a play
    assert actions(table) == ["play 6O", "play 7O"]


def test_a_six_that_won_the_hand_lying_on_the_zone_does_not_open_the_next_hand_after_a_power_cut(
    tmp_path: Path,
) -> None:
    _, history = record.seises_game(0, 8, "spanish-40", 0.0, {})
    won = next(
        k
        for k, (action, before, after) in enumerate(history)
        if isinstance(action, Play) and action.card == "6E" and after and after["hand"] != before["hand"]
    )
    journal = Journal(tmp_path / "journal.db")  # the hand won by the 6 of espadas, which still lies on z1
    game = journal.new_game(GameConfig(players=8, confirm_turns=False).settings(), 0.0)
    for t, (action, _, _) in enumerate(history[: won + 1], start=1):
        journal.append_later(game, Entry("action", str(action), float(t)))
    journal.flush()
    journal.close()
    registry = Registry.load(tmp_path / "registry.toml", deck="spanish-40")
    six = bytes.fromhex("04000000000006")
    registry.bind(six, "6E")
    referee = Referee(GameConfig(players=8, confirm_turns=False), {"z1": "table"})
    table = Table(referee, TableTracker(registry), Journal(tmp_path / "journal.db"))
    table.start(0.0)
    assert referee.game.is_legal(Play("6E")), "the 6 could open the next hand"
    table.scan(ZoneScan("z1", (six,), 1.0), 1.0)
    assert len(table.journal.entries(game)) == won + 1, "it does not open the next hand by itself"
    assert referee.view().zone_lights["z1"] is ZoneLight.ILLEGAL
