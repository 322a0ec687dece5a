"""Decks as data: every deck is a TOML file, one ``[[cards]]`` table per card.

The built-in decks ship with the package (``spanish-40``, ``spanish-48``, ``squadratik``); a user's file is
loaded by path. A file is checked whole before anything is returned, so a malformed deck is refused with a
message that names the file, the card and the field, and is never half-loaded::

    >>> deck = load_deck("spanish-40")
    >>> len(deck), deck["6O"].name("es")
    (40, '6 de oros')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path

from companion.files import read_text
from companion.i18n import N_, Said

__all__ = [
    "BUILTIN_DECKS",
    "SUITS",
    "Card",
    "Deck",
    "DeckError",
    "Kind",
    "load_deck",
    "said_end",
]

BUILTIN_DECKS = ("spanish-40", "spanish-48", "squadratik")

# Suit letter -> its name (an English msgid: oros, copas, espadas, bastos in Spanish).
SUITS: dict[str, str] = {"O": N_("coins"), "C": N_("cups"), "E": N_("swords"), "B": N_("clubs")}
_RANK_NAMES: dict[int, str] = {1: N_("ace"), 10: N_("jack"), 11: N_("knight"), 12: N_("king")}
_COLOUR_NAMES = {"red": N_("red"), "black": N_("black")}
_COLORS = {"red": "R", "black": "B"}
# An end as players read it: its dots and the letter of its colour in the table's language (a Spanish player reads
# "B" as blanco, the sheet's word for a blank end: negro is "N"); a blank end is "0" in every language.
_END_WORDS = {"R": N_("{dots}R"), "B": N_("{dots}B")}
_END = re.compile(r"^(0|[1-9][0-9]*[RB])$")


class Kind(StrEnum):
    MASTER = "master"
    NORMAL = "normal"
    EMPTY = "empty"
    CENTRAL = "central"
    SPANISH = "spanish"


class DeckError(ValueError):
    """A deck file that cannot be used; the message names the file, the card and the field.

    ``str()`` is the English sentence; :meth:`text` gives it in the language of the table or the command line, as
    the game's own set-up errors do::

        >>> card = Said(N_("{source}: card #{index}"), source="my.toml", index=2)
        >>> error = DeckError.at(card, Said(N_("field {key} is missing"), key="'id'"))
        >>> str(error), error.text("es")
        ("my.toml: card #2: field 'id' is missing", "my.toml: carta n.º 2: falta el campo 'id'")
    """

    def __init__(self, where: Said | str, problem: Said) -> None:
        self.where, self.problem = where, problem
        super().__init__(self.text("en"))

    @classmethod
    def at(cls, where: Said | str, problem: Said) -> DeckError:
        """``problem`` at ``where`` (the file, and the card)."""
        return cls(where, problem)

    def text(self, lang: str = "es") -> str:
        where = self.where.text(lang) if isinstance(self.where, Said) else self.where
        return f"{where}: {self.problem.text(lang)}"


@dataclass(frozen=True, slots=True)
class Card:
    """One card of a deck. Which fields are set depends on ``kind``.

    ``ends`` are the two ends of a Squadratik card along a line: ``"2R"`` (two red dots), ``"1B"``
    (one black dot) or ``"0"`` (blank). A master card's single end is its own dots and colour.
    """

    id: str
    kind: Kind
    points: int = 0
    ends: tuple[str, str] | None = None
    dots: int | None = None
    color: str | None = None  # "red" | "black"
    suit: str | None = None  # O C E B
    rank: int | None = None

    @property
    def master_end(self) -> str:
        """The open end a master card gives its line, e.g. ``"3B"``."""
        assert self.kind is Kind.MASTER and self.dots is not None and self.color is not None
        return f"{self.dots}{_COLORS[self.color]}"

    def name(self, lang: str = "es") -> str:
        """The card as players say it: ``6 de oros``, ``rey de copas``, ``maestra 3 negra``."""
        return self.said().text(lang)

    def said_rank(self) -> Said | int:
        """A Spanish card's rank as its name says it: ``5``, ``caballo`` (the ``5`` of ``5 o caballo de espadas``)."""
        assert self.rank is not None
        return Said(_RANK_NAMES[self.rank]) if self.rank in _RANK_NAMES else self.rank

    def said(self) -> Said:
        """The card's name, to be said in any language (a refusal's ``{name}``)."""
        if self.kind is Kind.SPANISH:
            assert self.rank is not None and self.suit is not None
            return Said(N_("{rank} of {suit}"), rank=self.said_rank(), suit=Said(SUITS[self.suit]))
        if self.kind is Kind.MASTER:
            return Said(N_("master {dots} {colour}"), dots=self.dots, colour=Said(_COLOUR_NAMES[self.color or "red"]))
        if self.kind is Kind.EMPTY:
            return Said(N_("empty card {id}"), id=self.id)
        if self.kind is Kind.CENTRAL:
            return Said(N_("central card"))
        assert self.ends is not None
        return Said(
            N_("card {id} ({left}|{right})"), id=self.id, left=said_end(self.ends[0]), right=said_end(self.ends[1])
        )


def said_end(end: str) -> Said | str:
    """An end of a Squadratik card as players read it (its id-like spelling ``2B`` is the deck file's)::

    >>> said_end("2B").text("es"), said_end("2B").text("en"), said_end("1R").text("es"), said_end("0")
    ('2N', '2B', '1R', '0')
    """
    words = _END_WORDS.get(end[-1:])
    return end if words is None else Said(words, dots=end[:-1])


@dataclass(frozen=True)
class Deck:
    name: str
    cards: tuple[Card, ...]
    source: str  # the built-in name or the file path it came from

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {card.id: card for card in self.cards})

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._by_id  # type: ignore[attr-defined]

    def __getitem__(self, card_id: str) -> Card:
        by_id: dict[str, Card] = self._by_id  # type: ignore[attr-defined]
        return by_id[card_id]

    def get(self, card_id: str) -> Card | None:
        by_id: dict[str, Card] = self._by_id  # type: ignore[attr-defined]
        return by_id.get(card_id)

    def of_kind(self, kind: Kind) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.kind is kind)


def load_deck(name_or_path: str | Path) -> Deck:
    """Load a built-in deck by name, or a deck file by path."""
    text: str
    if isinstance(name_or_path, str) and name_or_path in BUILTIN_DECKS:
        source = name_or_path
        text = resources.files(__package__).joinpath(f"{name_or_path}.toml").read_text("utf-8")
    else:
        path = Path(name_or_path)
        source = str(path)
        builtins = ", ".join(BUILTIN_DECKS)
        if not path.exists():
            said = N_("no such deck. Give a built-in deck ({builtins}) or the path of a deck file.")
            raise DeckError.at(source, Said(said, builtins=builtins))
        try:
            text = read_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise DeckError.at(source, Said(N_("cannot read the deck file ({error})"), error=exc)) from exc
    return parse_deck(text, source)


def parse_deck(text: str, source: str) -> Deck:
    """Check and build a deck from TOML text; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError.at(source, Said(N_("not valid TOML ({error})"), error=exc)) from exc
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise DeckError.at(source, Said(N_('the deck needs a name (name = "my deck")')))
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise DeckError.at(source, Said(N_("the deck has no cards (add one [[cards]] table per card)")))
    cards: list[Card] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_cards, start=1):
        card = _parse_card(raw, Said(N_("{source}: card #{index}"), source=source, index=index))
        if card.id in seen:
            where = Said(N_("{source}: card #{index} ({id})"), source=source, index=index, id=card.id)
            raise DeckError.at(where, Said(N_("field 'id': duplicate id {id}"), id=repr(card.id)))
        seen.add(card.id)
        cards.append(card)
    return Deck(name=name, cards=tuple(cards), source=source)


def _parse_card(raw: object, card: Said) -> Card:
    """The card ``raw``; ``card`` names it in errors (the file and its number)."""
    if not isinstance(raw, dict):
        raise DeckError.at(card, Said(N_("a card must be a [[cards]] table")))
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id.strip() or card_id != card_id.strip():
        raise DeckError.at(card, Said(N_("field 'id': a card needs a non-empty id without spaces around it")))
    where = Said(N_("{source}: card #{index} ({id})"), **card.fields, id=card_id)

    def field(key: str, kind: type) -> object:
        if key not in raw:
            raise DeckError.at(where, Said(N_("field {key} is missing"), key=repr(key)))
        value = raw[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            said = N_("field {key} must be a whole number, not {value}")
            raise DeckError.at(where, Said(said, key=repr(key), value=repr(value)))
        if not isinstance(value, kind):
            said = N_("field {key} must be {type}, not {value}")
            raise DeckError.at(where, Said(said, key=repr(key), type=Said(_TYPES[kind]), value=repr(value)))
        return value

    kind_name = field("kind", str)
    try:
        kind = Kind(str(kind_name))
    except ValueError:
        choices = " | ".join(k.value for k in Kind)
        said = Said(N_("field 'kind': unknown kind {kind} (use {choices})"), kind=repr(kind_name), choices=choices)
        raise DeckError.at(where, said) from None
    allowed = {"id", "kind"} | _FIELDS[kind]
    extra = sorted(set(raw) - allowed)
    if extra:
        raise DeckError.at(
            where, Said(N_("field {key} does not belong to a {kind} card"), key=repr(extra[0]), kind=kind)
        )

    if kind is Kind.SPANISH:
        suit = field("suit", str)
        rank = field("rank", int)
        if suit not in SUITS:
            raise DeckError.at(
                where, Said(N_("field 'suit': {suit} is not a suit (use O, C, E or B)"), suit=repr(suit))
            )
        assert isinstance(rank, int)
        if not 1 <= rank <= 12:
            raise DeckError.at(where, Said(N_("field 'rank': {rank} is not between 1 and 12"), rank=rank))
        if card_id != f"{rank}{suit}":
            message = N_("field 'id': a Spanish card's id is <rank><suit>, here {id}")
            raise DeckError.at(where, Said(message, id=f"{rank}{suit}"))
        return Card(id=card_id, kind=kind, suit=str(suit), rank=rank)
    if kind is Kind.MASTER:
        dots = field("dots", int)
        color = field("color", str)
        assert isinstance(dots, int)
        if not 1 <= dots <= 4:
            raise DeckError.at(where, Said(N_("field 'dots': a master card has 1 to 4 dots, not {dots}"), dots=dots))
        if color not in _COLORS:
            raise DeckError.at(where, Said(N_("field 'color': {color} is not red or black"), color=repr(color)))
        return Card(id=card_id, kind=kind, dots=dots, color=str(color), points=dots)
    if kind is Kind.NORMAL:
        ends = field("ends", list)
        points = field("points", int)
        assert isinstance(ends, list) and isinstance(points, int)
        if len(ends) != 2 or not all(isinstance(end, str) and _END.match(end) for end in ends):
            message = N_('field \'ends\': {ends} is not two ends like "2R", "1B" or "0" (blank)')
            raise DeckError.at(where, Said(message, ends=repr(ends)))
        if points < 0:
            raise DeckError.at(where, Said(N_("field 'points': {points} is negative"), points=points))
        return Card(id=card_id, kind=kind, ends=(ends[0], ends[1]), points=points)
    # empty and central cards carry nothing but their id.
    return Card(id=card_id, kind=kind)


# A field's TOML type as an error says it: (English, Spanish).
_TYPES: dict[type, str] = {str: N_("text"), list: N_("a list")}

_FIELDS: dict[Kind, set[str]] = {
    Kind.SPANISH: {"suit", "rank"},
    Kind.MASTER: {"dots", "color"},
    Kind.NORMAL: {"ends", "points"},
    Kind.EMPTY: set(),
    Kind.CENTRAL: set(),
}
