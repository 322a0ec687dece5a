"""The health of the table's parts: the hub's link, each reader, the journal's disk. Events in, what the players
must be told (and the status LED) out; pure, like the rest of the referee."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Health", "HealthEvent", "HubStatus", "JournalNotice", "JournalStatus", "ReaderStatus"]


@dataclass(frozen=True, slots=True)
class HubStatus:
    online: bool
    zones: tuple[int, int] | None = None  # refused for its zone count: (the hub's zones, the config's)


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
    """What the table did about a journal it could not read or write: damaged_game (closed) | journal_aside at
    start; unwritten_offer (what the last stop could not write) and its answer, unwritten_replayed |
    unwritten_declined."""

    key: str
    game: int = 0


HealthEvent = HubStatus | ReaderStatus | JournalStatus | JournalNotice


@dataclass
class Health:
    """What is wrong now. ``problem()`` is the text key (and its fields) a person must act on, worst first."""

    hub_online: bool = True
    hub_zones: tuple[int, int] | None = None  # while the hub is refused for its zone count: (the hub's, the config's)
    readers_down: set[str] = field(default_factory=set)
    journal_ok: bool = True
    journal_problem: str = "disk_full"  # the text key said while the journal is not ok

    def apply(self, event: HubStatus | ReaderStatus | JournalStatus) -> bool:
        """Take in ``event``; whether the part is well now."""
        if isinstance(event, HubStatus):
            self.hub_online = event.online
            self.hub_zones = None if event.online else event.zones
            return event.online
        if isinstance(event, ReaderStatus):
            if event.ok:
                self.readers_down.discard(event.zone)
            else:
                self.readers_down.add(event.zone)
            return event.ok
        self.journal_ok = event.ok
        if not event.ok:
            self.journal_problem = event.problem
        return event.ok

    def hub_problem(self) -> tuple[str, dict[str, str]]:
        """What the screen says of a hub that is not online: lost, or refused for its zone count."""
        if self.hub_zones is not None:
            return "hub_zones", {"scanned": str(self.hub_zones[0]), "named": str(self.hub_zones[1])}
        return "hub_lost", {}

    def problem(self) -> tuple[str, dict[str, str]] | None:
        """A problem a person must fix, which stays on the screen while nothing newer is said."""
        if not self.hub_online:
            return self.hub_problem()
        if not self.journal_ok:
            return self.journal_problem, {}
        if self.readers_down:
            return "reader_down", {"zone": sorted(self.readers_down)[0]}
        return None
