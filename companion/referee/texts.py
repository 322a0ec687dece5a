"""The referee's own words, the same in every game: key -> its text (an English msgid of the catalogues,
:mod:`companion.i18n`), filled with str.format.

A game kind adds its own (``GameKind.texts``, ``GameKind.todo``); a key is looked up there first. ``TODO`` maps a
message's title key to the key of its "what to do" line (a :class:`~companion.view.Message`'s ``todo``).
"""

from __future__ import annotations

from companion.i18n import N_, Plural

__all__ = ["TEXT", "TODO"]

TEXT: dict[str, str] = {
    "unknown_card": N_("Unknown card on {zone}"),
    "unknown_card_do": N_("Take it back and enroll it: companion enroll"),
    "two_tags": N_("Two tags claim {card}"),
    "two_tags_do": N_("Take the copy off {zone}"),
    "two_cards": N_("Two cards on {zone}"),
    "two_cards_do": N_("Leave one card on the zone"),
    "lift_first": N_("Lift {card} off {zone}"),
    "lift_first_do": N_("Then the new card counts"),
    "registered_do": N_("Lift it off the pad, then the next"),
    "ready_do": N_("Lift it; play on the pads"),
    "same_card": N_("{card} on two zones: {zones}"),
    "same_card_do": N_("Take it off one of them"),
    "on_table": N_("{card} is already on the table"),
    "lying": N_("{card} lay on {zone}"),
    "lying_do": N_("Lift it and lay it again"),
    "nothing_pending": N_("Nothing to confirm"),
    "nothing_pending_do": N_("Lay a card or press PASS"),
    "confirm_do": N_("OK confirms, UNDO cancels"),
    "undone": N_("Undone: {action}"),
    "nothing_to_undo": N_("Nothing to undo"),
    "new_game_do": N_("Long OK: menu"),
    "hub_lost": N_("Hub lost"),
    "hub_lost_do": N_("Check the USB cable"),
    "hub_zones": Plural(
        "Hub has {scanned} zone, config names {named}", "Hub has {scanned} zones, config names {named}", "scanned"
    ),
    "hub_zones_do": N_("Flash the layout's hub_config.py"),
    "reader_down": N_("Reader {zone} not answering"),
    "reader_down_do": N_("Check its cable"),
    "disk_full": N_("Disk full: not saved"),
    "disk_full_do": N_("Free space on the SD card"),
    "not_recording": N_("Table not recording"),
    "not_recording_do": N_("Journal: companion doctor"),
    "damaged_game": N_("Game {game} unreadable"),
    "damaged_game_do": N_("Closed and kept; a new one starts"),
    "journal_aside": N_("Journal damaged: set aside"),
    "journal_aside_do": N_("A new one; companion doctor"),
    "unwritten_offer": N_("Plays not saved at stop"),
    "unwritten_offer_do": N_("OK replays them, UNDO not"),
    "unwritten_replayed": N_("Unsaved plays replayed"),
    "unwritten_declined": N_("Unsaved plays set aside"),
    "unwritten_declined_do": N_("Kept beside the journal"),
    "stopped_unwritten": N_("Stopped: {n} not saved"),
    "stopped_unwritten_do": N_("Offered again at start"),
    "stopped_lost_do": N_("Only in the log"),
    "new_game": N_("New game: {game}"),
    "new_game_undone": N_("New game undone"),
    "new_game_undone_do": N_("The game before goes on"),
    "game_unfit": N_("{game}: not on these zones"),
    "ideal_players": N_("Sheet: {low} to {high} players"),
    "seat": N_("Seat {n}"),
    "stopped": N_("Companion stopped"),
    "stopped_do": N_("It resumes at start"),
    "seats_named": N_("Seats renamed"),
    "pairing_paired": N_("Phone paired"),
    "pairing_too_many": N_("Too many wrong codes"),
    "pairing_too_many_do": N_("Menu: pair again"),
    "pairing_expired": N_("Code expired"),
    "pairing_expired_do": N_("Menu: pair again"),
}

TODO: dict[str, str] = {
    "unknown_card": "unknown_card_do",
    "two_tags": "two_tags_do",
    "two_cards": "two_cards_do",
    "lying": "lying_do",
    "lift_first": "lift_first_do",
    "registered": "registered_do",  # a line's master card: its zone learnt it; it lies beside the pad, not on it
    "ready": "ready_do",
    "same_card": "same_card_do",
    "nothing_pending": "nothing_pending_do",
    "hub_lost": "hub_lost_do",
    "hub_zones": "hub_zones_do",
    "reader_down": "reader_down_do",
    "disk_full": "disk_full_do",
    "not_recording": "not_recording_do",
    "damaged_game": "damaged_game_do",
    "journal_aside": "journal_aside_do",
    "unwritten_offer": "unwritten_offer_do",
    "unwritten_declined": "unwritten_declined_do",
    "stopped": "stopped_do",
    "new_game_undone": "new_game_undone_do",
    "pairing_too_many": "pairing_too_many_do",
    "pairing_expired": "pairing_expired_do",
}
