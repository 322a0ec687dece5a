"""The referee: the turn flow around a rules engine. Pure: events and time in, journal entries and a view out.

A legal card arriving on a zone becomes a *pending* play (its LED steady green); CONFIRM commits it. An illegal
card lights its zone red and the screen says why and what to do; nothing changes, and the warning clears when
the card leaves the zone. PASS makes the game's pending pass (a pay, "we cannot link": its kind says which);
CONFIRM commits it. A short UNDO cancels what is pending; a long UNDO takes back the last committed action (and
when that action had ended the game, reopens it: a ``reopen`` entry follows the ``undo``). A long CONFIRM opens
the menu.

``handle(event, now)`` returns what the event committed: the journal entries, and in order among them the
effects on the journal's rows (:mod:`~companion.referee.effects`: a new game opened, a game's settings changed);
the table writes them to disk *before* it shows the new ``view()``, so what the table shows as done is always on
disk (or the screen says the disk is full). Outside this package the referee is used only through its interface
(docs/DAEMON.md, "The referee's interface"; ``tests/test_referee_interface.py``). The parts:
:mod:`~companion.referee.texts` (its words), :mod:`~companion.referee.zones` (what lies on each zone),
:mod:`~companion.referee.health` (hub, readers, disk), :mod:`~companion.referee.news` (what each event did, typed,
for the outputs that word it themselves); each game's part is its kind (:mod:`companion.games`)::

    >>> referee = Referee(GameConfig(), zones={"z1": "table"})
    >>> referee.handle(CardArrived("z1", "6O"), 0.0)
    []
    >>> referee.view().zone_lights["z1"]
    <ZoneLight.PENDING_OK: 'pending_ok'>
    >>> referee.handle(Press(Button.CONFIRM, "short", 0.5), 0.5)
    [Entry(kind='action', text='play 6O', t=0.5)]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from companion.config import GameConfig
from companion.events import Button, CardArrived, CardLeft, Press, SameCardTwice, UnknownTag, UnknownTagLeft, hexuid
from companion.games import AnyKind, ending, find_kind, new_game
from companion.i18n import N_, Said, say
from companion.journal import Entry
from companion.menu import Menu, Settings, games_for, unfit_games
from companion.referee.effects import Committed, Effect, GameOpened, SettingsChanged
from companion.referee.health import Health, HealthEvent, HubStatus, JournalNotice, JournalStatus, ReaderStatus
from companion.referee.news import Acted, LevelChosen, Misplaced, News, Noticed, Refused, Undone
from companion.referee.phone import NewGame, PairingEnded, SeatNames, SpeechLevel, new_code
from companion.referee.texts import TEXT, TODO
from companion.referee.zones import CardFound, Zones
from companion.rules import Action, Game, IllegalPlay, Outcome, Reason
from companion.rules.transcript import UNDO, TranscriptError, noted_seat_one, parse_line, seat_one_note
from companion.rules.words import card_name, undone_words
from companion.view import Message, MessageKind, StatusLight, TableView, ZoneLight

__all__ = [
    "Acted",
    "CardFound",
    "Committed",
    "Effect",
    "GameOpened",
    "HubStatus",
    "JournalNotice",
    "JournalStatus",
    "LevelChosen",
    "Misplaced",
    "NewGame",
    "News",
    "Noticed",
    "PairingEnded",
    "Pending",
    "PhoneEvent",
    "ReaderStatus",
    "Referee",
    "Refused",
    "SeatNames",
    "SettingsChanged",
    "SpeechLevel",
    "Undone",
]


@dataclass(frozen=True, slots=True)
class Pending:
    """An action waiting for CONFIRM; ``zone`` is where its card lies (None for a pay or a pass)."""

    action: Action
    zone: str | None


PhoneEvent = SeatNames | NewGame | PairingEnded | SpeechLevel  # what a paired phone changes (companion.referee.phone)
Event = (
    CardArrived | CardFound | CardLeft | UnknownTag | UnknownTagLeft | SameCardTwice | Press | HealthEvent | PhoneEvent
)


class Referee:
    """One table: the game, what lies on each zone, what waits for CONFIRM, and what the players see.

    It is the table's :class:`~companion.games.Voice`: game kinds word their news through it."""

    def __init__(self, config: GameConfig, zones: Mapping[str, str]) -> None:
        self.config = config
        self.kind = find_kind(config.name)
        self.game: Game = self._new_engine(config)
        self.zones = Zones(zones, self._heads_from_roles(zones))
        self.pending: Pending | None = None
        self.message: Message | None = None
        self.menu: Menu | None = None
        self.health = Health()
        self.language = config.language
        # Seat names are given in sitting order; when the kind names seats from whoever makes the first play,
        # the players say who did: first_seat is that name's index, asking the one offered meanwhile.
        self.first_seat: int | None = None
        self.asking: int | None = None
        # A new game from the menu or the phone waits for its first entry (a card laid, a setting changed) before it
        # goes to the journal: until then a long UNDO brings back the game it replaced, as it stood.
        self._opening: list[Committed] = []  # the new game's opening and its own entries, held meanwhile
        self._replaced: _Replaced | None = None
        self._renege_message: Message | None = None  # the message that gives the status LED its renuncio look
        # Phones (the table's page): the menu offers "pair a phone" when a page is served; its code, while shown.
        self.pairable = False
        self.pairing_code: str | None = None
        self.new_code = new_code
        self._told: list[News] = []  # what the last event did, for the outputs that word it themselves
        self.speech: str | None = None  # how much the table says aloud, once it has a voice (allow_speech)
        self._mute: Said | None = None  # why that voice cannot sound, if it cannot
        self.message = self._advice()

    # ---- set-up ---------------------------------------------------------------------------------------------

    @staticmethod
    def _new_engine(config: GameConfig) -> Game:
        return new_game(config.name, config.players, config.deck_name, dict(config.options))

    def _heads_from_roles(self, roles: Mapping[str, str]) -> dict[str, str]:
        return {zone: head for zone, role in roles.items() if (head := self.kind.zone_head(role)) is not None}

    @property
    def registering(self) -> bool:
        """Some zone still waits for the card that heads it (a line's master card)."""
        return bool(self.kind.heads(self.game)) and bool(self.zones.waiting())

    @property
    def hub_online(self) -> bool:
        return self.health.hub_online

    @property
    def readers_down(self) -> set[str]:
        return self.health.readers_down

    @property
    def journal_ok(self) -> bool:
        return self.health.journal_ok

    def replay(self, entries: list[Entry]) -> None:
        """Rebuild the game from its journal entries (on start, after a power cut).

        A damaged entry raises ValueError (IllegalPlay, TranscriptError) or IndexError (an undo too many).
        """
        for entry in entries:
            if entry.kind == "zone":
                zone, head = entry.text.split()
                self.zones.heads[zone] = head
            elif entry.kind == "reopen":
                continue  # the undo before it reopened the game; only the journal's outcome changes
            elif entry.kind == "undo":
                self.game.pop()
                self._forget_first_seat()
            else:
                action = parse_line(entry.text, self.kind.grammar)
                if action is None or action == UNDO:
                    raise TranscriptError(Said(N_("not an action: {line}"), line=repr(entry.text)))
                self.game.push(action)
                named = noted_seat_one(entry.text)
                if named is not None and len(self.game.actions) == 1:
                    self.first_seat = self._named_first_seat(named[0] - 1, named[1])
        self._ask_if_unknown()

    def _named_first_seat(self, number: int, name: str | None) -> int | None:
        """Seat 1 as the first play's entry names it: by its name among the seat names now (they may have been
        renamed since), else by its number; None when a rename left that name out (the game's row says who)."""
        if name is None:
            return number
        return self.seat_names.index(name) if name in self.seat_names else None

    def _ask_if_unknown(self) -> None:
        """Seat names given after the game's first play: seat 1 is the name the game's settings say, or the table
        asks who laid the first card."""
        if self.first_seat is not None or not self.seat_names or not self.game.actions:
            return
        if self.config.seat_one in self.seat_names:
            self.first_seat = self.seat_names.index(self.config.seat_one)
        elif self.asking is None:
            self.asking = 0
            self._ask_first_seat()

    # ---- events ---------------------------------------------------------------------------------------------

    def handle(self, event: Event, now: float) -> list[Committed]:
        """Apply one event; return the journal entries and the effects it committed, in order (the table writes
        them before it shows the view)."""
        self._told = []
        entries = self._dispatch(event, now)
        if entries and self._opening:  # the new game's first entry: the new game goes to the journal before it
            entries, self._opening, self._replaced = [*self._opening, *entries], [], None
        if self.asking is not None and not self.game.actions and self.pending is None:
            self.asking = None  # the play it asked about was taken back
        if self.asking is not None:
            self._ask_first_seat()  # a question stays on the screen until it is answered
        return entries

    def _dispatch(self, event: Event, now: float) -> list[Committed]:
        if isinstance(event, Press):
            return self._press(event, now)
        if isinstance(event, SeatNames | NewGame | PairingEnded | SpeechLevel):
            return self._phone(event, now)
        if isinstance(event, CardArrived):
            return self._arrived(event.zone, event.card, now)
        if isinstance(event, CardFound):
            return self._found(event.zone, event.card, now)
        if isinstance(event, CardLeft):
            return self._left(event.zone, event.card, now)
        if isinstance(event, UnknownTagLeft):
            return self._left(event.zone, hexuid(event.uid), now)
        if isinstance(event, UnknownTag):
            self.zones.lay(event.zone, hexuid(event.uid))
            self.zones.warnings[event.zone] = ZoneLight.UNKNOWN
            if event.claims is None:
                self._say(MessageKind.UNKNOWN_CARD, "unknown_card", zone=event.zone)
            else:
                self._say(MessageKind.UNKNOWN_CARD, "two_tags", card=self.card_name(event.claims), zone=event.zone)
        elif isinstance(event, SameCardTwice):
            for zone in event.zones:
                self.zones.warnings[zone] = ZoneLight.ILLEGAL
            self._say(MessageKind.ILLEGAL, "same_card", card=self.card_name(event.card), zones=", ".join(event.zones))
        elif isinstance(event, JournalNotice):
            self._say(MessageKind.DISK_FULL, event.key, game=event.game)
        else:
            self._health(event)
        return []

    def _health(self, event: HubStatus | ReaderStatus | JournalStatus) -> None:
        kind = _HEALTH_MESSAGES["hub_lost" if isinstance(event, HubStatus) else "reader_down"]
        if isinstance(event, JournalStatus):
            kind = MessageKind.DISK_FULL
        if self.health.apply(event):
            if self.message is not None and self.message.kind is kind:
                self.message = None
        elif isinstance(event, ReaderStatus):
            self._say(kind, "reader_down", zone=event.zone)
        elif isinstance(event, HubStatus):
            key, fields = self.health.hub_problem()
            self._say(kind, key, **fields)
        else:
            self._say(kind, self.health.journal_problem)

    def _arrived(self, zone: str, card: str, now: float) -> list[Committed]:
        if self.zones.lay(zone, card):
            if self.pending is not None and self.pending.zone == zone:
                self.pending = None
            placed = self._placed_on(zone, card)
            if placed is not None:  # a card whose play is done, left on the reader: lifting it plays the new one
                self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "lift_first", card=placed, zone=zone)
            else:
                self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "two_cards", zone=zone)
            return []
        if self.menu is not None:
            return []
        if self.asking is not None:  # not taken while the table waits for an answer
            self.zones.warnings[zone] = ZoneLight.ILLEGAL
            return []
        if self.registering:
            return [*self._register(zone, card, now)]
        meant = self.meaning(card, zone)
        if isinstance(meant, Message):
            self.zones.warnings[zone] = ZoneLight.ILLEGAL
            self.message = meant
            self._told.append(Misplaced(card, zone))
            return []
        reason = self.game.reason(meant)
        if reason is Reason.ON_TABLE:
            self._say(MessageKind.INFO, "on_table", card=self.card_name(card))  # a card tapped again: ignored
            return []
        if reason is not None:
            refusal = self.game.refusal(meant)
            assert refusal is not None
            self.zones.warnings[zone] = ZoneLight.ILLEGAL
            self._refuse(refusal)
            return []
        self.pending = Pending(meant, zone)
        self.message = None
        if not self.config.confirm_turns:
            return self._commit(now)
        return []

    def _found(self, zone: str, card: str, now: float) -> list[Committed]:
        """A card lying on ``zone`` when the table started: never a play. One whose play would be legal (made and
        taken back by an UNDO, or never confirmed) is asked to be lifted and laid again; one whose play is on the
        table lies where it was laid; a master card heads its zone, and any other is refused, as if laid."""
        meant = None if self.registering or self.zones.lying.get(zone) else self.meaning(card, zone)
        reason = None if meant is None or isinstance(meant, Message) else self.game.reason(meant)
        if meant is None or isinstance(meant, Message) or reason not in (None, Reason.ON_TABLE):
            return self._arrived(zone, card, now)
        self.zones.lay(zone, card)
        if reason is None:
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "lying", card=self.card_name(card), zone=zone)
        return []

    def _placed_on(self, zone: str, card: str) -> str | None:
        """The name of a card lying on ``zone`` beside ``card`` whose part is done: the zone's head (a line's master
        card, once learnt) or a card of a committed play. The table remembers it; its reader must be left to the new
        card (a stack of two tags reads unreliably)."""
        played = {getattr(action, "card", None) for action in self.game.actions}
        for other in sorted(self.zones.lying[zone] - {card}):
            if other == self.zones.heads.get(zone) or other in played:
                return self.card_name(other)
        return None

    def meaning(self, card: str, zone: str) -> Action | Message:
        """What ``card`` laid on ``zone`` means in this game, or the message that refuses it there."""
        role = self.zones.roles.get(zone, "")
        return self.kind.card_on_zone(self.game, card, role, self.zones.heads.get(zone), self)

    def _left(self, zone: str, item: str, now: float = 0.0) -> list[Committed]:
        remaining, cleared = self.zones.lift(zone, item)
        if remaining is not None:  # the card left behind on a crowded zone is the one meant
            self.message = None
            if remaining in self.game.deck:
                self.zones.lying[zone].discard(remaining)
                return self._arrived(zone, remaining, now)
        warned = (MessageKind.ILLEGAL, MessageKind.UNKNOWN_CARD)
        if cleared and self.message is not None and self.message.kind in warned:
            self.message = None
        return []

    def _register(self, zone: str, card: str, now: float) -> list[Entry]:
        """A zone learns the card that heads it: the first such card laid on it."""
        waiting = self.zones.waiting()
        if zone not in waiting:
            return []
        if card not in self.kind.heads(self.game):
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.INFO, "register", left=len(waiting), zone=waiting[0])
            return []
        owner = self.zones.head_of(card)
        if owner is not None:
            master = self.card_name(card)
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "head_twice", master=master, zone=owner)
            return []
        self.zones.heads[zone] = card
        if self.registering:
            self._say(MessageKind.INFO, "registered", master=self.card_name(card), zone=zone)
        else:  # whoever plays next: at a game's start its first player, after a restart whoever's turn it is
            self._say(MessageKind.INFO, "ready", who=self.kind.who(self.game.snapshot()["turn"], self.language))
        return [Entry("zone", f"{zone} {card}", now)]

    def learnt_zones(self, now: float) -> list[Entry]:
        """The zone entries of the heads the zones learnt (not those their roles name): a new game journals them,
        so that resuming it after a power cut sets its zones up as they are."""
        return [
            Entry("zone", f"{zone} {head}", now)
            for zone, head in self.zones.heads.items()
            if self.kind.zone_head(self.zones.roles.get(zone, "")) is None
        ]

    def learn_zone(self, zone: str, head: str) -> bool:
        """``zone`` is headed by ``head``, as an earlier game on these zones registered it: learnt if the zone still
        waits for its head and ``head`` heads no other zone; whether it was."""
        if zone not in self.zones.waiting() or head not in self.kind.heads(self.game):
            return False
        if self.zones.head_of(head) is not None:
            return False
        self.zones.heads[zone] = head
        return True

    def _press(self, press: Press, now: float) -> list[Committed]:
        if self.pairing_code is not None:  # any button closes the pairing code, and voids it
            self.pairing_code = None
            return []
        if self.menu is not None:
            return self._menu_press(press, now)
        if self.asking is not None and (not self.game.actions or press.button != Button.UNDO):
            return self._answer(press, now)  # asked after the first play, the UNDO button still takes back or cancels
        if press.button == Button.CONFIRM:
            if press.kind == "long":
                self.menu = Menu(self.menu_settings(), pairing=self.pairable, zones=self.zones.roles, mute=self._mute)
                return []
            if self.pending is None:
                self._say(MessageKind.INFO, "nothing_pending")
                return []
            return self._commit(now)
        if press.button == Button.PASS:
            action = self.kind.pass_action()
            refusal = self.game.refusal(action)
            if refusal is not None:
                self._refuse(refusal)
                return []
            self.pending = Pending(action, None)
            self._say(MessageKind.INFO, self.kind.confirm_pass_key)
            return []
        if press.kind == "long":  # UNDO held: take back the last committed action
            if self._replaced is not None:  # a new game not yet begun: the game it replaced comes back
                self.pending = None
                return self._back_to_replaced()
            return self._undo(now)
        self.pending = None  # short UNDO: cancel what is pending and clear the warnings
        self.zones.warnings.clear()
        self.message = None
        return []

    def _undo(self, now: float) -> list[Committed]:
        """Take back the last committed action; one that had ended the game reopens it."""
        self.pending = None
        ended = self.game_over()
        try:
            undone = self.game.pop()
        except IndexError:
            self._say(MessageKind.INFO, "nothing_to_undo")
            return []
        self._forget_first_seat()
        self._say(MessageKind.INFO, "undone", action=undone_words(self.game, undone, self.language))
        self._told[-1] = Undone(undone)  # said its own way: the action, not the screen's words
        entries: list[Committed] = [Entry("undo", "", now)]
        if ended is not None and self.game_over() is None:
            withdrawn = {"termination": ended.termination, "winner": ended.winner}
            entries.append(Entry("reopen", json.dumps(withdrawn), now))
        return entries

    def game_over(self) -> Outcome | None:
        """The outcome that ended the game (a 6º SET match's, not a set's), or None while it runs. The table closes
        the game in the journal with it; an UNDO that takes back its action reopens the game."""
        return self.game.outcome()

    def _commit(self, now: float) -> list[Committed]:
        assert self.pending is not None
        if self._names_wait_for_first_seat(self.pending.action):
            self.asking = 0
            self._ask_first_seat()
            return []
        return self._push_pending(now)

    def _names_wait_for_first_seat(self, action: Action) -> bool:
        """Seat names, and ``action`` the game's first play: who made it (seat 1) is not known yet."""
        return (
            bool(self.seat_names) and self.first_seat is None and not self.game.actions and self.game.is_legal(action)
        )

    def _ask_first_seat(self) -> None:
        assert self.asking is not None
        self._say(MessageKind.QUESTION, "ask_first_seat", name=self.seat_names[self.asking])

    def _answer(self, press: Press, now: float) -> list[Committed]:
        """While asking who made the first play: PASS offers the next name, CONFIRM picks it, a long CONFIRM opens
        the menu (the question comes back when it closes), UNDO gives up the first play. Asked after it (the seats
        were named since), the answer goes to the game's row."""
        assert self.asking is not None
        if press.button == Button.PASS:
            self.asking = (self.asking + 1) % len(self.seat_names)
            return []
        if press.button == Button.CONFIRM and press.kind == "long":
            self.menu = Menu(self.menu_settings(), pairing=self.pairable, zones=self.zones.roles, mute=self._mute)
            return []
        if press.button == Button.CONFIRM:
            self.first_seat, self.asking = self.asking, None
            self.config = replace(self.config, seat_one=self.seat_names[self.first_seat])
            self.message = None
            return self._push_pending(now) if not self.game.actions else [self._settings_entry(now)]
        self.asking = self.pending = None
        self.message = None
        return []

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The seat names in sitting order, when the kind names seats from the first play and there is one a
        player (a new game from the menu may have another number of players than the config's names); else
        none, and seats are numbered."""
        names = self.config.seat_names
        fits = self.kind.names_first_seat and len(names) == self.config.players
        return names if fits else ()

    def _forget_first_seat(self) -> None:
        if not self.game.actions:
            self.first_seat = None
            self.config = replace(self.config, seat_one="")

    def _push_pending(self, now: float) -> list[Committed]:
        assert self.pending is not None
        action = self.pending.action
        before = self.game.snapshot()
        try:
            self.game.push(action)
        except IllegalPlay as refusal:  # the table moved on since the card was laid (an undo in between)
            self.pending = None
            self._refuse(refusal)
            return []
        self.pending = None
        after = self.game.snapshot()
        self._told.append(Acted(action, before, after))
        self.message, renege = self.kind.said(before, after, self)
        self._renege_message = self.message if renege else None
        text = str(action)
        if self.first_seat is not None and len(self.game.actions) == 1:
            # said on the play's own line, so that replaying the journal (or companion play) reads it as it is
            text += seat_one_note(self.first_seat + 1, self.seat_names[self.first_seat])
        return [Entry("action", text, now)]

    def _menu_press(self, press: Press, now: float) -> list[Committed]:
        assert self.menu is not None
        choice = self.menu.press(press)
        if choice is None:
            return []
        settings = self.menu.settings
        self.language = settings.language
        if choice.key == "language":  # the table's from now on: kept on the game's row, so a power cut keeps it
            self.config = replace(self.config, language=settings.language)
            return [self._settings_entry(now)]
        if choice.key == "speech":
            self._choose_speech(settings.speech)
        elif choice.key == "close":
            self.menu = None
        elif choice.key == "pair":
            self.menu = None
            self.pairing_code = self.new_code()
        elif choice.key == "new_game":
            self.menu = None
            return self._new_game(settings, now)
        return []

    def _new_game(self, settings: Settings, now: float) -> list[Committed]:
        """Start the game ``settings`` say, in place of the one being played; it goes to the journal with its first
        entry (:meth:`handle`), and until then a long UNDO brings back the one it replaced."""
        if settings.game not in games_for(self.zones.roles):  # the phone asked for it: the menu offers none such
            why = "; ".join(said.text(self.language) for said in unfit_games(self.zones.roles)[settings.game])
            self.message = Message(
                MessageKind.ILLEGAL, self.text("game_unfit", game=find_kind(settings.game).title(self.language)), why
            )
            return []
        if self._replaced is None:  # a second new game before the first one's first card replaces the same game
            self._replaced = _Replaced(self.config, self.game, dict(self.zones.heads), self.first_seat)
        replaced = self._replaced
        end = ending(replaced.game, ended=True)  # the game it replaces ends as it stands
        self.start(
            GameConfig(
                name=settings.game,
                players=settings.players,
                deck=settings.deck,
                options=self.config.options if settings.game == self.config.name else {},
                language=settings.language,
                confirm_turns=self.config.confirm_turns,
                seat_names=self.config.seat_names,
            )
        )
        self._replaced = replaced
        todo = self.text("new_game_names_do") if self.seat_names else ""  # the referee will ask who is seat 1
        advice = self._advice()
        title = self.text("new_game", game=self.kind.title(self.language)) if advice is None else advice.title
        self.message = Message(MessageKind.INFO, title, todo)
        self._opening = [GameOpened(self.config.settings(), None if end is None else end.winner, now)]
        return []

    def _back_to_replaced(self) -> list[Committed]:
        """A long UNDO before the new game's first entry: the game it replaced, as it stood (the journal never
        closed it)."""
        assert self._replaced is not None
        replaced, self._replaced, self._opening = self._replaced, None, []
        self.config, self.game = replaced.config, replaced.game
        self.kind, self.language = find_kind(self.config.name), self.config.language
        self.zones.heads, self.first_seat = dict(replaced.heads), replaced.first_seat
        self.zones.warnings.clear()
        self._say(MessageKind.INFO, "new_game_undone")
        self._ask_if_unknown()
        return []

    def _advice(self) -> Message | None:
        """What the rule sheet recommends, when this game's players are not that (said as a game is set up)."""
        ideal = self.kind.ideal_players
        if ideal is None or ideal[0] <= self.config.players <= ideal[1]:
            return None
        return Message(MessageKind.INFO, self.text("ideal_players", low=ideal[0], high=ideal[1]))

    def _settings_entry(self, now: float) -> SettingsChanged:
        """The game's settings changed: the table writes them on the game's row."""
        return SettingsChanged(self.config.settings(), now)

    def _phone(self, event: PhoneEvent, now: float) -> list[Committed]:
        """A change a paired phone asked for (:mod:`companion.referee.phone`), as the menu would make it."""
        if isinstance(event, NewGame):
            self.menu = None
            return self._new_game(event.settings, now)
        if isinstance(event, SeatNames):
            return self._rename(event.names, now)
        if isinstance(event, SpeechLevel):
            self._choose_speech(event.level)
            if self.menu is not None:  # the menu open on the table shows the phone's choice
                self.menu.settings = replace(self.menu.settings, speech=self.speech)
            return []
        if self.pairing_code is not None:
            self.pairing_code = None
            self._say(MessageKind.INFO, f"pairing_{event.why}")
        return []

    def _rename(self, names: tuple[str, ...], now: float) -> list[Committed]:
        """New seat names, in the order the players sit, at once: seat 1 stays whoever laid the first card, by
        name; when the new names do not say who that is, the table asks."""
        seat_one = self.seat_name(0) if self.first_seat is not None else ""
        self.config = replace(self.config, seat_names=names, seat_one="")
        self.first_seat = self.seat_names.index(seat_one) if seat_one in self.seat_names else None
        if self.first_seat is not None:
            self.config = replace(self.config, seat_one=seat_one)
        if self.asking is not None:
            self.asking = 0  # asked again, from the first of the new names
        self._say(MessageKind.INFO, "seats_named")
        self._ask_if_unknown()
        return [self._settings_entry(now)]

    def start(self, config: GameConfig) -> None:
        """Start a new game with ``config`` (the daemon opens a new game in the journal for it)."""
        same_game = config.name == self.config.name  # the zones keep the heads they learnt
        self.config = config
        self.kind = find_kind(config.name)
        self.language = config.language
        self.game = self._new_engine(config)
        if not same_game:
            self.zones.heads = self._heads_from_roles(self.zones.roles)
        self.first_seat = self.asking = None
        self.pending = None
        self.zones.warnings.clear()
        self.message = self._advice()

    def menu_settings(self) -> Settings:
        """The settings the menu opens on: the game being played."""
        counts = self.kind.player_counts(self.game.deck)
        players = self.config.players if self.config.players in counts else counts[0]
        return Settings(
            game=self.kind.name, players=players, deck=self.config.deck_name, language=self.language, speech=self.speech
        )

    def _choose_speech(self, level: str | None) -> None:
        """The players chose how much the table says: the voice hears it as news (a table without one ignores it)."""
        if self.speech is not None and level is not None:
            self.speech = level
            self._told.append(LevelChosen(level))

    # ---- messages: the table's voice ------------------------------------------------------------------------

    def text(self, key: str, **fields: Any) -> str:
        """The text ``key`` in the table's language: the game kind's own, else the referee's."""
        return say(self.kind.texts.get(key) or TEXT[key], self.language, **fields)

    def _say(self, kind: MessageKind, key: str, **fields: Any) -> None:
        todo_key = self.kind.todo.get(key) or TODO.get(key)
        title = self.text(key, **fields)
        todo = self.text(todo_key, **fields) if todo_key else ""
        self.message = Message(kind, title[:1].upper() + title[1:], todo)
        self._told.append(Noticed(key, fields))

    def _warn(self, where: str, light: ZoneLight, kind: MessageKind, key: str, **fields: Any) -> None:
        self.zones.warnings[where] = light
        self._say(kind, key, **fields)

    def _refuse(self, refusal: IllegalPlay) -> None:
        self.message = self._illegal_message(refusal)
        self._told.append(Refused(refusal))

    def _illegal_message(self, refusal: IllegalPlay) -> Message:
        return Message(MessageKind.ILLEGAL, refusal.title(self.language), refusal.todo(self.language))

    def card_name(self, card_id: str) -> str:
        return card_name(self.game, card_id, self.language)

    def seat_name(self, seat: int) -> str:
        """Seat ``seat`` (from 0, in playing order): its player's name once the players said who is seat 1."""
        names = self.seat_names
        if not names or self.first_seat is None:
            return self.text("seat", n=seat + 1)
        return names[(self.first_seat + seat) % len(names)]

    # ---- the interface: what the table and its outputs read (docs/DAEMON.md, "The referee's interface") -----

    @property
    def current_game(self) -> Game:
        """The game being played, to read (its state, actions and deck): it changes only through :meth:`handle`,
        :meth:`replay` and :meth:`start`."""
        return self.game

    @property
    def game_kind(self) -> AnyKind:
        """The kind of the game being played (:mod:`companion.games`)."""
        return self.kind

    @property
    def game_config(self) -> GameConfig:
        """The game being played as the journal's row keeps it (its settings: players, deck, language, seats)."""
        return self.config

    @property
    def table_language(self) -> str:
        """The language the table speaks now (the menu's, which may differ from the game's row until kept)."""
        return self.language

    @property
    def zone_roles(self) -> Mapping[str, str]:
        """Each zone's role, as the config names it (``table``, ``line``...)."""
        return MappingProxyType(self.zones.roles)

    @property
    def zone_heads(self) -> Mapping[str, str]:
        """The card that heads each zone that has one (6º SET's master cards), by zone."""
        return MappingProxyType(self.zones.heads)

    @property
    def waiting_zones(self) -> list[str]:
        """The zones that still wait for the card that heads them, in the order they are asked for."""
        return self.zones.waiting()

    @property
    def pending_action(self) -> Pending | None:
        """The action waiting for CONFIRM, if any."""
        return self.pending

    @property
    def pairing_shown(self) -> str | None:
        """The code that pairs a phone, while the screen shows it."""
        return self.pairing_code

    @property
    def asking_first_seat(self) -> bool:
        """Whether the table waits for the players to say who made the first play."""
        return self.asking is not None

    @property
    def seat_one_known(self) -> bool:
        """Whether the players said who is seat 1 (then :meth:`seat_name` gives their names)."""
        return self.first_seat is not None

    @property
    def told(self) -> tuple[News, ...]:
        """What the last event handled did, in order (:mod:`companion.referee.news`): for the outputs that word the
        news themselves (the voice), read once :meth:`handle` returned."""
        return tuple(self._told)

    def allow_speech(self, level: str, mute: Said | None = None) -> None:
        """The table has a voice, saying ``level`` (one of ``SPEECH_LEVELS``): the menu offers to change it.
        ``mute``: it cannot sound, and the menu says so (what to do) when a person switches it on."""
        self.speech, self._mute = level, mute

    @property
    def speech_level(self) -> str | None:
        """How much the table says aloud now, or None when it has no voice."""
        return self.speech

    @property
    def speech_mute(self) -> Said | None:
        """Why the table's voice cannot sound (no sound card, no espeak-ng: what to do), or None when it can."""
        return self._mute

    def allow_pairing(self) -> None:
        """The table serves a page: the menu offers "pair a phone" from now on."""
        self.pairable = True

    # ---- the view -------------------------------------------------------------------------------------------

    def view(self) -> TableView:
        lights = {zone: ZoneLight.OFF for zone in self.zones.roles}
        if self.pending is not None and self.pending.zone is not None:
            lights[self.pending.zone] = ZoneLight.PENDING_OK
        lights.update(self.zones.warnings)
        if not self.health.journal_ok or self.health.readers_down:
            status = StatusLight.ERROR
        elif not self.health.hub_online:
            status = StatusLight.HUB_LOST
        elif self.message is not None and self.message is self._renege_message:
            status = StatusLight.RENEGE
        else:
            status = StatusLight.READY
        return TableView(
            game=self.kind.view(self.game, self),
            message=self.message or self._standing_message(),
            zone_lights=lights,
            status=status,
            language=self.language,
            menu=None if self.menu is None else self.menu.view(),
            pairing=self.pairing_code,
        )

    def stopped_view(self) -> TableView:
        """What the screen is left showing when the service stops."""
        view = self.view()
        message = Message(MessageKind.INFO, self.text("stopped"), self.text("stopped_do"))
        return TableView(view.game, message, {}, view.status, view.language)

    def _standing_message(self) -> Message | None:
        """A problem a person must fix stays on the screen while nothing newer is said; so does, while zones wait
        for the cards that head them (6º SET's master cards), what to lay where."""
        problem = self.health.problem()
        if problem is None:
            waiting = self.zones.waiting() if self.registering else []
            if not waiting:
                return None
            title = self.text("register", left=len(waiting), zone=waiting[0])
            return Message(MessageKind.INFO, title, self.text("register_do", left=len(waiting), zone=waiting[0]))
        key, fields = problem
        kind = _HEALTH_MESSAGES.get(key, MessageKind.DISK_FULL)
        return Message(kind, self.text(key, **fields), self.text(TODO[key], **fields))


@dataclass(frozen=True, slots=True)
class _Replaced:
    """The game a new game replaced, as it stood: what a long UNDO brings back before the new game's first card."""

    config: GameConfig
    game: Game
    heads: dict[str, str]
    first_seat: int | None


_HEALTH_MESSAGES = {
    "hub_lost": MessageKind.HUB_LOST,
    "hub_zones": MessageKind.HUB_LOST,
    "reader_down": MessageKind.READER_DOWN,
}  # else DISK_FULL
