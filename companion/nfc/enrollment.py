"""Enrollment: one card of the deck after another onto a reader, each tag bound to its card in the registry.

The registry is saved (atomically) after every card, so an enrollment stopped half-way, by Ctrl-C or a power
cut, keeps every card done so far and the next run asks only for the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.decks import Card, Deck
from companion.nfc.ndef import FIRST_PAGE, NdefError, card_id_from_ndef, card_id_pages
from companion.nfc.rc522 import RC522, NfcError, hexuid
from companion.nfc.registry import Registry, RegistryError

__all__ = ["Enrollment", "progress_bar"]

_BAR = 20


def progress_bar(done: int, total: int) -> str:
    filled = _BAR * done // total if total else _BAR
    return f"[{'#' * filled}{'-' * (_BAR - filled)}] {done}/{total}"


class Enrollment:
    """Ask for each card not yet bound, wait for its tag alone on ``reader``, bind it, save.

    ``out`` prints a line; ``on_ask(card)`` is told which card is wanted (a simulated hand uses it);
    ``pause()`` runs between two polls of the reader.
    """

    def __init__(
        self,
        deck: Deck,
        registry: Registry,
        reader: RC522,
        *,
        write_tags: bool = False,
        rebind: bool = False,
        lang: str = "es",
        out: Callable[[str], None] = print,
        on_ask: Callable[[Card], None] = lambda card: None,
        pause: Callable[[], None] = lambda: time.sleep(0.05),
    ) -> None:
        self.deck = deck
        self.registry = registry
        self.reader = reader
        self.write_tags = write_tags
        self.rebind = rebind
        self.lang = lang
        self.out = out
        self.on_ask = on_ask
        self.pause = pause
        registry.deck = deck.name
        reader.quick_confirm = False  # what is bound must be what was read, whatever was read before

    def missing(self) -> list[Card]:
        bound = set(self.registry.bindings().values())
        return [card for card in self.deck if card.id not in bound]

    def run(self) -> int:
        """Enroll every missing card; returns how many were bound."""
        todo = self.missing()
        total, done = len(self.deck), len(self.deck) - len(todo)
        if not todo:
            self.out(f"{progress_bar(done, total)} every card of {self.deck.name} is enrolled")
            return 0
        previous: bytes | None = None
        for count, card in enumerate(todo):
            self.out(f"{progress_bar(done + count, total)} place {card.name(self.lang)} ({len(todo) - count} left)")
            self.on_ask(card)
            previous = self._enroll(card, previous)
            self.registry.save()
        self.out(f"{progress_bar(total, total)} done: {len(todo)} cards of {self.deck.name} enrolled")
        return len(todo)

    def _enroll(self, card: Card, previous: bytes | None) -> bytes:
        complaint = ""
        while True:
            self.pause()
            try:
                uids = self.reader.scan()
            except NfcError:
                continue  # a damaged read: try again
            if len(uids) > 1:
                complaint = self._say(complaint, "one card at a time: leave only the card asked for on the reader")
                continue
            if not uids or uids[0] == previous:
                continue  # nothing yet, or the last card still lying there
            uid = uids[0]
            try:
                self.registry.bind(uid, card.id, rebind=self.rebind)
            except RegistryError as exc:
                complaint = self._say(complaint, f"{exc}; take it away and place {card.name(self.lang)}")
                previous = uid
                continue
            if self.write_tags:
                try:
                    self._write(uid, card.id)
                except NfcError as exc:
                    complaint = self._say(complaint, f"writing the tag failed ({exc}); hold the card still")
                    continue
            self.out(f"  {card.id} = tag {hexuid(uid)}" + (" (card id written on the tag)" if self.write_tags else ""))
            return uid

    def _say(self, last: str, message: str) -> str:
        if message != last:
            self.out(f"  {message}")
        return message

    def _write(self, uid: bytes, card_id: str) -> None:
        """Write the card id as an NDEF Text record, then read it back."""
        data = card_id_pages(card_id)
        self.reader.activate(uid)
        for i in range(0, len(data), 4):
            self.reader.write_page(FIRST_PAGE + i // 4, data[i : i + 4])
        memory = b"".join(self.reader.read_pages(FIRST_PAGE + page) for page in range(0, len(data) // 4, 4))
        self.reader.halt()
        try:
            back = card_id_from_ndef(memory)
        except NdefError as exc:
            raise NfcError(f"the tag reads back no card id ({exc}), not {card_id!r}") from None
        if back != card_id:
            raise NfcError(f"the tag reads back {back!r}, not {card_id!r}")
