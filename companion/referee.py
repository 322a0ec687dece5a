"""The referee: the turn flow around a rules engine. Pure: events and time in, journal entries and a view out.

A legal card arriving on a zone becomes a *pending* play (its LED steady green); CONFIRM commits it. An illegal
card lights its zone red and the screen says why and what to do; nothing changes, and the warning clears when
the card leaves the zone. PASS makes a pending pay (Seises) or a pending "we cannot link" (6º SET); CONFIRM
commits it. A short UNDO cancels what is pending; a long UNDO takes back the last committed action. A long
CONFIRM opens the menu.

``handle(event, now)`` returns the journal entries the event committed; the daemon writes them to disk
*before* it shows the new ``view()``, so what the table shows as done is always on disk (or the screen says the
disk is full)::

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
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from companion.commands.play import new_game, undone_words
from companion.config import GameConfig
from companion.decks import SUITS, Kind
from companion.events import Button, CardArrived, CardLeft, Press, SameCardTwice, UnknownTag, hexuid
from companion.journal import Entry
from companion.rules import Action, Game, IllegalPlay, Pass, Pay, Play, Reason, Seises, SextoSet
from companion.rules.news import ChipOwed, GameWon, HandWon, News, Reneged, SetEnded, SomebodyReneged, news
from companion.rules.transcript import UNDO, TranscriptError, parse_line
from companion.ui.menu import Menu, Settings
from companion.view import (
    Line,
    Message,
    MessageKind,
    Pair,
    Seat,
    SeisesView,
    SextoSetView,
    StatusLight,
    TableView,
    ZoneLight,
)

__all__ = ["HubStatus", "JournalNotice", "JournalStatus", "Pending", "ReaderStatus", "Referee"]


@dataclass(frozen=True, slots=True)
class HubStatus:
    online: bool


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    zone: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class JournalStatus:
    ok: bool
    detail: str = ""
    problem: str = "disk_full"  # what the screen says while not ok: disk_full | not_recording (cannot be opened)


@dataclass(frozen=True, slots=True)
class JournalNotice:
    """What the table did at start about a journal it could not read: damaged_game (closed) | journal_aside."""

    key: str
    game: int = 0


@dataclass(frozen=True, slots=True)
class Pending:
    """An action waiting for CONFIRM; ``zone`` is where its card lies (None for a pay or a pass)."""

    action: Action
    zone: str | None


Event = (
    CardArrived
    | CardLeft
    | UnknownTag
    | SameCardTwice
    | Press
    | HubStatus
    | ReaderStatus
    | JournalStatus
    | JournalNotice
)

# The referee's own words: key -> (Spanish, English). Fields are filled with str.format.
TEXT: dict[str, tuple[str, str]] = {
    "unknown_card": ("Carta desconocida en {zone}", "Unknown card on {zone}"),
    "unknown_card_do": ("Retírala y regístrala: companion enroll", "Take it back and enroll it: companion enroll"),
    "two_tags": ("Dos etiquetas dicen ser {card}", "Two tags claim {card}"),
    "two_tags_do": ("Retira la copia de {zone}", "Take the copy off {zone}"),
    "wrong_zone": ("{card}: zona de {suit}", "{card}: {suit} zone"),
    "wrong_zone_do": ("Ponla en la zona de {suit}", "Lay it on the {suit} zone"),
    "two_cards": ("Dos cartas en {zone}", "Two cards on {zone}"),
    "two_cards_do": ("Deja una sola carta en la zona", "Leave one card on the zone"),
    "same_card": ("{card} en dos zonas: {zones}", "{card} on two zones: {zones}"),
    "same_card_do": ("Retírala de una de ellas", "Take it off one of them"),
    "on_table": ("{card} ya está en la mesa", "{card} is already on the table"),
    "nothing_pending": ("Nada que confirmar", "Nothing to confirm"),
    "nothing_pending_do": ("Pon una carta o pulsa PASO", "Lay a card or press PASS"),
    "confirm_pay": ("¿Pagar una ficha?", "Pay one chip?"),
    "confirm_pass": ("¿No podéis enlazar? Perdéis el set", "Cannot link? You lose the set"),
    "confirm_do": ("OK confirma, DESHACER anula", "OK confirms, UNDO cancels"),
    "undone": ("Deshecho: {action}", "Undone: {action}"),
    "ask_first_seat": ("¿Quién puso el 6 de oros?", "Who laid the 6 of coins?"),
    "ask_first_seat_do": ("{name}: OK sí, PASO otro nombre", "{name}: OK yes, PASS next name"),
    "nothing_to_undo": ("Nada que deshacer", "Nothing to undo"),
    "hand_won": ("{seat} gana la mano: +{chips}", "{seat} wins the hand: +{chips}"),
    "next_hand": ("Mano {hand}: abre {seat} con un seis", "Hand {hand}: {seat} opens with a six"),
    "game_won": ("{seat} gana con {score}", "{seat} wins with {score}"),
    "new_game_do": ("Pulsa OK largo: menú", "Long OK: menu"),
    "renege": ("Renuncio: {seat}", "Renege: {seat}"),
    "renege_do": ("Pagó teniendo {card}", "Paid holding the {card}"),
    "renege_points": ("Pagó teniendo {card}: -{points} puntos", "Paid holding the {card}: -{points} points"),
    "renege_hand": (
        "Gana la mano: +{chips}. Pagó teniendo {card}{penalty}",
        "Wins the hand: +{chips}. Paid holding the {card}{penalty}",
    ),
    "penalty": (": -{points} puntos", ": -{points} points"),
    "somebody_reneged": ("¡Renuncio de alguien!", "Somebody reneged!"),
    "somebody_reneged_do": ("Todos pagaron y hay cartas que valen", "All paid, yet cards in hands fit"),
    "reserve_empty": ("Bolsa vacía: ficha debida", "Reserve empty: chip owed"),
    "set_won": ("Pareja {pair} gana el set", "Pair {pair} wins the set"),
    "set_drawn": ("Set empatado", "Drawn set"),
    "next_set": ("Recoged: empieza la pareja {leads}", "Gather: pair {leads} leads next"),
    "register": ("Maestra en cada zona: faltan {left}", "A master on each zone: {left} left"),
    "register_do": ("Pon la carta maestra en {zone}", "Lay the master card on {zone}"),
    "registered": ("{master} en {zone}", "{master} on {zone}"),
    "master_twice": ("{master} ya está en {zone}", "{master} is already on {zone}"),
    "ready": ("Listo: empieza la pareja A", "Ready: pair A starts"),
    "hub_lost": ("Concentrador perdido", "Hub lost"),
    "hub_lost_do": ("Revisa el cable USB", "Check the USB cable"),
    "reader_down": ("Lector {zone} no responde", "Reader {zone} not answering"),
    "reader_down_do": ("Revisa su cable", "Check its cable"),
    "disk_full": ("Disco lleno: sin guardar", "Disk full: not saved"),
    "disk_full_do": ("Libera espacio en la tarjeta", "Free space on the SD card"),
    "not_recording": ("La mesa no graba", "Table not recording"),
    "not_recording_do": ("Diario: companion doctor", "Journal: companion doctor"),
    "damaged_game": ("Partida {game} ilegible", "Game {game} unreadable"),
    "damaged_game_do": ("Cerrada y guardada; empieza otra", "Closed and kept; a new one starts"),
    "journal_aside": ("Diario dañado: apartado", "Journal damaged: set aside"),
    "journal_aside_do": ("Nuevo diario; companion doctor", "A new one; companion doctor"),
    "new_game": ("Partida nueva: {game}", "New game: {game}"),
    "new_game_names_do": ("Al 6 de oros, elegid quién lo puso", "At the 6 of coins, say who laid it"),
    "seat": ("Asiento {n}", "Seat {n}"),
    "stopped": ("Companion parado", "Companion stopped"),
    "stopped_do": ("Se reanuda al arrancar", "It resumes at start"),
}

# A message's title key -> the key of its "what to do" line; the rest have none, or build it themselves.
TODO: dict[str, str] = {
    "unknown_card": "unknown_card_do",
    "two_tags": "two_tags_do",
    "wrong_zone": "wrong_zone_do",
    "two_cards": "two_cards_do",
    "same_card": "same_card_do",
    "nothing_pending": "nothing_pending_do",
    "confirm_pay": "confirm_do",
    "confirm_pass": "confirm_do",
    "hub_lost": "hub_lost_do",
    "reader_down": "reader_down_do",
    "disk_full": "disk_full_do",
    "not_recording": "not_recording_do",
    "damaged_game": "damaged_game_do",
    "journal_aside": "journal_aside_do",
    "register": "register_do",
    "hand_won": "next_hand",
    "game_won": "new_game_do",
    "renege": "renege_points",
    "somebody_reneged": "somebody_reneged_do",
    "ask_first_seat": "ask_first_seat_do",
    "set_won": "next_set",
    "set_drawn": "next_set",
    "stopped": "stopped_do",
}


class Referee:
    """One table: the game, what lies on each zone, what waits for CONFIRM, and what the players see."""

    def __init__(self, config: GameConfig, zones: Mapping[str, str]) -> None:
        self.config = config
        self.zone_roles = dict(zones)  # zone -> "table" | suit letter | master id | "auto"
        self.game: Game = self._new_engine(config)
        self.lines: dict[str, str] = {z: r for z, r in zones.items() if r not in ("auto", "table") and r[0] == "M"}
        self.pending: Pending | None = None
        self.warnings: dict[str, ZoneLight] = {}  # zone -> ILLEGAL | UNKNOWN, until its card leaves
        self.on_zone: dict[str, set[str]] = {zone: set() for zone in zones}  # cards (or tag uids) now read there
        self.crowded: set[str] = set()  # zones holding more than one card
        self.message: Message | None = None
        self.menu: Menu | None = None
        self.hub_online = True
        self.readers_down: set[str] = set()
        self.journal_ok = True
        self.journal_problem = "disk_full"  # the TEXT key said while the journal is not ok
        self.language = config.language
        # Seises seat names are given in sitting order; seat 1 is whoever lays the 6 of oros, so the players
        # say who did at the first play: first_seat is that name's index, asking the one offered meanwhile.
        self.first_seat: int | None = None
        self.asking: int | None = None
        self._renege_message: Message | None = None  # the message that gives the status LED its renuncio look

    # ---- set-up ---------------------------------------------------------------------------------------------

    @staticmethod
    def _new_engine(config: GameConfig) -> Game:
        return new_game(config.name, config.players, config.deck_name, dict(config.options))

    @property
    def registering(self) -> bool:
        """6º SET: some zone still waits for its master card."""
        return isinstance(self.game, SextoSet) and len(self.lines) < len(self.zone_roles)

    def replay(self, entries: list[Entry]) -> None:
        """Rebuild the game from its journal entries (on start, after a power cut).

        A damaged entry raises ValueError (IllegalPlay, TranscriptError) or IndexError (an undo too many).
        """
        for entry in entries:
            if entry.kind == "zone":
                zone, master = entry.text.split()
                self.lines[zone] = master
            elif entry.kind == "undo":
                self.game.pop()
                self._forget_first_seat()
            else:
                action = parse_line(self.game.name, entry.text)
                if action is None or action == UNDO:
                    raise TranscriptError(f"not an action: {entry.text!r}", f"no es una acción: {entry.text!r}")
                self.game.push(action)
                named = _FIRST_SEAT.search(entry.text)
                if named and len(self.game.actions) == 1:
                    self.first_seat = int(named.group(1)) - 1

    # ---- events ---------------------------------------------------------------------------------------------

    def handle(self, event: Event, now: float) -> list[Entry]:
        """Apply one event; return the journal entries it committed (write them before showing the view)."""
        if isinstance(event, Press):
            return self._press(event, now)
        if isinstance(event, CardArrived):
            return self._arrived(event.zone, event.card, now)
        if isinstance(event, CardLeft):
            return self._left(event.zone, event.card, now)
        if isinstance(event, UnknownTag):
            uid = hexuid(event.uid)
            self.on_zone.setdefault(event.zone, set()).add(uid)
            if event.claims is None:
                self._warn(event.zone, ZoneLight.UNKNOWN, MessageKind.UNKNOWN_CARD, "unknown_card", zone=event.zone)
            else:
                card = self.card_name(event.claims)
                kind = MessageKind.UNKNOWN_CARD
                self._warn(event.zone, ZoneLight.UNKNOWN, kind, "two_tags", card=card, zone=event.zone)
        elif isinstance(event, SameCardTwice):
            for zone in event.zones:
                self.warnings[zone] = ZoneLight.ILLEGAL
            self._say(MessageKind.ILLEGAL, "same_card", card=self.card_name(event.card), zones=", ".join(event.zones))
        elif isinstance(event, HubStatus):
            self.hub_online = event.online
            if event.online:
                self._clear_message(MessageKind.HUB_LOST)
            else:
                self._say(MessageKind.HUB_LOST, "hub_lost")
        elif isinstance(event, ReaderStatus):
            if event.ok:
                self.readers_down.discard(event.zone)
                self._clear_message(MessageKind.READER_DOWN)
            else:
                self.readers_down.add(event.zone)
                self._say(MessageKind.READER_DOWN, "reader_down", zone=event.zone)
        elif isinstance(event, JournalStatus):
            self.journal_ok = event.ok
            if event.ok:
                self._clear_message(MessageKind.DISK_FULL)
            else:
                self.journal_problem = event.problem
                self._say(MessageKind.DISK_FULL, event.problem)
        elif isinstance(event, JournalNotice):
            self._say(MessageKind.DISK_FULL, event.key, game=event.game)
        return []

    def forget_uid(self, zone: str, uid: bytes, now: float) -> list[Entry]:
        """An unknown tag left its zone; returns what that committed (the card left behind, if any)."""
        return self._left(zone, hexuid(uid), now)

    def _arrived(self, zone: str, card: str, now: float) -> list[Entry]:
        present = self.on_zone.setdefault(zone, set())
        present.add(card)
        if len(present) > 1:  # which of them is meant? the one left once the others are taken away
            if self.pending is not None and self.pending.zone == zone:
                self.pending = None
            self.crowded.add(zone)
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "two_cards", zone=zone)
            return []
        if self.menu is not None:
            return []
        if self.registering:
            return self._register(zone, card, now)
        role = self.zone_roles.get(zone, "table")
        deck_card = self.game.deck.get(card)
        if isinstance(self.game, Seises) and role in SUITS and deck_card is not None and deck_card.suit != role:
            suit = SUITS[deck_card.suit or "O"][0 if self.language == "es" else 1]
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "wrong_zone", card=self.card_name(card), suit=suit)
            return []
        action = Play(card, self.lines.get(zone)) if isinstance(self.game, SextoSet) else Play(card)
        reason = self.game.reason(action)
        if reason is Reason.ON_TABLE:
            self._say(MessageKind.INFO, "on_table", card=self.card_name(card))  # a card tapped again: ignored
            return []
        if reason is not None:
            refusal = self.game.refusal(action)
            assert refusal is not None
            self.warnings[zone] = ZoneLight.ILLEGAL
            self.message = self._illegal_message(refusal)
            return []
        self.pending = Pending(action, zone)
        self.message = None
        if not self.config.confirm_turns:
            return self._commit(now)
        return []

    def _left(self, zone: str, card: str, now: float = 0.0) -> list[Entry]:
        present = self.on_zone.setdefault(zone, set())
        present.discard(card)
        if zone in self.crowded and len(present) == 1:  # the card left behind is the one meant
            self.crowded.discard(zone)
            self.warnings.pop(zone, None)
            self.message = None
            remaining = present.pop()
            if remaining in self.game.deck:
                return self._arrived(zone, remaining, now)
            present.add(remaining)
        if not present and zone in self.warnings:
            self.crowded.discard(zone)
            del self.warnings[zone]
            if self.message is not None and self.message.kind in (MessageKind.ILLEGAL, MessageKind.UNKNOWN_CARD):
                self.message = None
        return []

    def _register(self, zone: str, card: str, now: float) -> list[Entry]:
        deck_card = self.game.deck.get(card)
        waiting = [z for z in self.zone_roles if z not in self.lines]
        if zone not in waiting:
            return []
        if deck_card is None or deck_card.kind is not Kind.MASTER:
            self._warn(zone, ZoneLight.ILLEGAL, MessageKind.INFO, "register", left=len(waiting), zone=waiting[0])
            return []
        owner = next((z for z, m in self.lines.items() if m == card), None)
        if owner is not None:
            self._warn(
                zone, ZoneLight.ILLEGAL, MessageKind.ILLEGAL, "master_twice", master=self.card_name(card), zone=owner
            )
            return []
        self.lines[zone] = card
        if self.registering:
            self._say(MessageKind.INFO, "registered", master=self.card_name(card), zone=zone)
        else:
            self._say(MessageKind.INFO, "ready")
        return [Entry("zone", f"{zone} {card}", now)]

    def _press(self, press: Press, now: float) -> list[Entry]:
        if self.menu is not None:
            return self._menu_press(press, now)
        if self.asking is not None:
            return self._answer(press, now)
        if press.button == Button.CONFIRM:
            if press.kind == "long":
                self.menu = Menu(self._menu_settings())
                return []
            if self.pending is None:
                self._say(MessageKind.INFO, "nothing_pending")
                return []
            return self._commit(now)
        if press.button == Button.PASS:
            action: Action = Pay() if isinstance(self.game, Seises) else Pass()
            refusal = self.game.refusal(action)
            if refusal is not None:
                self.message = self._illegal_message(refusal)
                return []
            self.pending = Pending(action, None)
            self._say(MessageKind.INFO, "confirm_pay" if isinstance(action, Pay) else "confirm_pass")
            return []
        if press.kind == "long":  # UNDO held: take back the last committed action
            self.pending = None
            try:
                undone = self.game.pop()
            except IndexError:
                self._say(MessageKind.INFO, "nothing_to_undo")
                return []
            self._forget_first_seat()
            self._say(MessageKind.INFO, "undone", action=undone_words(self.game, undone, self.language))
            return [Entry("undo", "", now)]
        self.pending = None  # short UNDO: cancel what is pending and clear the warnings
        self.warnings.clear()
        self.message = None
        return []

    def _commit(self, now: float) -> list[Entry]:
        assert self.pending is not None
        if self._names_wait_for_first_seat(self.pending.action):
            self.asking = 0
            self._ask_first_seat()
            return []
        return self._push_pending(now)

    def _names_wait_for_first_seat(self, action: Action) -> bool:
        """Seises with seat names, and ``action`` the game's first play: who laid the 6 of oros is not known yet."""
        return (
            isinstance(self.game, Seises)
            and bool(self.seat_names)
            and self.first_seat is None
            and not self.game.actions
            and self.game.is_legal(action)
        )

    def _ask_first_seat(self) -> None:
        assert self.asking is not None
        self._say(MessageKind.QUESTION, "ask_first_seat", name=self.seat_names[self.asking])

    def _answer(self, press: Press, now: float) -> list[Entry]:
        """While asking who laid the 6 of oros: PASS offers the next name, CONFIRM picks it, UNDO gives up."""
        assert self.asking is not None
        if press.button == Button.PASS:
            self.asking = (self.asking + 1) % len(self.seat_names)
            self._ask_first_seat()
            return []
        if press.button == Button.CONFIRM and press.kind == "short":
            self.first_seat, self.asking = self.asking, None
            return self._push_pending(now)
        if press.button == Button.UNDO:
            self.asking = self.pending = None
            self.message = None
        return []

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The Seises seat names in sitting order, when there is one a player (a new game from the menu may have
        another number of players than the config's names); else none, and seats are numbered."""
        names = self.config.seat_names
        fits = isinstance(self.game, Seises) and len(names) == self.game.players
        return names if fits else ()

    def _forget_first_seat(self) -> None:
        if not self.game.actions:
            self.first_seat = None

    def _push_pending(self, now: float) -> list[Entry]:
        assert self.pending is not None
        action = self.pending.action
        before = self.game.snapshot()
        try:
            self.game.push(action)
        except IllegalPlay as refusal:  # the table moved on since the card was laid (an undo in between)
            self.pending = None
            self.message = self._illegal_message(refusal)
            return []
        self.pending = None
        self.message = self._after_message(before, self.game.snapshot())
        text = str(action)
        if self.first_seat is not None and len(self.game.actions) == 1:
            # a transcript comment, so that replaying the journal (or companion play) reads the line as it is
            text += f"  # seat 1: name {self.first_seat + 1} ({self.seat_names[self.first_seat]})"
        return [Entry("action", text, now)]

    def _menu_press(self, press: Press, now: float) -> list[Entry]:
        assert self.menu is not None
        choice = self.menu.press(press)
        if choice is None:
            return []
        settings = self.menu.settings
        self.language = settings.language
        if choice.key == "close":
            self.menu = None
        elif choice.key == "new_game":
            self.menu = None
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
            names = bool(self.seat_names)
            todo = self._text("new_game_names_do") if names else ""  # the referee will ask who is seat 1
            self.message = Message(MessageKind.INFO, self._text("new_game", game=settings.game), todo)
            return [Entry("new_game", json.dumps(self.config.settings()), now)]
        return []

    def start(self, config: GameConfig) -> None:
        """Start a new game with ``config`` (the daemon opens a new game in the journal for it)."""
        keep_lines = isinstance(self.game, SextoSet) and config.name == "sexto-set"
        self.config = config
        self.language = config.language
        self.game = self._new_engine(config)
        if not keep_lines:
            self.lines = {z: r for z, r in self.zone_roles.items() if r not in ("auto", "table") and r[0] == "M"}
        self.first_seat = self.asking = None
        self.pending = None
        self.warnings.clear()
        self.message = None

    def _menu_settings(self) -> Settings:
        players = self.config.players if isinstance(self.game, Seises) else 4
        return Settings(game=self.game.name, players=players, deck=self.config.deck_name, language=self.language)  # type: ignore[arg-type]

    # ---- messages -------------------------------------------------------------------------------------------

    def _text(self, key: str, **fields: Any) -> str:
        spanish, english = TEXT[key]
        return (english if self.language == "en" else spanish).format(**fields)

    def _say(self, kind: MessageKind, key: str, **fields: Any) -> None:
        action_key = TODO.get(key)
        title = self._text(key, **fields)
        todo = self._text(action_key, **fields) if action_key else ""
        self.message = Message(kind, title[:1].upper() + title[1:], todo)

    def _warn(self, where: str, light: ZoneLight, kind: MessageKind, key: str, **fields: Any) -> None:
        self.warnings[where] = light
        self._say(kind, key, **fields)

    def _clear_message(self, kind: MessageKind) -> None:
        if self.message is not None and self.message.kind is kind:
            self.message = None

    def _illegal_message(self, refusal: IllegalPlay) -> Message:
        return Message(MessageKind.ILLEGAL, refusal.title(self.language), refusal.todo(self.language))

    def _after_message(self, before: dict[str, Any], after: dict[str, Any]) -> Message | None:
        """What a committed action did beyond the obvious: the weightiest news, with a renuncio never left out
        (a renuncio proven by the card that ends the hand is said together with the hand won)."""
        found = news(before, after)
        renege = next((item for item in found if isinstance(item, Reneged)), None)
        message = self._news_message(found, renege)
        self._renege_message = (
            message if renege is not None or any(isinstance(item, SomebodyReneged) for item in found) else None
        )
        return message

    def _news_message(self, found: list[News], renege: Reneged | None) -> Message | None:
        for item in found:
            if isinstance(item, GameWon):
                title = self._text("game_won", seat=self._seat_name(item.seat - 1), score=item.score)
                todo = self._text("new_game_do")
                if renege is not None:
                    todo = f"{self._renege_todo(renege)}. {todo}"
                return Message(MessageKind.END_OF_GAME, title, todo)
        for item in found:
            if isinstance(item, HandWon):
                seat = self._seat_name(item.seat - 1)
                if renege is not None:
                    penalty = self._text("penalty", points=renege.points) if renege.points else ""
                    card = self.card_name(renege.card)
                    todo = self._text("renege_hand", chips=item.chips, card=card, penalty=penalty)
                    return Message(MessageKind.END_OF_HAND, self._text("renege", seat=seat), todo)
                title = self._text("hand_won", seat=seat, chips=item.chips)
                return Message(MessageKind.END_OF_HAND, title, self._text("next_hand", hand=item.next_hand, seat=seat))
        for item in found:
            if isinstance(item, Reneged):
                title = self._text("renege", seat=self._seat_name(item.seat - 1))
                return Message(MessageKind.RENEGE, title, self._renege_todo(item))
            if isinstance(item, SomebodyReneged):
                return Message(MessageKind.RENEGE, self._text("somebody_reneged"), self._text("somebody_reneged_do"))
            if isinstance(item, ChipOwed):
                return Message(MessageKind.INFO, self._text("reserve_empty"))
            if isinstance(item, SetEnded):
                title = self._text("set_drawn") if item.winner is None else self._text("set_won", pair=item.winner)
                return Message(MessageKind.END_OF_SET, title, self._text("next_set", leads=item.leads_next))
        return None

    def _renege_todo(self, renege: Reneged) -> str:
        card = self.card_name(renege.card)
        if renege.points:
            return self._text("renege_points", card=card, points=renege.points)
        return self._text("renege_do", card=card)

    def card_name(self, card_id: str) -> str:
        card = self.game.deck.get(card_id)
        return card.name(self.language) if card is not None else card_id

    def _seat_name(self, seat: int) -> str:
        """Seat ``seat`` (from 0, in playing order): its player's name once the players said who is seat 1."""
        names = self.seat_names
        if not names or self.first_seat is None:
            return self._text("seat", n=seat + 1)
        return names[(self.first_seat + seat) % len(names)]

    # ---- the view -------------------------------------------------------------------------------------------

    def view(self) -> TableView:
        lights = {zone: ZoneLight.OFF for zone in self.zone_roles}
        if self.pending is not None and self.pending.zone is not None:
            lights[self.pending.zone] = ZoneLight.PENDING_OK
        lights.update(self.warnings)
        if not self.journal_ok or self.readers_down:
            status = StatusLight.ERROR
        elif not self.hub_online:
            status = StatusLight.HUB_LOST
        elif self.message is not None and self.message is self._renege_message:
            status = StatusLight.RENEGE
        else:
            status = StatusLight.READY
        return TableView(
            game=self._game_view(),
            message=self.message or self._standing_message(),
            zone_lights=lights,
            status=status,
            language="en" if self.language == "en" else "es",
            menu=None if self.menu is None else self.menu.view(),
        )

    def stopped_view(self) -> TableView:
        """What the screen is left showing when the service stops."""
        view = self.view()
        message = Message(MessageKind.INFO, self._text("stopped"), self._text("stopped_do"))
        return TableView(view.game, message, {}, view.status, view.language)

    def _standing_message(self) -> Message | None:
        """A problem a person must fix stays on the screen while nothing newer is said."""
        if not self.hub_online:
            return Message(MessageKind.HUB_LOST, self._text("hub_lost"), self._text("hub_lost_do"))
        if not self.journal_ok:
            problem = self.journal_problem
            return Message(MessageKind.DISK_FULL, self._text(problem), self._text(TODO[problem]))
        if self.readers_down:
            zone = sorted(self.readers_down)[0]
            title, todo = self._text("reader_down", zone=zone), self._text("reader_down_do", zone=zone)
            return Message(MessageKind.READER_DOWN, title, todo)
        return None

    def _game_view(self) -> SeisesView | SextoSetView:
        game = self.game
        if isinstance(game, Seises):
            seats = tuple(Seat(self._seat_name(i), game.hand_sizes[i], game.scores[i]) for i in range(game.players))
            return SeisesView(
                seats=seats,
                turn=game.turn if game.turn is not None else game.mano,
                mano=game.mano,
                pot=game.pot,
                reserve=game.reserve,
                owed=sum(game.owed),
                hand=game.hand,
                winner=game.winner,
            )
        assert isinstance(game, SextoSet)
        lines = []
        for master in game.masters:
            count_a, count_b = game.counts(master)
            name = game.deck[master].name(self.language)
            lines.append(Line(master, name, count_a, count_b, _pair(game.leader(master))))
        won = game.masters_won()
        result: Pair | Literal["draw"] | None = None
        if game.result is not None:
            result = _pair(game.result["winner"]) or "draw"
        return SextoSetView(
            lines=tuple(lines),
            masters_won=(won["A"], won["B"]),
            draw_pile=game.draw_pile,
            turn=_pair(game.turn) or "A",
            sets_won=(game.sets_won["A"], game.sets_won["B"]),
            result=result,
            match_masters=(game.match_masters["A"], game.match_masters["B"]),
        )


_FIRST_SEAT = re.compile(r"#\s*seat 1: name (\d+)")  # who laid the 6 of oros, in the first play's entry


def _pair(value: str | None) -> Pair | None:
    return "A" if value == "A" else "B" if value == "B" else None
