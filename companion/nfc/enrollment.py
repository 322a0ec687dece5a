"""Enrollment: one card of the deck after another onto any zone of a station, each tag bound to its card.

A *station* (:mod:`companion.nfc.stations`) is the table's own readers seen from enrollment: a reader on the
Pi, the zones of the reader hub, or simulated readers. Both loops here only feed its scans to a tracker (the
daemon's debounce), decide, and show what they decided on the station's outputs: the OLED (a message) and the
zone LEDs (green: read and bound; blinking red: refused).

The registry is saved (atomically) after every card, so an enrollment stopped half-way, by Ctrl-C or a power
cut, keeps every card done so far and the next run asks only for the rest, from where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from companion.decks import Card, Deck
from companion.events import ZoneScan, hexuid
from companion.i18n import N_, translate, translate_n
from companion.nfc.errors import NfcError
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.view import Message, MessageKind, StatusLight, TableView, ZoneLight

__all__ = ["Enrollment", "Identify", "Read", "Station", "progress_bar"]

_BAR = 20

# The words of the screen (the terminal says more: its lines are the log of the enrollment): key -> English msgid.
_SCREEN = {
    "lay": N_("Lay it on {where}"),
    "any": N_("any zone"),
    "zone": N_("zone {zone}"),
    "two": N_("One card at a time"),
    "taken": N_("Already {card}: take it away"),
    "write": N_("Writing failed: hold it still"),
    "done": N_("Deck enrolled"),
    "count": N_("{done} of {total} cards"),
    "what": N_("What card is it?"),
    "what_hint": N_("Lay a card on a zone"),
    "unknown": N_("Unknown tag"),
}


def _words(lang: str) -> dict[str, str]:
    return {key: translate(text, lang) for key, text in _SCREEN.items()}


def progress_bar(done: int, total: int) -> str:
    filled = _BAR * done // total if total else _BAR
    return f"[{'#' * filled}{'-' * (_BAR - filled)}] {done}/{total}"


class Station(Protocol):
    """Readers to enroll on, and what shows the result. Every back-end gives one (``companion.nfc.stations``)."""

    @property
    def zones(self) -> Sequence[str]:
        """The zones to watch."""

    @property
    def absences(self) -> int:
        """Clean scans without a tag before it counts as lifted (the hub's reports are settled: 1)."""

    def poll(self) -> list[ZoneScan]:
        """Scans since the last call: one of every zone (readers on the Pi), or the hub's news."""

    def write(self, zone: str, uid: bytes, card_id: str) -> None:
        """Write ``card_id`` on the tag ``uid`` lying on ``zone`` and check it reads back; ``NfcError`` says why not."""

    def show(self, view: TableView) -> None:
        """The message on the OLED and the zone LEDs, as the daemon shows them."""

    def close(self) -> None:
        """Let go of the readers, the LEDs and the screen."""


class _Zones:
    """What lies on each zone, debounced as at the table, and which lone tag was already dealt with."""

    def __init__(self, station: Station, registry: Registry) -> None:
        self.station = station
        # known=False: a tag is named by the registry alone, never by what its memory says it is.
        self.tracker = TableTracker(registry, absences=station.absences, known=lambda card: False)
        self.judged: dict[str, bytes | None] = {}
        self.lights: dict[str, ZoneLight] = {}

    def news(self) -> list[tuple[str, frozenset[bytes]]]:
        """Zones whose tags changed since the last call, with the tags lying there now."""
        before = {zone: self.tracker.tags_on(zone) for zone in self.station.zones}
        for scan in self.station.poll():
            self.tracker.feed(scan)
        changed = []
        for zone in self.station.zones:
            now = self.tracker.tags_on(zone)
            if now != before[zone]:
                changed.append((zone, frozenset(now)))
        return changed

    def lone_new_tag(self, zone: str, tags: frozenset[bytes]) -> bytes | None:
        """The tag lying alone on ``zone`` that nothing was decided about yet."""
        if len(tags) != 1:
            self.judged[zone] = None  # after two tags, or none, the one left (or laid next) is judged afresh
            if not tags:
                self.lights.pop(zone, None)
            return None
        (uid,) = tags
        if self.judged.get(zone) == uid:
            return None
        self.judged[zone] = uid
        return uid


@dataclass(frozen=True, slots=True)
class Read:
    """What enrollment made of a tag on ``zone`` while ``card`` was asked for: bound to it, or ``refused`` (why,
    and what to do, as the screen says it)."""

    zone: str
    card: str
    refused: str = ""


class Enrollment:
    """Ask for each card not yet bound, wait for its tag alone on a zone, bind it, save.

    ``out`` prints a line; ``on_ask(card)`` is told which card is wanted (the simulated hand uses it);
    ``pause()`` runs between two polls. :meth:`run` does it all; a caller that owns the loop (the service, when a
    phone starts enrollment) calls :meth:`begin`, then :meth:`step` after each poll's scans, while :attr:`card` is
    set. :attr:`reads` lists what became of each tag read.
    """

    def __init__(
        self,
        deck: Deck,
        registry: Registry,
        station: Station,
        *,
        write_tags: bool = False,
        rebind: bool = False,
        lang: str = "es",
        out: Callable[[str], None] = print,
        on_ask: Callable[[Card], None] = lambda card: None,
        pause: Callable[[], None] = lambda: time.sleep(0.02),
    ) -> None:
        self.deck = deck
        self.registry = registry
        self.station = station
        self.write_tags = write_tags
        self.rebind = rebind
        self.lang = lang
        self.out = out
        self.on_ask = on_ask
        self.pause = pause
        self.words = _words(lang)
        registry.deck = deck.name
        self._zones = _Zones(station, registry)
        self._said = ""  # the last refusal printed: said once, not at every poll
        self._title = self._action = ""
        self.card: Card | None = None  # the card asked for now
        self.total = len(deck)
        self.done = 0  # cards of the deck bound
        self.reads: list[Read] = []
        self._todo: list[Card] = []
        self._missing = 0  # cards that were missing at the start

    def missing(self) -> list[Card]:
        bound = set(self.registry.bindings().values())
        return [card for card in self.deck if card.id not in bound]

    def run(self) -> int:
        """Enroll every missing card; returns how many were bound."""
        missing = self.begin()
        while self.card is not None:
            self.pause()
            self.step()
        return missing

    def begin(self) -> int:
        """Say how far the deck is enrolled and ask for the first missing card; returns how many are missing."""
        self._todo = self.missing()
        self._missing = len(self._todo)
        self.done = self.total - self._missing
        if self._todo and self.done:
            said = translate("{done} of {total} cards of {deck} are enrolled already: going on from there", self.lang)
            self.out(said.format(done=self.done, total=self.total, deck=self.deck.name))
        self._ask()
        return self._missing

    def _ask(self) -> None:
        """Ask for the next missing card, or say that the deck is enrolled."""
        total = self.total
        if self._todo:
            card = self.card = self._todo[0]
            left = len(self._todo)
            said = translate_n("{bar} place {card} ({left} left)", "{bar} place {card} ({left} left)", left, self.lang)
            self.out(said.format(bar=progress_bar(self.done, total), card=card.name(self.lang), left=left))
            self._message(f"{self.done + 1}/{total} {card.name(self.lang)}", self._where())
            self.on_ask(card)
            return
        self.card = None
        self._message(self.words["done"], self.words["count"].format(done=total, total=total))
        if self._missing:
            said = translate("{bar} done: {count} cards of {deck} enrolled", self.lang)
            self.out(said.format(bar=progress_bar(total, total), count=self._missing, deck=self.deck.name))
        else:
            said = translate("{bar} every card of {deck} is enrolled", self.lang)
            self.out(said.format(bar=progress_bar(total, total), deck=self.deck.name))

    def step(self) -> None:
        """One poll of the station: the tag laid alone for the card asked for is bound to it (and the registry
        saved, and the next card asked for); two tags, or a tag bound to another card, are refused."""
        card = self.card
        if card is None:
            return
        zones = self._zones
        for zone, tags in zones.news():
            if len(tags) > 1 and zones.lights.get(zone) != ZoneLight.ILLEGAL:
                said = translate("one card at a time: leave only the card asked for on the zone", self.lang)
                self._refuse(zone, said, "two")
            uid = zones.lone_new_tag(zone, tags)
            if uid is not None and self._bind(card, zone, uid):
                self.registry.save()
                self._todo.pop(0)
                self.done += 1
                self._ask()
                return
        self._light()

    def _where(self) -> str:
        zones = self.station.zones
        where = self.words["zone"].format(zone=zones[0]) if len(zones) == 1 else self.words["any"]
        return self.words["lay"].format(where=where)

    def _bind(self, card: Card, zone: str, uid: bytes) -> bool:
        bound = self.registry.card_for(uid)
        if bound is not None and not self.rebind:
            known = self.deck.get(bound)
            other = known.name(self.lang) if known is not None else bound
            said = translate(
                "tag {uid} is already {other} ({bound}); take it away and place {card} (or use --rebind)", self.lang
            )
            line = said.format(uid=hexuid(uid), other=other, bound=bound, card=card.name(self.lang))
            self._refuse(zone, line, "taken", card=other)
            return False
        if self.write_tags:
            try:
                self.station.write(zone, uid, card.id)
            except NfcError as exc:
                self._zones.judged[zone] = None  # try again at the next poll
                said = translate("writing the tag failed ({error}); hold the card still", self.lang).format(error=exc)
                self._refuse(zone, said, "write")
                return False
        self.registry.bind(uid, card.id, rebind=self.rebind)
        self._zones.lights[zone] = ZoneLight.PENDING_OK
        self._light()
        written = translate(" (card id written on the tag)", self.lang) if self.write_tags else ""
        said = translate("{card} = tag {uid} on zone {zone}", self.lang).format(
            card=card.id, uid=hexuid(uid), zone=zone
        )
        self.out(f"  {said}{written}")
        self.reads.append(Read(zone, card.id))
        return True

    def _refuse(self, zone: str, line: str, key: str, **words: str) -> None:
        self._zones.lights[zone] = ZoneLight.ILLEGAL
        said = self.words[key].format(**words)
        if line != self._said:
            self.out(f"  {line}")
            self._said = line
            if self.card is not None:
                self.reads.append(Read(zone, self.card.id, said))
        self._show(self._title, said)

    def _message(self, title: str, action: str) -> None:
        self._title = title
        self._show(title, action)

    def _light(self) -> None:
        self._show(self._title, self._action)

    def _show(self, title: str, action: str) -> None:
        self._action = action
        message = Message(MessageKind.QUESTION, title, action)
        view = TableView(message=message, zone_lights=dict(self._zones.lights), status=StatusLight.READY)
        self.station.show(view)


class Identify:
    """ "What is this card?": names every tag laid alone on a zone, until ``run(stop)``'s ``stop()`` says so.

    A card the registry knows lights its zone green; a tag it does not know lights it blinking amber, as at the
    table, and the terminal says how to enroll it.
    """

    def __init__(
        self,
        deck: Deck,
        registry: Registry,
        station: Station,
        *,
        lang: str = "es",
        out: Callable[[str], None] = print,
        pause: Callable[[], None] = lambda: time.sleep(0.02),
    ) -> None:
        self.deck, self.registry, self.station = deck, registry, station
        self.lang, self.out, self.pause = lang, out, pause
        self.words = _words(lang)
        registry.deck = deck.name
        self._zones = _Zones(station, registry)
        self.named = 0  # tags named so far

    def name(self, uid: bytes) -> str | None:
        card = self.registry.card_for(uid)
        if card is None:
            return None
        known = self.deck.get(card)
        return f"{known.name(self.lang)} ({card})" if known is not None else card

    def run(self, stop: Callable[[], bool] = lambda: False) -> int:
        """Name cards until ``stop()``; returns how many were named."""
        zones = self._zones
        title, action = self.words["what"], self.words["what_hint"]
        self._show(title, action)
        while not stop():
            self.pause()
            for zone, tags in zones.news():
                uid = zones.lone_new_tag(zone, tags)
                if uid is None:
                    self._show(title, action)
                    continue
                name = self.name(uid)
                if name is None:
                    zones.lights[zone] = ZoneLight.UNKNOWN
                    said = translate("zone {zone}: tag {uid} is no card of {deck} (companion enroll)", self.lang)
                    self.out(said.format(zone=zone, uid=hexuid(uid), deck=self.deck.name))
                    title, action = self.words["unknown"], hexuid(uid)
                else:
                    zones.lights[zone] = ZoneLight.PENDING_OK
                    self.out(translate("zone {zone}: {name}", self.lang).format(zone=zone, name=name))
                    title, action = name, self.words["zone"].format(zone=zone)
                self.named += 1
                self._show(title, action)
        return self.named

    def _show(self, title: str, action: str) -> None:
        message = Message(MessageKind.QUESTION, title, action)
        self.station.show(TableView(message=message, zone_lights=dict(self._zones.lights)))
