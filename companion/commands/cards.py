"""``companion cards``: the registry's bindings for a deck, and the cards still without a tag."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands.enroll import (
    ERRORS,
    add_station_arguments,
    auto_backend,
    load,
    open_station,
    refused,
    settings,
)
from companion.decks import Deck
from companion.i18n import N_, _
from companion.nfc.enrollment import Identify
from companion.nfc.registry import Registry
from companion.nfc.stations import SimulatedHand

STRANGER = "stranger"  # what the simulated hand lays last: a tag no card is bound to


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("cards", help=_("list which tag is which card, and the cards not enrolled yet"))
    add_station_arguments(parser, N_("with --identify: name the cards laid on this zone only (default: any zone)"))
    parser.add_argument("--identify", action="store_true", help=_("name each card laid on a zone, until Ctrl-C"))
    parser.add_argument(
        "--auto",
        action="store_true",
        help=_("with --identify: lay each card in turn on simulated readers (as enroll --auto does)"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.auto and not args.identify:
        print("companion cards: " + _("--auto lays cards for --identify: add --identify"), file=sys.stderr)
        return 2
    try:
        options = settings(args)
        if args.auto:
            options.backend = auto_backend(options.backend)
        deck, registry = load(options)
        if args.identify:
            return identify(deck, registry, options, args)
    except BrokenPipeError:
        raise  # `cards --identify | head`: the command line ends quietly, status 141
    except ERRORS as exc:
        refused("cards", exc)
        return 2
    except KeyboardInterrupt:
        return 130
    return listing(deck, registry, options.registry, options.deck, args.lang)


def identify(deck: Deck, registry: Registry, options: argparse.Namespace, args: argparse.Namespace) -> int:
    """Name every card laid on a zone until Ctrl-C; with ``--auto``, the simulated hand lays each card of the
    deck (then a tag no card is bound to) and it stops after the last."""
    station = open_station(options, registry)
    try:
        names = Identify(deck, registry, station, lang=args.lang)
        if not isinstance(station, SimulatedHand):
            print(_("lay a card on a zone to hear what it is; Ctrl-C to stop"))
            names.run()
            return 0
        hand = [card.id for card in deck] + [STRANGER] if args.auto else []
        sim = station
        if not hand:
            print(_("simulated readers: lay tags with companion.sim, or add --auto to watch it"))

        wait = names.pause  # each pass still waits: laying the next card is no reason to spin

        def lay_next() -> None:
            wait()
            if hand and names.named == len(deck) + 1 - len(hand):
                sim.lay(hand.pop(0))

        names.pause = lay_next
        names.run(stop=lambda: bool(args.auto) and not hand and names.named == len(deck) + 1)
    finally:
        station.close()
    return 0


def listing(deck: Deck, registry: Registry, path: Path, deck_arg: str, lang: str) -> int:
    tags = {card: uid for uid, card in registry.bindings().items()}
    said = _("{deck}: {count} of {total} cards enrolled ({path})")
    print(said.format(deck=deck.name, count=len(tags), total=len(deck), path=path))
    width = max(len(card.id) for card in deck)
    for card in deck:
        if card.id in tags:
            print(f"  {card.id:<{width}}  {tags[card.id]}  {card.name(lang)}")
    strangers = sorted(card for card in tags if card not in deck)
    if strangers:
        said = _("bound to ids that are not cards of {deck}: {ids} (enroll with --rebind to fix)")
        print(said.format(deck=deck.name, ids=", ".join(strangers)))
    missing = [card for card in deck if card.id not in tags]
    if missing:
        cards = ", ".join(f"{c.id} ({c.name(lang)})" for c in missing)
        print(_("missing ({count}): {cards}").format(count=len(missing), cards=cards))
        print(_("enroll them with: companion enroll --deck {deck}").format(deck=deck_arg))
    return 0
