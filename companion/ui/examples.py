"""Example table states, one per screen, for ``companion screens``, the docs and the screen tests.

Each example pushes a screen to its limits (8 seats, two-digit counts, the longest menu item), so a string that
grows past its box fails the screen tests in both languages.
"""

from __future__ import annotations

from companion.ui.text import tr
from companion.view import (
    Language,
    Line,
    MenuView,
    Message,
    MessageKind,
    Seat,
    SeisesView,
    SextoSetView,
    TableView,
)

__all__ = ["example_views"]

_NAMES = ("Ana", "Luis", "Maribel", "Pau", "Íñigo", "Eva", "Toño", "Begoña")

# (id, Spanish name, English name) of the 8 master cards, in the order they lie on the table.
_MASTERS = tuple(
    (f"M{dots}{c}", f"maestra {dots} {es}", f"master {dots} {en}")
    for c, es, en in (("R", "roja", "red"), ("B", "negra", "black"))
    for dots in range(1, 5)
)

# Per language: (title, action) of each message example.
_MESSAGES: dict[str, dict[MessageKind, tuple[str, str]]] = {
    "es": {
        MessageKind.ILLEGAL: ("Jugada ilegal", "El 8 de copas no sigue al 6. Retira la carta."),
        MessageKind.UNKNOWN_CARD: ("Carta desconocida", "Retírala y regístrala desde el menú."),
        MessageKind.HUB_LOST: ("Sin lector central", "Revisa el cable USB del hub."),
        MessageKind.READER_DOWN: ("Lector 3 no responde", "Revisa su cable y pulsa OK."),
        MessageKind.DISK_FULL: ("Disco lleno", "La partida no se guarda. Libera espacio."),
        MessageKind.END_OF_HAND: ("Fin de la mano", "Luis gana 12 fichas. Pulsa OK."),
        MessageKind.END_OF_SET: ("Fin del set", "Pareja A: 5 maestras a 3. Pulsa OK."),
        MessageKind.END_OF_GAME: ("¡Gana Maribel!", "52 puntos. Mantén OK para jugar otra."),
        MessageKind.RENEGE: ("Renuncio de Pau", ""),
        MessageKind.INFO: ("Bolsa vacía", ""),
        MessageKind.QUESTION: ("¿Quién puso el 6 de oros?", "Maribel: OK sí, PASO otro nombre"),
    },
    "en": {
        MessageKind.ILLEGAL: ("Illegal play", "The 8 of cups does not follow the 6. Take it back."),
        MessageKind.UNKNOWN_CARD: ("Unknown card", "Take it away and enrol it from the menu."),
        MessageKind.HUB_LOST: ("Hub lost", "Check the hub's USB cable."),
        MessageKind.READER_DOWN: ("Reader 3 is down", "Check its cable, then press OK."),
        MessageKind.DISK_FULL: ("Disk full", "The game is not saved. Free some space."),
        MessageKind.END_OF_HAND: ("End of hand", "Luis wins 12 chips. Press OK."),
        MessageKind.END_OF_SET: ("End of set", "Pair A: 5 masters to 3. Press OK."),
        MessageKind.END_OF_GAME: ("Maribel wins!", "52 points. Hold OK to play again."),
        MessageKind.RENEGE: ("Pau reneged", ""),
        MessageKind.INFO: ("Chip bag empty", ""),
        MessageKind.QUESTION: ("Who laid the 6 of coins?", "Maribel: OK yes, PASS next name"),
    },
}


def _seises(seats: int) -> SeisesView:
    hand = 40 // seats if 40 % seats == 0 else 48 // seats
    return SeisesView(
        seats=tuple(
            Seat(name, cards_left=max(hand - 3 * i, 0), score=(7 * i + 5 * (i % 3)) % 50)
            for i, name in enumerate(_NAMES[:seats])
        ),
        turn=2 % seats,
        mano=1,
        pot=17,
        reserve=33,
        hand=4,
    )


def _sexto_set(result: str | None, language: Language) -> SextoSetView:
    counts = ((3, 1), (0, 2), (4, 4), (1, 0), (2, 5), (1, 0), (12, 11), (2, 3))
    lines = tuple(
        Line(
            master_id=mid,
            master_name=es if language == "es" else en,
            count_a=a,
            count_b=b,
            leader="A" if a > b else "B" if b > a else None,
        )
        for (mid, es, en), (a, b) in zip(_MASTERS, counts, strict=True)
    )
    won_a = sum(line.leader == "A" for line in lines)
    won_b = sum(line.leader == "B" for line in lines)
    return SextoSetView(
        lines=lines,
        masters_won=(won_a, won_b),
        draw_pile=0 if result else 14,
        turn="B",  # whose turn, or once the set ended, the pair that leads the next one
        sets_won=(2, 1) if result else (1, 1),
        result="A" if result else None,
        match_masters=(14 + won_a, 11 + won_b) if result else (14, 11),
    )


def _menu(language: Language) -> MenuView:
    items = (
        f"{tr('game', language)}: {tr('sexto-set', language)}",
        f"{tr('players', language)}: 8",
        f"{tr('deck', language)}: {tr('spanish-48', language)}",
        f"{tr('language', language)}: {tr(language, language)}",
        tr("new_game", language),
        tr("close", language),
    )
    return MenuView(title=tr("menu", language), items=items, selected=2, hint=tr("menu_hint", language))


def example_views(language: Language) -> dict[str, TableView]:
    """Named example views in ``language``: every screen and every message kind."""
    messages = {kind: Message(kind, title, action) for kind, (title, action) in _MESSAGES[language].items()}
    views: dict[str, TableView] = {}
    for seats in (2, 3, 4, 5, 6, 8):
        views[f"seises-{seats}-seats"] = TableView(game=_seises(seats), language=language)
    ended = _seises(5)
    views["seises-renege"] = TableView(game=ended, message=messages[MessageKind.RENEGE], language=language)
    views["seises-owed"] = TableView(
        game=SeisesView(seats=ended.seats, turn=0, mano=0, pot=50, reserve=0, owed=3, hand=12, winner=None),
        message=messages[MessageKind.INFO],
        language=language,
    )
    views["seises-game-over"] = TableView(
        game=SeisesView(seats=ended.seats, turn=3, mano=3, pot=0, reserve=50, hand=9, winner=3),
        language=language,
    )
    views["sexto-set"] = TableView(game=_sexto_set(None, language), language=language)
    views["sexto-set-result"] = TableView(game=_sexto_set("A", language), language=language)
    for kind, message in messages.items():
        if kind not in (MessageKind.RENEGE, MessageKind.INFO):
            views[f"message-{kind.value.replace('_', '-')}"] = TableView(
                game=_sexto_set(None, language), message=message, language=language
            )
    views["menu"] = TableView(menu=_menu(language), language=language)
    views["no-game"] = TableView(language=language)
    return views
