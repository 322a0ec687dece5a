"""Every doctor check in order::

    for check in diagnose(Path("/etc/companion/config.toml"), System()):
        print(check.ok, check.name, check.detail, check.fix)

The config and the pin map (and that they agree on the zones); the interfaces the readers need (SPI), I2C for the
display and at 400 kHz; the GPIO chips; the pin factory (lgpio on a Pi) and why; the service user allowed to open
the nodes; the readers, each as its kind checks it (each MFRC522's VersionReg, the hub's handshake); the display
answering at its address; when the table speaks, its sound card, espeak-ng's voices and a test phrase played; the
journal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from companion.config import DEFAULT_PATH, Config, ConfigError, load_config
from companion.decks import DeckError, load_deck
from companion.doctor.checks import Check, System
from companion.doctor.pi import check_access, check_gpio, check_i2c, check_pins
from companion.doctor.sound import Speech, sound_checks, sound_nodes
from companion.hardware import DEFAULT_PINMAP, INSTALLED_PINMAP, PinMap, PinMapError, load_pinmap, pinmap_path
from companion.i18n import N_, _, language
from companion.journal import health as journal_health
from companion.readers import kind
from companion.ui.display import parse_options as parse_display_options
from companion.ui.display_checks import check_display, check_i2c_speed, display_options

__all__ = ["CONFIG", "check_config", "check_pinmap", "diagnose"]

CONFIG = N_("config")  # the name of the config's check: when it fails the others use what could be read of it
PINMAP = N_("pin map")


def check_config(path: Path) -> tuple[Check, Config]:
    """The daemon's config: it loads, and its deck loads. The config given back for the checks that follow is,
    when it fails, what could be read of it (a wrong value at its default), or the defaults when there is no file:
    an SD card's interfaces and users are worth checking before its config is right."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        if not path.exists():
            fix = _("sudo install -D -m 0644 systemd/config.toml {path} (sudo make install does it), then edit it")
        else:
            fix = _("edit {path}: correct the keys the message names (systemd/config.toml lists every key)")
        fallback = exc.config or Config(source=_("{path} (missing: the defaults)").format(path=path))
        if exc.config:
            below = _("(the checks below use what could be read of it)")
        else:
            below = _("(the checks below use the defaults)")
        return Check(_(CONFIG), False, f"{exc}\n  {below}", fix.format(path=path)), fallback
    game = config.game
    try:
        deck = load_deck(game.deck_name)
    except DeckError as exc:
        fix = _('fix the deck file, or set game.deck = "" in {path}').format(path=path)
        return Check(_(CONFIG), False, str(exc), fix), config
    zones = ", ".join(f"{zone} ({role})" for zone, role in config.zones.items())
    detail = _("{path}: {game}, {players} players, deck {deck} ({cards} cards), zones {zones}, readers {readers}")
    said = detail.format(
        path=path,
        game=game.name,
        players=game.players,
        deck=game.deck_name,
        cards=len(deck),
        zones=zones,
        readers=config.backend,
    )
    return Check(_(CONFIG), True, said), config


def check_pinmap(config: Config, system: System) -> tuple[Check, PinMap | None]:
    """The pin map the service reads (:func:`~companion.hardware.pinmap_path`, under the root) loads, and has a
    reader (or a hub zone) for every zone of the config."""
    if config.pinmap:
        edit = _("correct the key the message names, or edit pins.map in {config}")
    else:
        edit = _("correct the key the message names, or set pins.map in {config}")
    path = pinmap_path(config.pinmap, system.root)
    try:
        pinmap = load_pinmap(path)
    except PinMapError as exc:
        return Check(_(PINMAP), False, exc.text(language()), edit.format(config=config.source)), None
    have, where = kind(config.backend).wired_zones(config, pinmap)
    missing = [zone for zone in config.zones if zone not in have]
    if missing:
        detail = _("{pinmap}: the config's zone {zone} is not among the pin map's {where} ({have})").format(
            pinmap=pinmap.source, zone=missing[0], where=where, have=", ".join(have) or _("none")
        )
        fix = _("rename the zone in [zones] of {config} to one of the pin map's, or add it to {pinmap}")
        return Check(_(PINMAP), False, detail, fix.format(config=config.source, pinmap=pinmap.source)), None
    oled = pinmap.oled
    detail = f"{pinmap.source}: {where}: {', '.join(have)}; OLED {oled.get('display', 'ssd1306')}"
    if path == DEFAULT_PINMAP:
        shipped = _(" (the one shipped with companion: no {installed}, sudo make install puts it there to edit)")
        detail += shipped.format(installed=INSTALLED_PINMAP)
    return Check(_(PINMAP), True, detail), pinmap


def diagnose(config_path: Path | None, system: System) -> Iterator[Check]:
    """Every check, in order. ``config_path`` None: the default config under the root. A failed config does not
    end the run (the rest is checked with what could be read of it, or the defaults); a failed pin map does: the
    readers and nodes to check come from it."""
    path = config_path or system.path(DEFAULT_PATH)
    check, config = check_config(path)
    yield check
    speech = Speech(config.speech.level, config.speech.device)
    check, pinmap = check_pinmap(config, system)
    yield check
    if pinmap is None:
        return
    readers = kind(config.backend)
    nodes: list[str] = []
    options = display_options(config, pinmap)
    try:
        display = parse_display_options(options)
    except ValueError:
        display = None  # check_display says what is wrong with them
    yield from readers.interface_checks(system, config, pinmap)
    nodes += readers.nodes(system, config, pinmap)
    if display is not None and display.interface == "i2c":
        yield check_i2c(system, int(display.i2c_port))
        yield check_i2c_speed(system, int(display.i2c_port))
        nodes.append(f"/dev/i2c-{display.i2c_port}")
    yield check_gpio(system)
    yield check_pins(system, readers)
    nodes += [system.shown(chip) for chip in sorted(system.path("/dev").glob("gpiochip*"))]
    if speech.on:
        nodes += sound_nodes(system, speech)
    yield check_access(system, nodes)
    yield from readers.device_checks(system, config, pinmap)
    yield check_display(system, options)
    if speech.on:
        yield from sound_checks(system, speech, pinmap, config.source)
    yield Check(_("journal"), *journal_health(system.path(config.journal)))
