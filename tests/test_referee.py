"""The referee's turn flow: events in, journal entries and the view out (pure, no hardware)."""

from __future__ import annotations

import random

import pytest

from companion.config import GameConfig
from companion.events import CardArrived, CardLeft, Press, SameCardTwice, UnknownTag, UnknownTagLeft
from companion.games.seises import END_OF_HAND, RENEGE, SeisesView
from companion.games.seises.rules import Pay, Seises
from companion.games.sexto_set import END_OF_SET, SextoSetView
from companion.games.sexto_set.robots import SextoSetRobots
from companion.games.sexto_set.rules import SextoSet
from companion.journal import Entry
from companion.menu import Settings, games_for, unfit_games
from companion.referee import (
    GameOpened,
    HubStatus,
    JournalStatus,
    NewGame,
    ReaderStatus,
    Referee,
    SeatNames,
    SettingsChanged,
)
from companion.rules import Pass, Play
from companion.view import Message, MessageKind, StatusLight, ZoneLight

SHORT, LONG = "short", "long"
MASTERS = ("M1R", "M2R", "M3R", "M4R", "M1B", "M2B", "M3B", "M4B")


def seises(zones: dict[str, str] | None = None, **config: object) -> Referee:
    return Referee(GameConfig(**config), zones or {"z1": "table"})  # type: ignore[arg-type]


def press(referee: Referee, button: str, kind: str = SHORT, t: float = 0.0) -> list[Entry]:
    return referee.handle(Press(button, kind, t), t)  # type: ignore[arg-type]


def lay(referee: Referee, card: str, zone: str = "z1", t: float = 0.0) -> list[Entry]:
    return referee.handle(CardArrived(zone, card), t)


def lift(referee: Referee, card: str, zone: str = "z1") -> None:
    referee.handle(CardLeft(zone, card), 0.0)


def tap(referee: Referee, card: str, zone: str = "z1", t: float = 0.0) -> list[Entry]:
    """A card laid on a pad and lifted again, as players tap cards on a zone."""
    entries = lay(referee, card, zone, t)
    lift(referee, card, zone)
    return entries


def light(referee: Referee, zone: str = "z1") -> ZoneLight:
    return referee.view().zone_lights[zone]


def test_a_legal_card_is_pending_until_confirm_then_the_turn_passes() -> None:
    referee = seises()
    assert lay(referee, "6O") == []
    assert light(referee) is ZoneLight.PENDING_OK
    assert referee.game.actions == []
    assert press(referee, "confirm", t=1.0) == [Entry("action", "play 6O", 1.0)]
    assert light(referee) is ZoneLight.OFF
    view = referee.view().game
    assert isinstance(view, SeisesView) and view.turn == 1


def test_without_confirm_turns_a_legal_card_commits_at_once() -> None:
    referee = seises(confirm_turns=False)
    assert lay(referee, "6O", t=2.0) == [Entry("action", "play 6O", 2.0)]


def test_an_illegal_card_lights_red_says_why_and_clears_when_it_leaves() -> None:
    referee = seises()
    tap(referee, "6O")
    press(referee, "confirm")
    lay(referee, "7C")
    message = referee.view().message
    assert light(referee) is ZoneLight.ILLEGAL
    assert message is not None and message.kind is MessageKind.ILLEGAL
    assert "copas" in message.title + message.todo
    lift(referee, "7C")
    assert light(referee) is ZoneLight.OFF and referee.view().message is None
    assert press(referee, "confirm") == []  # nothing pending: nothing committed
    assert len(referee.game.actions) == 1


def test_a_different_card_replaces_a_pending_one() -> None:
    referee = seises({"z1": "table", "z2": "table"})
    tap(referee, "6O", "z1")
    press(referee, "confirm")
    tap(referee, "7O", "z1")
    tap(referee, "5O", "z2")
    assert (light(referee, "z1"), light(referee, "z2")) == (ZoneLight.OFF, ZoneLight.PENDING_OK)
    assert press(referee, "confirm") == [Entry("action", "play 5O", 0.0)]


def test_pass_makes_a_pending_pay_that_confirm_commits() -> None:
    referee = seises()
    lay(referee, "6O")
    press(referee, "confirm")
    assert press(referee, "pass") == []
    assert referee.pending is not None and referee.pending.action == Pay()
    assert press(referee, "confirm") == [Entry("action", "pay", 0.0)]
    assert isinstance(referee.game, Seises) and referee.game.pot == 1


def test_pass_before_the_six_of_oros_is_refused_with_the_reason() -> None:
    referee = seises()
    press(referee, "pass")
    message = referee.view().message
    assert referee.pending is None and message is not None and message.kind is MessageKind.ILLEGAL


def test_short_undo_cancels_what_is_pending_and_long_undo_takes_back_the_last_action() -> None:
    referee = seises()
    lay(referee, "6O")
    press(referee, "confirm")
    lay(referee, "7O")
    assert press(referee, "undo") == [] and referee.pending is None
    assert press(referee, "undo", LONG, t=3.0) == [Entry("undo", "", 3.0)]
    assert referee.game.actions == []
    assert press(referee, "undo", LONG) == []
    message = referee.view().message
    assert message is not None and "deshacer" in message.title.lower()


def test_a_card_on_the_wrong_suit_zone_is_refused_in_words() -> None:
    referee = seises({"oros": "O", "copas": "C"})
    lay(referee, "6O", "copas")
    message = referee.view().message
    assert light(referee, "copas") is ZoneLight.ILLEGAL
    assert message is not None and "oros" in message.title and "oros" in message.todo
    lay(referee, "6O", "oros")
    assert light(referee, "oros") is ZoneLight.PENDING_OK


def test_a_card_already_on_the_table_tapped_again_is_ignored() -> None:
    referee = seises()
    lay(referee, "6O")
    press(referee, "confirm")
    lift(referee, "6O")
    lay(referee, "6O")
    assert light(referee) is ZoneLight.OFF and referee.pending is None
    message = referee.view().message
    assert message is not None and message.kind is MessageKind.INFO


def test_an_unknown_tag_blinks_amber_and_asks_for_enrollment() -> None:
    referee = seises()
    referee.handle(UnknownTag("z1", bytes.fromhex("04A1B2C3D4E5F6")), 0.0)
    message = referee.view().message
    assert light(referee) is ZoneLight.UNKNOWN
    assert message is not None and message.kind is MessageKind.UNKNOWN_CARD and "enroll" in message.todo
    referee.handle(UnknownTagLeft("z1", bytes.fromhex("04A1B2C3D4E5F6")), 0.0)
    assert light(referee) is ZoneLight.OFF


def test_one_card_on_two_zones_and_two_cards_on_one_zone_are_said() -> None:
    referee = seises({"z1": "table", "z2": "table"})
    referee.handle(SameCardTwice("6O", ("z1", "z2")), 0.0)
    assert light(referee, "z1") is ZoneLight.ILLEGAL and light(referee, "z2") is ZoneLight.ILLEGAL
    referee = seises()
    lay(referee, "6O")
    lay(referee, "7O")
    message = referee.view().message
    assert light(referee) is ZoneLight.ILLEGAL and message is not None and "Dos cartas" in message.title


def test_the_card_left_behind_on_a_crowded_zone_is_the_one_meant() -> None:
    referee = seises()
    tap(referee, "6O")
    press(referee, "confirm")
    lay(referee, "7O")
    lay(referee, "5O")  # laid before 7O was lifted
    assert referee.pending is None and light(referee) is ZoneLight.ILLEGAL
    lift(referee, "7O")
    assert referee.pending is not None and referee.pending.action == Play("5O")
    assert light(referee) is ZoneLight.PENDING_OK and referee.view().message is None


def seat_names(referee: Referee) -> list[str]:
    view = referee.view().game
    assert isinstance(view, SeisesView)
    return [seat.name for seat in view.seats]


def test_seat_names_are_turned_so_that_whoever_laid_the_six_of_oros_is_seat_1() -> None:
    referee = seises(seat_names=("Ana", "Luis", "Eva", "Pau"))  # in the order they sit
    assert seat_names(referee) == ["Asiento 1", "Asiento 2", "Asiento 3", "Asiento 4"]  # nobody knows yet
    lay(referee, "6O")
    assert press(referee, "confirm") == []  # not yet: the referee asks who laid it
    message = referee.view().message
    assert message is not None and message.kind is MessageKind.QUESTION
    assert (message.title, message.todo) == ("¿Quién puso el 6 de oros?", "Ana: OK sí, PASO otro nombre")
    press(referee, "pass"), press(referee, "pass")
    assert referee.view().message.todo.startswith("Eva:")  # type: ignore[union-attr]
    entries = press(referee, "confirm", t=2.0)
    assert entries == [Entry("action", "play 6O  # seat 1: name 3 (Eva)", 2.0)]
    assert seat_names(referee) == ["Eva", "Pau", "Ana", "Luis"]
    view = referee.view().game
    assert isinstance(view, SeisesView) and view.seats[view.turn].name == "Pau"
    again = seises(seat_names=("Ana", "Luis", "Eva", "Pau"))
    again.replay(entries)  # after a power cut, the journal gives the same names
    assert seat_names(again) == ["Eva", "Pau", "Ana", "Luis"]
    assert press(referee, "undo", LONG) == [Entry("undo", "", 0.0)]
    assert seat_names(referee) == ["Asiento 1", "Asiento 2", "Asiento 3", "Asiento 4"]
    again.replay([Entry("undo", "", 0.0)])
    assert seat_names(again) == seat_names(referee)


def test_asking_who_laid_the_six_of_oros_can_be_given_up_and_a_card_tapped_asks_at_once() -> None:
    referee = seises(seat_names=("Ana", "Luis", "Eva", "Pau"), confirm_turns=False)
    assert tap(referee, "6O") == []
    assert referee.asking == 0
    press(referee, "undo")  # the 6 of oros was laid by mistake: nothing is played
    assert (referee.asking, referee.pending, referee.game.actions) == (None, None, [])
    tap(referee, "6O")
    press(referee, "pass")
    assert press(referee, "confirm") == [Entry("action", "play 6O  # seat 1: name 2 (Luis)", 0.0)]
    assert seat_names(referee)[0] == "Luis"
    assert [s.name for s in seises().view().game.seats][:1] == ["Asiento 1"]  # type: ignore[union-attr]


def sexto(**config: object) -> Referee:
    return Referee(GameConfig(name="sexto-set", **config), {f"z{i}": "auto" for i in range(1, 9)})  # type: ignore[arg-type]


def test_sexto_set_zones_register_their_master_cards_first() -> None:
    referee = sexto()
    assert referee.registering
    lay(referee, "N01", "z1")
    assert light(referee, "z1") is ZoneLight.ILLEGAL  # a normal card before the masters
    lift(referee, "N01", "z1")
    entries = []
    for index, master in enumerate(MASTERS, start=1):
        entries += lay(referee, master, f"z{index}")
        lift(referee, master, f"z{index}")
    assert entries[0] == Entry("zone", "z1 M1R", 0.0) and len(entries) == 8
    assert not referee.registering
    message = referee.view().message
    assert message is not None and "pareja A" in message.title
    lay(referee, "N01", "z1")
    assert press(referee, "confirm") == [Entry("action", "play M1R N01", 0.0)]


def test_a_master_already_registered_is_refused_on_a_second_zone() -> None:
    referee = sexto()
    lay(referee, "M1R", "z1")
    lay(referee, "M1R", "z2")
    message = referee.view().message
    assert "z1" in message.title if message else False
    assert referee.zones.heads == {"z1": "M1R"}


def sexto_set_before_a_pass(seed: int = 1) -> Referee:
    """A 6º SET table whose robot players placed cards until the pair to play holds none that links."""
    referee = Referee(GameConfig(name="sexto-set"), dict(zip([f"z{i}" for i in range(1, 9)], MASTERS, strict=True)))
    game = referee.game
    assert isinstance(game, SextoSet)
    table = SextoSetRobots(game, random.Random(seed))
    while True:
        action, hand = table.choose()
        if isinstance(action, Pass):
            return referee
        game.push(action)
        table.played(action, hand)


def test_sexto_set_pass_then_confirm_loses_the_set_and_the_view_shows_it() -> None:
    referee = Referee(GameConfig(name="sexto-set"), dict(zip([f"z{i}" for i in range(1, 9)], MASTERS, strict=True)))
    assert not referee.registering
    lay(referee, "N01", "z1")
    press(referee, "confirm")
    press(referee, "pass")  # pair B holds 8 cards, and only 6 unplaced cards link nowhere: refused
    message = referee.view().message
    assert message is not None and message.kind is MessageKind.ILLEGAL and message.title == "Podéis enlazar"
    referee = sexto_set_before_a_pass()
    loser = referee.game.snapshot()["turn"]
    press(referee, "pass")
    press(referee, "confirm")
    view = referee.view()
    assert isinstance(view.game, SextoSetView)
    winner = "B" if loser == "A" else "A"
    assert view.game.result == winner and view.game.sets_won == ((1, 0) if winner == "A" else (0, 1))
    assert view.message is not None and view.message.kind is END_OF_SET
    # set 1 was led by A: B leads set 2, and the next card is credited to B
    assert view.game.turn == "B" and view.message.todo == "Recoged: empieza la pareja B"
    assert sum(view.game.match_masters) == sum(view.game.masters_won) > 0


def test_end_of_hand_and_renege_messages() -> None:
    referee = seises(players=8, confirm_turns=False)  # 5 cards each
    tap(referee, "6O")
    press(referee, "pass"), press(referee, "confirm")  # seat 2 pays while 7O, 5O, 6C... were legal
    for card in ["7O"] + [None] * 6 + ["6C"]:
        if card is None:
            press(referee, "pass"), press(referee, "confirm")
        else:
            tap(referee, card)
    message = referee.view().message
    assert message is not None and message.kind is RENEGE and "Renuncio" in message.title
    assert referee.view().status is StatusLight.RENEGE  # the status LED's renuncio look
    tap(referee, "6E")
    assert referee.view().status is StatusLight.READY


def test_a_renuncio_proven_by_the_last_card_is_shown_with_the_hand_won() -> None:
    referee = seises(confirm_turns=False, options={"renege_penalty": "points"})
    tap(referee, "6O")
    for _ in range(3):  # seats 2, 3 and 4 pay while 7O is legal
        press(referee, "pass"), press(referee, "confirm")
    tap(referee, "5O")
    game = referee.game
    referee.game = Seises.from_snapshot({**game.snapshot(), "hand_sizes": [9, 1, 10, 10], "scores": [0, 8, 0, 0]})
    tap(referee, "7O")  # seat 2's last card, legal when it paid
    view = referee.view()
    assert view.message is not None and view.message.kind is END_OF_HAND
    assert view.message.title == "Renuncio: Asiento 2"
    assert view.message.todo == "Gana la mano: +3. Pagó teniendo 7 de oros: -5 puntos"
    assert view.status is StatusLight.RENEGE
    assert referee.game.scores == [0, 6, 0, 0]  # 8 - 5, then the pot of 3


def test_a_renuncio_on_the_card_that_wins_the_game_is_shown_with_the_winner() -> None:
    referee = seises(confirm_turns=False)
    tap(referee, "6O")
    for _ in range(3):
        press(referee, "pass"), press(referee, "confirm")
    tap(referee, "5O")
    game = referee.game
    referee.game = Seises.from_snapshot({**game.snapshot(), "hand_sizes": [9, 1, 10, 10], "scores": [0, 48, 0, 0]})
    tap(referee, "7O")
    view = referee.view()
    assert view.message == Message(
        MessageKind.END_OF_GAME, "Asiento 2 gana: 51", "Pagó teniendo 7 de oros. Pulsa OK largo: menú"
    )
    assert view.status is StatusLight.RENEGE


def test_a_whole_round_of_pays_says_somebody_reneged() -> None:
    referee = seises(confirm_turns=False, language="en")
    tap(referee, "6O")
    for _ in range(4):
        press(referee, "pass"), press(referee, "confirm")
    view = referee.view()
    assert view.message == Message(RENEGE, "Somebody reneged!", "All paid, yet cards in hands fit")
    assert view.status is StatusLight.RENEGE


def test_an_undo_says_what_it_took_back_as_the_game_says_it() -> None:
    referee = seises(confirm_turns=False)
    tap(referee, "6O")
    press(referee, "pass"), press(referee, "confirm")
    press(referee, "undo", LONG)
    assert referee.view().message == Message(MessageKind.INFO, "Deshecho: el pago de una ficha")
    press(referee, "undo", LONG)
    assert referee.view().message == Message(MessageKind.INFO, "Deshecho: 6 de oros")


def test_a_hub_refused_for_its_zone_count_says_so_not_the_usb_cable() -> None:
    """A hub flashed for another layout is not a lost cable: the screen gives both counts and the fix; the hub back
    online clears them, and a hub lost later is a lost hub again."""
    referee = seises(language="en")
    referee.handle(HubStatus(False, (8, 4)), 0.0)
    said = Message(MessageKind.HUB_LOST, "Hub has 8 zones, config names 4", "Flash the layout's hub_config.py")
    view = referee.view()
    assert view.message == said and view.status is StatusLight.HUB_LOST
    assert referee.health.problem() == ("hub_zones", {"scanned": "8", "named": "4"})
    referee.handle(HubStatus(True), 0.0)
    assert referee.view().message is None
    referee.handle(HubStatus(False), 0.0)
    assert referee.view().message == Message(MessageKind.HUB_LOST, "Hub lost", "Check the USB cable")
    spanish = seises()
    spanish.handle(HubStatus(False, (8, 4)), 0.0)
    assert spanish.view().message == Message(
        MessageKind.HUB_LOST, "Hub con 8 zonas, la config nombra 4", "Graba el hub_config.py de tu mesa"
    )


def test_hub_reader_and_disk_problems_show_on_the_status_light_and_screen() -> None:
    referee = seises()
    referee.handle(HubStatus(False), 0.0)
    assert referee.view().status is StatusLight.HUB_LOST
    referee.handle(HubStatus(True), 0.0)
    referee.handle(ReaderStatus("z1", False, "no answer"), 0.0)
    view = referee.view()
    assert view.status is StatusLight.ERROR and view.message is not None
    assert view.message.kind is MessageKind.READER_DOWN
    referee.handle(ReaderStatus("z1", True), 0.0)
    referee.handle(JournalStatus(False, "full"), 0.0)
    assert referee.view().message.kind is MessageKind.DISK_FULL  # type: ignore[union-attr]
    referee.handle(JournalStatus(True), 0.0)
    assert referee.view().status is StatusLight.READY and referee.view().message is None


def test_a_long_confirm_opens_the_menu_and_new_game_starts_one() -> None:
    referee = seises()
    lay(referee, "6O")
    press(referee, "confirm")
    press(referee, "confirm", LONG)
    assert referee.view().menu is not None
    # the menu's lines: game, players, deck, language, new game, close
    for _ in range(4):
        press(referee, "pass")
    assert press(referee, "confirm", t=9.0) == [] and referee.view().menu is not None  # "New game?"
    assert press(referee, "confirm", t=9.0) == []  # the new game goes to the journal with its first entry
    assert referee.view().menu is None and referee.game.actions == []
    assert referee.view().message == Message(MessageKind.INFO, "Partida nueva: Seises")
    lay(referee, "6O")
    entries = press(referee, "confirm", t=10.0)
    assert [type(entry) for entry in entries] == [GameOpened, Entry] and entries[1].kind == "action"
    assert isinstance(entries[0], GameOpened) and entries[0].settings["game"] == "seises"
    assert entries[0].replaced_winner is None, "the game it replaced ends with nobody ahead"


def test_a_new_game_with_seat_names_says_the_table_will_ask_who_laid_the_six_of_oros() -> None:
    referee = seises(seat_names=("Ana", "Luis", "Eva", "Pau"))
    lay(referee, "6O"), press(referee, "confirm"), press(referee, "confirm")  # Ana laid it
    assert seat_names(referee)[0] == "Ana"
    press(referee, "confirm", LONG)
    for _ in range(4):
        press(referee, "pass")
    press(referee, "confirm"), press(referee, "confirm")
    message = referee.view().message
    assert message is not None and message.todo == "Al 6 de oros, elegid quién lo puso"
    assert seat_names(referee) == ["Asiento 1", "Asiento 2", "Asiento 3", "Asiento 4"]  # asked again
    press(referee, "confirm", LONG)
    press(referee, "pass"), press(referee, "confirm"), press(referee, "pass"), press(referee, "confirm")  # 5 players
    for _ in range(3):
        press(referee, "pass")
    press(referee, "confirm"), press(referee, "confirm")
    assert referee.game.players == 5  # 4 names for 5 players: the seats are numbered, nobody is asked
    assert referee.view().message == Message(MessageKind.INFO, "Partida nueva: Seises")
    lay(referee, "6O"), press(referee, "confirm")
    assert referee.asking is None and seat_names(referee)[:2] == ["Asiento 1", "Asiento 2"]


def test_replaying_the_entries_rebuilds_the_same_game() -> None:
    referee = seises(confirm_turns=False)
    entries: list[Entry] = []
    entries += lay(referee, "6O")
    entries += press(referee, "pass") + press(referee, "confirm")
    entries += lay(referee, "7O")
    entries += press(referee, "undo", LONG)
    entries += lay(referee, "5O")
    again = seises()
    again.replay(entries)
    assert again.game.snapshot() == referee.game.snapshot()


def test_the_first_screen_of_two_or_three_seises_players_gives_the_sheets_advice() -> None:
    for players, deck in ((2, ""), (3, "spanish-48")):
        referee = Referee(GameConfig(players=players, deck=deck, language="en"), {"z1": "table"})
        assert referee.view().message == Message(MessageKind.INFO, "Sheet: 4 to 8 players")
        referee.start(GameConfig(players=players, deck=deck, language="es"))  # the daemon's start of a new game
        assert referee.view().message == Message(MessageKind.INFO, "Hoja: 4 a 8 jugadores")
    assert Referee(GameConfig(players=4), {"z1": "table"}).view().message is None


# ---- the games a table's zones can play --------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "said"), [("es", "Partida nueva: 6º SET"), ("en", "New game: 6º SET")])
def test_a_new_game_is_named_by_its_caption_not_its_config_name(lang: str, said: str) -> None:
    referee = Referee(GameConfig(language=lang), {f"z{i}": "auto" for i in range(1, 9)})
    assert referee.handle(NewGame(Settings(game="sexto-set", players=4, language=lang)), 1.0) == []
    assert referee.kind.name == "sexto-set" and referee.view().message == Message(MessageKind.INFO, said)


def test_a_phone_asking_a_one_zone_table_for_6o_set_is_refused_and_the_game_goes_on() -> None:
    referee = seises()
    tap(referee, "6O"), press(referee, "confirm")
    assert referee.handle(NewGame(Settings(game="sexto-set")), 1.0) == []
    message = referee.view().message
    assert message is not None and message.kind is MessageKind.ILLEGAL
    assert message.title == "6º SET: no en estas zonas" and "8 zonas" in message.todo
    assert referee.kind.name == "seises" and len(referee.game.actions) == 1
    lay(referee, "7O")  # the game goes on: the next card is judged as Seises
    assert light(referee) is ZoneLight.PENDING_OK


def test_the_zones_of_each_game_say_which_games_they_play() -> None:
    assert games_for({"z1": "table"}) == ("seises",)
    assert games_for({"z1": "O", "z2": "C", "z3": "E", "z4": "B"}) == ("seises",)
    assert games_for({f"z{i}": "auto" for i in range(1, 9)}) == ("seises", "sexto-set")
    assert games_for(dict(zip((f"z{i}" for i in range(8)), MASTERS, strict=True))) == ("seises", "sexto-set")
    unfit = unfit_games({f"z{i}": "table" for i in range(1, 9)})["sexto-set"]
    assert [said.text("en") for said in unfit] == ["'table': a 6º SET zone is \"auto\" or a master card id such as M1R"]


# ---- a new game: a second OK, and undone until its first card -----------------------------------------------------


def new_game(referee: Referee, t: float = 0.0) -> list[Entry]:
    """A long OK for the menu, down to «Nueva partida», OK twice."""
    entries = press(referee, "confirm", LONG, t)
    for _ in range(4):
        entries += press(referee, "pass", t=t)
    return entries + press(referee, "confirm", t=t) + press(referee, "confirm", t=t)


def test_a_new_game_is_undone_by_a_long_undo_until_its_first_card() -> None:
    referee = seises(confirm_turns=False, seat_names=("Ana", "Luis", "Eva", "Pau"))
    tap(referee, "6O"), press(referee, "pass"), press(referee, "confirm")  # Luis laid the 6 of oros
    tap(referee, "7O")
    before = referee.game.snapshot()
    assert new_game(referee) == [] and referee.game.actions == []
    assert press(referee, "undo", LONG, 5.0) == [], "nothing to write: the journal never closed the game"
    assert referee.game.snapshot() == before and seat_names(referee)[:2] == ["Luis", "Eva"]
    message = referee.view().message
    assert message == Message(MessageKind.INFO, "Partida nueva deshecha", "Sigue la partida de antes")
    assert [entry.kind for entry in press(referee, "undo", LONG, 6.0)] == ["undo"], "then UNDO is the game's"
    tap(referee, "7O", t=7.0)

    new_game(referee, 8.0)
    entries = tap(referee, "6O", t=9.0)  # Ana's turn to say who laid it
    assert entries == [] and referee.asking == 0
    entries = press(referee, "confirm", t=9.5)
    assert [type(entry) for entry in entries] == [GameOpened, Entry], "the new game with its first card"
    assert press(referee, "undo", LONG) == [Entry("undo", "", 0.0)]
    assert press(referee, "undo", LONG) == [] and referee.view().message.title == "Nada que deshacer"  # type: ignore[union-attr]


def test_a_second_new_game_before_the_first_ones_first_card_still_goes_back_to_the_game_being_played() -> None:
    referee = seises(confirm_turns=False)
    tap(referee, "6O")
    new_game(referee)
    press(referee, "confirm", LONG)
    for button in ("pass", "confirm", "pass", "confirm", "pass", "pass", "pass", "confirm", "confirm"):
        press(referee, button)  # 5 players, and «Nueva partida» twice: still nothing laid
    assert referee.game.players == 5
    entries = tap(referee, "6O")
    assert isinstance(entries[0], GameOpened) and entries[0].settings["players"] == 5 and len(entries) == 2
    new_game(referee)
    press(referee, "undo", LONG)
    assert referee.game.players == 5 and len(referee.game.actions) == 1, "back to the 5 players' game"


# ---- the menu's language survives a power cut ---------------------------------------------------------------------


def test_the_language_chosen_in_the_menu_goes_to_the_games_settings() -> None:
    referee = seises()
    tap(referee, "6O"), press(referee, "confirm")
    press(referee, "confirm", LONG)
    for button in ("pass", "pass", "pass", "confirm", "pass"):
        press(referee, button)
    entries = press(referee, "confirm", t=3.0)
    assert [type(entry) for entry in entries] == [SettingsChanged] and entries[0].settings["language"] == "en"
    press(referee, "undo")
    assert referee.view().language == "en"
    again = Referee(GameConfig.from_settings(entries[0].settings), {"z1": "table"})
    assert again.view().language == "en", "what a restart reads from the game's row"


# ---- fewer players than the sheet recommends ----------------------------------------------------------------------


def test_a_seises_game_of_two_or_three_says_the_sheet_recommends_four_to_eight() -> None:
    for players, deck in ((2, "spanish-40"), (3, "spanish-48")):
        message = seises(players=players, deck=deck).view().message
        assert message == Message(MessageKind.INFO, "Hoja: 4 a 8 jugadores"), players
    assert seises(players=4).view().message is None
    referee = seises(language="en")
    press(referee, "confirm", LONG)
    for button in ("pass", "confirm", "pass", "pass", "pass", "confirm"):  # players: from 4 round to 2
        press(referee, button)
    for button in ("pass", "pass", "pass", "confirm", "confirm"):  # «New game» twice
        press(referee, button)
    assert referee.game.players == 2
    assert referee.view().message == Message(MessageKind.INFO, "Sheet: 4 to 8 players")
    named = Referee(GameConfig(name="sexto-set"), dict(zip([f"z{i}" for i in range(1, 9)], MASTERS, strict=True)))
    assert named.view().message is None  # 4 players: as the sheet says


# ---- seat names from the phone mid-game ---------------------------------------------------------------------------

NAMES = ("Ana", "Luis", "Eva", "Pau")  # in the order they sit


def restarted(referee: Referee, settings: SettingsChanged, entries: list[Entry]) -> Referee:
    """The table after a power cut: the game's row as the last settings change left it, its entries replayed."""
    again = Referee(GameConfig.from_settings(settings.settings), dict(referee.zones.roles))
    again.replay(entries)
    return again


def question(referee: Referee) -> tuple[str, str] | None:
    message = referee.view().message
    return (message.title, message.todo) if message is not None and message.kind is MessageKind.QUESTION else None


def test_names_given_after_the_first_play_ask_who_laid_the_six_of_oros_and_show_at_once() -> None:
    referee = seises(confirm_turns=False)
    entries = tap(referee, "6O") + tap(referee, "7O")
    [renamed] = referee.handle(SeatNames(NAMES), 1.0)
    assert isinstance(renamed, SettingsChanged) and renamed.settings["seat_names"] == list(NAMES)
    assert question(referee) == ("¿Quién puso el 6 de oros?", "Ana: OK sí, PASO otro nombre")
    assert question(restarted(referee, renamed, entries)) == question(referee), "asked again after a power cut"
    press(referee, "pass")
    [answered] = press(referee, "confirm", t=2.0)
    assert seat_names(referee) == ["Luis", "Eva", "Pau", "Ana"] and question(referee) is None
    assert isinstance(answered, SettingsChanged) and answered.settings["seat_one"] == "Luis"
    assert seat_names(restarted(referee, answered, entries)) == seat_names(referee)


def test_names_sent_again_from_another_player_keep_seat_1_by_name() -> None:
    referee = seises(seat_names=NAMES)
    lay(referee, "6O"), press(referee, "confirm"), press(referee, "pass"), press(referee, "pass")
    entries = press(referee, "confirm")  # Eva laid it
    assert seat_names(referee) == ["Eva", "Pau", "Ana", "Luis"]
    [renamed] = referee.handle(SeatNames(("Pau", "Ana", "Luis", "Eva")), 1.0)  # the same table, from Pau
    assert seat_names(referee) == ["Eva", "Pau", "Ana", "Luis"], "seat 1 is still Eva"
    assert referee.view().message == Message(MessageKind.INFO, "Asientos renombrados")
    assert seat_names(restarted(referee, renamed, entries)) == seat_names(referee)
    [renamed] = referee.handle(SeatNames(("Pau", "Ana", "Luis", "Eve")), 2.0)  # Eva is Eve now: who is seat 1?
    assert question(referee) is not None and seat_names(referee)[0] == "Asiento 1"
    for _ in range(3):
        press(referee, "pass")
    [answered] = press(referee, "confirm")
    assert seat_names(referee) == ["Eve", "Pau", "Ana", "Luis"]
    assert seat_names(restarted(referee, answered, entries)) == seat_names(referee), "not the first play's name 3"


def test_the_question_stays_on_the_screen_through_a_rename_and_a_stray_card_until_it_is_answered() -> None:
    referee = seises({"z1": "table", "z2": "table"}, seat_names=NAMES)
    lay(referee, "6O"), press(referee, "confirm")
    assert question(referee) == ("¿Quién puso el 6 de oros?", "Ana: OK sí, PASO otro nombre")
    referee.handle(SeatNames(("Zoe", "Yago", "Xia", "Wen")), 1.0)
    assert question(referee) == ("¿Quién puso el 6 de oros?", "Zoe: OK sí, PASO otro nombre"), "the new names"
    lay(referee, "7C", "z2")
    assert question(referee) is not None and light(referee, "z2") is ZoneLight.ILLEGAL, "not taken meanwhile"
    assert referee.pending is not None and referee.pending.action == Play("6O")
    press(referee, "pass")
    assert question(referee) == ("¿Quién puso el 6 de oros?", "Yago: OK sí, PASO otro nombre")
    assert press(referee, "confirm") == [Entry("action", "play 6O  # seat 1: name 2 (Yago)", 0.0)]
    assert question(referee) is None and seat_names(referee)[0] == "Yago"
    lift(referee, "7C", "z2")
    assert light(referee, "z2") is ZoneLight.OFF


def test_a_question_asked_after_the_first_play_lets_undo_take_it_back_and_opens_the_menu() -> None:
    referee = seises(confirm_turns=False)
    tap(referee, "6O")
    referee.handle(SeatNames(NAMES), 1.0)
    assert tap(referee, "7O") == [] and len(referee.game.actions) == 1, "a card is not played while it asks"
    press(referee, "confirm", LONG)
    assert referee.view().menu is not None
    press(referee, "undo")  # the menu closes: the question is back
    assert referee.view().menu is None and question(referee) is not None
    assert press(referee, "undo", LONG) == [Entry("undo", "", 0.0)]
    assert question(referee) is None and referee.asking is None, "no play left to ask about"
    tap(referee, "6O")
    assert question(referee) is not None and referee.game.actions == [], "asked at the first play, as ever"


def test_a_6o_set_table_plays_seises_on_its_lines_and_a_long_undo_brings_the_match_back() -> None:
    referee = sexto(confirm_turns=False)
    entries = [entry for zone, master in enumerate(MASTERS, start=1) for entry in tap(referee, master, f"z{zone}")]
    assert not referee.registering and [entry.kind for entry in entries] == ["zone"] * 8
    heads = dict(referee.zones.heads)
    press(referee, "confirm", LONG)
    press(referee, "confirm")
    assert referee.menu is not None and referee.menu.view().items == ("Seises", "6º SET")
    for button in ("pass", "confirm", "pass", "pass", "pass", "pass", "confirm", "confirm"):
        press(referee, button)  # Seises (its deck, 4 players), then «Nueva partida» twice
    assert referee.kind.name == "seises"
    lay(referee, "5O", "z3")
    assert light(referee, "z3") is ZoneLight.ILLEGAL, "judged by Seises' rules: the first play is the 6 of oros"
    lift(referee, "5O", "z3")
    assert press(referee, "undo", LONG) == []
    assert referee.kind.name == "sexto-set" and referee.zones.heads == heads and not referee.registering
    referee.start(GameConfig(name="seises", confirm_turns=False))  # as a restart would, with a Seises game
    assert [entry.kind for entry in tap(referee, "6O", "z5")] == ["action"], "any line takes a Seises card"


def test_a_6o_set_master_card_is_lifted_off_its_pad_once_its_zone_learnt_it() -> None:
    """hardware/README.md's 6º SET at the table: a zone learns its line's master card from the card laid on it, and
    the screen says to lift it (it heads its line beside the pad); a card laid while the master card still lies on
    the reader is a stack of two tags, and the screen names the master card to lift, after which the card plays."""
    referee = sexto(language="en")
    assert referee.view().message == Message(
        MessageKind.INFO, "A master on each zone: 8 left", "Lay the master card on z1"
    )
    lay(referee, "M1R", "z1")
    assert referee.view().message == Message(
        MessageKind.INFO, "Master 1 red on z1", "Lift it off the pad, then the next"
    )
    for zone, master in enumerate(MASTERS[1:], start=2):  # the others each lifted, M1R left on z1
        lay(referee, master, f"z{zone}")
        lift(referee, master, f"z{zone}")
    assert referee.view().message == Message(MessageKind.INFO, "Ready: pair A starts", "Lift it; play on the pads")
    lay(referee, "N01", "z1")  # laid on top of M1R
    message = referee.view().message
    assert message is not None and (message.title, message.todo) == (
        "Lift master 1 red off z1",
        "Then the new card counts",
    )
    assert light(referee, "z1") is ZoneLight.ILLEGAL and referee.pending is None
    lift(referee, "M1R", "z1")
    assert referee.pending is not None and referee.pending.action == Play("N01", "M1R")
    assert light(referee, "z1") is ZoneLight.PENDING_OK
    assert press(referee, "confirm") == [Entry("action", "play M1R N01", 0.0)]
    tap(referee, "N07", "z5")  # pair B's first card, on a bare line
    press(referee, "confirm")
    lay(referee, "N14", "z1")  # N01 not yet moved off the reader into its line
    message = referee.view().message
    assert message is not None and message.title.startswith("Lift ") and message.title.endswith(" off z1")
    lift(referee, "N01", "z1")
    assert referee.pending is not None and referee.pending.action == Play("N14", "M1R")


def test_two_cards_laid_at_once_on_a_pad_are_two_cards_not_a_card_to_lift() -> None:
    referee = seises()
    lay(referee, "6O")
    lay(referee, "7O")  # neither played yet: which is meant is the one left
    message = referee.view().message
    assert message is not None and message.title == "Dos cartas en z1"
