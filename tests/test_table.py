"""The table: the referee's entries go to the journal before the outputs show them; a disk that fills keeps the
game going in memory, says so, and writes everything once there is room again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press
from companion.journal import Entry, Journal
from companion.menu import Settings
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import NewGame, Referee
from companion.table import Table
from companion.view import MessageKind, StatusLight

if TYPE_CHECKING:
    from disks import Disk

GAMES = Path(__file__).parent / "games"


def table_at(tmp_path: Path, **config: object) -> Table:
    """A Seises table whose plays commit at once, on a journal in ``tmp_path``, started at t=0."""
    referee = Referee(GameConfig(confirm_turns=False, **config), {"z1": "table"})  # type: ignore[arg-type]
    table = Table(referee, TableTracker(Registry.load(tmp_path / "registry.toml")), Journal(tmp_path / "journal.db"))
    table.start(0.0)
    return table


def play(table: Table, card: str, t: float, lift: str = "") -> None:
    """``card`` laid on z1 (after ``lift`` was taken off it)."""
    if lift:
        table.status(CardLeft("z1", lift), t)
    table.status(CardArrived("z1", card), t)


def test_a_disk_that_fills_mid_game_keeps_the_game_going_and_catches_up(tmp_path: Path, disk: Disk) -> None:
    table = table_at(tmp_path)
    disk.fill()
    play(table, "6O", 1.0)
    view = table.referee.view()
    assert view.message is not None and view.message.kind is MessageKind.DISK_FULL
    assert view.status is StatusLight.ERROR and table.journal.backlog == 1
    assert table.referee.game.actions, "the play stands at the table"
    table.retry_journal(2.0)
    assert table.journal.backlog == 1, "still full: kept"
    disk.free()
    table.retry_journal(3.0)
    assert table.journal.backlog == 0 and table.referee.view().status is StatusLight.READY
    assert [e.text for e in table.journal.entries(table.game_id)] == ["play 6O"]


def new_game_from_the_menu(table: Table, t: float) -> None:
    """A long CONFIRM opens the menu; its fifth line, picked twice, starts a new game."""
    table.press(Press(Button.CONFIRM, "long", t), t)
    for _ in range(4):
        table.press(Press(Button.PASS, "short", t), t)
    table.press(Press(Button.CONFIRM, "short", t), t)
    table.press(Press(Button.CONFIRM, "short", t), t)


def test_a_new_game_on_a_full_disk_closes_the_old_one_and_keeps_its_plays_until_there_is_room(
    tmp_path: Path, disk: Disk
) -> None:
    table = table_at(tmp_path)
    play(table, "6O", 1.0)
    first = table.game_id
    disk.fill()
    new_game_from_the_menu(table, 2.0)  # neither the old game's outcome nor the new game's row finds room
    play(table, "6O", 3.0, lift="6O")
    view = table.referee.view()
    assert view.message is not None and view.message.kind is MessageKind.DISK_FULL
    assert table.game_id == first, "the new game has no row yet"
    assert table.journal.game(first).outcome is None  # type: ignore[union-attr]
    disk.free()
    play(table, "7O", 4.0, lift="6O")
    games = table.journal.games()
    assert [g.outcome for g in games] == [{"termination": "replaced", "winner": None}, None]
    assert [e.text for e in table.journal.entries(games[1].id)] == ["play 6O", "play 7O"]
    assert table.game_id == games[1].id and table.referee.view().status is StatusLight.READY
    table.retry_journal(5.0)
    assert len(table.journal.games()) == 2, "written once"


def restart(tmp_path: Path, table: Table) -> Table:
    """A power cut: the journal file as it is, a new referee from the config."""
    table.journal.close()
    return table_at(tmp_path)


def test_the_menus_language_and_a_new_game_taken_back_survive_a_power_cut(tmp_path: Path) -> None:
    table = table_at(tmp_path)
    play(table, "6O", 1.0)
    table.press(Press(Button.CONFIRM, "long", 2.0), 2.0)
    for button in (Button.PASS, Button.PASS, Button.PASS, Button.CONFIRM, Button.PASS, Button.CONFIRM):
        table.press(Press(button, "short", 2.0), 2.0)  # Idioma: English
    table.press(Press(Button.PASS, "short", 2.0), 2.0)
    table.press(Press(Button.CONFIRM, "short", 2.0), 2.0)
    table.press(Press(Button.CONFIRM, "short", 2.0), 2.0)  # New game? OK again
    assert table.referee.game.actions == []
    table.press(Press(Button.UNDO, "long", 3.0), 3.0)  # taken back before its first card
    assert [g.outcome for g in table.journal.games()] == [None], "the game was never closed"
    again = restart(tmp_path, table)
    assert again.referee.language == "en" and again.referee.view().language == "en"
    assert [str(action) for action in again.referee.game.actions] == ["play 6O"]
    assert len(again.journal.games()) == 1


def test_a_new_game_goes_to_the_journal_with_its_first_card(tmp_path: Path) -> None:
    table = table_at(tmp_path)
    play(table, "6O", 1.0)
    new_game_from_the_menu(table, 2.0)
    table = restart(tmp_path, table)
    assert table.referee.game.actions != [], "a power cut before its first card: the game it replaced goes on"
    new_game_from_the_menu(table, 11.0)
    play(table, "6O", 12.0)
    games = table.journal.games()
    assert [g.outcome for g in games] == [{"termination": "replaced", "winner": None}, None]
    assert [e.text for e in table.journal.entries(games[1].id)] == ["play 6O"]


def test_a_match_left_for_a_new_game_is_closed_as_it_stood(tmp_path: Path) -> None:
    """GAMES.md: a 6º SET match ends early when the players start a new game, as it stands; the journal keeps
    that result, as history and the club name it. A Seises game left so has no winner."""
    path = tmp_path / "journal.db"
    journal = Journal(path)
    match = journal.new_game(GameConfig("sexto-set").settings(), 0.0)
    for line in (GAMES / "sexto-set-pass.txt").read_text("utf-8").splitlines():  # pair A won its first set
        if not line.startswith("#"):
            journal.append(match, Entry("action", line, 1.0))
    journal.close()
    zones = {f"z{n}": "auto" for n in range(1, 9)}
    table = Table(
        Referee(GameConfig("sexto-set"), zones), TableTracker(Registry.load(tmp_path / "r.toml")), Journal(path)
    )
    table.start(2.0)
    assert table.game_id == match, "the match is resumed"
    games = []
    for t in (3.0, 4.0):  # a game of Seises, then another, each journaled with its first play
        table.status(NewGame(Settings(game="seises")), t)
        play(table, "6O", t + 0.1)
        table.press(Press(Button.CONFIRM, "short", t + 0.2), t + 0.2)
        table.status(CardLeft("z1", "6O"), t + 0.3)
        games.append(table.game_id)
    seises = games[0]
    outcomes = {record.id: record.outcome for record in table.journal.games()}
    assert outcomes[match] == {"termination": "replaced", "winner": "A"}
    assert outcomes[seises] == {"termination": "replaced", "winner": None}
