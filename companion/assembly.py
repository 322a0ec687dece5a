"""One table put together: the referee and the journal between the readers, the buttons and the outputs.

Every table is wired here, once: the service (:mod:`companion.daemon`) around real devices, ``companion demo`` and
the tests around simulated ones (the register-level chip simulator behind :class:`~companion.nfc.backends.
SimBackend`, gpiozero's mock pins, the fake I2C bus under the real luma driver). Whoever builds a table opens its
devices (that is where real and simulated differ) and gives them to :func:`assemble` with the config; the
assembly then makes the referee and the table, the status LED and the zone LEDs, the buttons, the page and the
publisher, and hangs the outputs on the table in the order a player looks at them: the LEDs, the screen, the page,
the club's broker; then the listeners of the referee's news: the page (for the phones' voice) and the table's voice
(:mod:`companion.speech`, on every table given a player, "off" until switched on). It starts nothing:
the builder starts the table (:meth:`~companion.table.Table.start`) and runs what runs (the readers, the page, the
publisher) on its own loop, or by hand on a simulated clock; the voice starts its thread with its first sentence.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.config import Config
from companion.hardware import PinMap
from companion.i18n import Said
from companion.journal import Journal
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.readers import Readers, kind
from companion.referee import Referee
from companion.rules.transcript import state
from companion.speech import Speaker
from companion.speech.speaker import SILENT, Player
from companion.table import Table
from companion.ui.buttons import Buttons
from companion.ui.lights import StatusLed, ZoneLights
from companion.view import Output

if TYPE_CHECKING:
    from companion.club.publisher import Publisher
    from companion.web import WebServer
    from companion.web.virtual import Hand, VirtualTable

__all__ = ["Assembly", "Devices", "assemble"]

log = logging.getLogger("companion")


@dataclass(frozen=True)
class Devices:
    """What a table is built around, opened by whoever builds it: real devices or simulated ones."""

    journal: Journal
    registry: Registry
    readers: Readers  # opened; run by the builder
    pinmap: PinMap  # the buttons' and the LEDs' GPIOs
    pin_factory: Any  # gpiozero's: a Pi's, or its mock pins
    clock: Callable[[], float]  # the buttons' (long presses are timed with it)
    call_soon: Callable[[Callable[[], None]], Any]  # how gpiozero's threads hand a press to the table's loop
    screen: Output | None = None  # the OLED, when one could be opened
    # The zone LEDs when neither the readers (the hub) nor the Pi's GPIOs drive them: the demo's hub, counted.
    lights: Callable[[StatusLed], Output] | None = None
    hand: Callable[[], Hand] | None = None  # at a virtual table: what the page's person may lay (else every card)
    voice: Player | None = None  # the sound card (aplay on the config's ALSA device), the demo's files, or none


@dataclass
class Assembly:
    """The table and the parts the assembly made around it; :meth:`close` lets go of those, in reverse."""

    table: Table
    lights: Output  # the zone LEDs, with the status LED
    buttons: Buttons
    web: WebServer | None = None  # the table's page, when the config serves it
    publisher: Publisher | None = None  # the club's broker's, with [mqtt]
    speaker: Speaker | None = None  # the table's voice, when it has a player (its level may be "off")
    _closing: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Let go of the LEDs' and the buttons' pins (the devices given stay their builder's to close)."""
        while self._closing:
            self._closing.pop()()


def assemble(config: Config, devices: Devices) -> Assembly:
    """The table of ``config`` around ``devices``, its outputs hung in order; not started."""
    referee = Referee(config.game, config.zones)
    tracker = TableTracker(devices.registry, absences=kind(config.backend).absences(config))
    table = Table(referee, tracker, devices.journal)
    closing: list[Callable[[], None]] = []
    status = StatusLed(devices.pinmap.status_led, pin_factory=devices.pin_factory)
    closing.append(status.close)
    made = devices.lights or devices.readers.lights
    lights = made(status)
    if lights is None:  # the readers leave the LEDs to the Pi: the pin map's, on its GPIOs
        zone_lights = ZoneLights(
            {zone: devices.pinmap.zones[zone] for zone in config.zones}, status, pin_factory=devices.pin_factory
        )
        closing.append(zone_lights.close)
        lights = zone_lights
    table.outputs.append(lights)  # the LED first: it is what the player looks at
    if devices.screen is not None:
        table.outputs.append(devices.screen)
    assembly = Assembly(table, lights, _buttons(table, devices, closing), _closing=closing)
    if config.web is not None:
        from companion.web import WebServer

        assembly.web = WebServer(table, config.web, _virtual(table, devices), screen=devices.screen)
        table.outputs.append(assembly.web)  # after the LEDs and the screen: it only notes the view for the loop
        table.listeners.append(assembly.web)  # the phone's voice: the news worded for the pages that listen
    if config.mqtt is not None:  # woken as an output, run by the builder: the table never waits for it
        from companion.club.homeassistant import page_url
        from companion.club.publisher import Publisher

        page = page_url(config.web, socket.gethostname())  # Home Assistant's link to the table's page
        assembly.publisher = Publisher(config.mqtt, devices.journal, lambda: state(referee.current_game), page)
        table.outputs.append(assembly.publisher)
    if devices.voice is not None:  # every table with a player has a voice, "off" until the config or a person says
        # a listener: it hears the news after every output showed the view; at "off" it words nothing and runs no
        # thread, and one that cannot sound (no sound card, no espeak-ng) says so in the log, once
        speech = config.speech
        assembly.speaker = Speaker(devices.voice, speech.level, speech.rate, speech.volume)
        table.listeners.append(assembly.speaker)
        referee.allow_speech(speech.level, _mute(assembly.speaker))  # the menu and the phone's settings offer it
        closing.append(assembly.speaker.close)
    return assembly


def _mute(speaker: Speaker) -> Said | None:
    """What the screen says when a person switches on a voice that cannot sound: what to do."""
    return None if speaker.mute is None else Said(SILENT)


def _buttons(table: Table, devices: Devices, closing: list[Callable[[], None]]) -> Buttons:
    buttons = Buttons(
        devices.pinmap.buttons,
        lambda press: table.press(press, press.t),
        devices.call_soon,
        clock=devices.clock,
        pin_factory=devices.pin_factory,
    )
    closing.append(buttons.close)
    return buttons


def _virtual(table: Table, devices: Devices) -> VirtualTable | None:
    """The page's hand at a table of simulated readers and gpiozero's mock pins (a PC's, the demo's, the tests'):
    cards laid in the readers' fields, buttons pressed on their pins. None at a real table: its page only shows."""
    from gpiozero.pins.mock import MockFactory

    from companion.nfc.backends import SimBackend
    from companion.web.virtual import VirtualTable

    readers, factory = devices.readers, devices.pin_factory
    if not isinstance(readers, SimBackend) or not isinstance(factory, MockFactory):
        return None
    pins = {name: factory.pin(gpio) for name, gpio in devices.pinmap.buttons.items()}
    log.info("web: a virtual table: the page lays cards on the simulated readers and presses the mock buttons")
    return VirtualTable(lambda: table.referee, readers, pins, devices.hand)
