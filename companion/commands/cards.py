"""``companion cards``: the registry's bindings for a deck, and the cards still without a tag."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands.enroll import DEFAULT_REGISTRY
from companion.decks import DeckError, load_deck
from companion.nfc.registry import Registry, RegistryError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("cards", help="list which tag is which card, and the cards not enrolled yet")
    parser.add_argument("--deck", required=True, help="a built-in deck (spanish-40, spanish-48, squadratik) or a path")
    parser.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY, help=f"default {DEFAULT_REGISTRY}")
    parser.add_argument("--lang", choices=("es", "en"), default="es", help="how card names are said")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        deck = load_deck(args.deck)
        registry = Registry.load(args.registry, deck=deck.name)
    except (DeckError, RegistryError) as exc:
        print(f"companion cards: {exc}", file=sys.stderr)
        return 2
    tags = {card: uid for uid, card in registry.bindings().items()}
    print(f"{deck.name}: {len(tags)} of {len(deck)} cards enrolled ({args.registry})")
    width = max(len(card.id) for card in deck)
    for card in deck:
        if card.id in tags:
            print(f"  {card.id:<{width}}  {tags[card.id]}  {card.name(args.lang)}")
    strangers = sorted(card for card in tags if card not in deck)
    if strangers:
        print(f"bound to ids that are not cards of {deck.name}: {', '.join(strangers)} (enroll with --rebind to fix)")
    missing = [card for card in deck if card.id not in tags]
    if missing:
        print(f"missing ({len(missing)}): " + ", ".join(f"{c.id} ({c.name(args.lang)})" for c in missing))
        print(f"enroll them with: companion enroll --deck {args.deck}")
    return 0
