"""The table: reader scans, button presses and status in; the journal, the LEDs and the screen out.

It owns no thread and no clock: every call brings its time. The daemon calls it from its asyncio loop; the demo
and the tests call it directly with a simulated clock. For each event the order is always the same: the
tracker turns scans into card events, the referee decides, the journal writes what was committed, and only
then do the outputs show the new view, so nothing is shown as done that is not on disk (or the screen says the
disk is full); last, the listeners (the voice) hear what the referee told of the events, to word it themselves.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.config import GameConfig
from companion.events import Button, CardArrived, Press, ZoneScan
from companion.games import AnyKind, Voice
from companion.journal import Entry, GameRecord, Journal, JournalError, Unwritten
from companion.nfc.tracking import TableTracker
from companion.referee import (
    CardFound,
    Committed,
    Event,
    GameOpened,
    JournalNotice,
    JournalStatus,
    News,
    ReaderStatus,
    Referee,
    SettingsChanged,
)
from companion.view import Output

__all__ = ["Borrower", "Listener", "Table"]

log = logging.getLogger(__name__)


class Borrower(Protocol):
    """What the table lends its readers and outputs to for a while: an enrollment a phone started (docs/WEB.md)."""

    def scan(self, scan: ZoneScan, now: float) -> None:
        """A scan of the table's readers; it shows what it makes of it on the table's outputs."""


class Listener(Protocol):
    """An output that words the referee's news itself (the voice): it hears what each event did, in order, after
    the journal wrote it and the views were shown, with the table's voice (its language, card and seat names)."""

    def hear(self, news: Sequence[News], kind: AnyKind, voice: Voice, now: float) -> None:
        """Take ``news`` (of a game of ``kind``) without waiting on anything slow: the table's loop calls it."""


@dataclass
class Table:
    referee: Referee
    tracker: TableTracker
    journal: Journal
    outputs: list[Output] = field(default_factory=list)
    on_event: Callable[[object, float], None] | None = None  # the demo prints what happens
    listeners: list[Listener] = field(default_factory=list)  # after the outputs: the LEDs never wait for a word
    game_id: int = 0
    _finished: bool = False  # the journal has the game's outcome
    _unsaved: dict[str, Any] | None = None  # a new game's settings, while the disk had no room for its row
    _held: list[Entry] = field(default_factory=list)  # that game's entries meanwhile
    _outcomes: dict[int, dict[str, Any]] = field(default_factory=dict)  # games closed while the disk had no room
    started_new: bool = False  # start() began a new game rather than resuming one
    borrower: Borrower | None = None  # while set, the readers and the outputs serve it, not the game
    offered: tuple[Path, Unwritten] | None = None  # entries a stop could not write, offered to replay until answered
    # After a restart (the journal held a game): each zone's scans since, while the cards they find were lying there
    _looks: dict[str, int] | None = None

    def start(self, now: float) -> None:
        """Resume the last unfinished game from the journal, or start the configured one.

        A game the journal holds but the rules cannot rebuild (an unreadable row, an illegal or missing action)
        is closed as damaged, its rows kept, and a new game starts: the table always comes up.
        """
        configured = self.referee.game_config
        last = self.journal.last_game()
        self._looks = None if last is None else {}
        if last is not None and last.outcome is None:
            try:
                self._resume(last)
                for entry in self._zones_from_journal(last.id, now):  # a game whose zones were never journaled
                    self._append(entry, now)
                ended = self.referee.game_over()
                if ended is not None:  # the power went between the action that ended it and its outcome:
                    # closed as it ended, and shown as it was (its last screen, until the players choose the
                    # next game), as if the power had stayed
                    self._close({"termination": ended.termination, "winner": ended.winner}, now)
                self.show(now)
                return
            except (ValueError, KeyError, TypeError, IndexError, JournalError) as exc:
                log.error(
                    "game %d in %s cannot be resumed: %s; it is closed as damaged", last.id, self.journal.path, exc
                )
                self.game_id = last.id
                self._close({"termination": "damaged", "winner": None, "damage": str(exc)}, now)
                self.referee.start(configured)
                self.referee.handle(JournalNotice("damaged_game", last.id), now)
        if last is not None:
            self._zones_from_journal(last.id + 1, now)  # the new game journals them as it opens
        self._open_game(configured.settings(), now)
        self.started_new = True
        log.info("new game %d (%s)", self.game_id, configured.name)
        self.show(now)

    def _resume(self, last: GameRecord) -> None:
        if last.damage:
            raise ValueError(last.damage)
        config = GameConfig.from_settings(last.settings)
        self.referee.start(config)
        self.referee.replay(self.journal.entries(last.id))
        self.game_id = last.id
        log.info("resumed game %d (%s) after %d journal entries", last.id, config.name, last.entries)

    def unwritten(self) -> list[Unwritten]:
        """What the players confirmed that is not on disk, by game, in order (the stop keeps it in a side file)."""
        kept: list[Unwritten] = []
        for game, entry in self.journal.pending():
            if kept and kept[-1].game == game:
                kept[-1] = Unwritten(game, (*kept[-1].entries, entry))
            else:
                kept.append(Unwritten(game, (entry,)))
        if self._unsaved is not None and self._held:  # a game whose row never reached the disk, and its entries
            kept.append(Unwritten(0, tuple(self._held), self._unsaved))
        return kept

    def offer(self, path: Path, kept: list[Unwritten], now: float) -> bool:
        """Offer to replay ``kept`` (the side file ``path`` of the last stop), said on the screen: CONFIRM replays,
        UNDO sets the file aside, anything the table records first withdraws it. Only entries that go on from
        where the table now is are offered: those of the game it resumed, or of a game never written when it starts
        a new one; whether they were."""
        if len(kept) != 1 or kept[0].game not in (0, self.game_id) or (kept[0].game == 0) != self.started_new:
            return False
        if kept[0].game == 0 and self.referee.current_game.actions:  # the new game has begun: they no longer fit
            return False
        self.offered = (path, kept[0])
        self.referee.handle(JournalNotice("unwritten_offer", self.game_id), now)
        self.show(now)
        return True

    def _answer(self, replay: bool, now: float) -> None:
        assert self.offered is not None
        (path, kept), self.offered = self.offered, None
        if replay:
            try:  # on a copy first: a refused entry leaves the game as it is
                for referee in (copy.deepcopy(self.referee), self.referee):
                    if kept.settings is not None:
                        referee.start(GameConfig.from_settings(kept.settings))
                    referee.replay(list(kept.entries))
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                log.error("the unwritten entries of %s do not replay (%s): set aside", path, exc)
            else:
                if kept.settings is not None:
                    self._rename(self.referee.game_config.settings(), now)
                for entry in kept.entries:
                    self._append(entry, now)
                log.warning("replayed the %d unwritten entries of %s", len(kept.entries), path)
                try:
                    path.unlink()
                except OSError as exc:  # offered again at the next start, they would be played twice
                    log.error("%s cannot be removed (%s): delete it, its entries are in the game now", path, exc)
                self.referee.handle(JournalNotice("unwritten_replayed", self.game_id), now)
                return
        aside = path.with_name(f"{path.name}.declined-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            path.rename(aside)
            log.warning("the unwritten entries of %s were not replayed; kept as %s", path, aside)
        except OSError as exc:
            log.error("the unwritten entries of %s were not replayed; it cannot be renamed (%s): kept", path, exc)
        self.referee.handle(JournalNotice("unwritten_declined", self.game_id), now)

    def _withdraw(self) -> None:
        assert self.offered is not None
        path, self.offered = self.offered[0], None
        log.warning("the table went on before the unwritten entries of %s were replayed: kept there", path)

    @property
    def looking(self) -> bool:
        """Whether the table is still taking its first look at its zones after a restart: a card read meanwhile
        was lying there, and is no play."""
        looks = self._looks
        return looks is not None and any(looks.get(zone, 0) < self.tracker.absences for zone in self.referee.zone_roles)

    def retry_journal(self, now: float) -> None:
        """While the journal is not recording: try again to write what waits (the daemon calls it now and then)."""
        if not self.referee.journal_ok and self._append(None, now):
            self.show(now)  # only once it records again: a show wakes a dimmed screen

    def lend(self, borrower: Borrower | None, now: float) -> None:
        """Lend the readers and the outputs to ``borrower`` (None: take them back and show the game again). A card
        lying on a zone when they come back is then a card laid, as the referee judges it."""
        self.borrower = borrower
        if borrower is None:
            self.show(now)

    def scan(self, scan: ZoneScan, now: float) -> None:
        if self.borrower is not None:
            self.borrower.scan(scan, now)
            return
        events = self._first_look(scan, self.tracker.feed(scan))
        if scan.reader_down != (scan.zone in self.referee.readers_down):
            events.append(ReaderStatus(scan.zone, not scan.reader_down, scan.error or ""))
        if events:
            self._handle(events, now)

    def _first_look(self, scan: ZoneScan, events: Iterable[Event]) -> list[Event]:
        """``events`` of ``scan``; in a zone's first scans after a restart (as many as a card takes to count as
        gone), the cards that arrive were lying there: found, not laid."""
        looks = self._looks
        if looks is None or scan.reader_down or looks.get(scan.zone, 0) >= self.tracker.absences:
            return list(events)
        looks[scan.zone] = looks.get(scan.zone, 0) + 1
        return [CardFound(e.zone, e.card) if isinstance(e, CardArrived) else e for e in events]

    def press(self, press: Press, now: float) -> None:
        if self.offered is not None and self.referee.pending_action is not None:  # a play waits: the buttons are its
            self._withdraw()
        if self.offered is not None and press.kind == "short" and press.button in (Button.CONFIRM, Button.UNDO):
            self._answer(press.button is Button.CONFIRM, now)
            self.show(now)
            return
        if self.borrower is not None:  # any button takes the table back, as it closes the menu's pairing code
            self.lend(None, now)
            return
        self._handle([press], now)

    def status(self, event: Event, now: float) -> None:
        self._handle([event], now)

    def _handle(self, events: Iterable[Event], now: float) -> None:
        told: list[News] = []
        for event in events:
            if self.on_event is not None:
                self.on_event(event, now)
            committed = self.referee.handle(event, now)
            told += self.referee.told  # read before _record: a journal failure is handled as an event of its own
            self._record(committed, now)
        self.show(now)
        if told and self.borrower is None:
            for listener in self.listeners:
                listener.hear(told, self.referee.game_kind, self.referee, now)

    def _record(self, entries: list[Committed], now: float) -> None:
        if entries and self.offered is not None:  # the game went on: the entries kept no longer follow it
            self._withdraw()
        for entry in entries:
            if isinstance(entry, GameOpened):
                if not self._finished:  # a new game was chosen mid-game: the old one ends as it stood
                    self._close({"termination": "replaced", "winner": entry.replaced_winner}, now)
                self._open_game(dict(entry.settings), now)
            elif isinstance(entry, SettingsChanged):
                self._rename(dict(entry.settings), now)
            else:
                if entry.kind == "reopen":  # the journal takes the game's outcome back with this entry
                    self._finished = False
                    self._outcomes.pop(self.game_id, None)
                self._append(entry, now)
        outcome = self.referee.game_over()
        if entries and outcome is not None and not self._finished:
            self._close({"termination": outcome.termination, "winner": outcome.winner}, now)

    def _open_game(self, settings: dict[str, Any], now: float) -> None:
        """A new game: its row is written now, or with its first entry once the disk has room; then the heads its
        zones learnt in the games before (the master cards lie where they were), so that a restart knows them."""
        self._finished = False
        self._unsaved = settings
        self._saved(now)
        for entry in self.referee.learnt_zones(now):
            self._append(entry, now)

    def _zones_from_journal(self, before: int, now: float) -> list[Entry]:
        """Zones that still wait for their heads learn them from the last game of this kind before game ``before``
        that registered any (a journal from before every game journaled its zones); the entries of those learnt."""
        learnt: list[Entry] = []
        if not self.referee.registering:
            return learnt
        for record in reversed(self.journal.games()):
            if record.id >= before or record.settings.get("game") != self.referee.game_kind.name:
                continue
            entries, _damaged = self.journal.readable_entries(record.id)
            heads = [entry.text.split() for entry in entries if entry.kind == "zone"]
            for zone, head in (pair for pair in heads if len(pair) == 2):
                if self.referee.learn_zone(zone, head):
                    learnt.append(Entry("zone", f"{zone} {head}", now))
            if heads:
                break
        return learnt

    def _saved(self, now: float) -> bool:
        """Whether what comes before the game's entries is on disk: the outcomes of the games closed while the disk
        had no room, then the game's own row."""
        try:
            for game_id, outcome in list(self._outcomes.items()):
                self.journal.finish(game_id, outcome)
                del self._outcomes[game_id]
            if self._unsaved is not None:
                self.game_id = self.journal.new_game(self._unsaved, now)
                self._unsaved = None
        except JournalError as exc:
            self._journal_failed(exc, now)
            return False
        return True

    def _append(self, entry: Entry | None, now: float) -> bool:
        """Write ``entry`` after whatever waits (None: only what waits); whether all of it is on disk now."""
        if not self._saved(now):
            if entry is not None:
                self._held.append(entry)  # the game has no row yet: keep its entries in order until it has
            return False
        held, self._held = self._held, []
        for pending in [*held, entry] if entry is not None else held:
            self.journal.append_later(self.game_id, pending)
        try:
            self.journal.flush()  # on failure the journal keeps them, in order
        except JournalError as exc:
            self._journal_failed(exc, now)
            return False
        for pending in [*held, entry] if entry is not None else held:
            log.info("game %d: %s %s", self.game_id, pending.kind, pending.text)
        if not self.referee.journal_ok:
            log.warning("journal writable again: the entries kept in memory are on disk now")
            self.referee.handle(JournalStatus(True), now)
        return True

    def _rename(self, settings: dict[str, Any], now: float) -> None:
        """The game's settings changed (its seats renamed, the menu's language): the game's row gets them, so that
        resuming it keeps them."""
        if self._unsaved is not None:  # its row waits for the disk: it will be written with them
            self._unsaved = settings
            return
        try:
            self.journal.set_settings(self.game_id, settings)
        except JournalError as exc:
            self._journal_failed(exc, now)

    def _close(self, outcome: dict[str, Any], now: float) -> None:
        """The game's outcome, written now or, while the disk has no room, kept until it has (as its entries are)."""
        self._finished = True
        if self._unsaved is not None:
            return  # never written: nothing to close
        self._outcomes[self.game_id] = outcome
        self._saved(now)

    def _journal_failed(self, exc: JournalError, now: float) -> None:
        if self.referee.journal_ok:  # said once; the retries that fail too are only debug
            log.error("%s", exc)
            problem = "disk_full" if exc.disk_full else "not_recording"
            self.referee.handle(JournalStatus(False, str(exc), problem), now)
        else:
            log.debug("%s", exc)

    def show(self, now: float) -> None:
        """Draw the referee's view on every output (not while they are lent: the borrower shows on them)."""
        if self.borrower is not None:
            return
        view = self.referee.view()
        for output in self.outputs:
            output.show(view, now)
