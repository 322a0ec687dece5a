"""The referee's own words, the same in every game: key -> (Spanish, English), filled with str.format.

A game kind adds its own (``GameKind.texts``, ``GameKind.todo``); a key is looked up there first. ``TODO`` maps a
message's title key to the key of its "what to do" line (a :class:`~companion.view.Message`'s ``todo``).
"""

from __future__ import annotations

__all__ = ["TEXT", "TODO"]

TEXT: dict[str, tuple[str, str]] = {
    "unknown_card": ("Carta desconocida en {zone}", "Unknown card on {zone}"),
    "unknown_card_do": ("Retírala y regístrala: companion enroll", "Take it back and enroll it: companion enroll"),
    "two_tags": ("Dos etiquetas dicen ser {card}", "Two tags claim {card}"),
    "two_tags_do": ("Retira la copia de {zone}", "Take the copy off {zone}"),
    "two_cards": ("Dos cartas en {zone}", "Two cards on {zone}"),
    "two_cards_do": ("Deja una sola carta en la zona", "Leave one card on the zone"),
    "same_card": ("{card} en dos zonas: {zones}", "{card} on two zones: {zones}"),
    "same_card_do": ("Retírala de una de ellas", "Take it off one of them"),
    "on_table": ("{card} ya está en la mesa", "{card} is already on the table"),
    "nothing_pending": ("Nada que confirmar", "Nothing to confirm"),
    "nothing_pending_do": ("Pon una carta o pulsa PASO", "Lay a card or press PASS"),
    "confirm_do": ("OK confirma, DESHACER anula", "OK confirms, UNDO cancels"),
    "undone": ("Deshecho: {action}", "Undone: {action}"),
    "nothing_to_undo": ("Nada que deshacer", "Nothing to undo"),
    "new_game_do": ("Pulsa OK largo: menú", "Long OK: menu"),
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
    "seat": ("Asiento {n}", "Seat {n}"),
    "stopped": ("Companion parado", "Companion stopped"),
    "stopped_do": ("Se reanuda al arrancar", "It resumes at start"),
}

TODO: dict[str, str] = {
    "unknown_card": "unknown_card_do",
    "two_tags": "two_tags_do",
    "two_cards": "two_cards_do",
    "same_card": "same_card_do",
    "nothing_pending": "nothing_pending_do",
    "hub_lost": "hub_lost_do",
    "reader_down": "reader_down_do",
    "disk_full": "disk_full_do",
    "not_recording": "not_recording_do",
    "damaged_game": "damaged_game_do",
    "journal_aside": "journal_aside_do",
    "stopped": "stopped_do",
}
