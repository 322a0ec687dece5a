"""Which gpiozero pin factory drives the buttons, the LEDs and the readers' reset lines, and why.

On a Raspberry Pi it is always lgpio, on the kernel's ``/dev/gpiochip*``. gpiozero would otherwise pick the first
library it can import, and the ``mfrc522`` package pulls in RPi.GPIO 0.7.1: on kernel 6.6 and later (current
Raspberry Pi OS) its ``Button`` fails with "Failed to add edge detection", and it does not run on a Pi 5 at all.
Off a Pi with simulated readers (a reader kind that says it is ``simulated``) the pins are gpiozero's mock pins;
off a Pi with real readers it is lgpio again, which fails with a message that says what to check. gpiozero's own
setting ``GPIOZERO_PIN_FACTORY=mock`` gives mock pins whatever the readers (a PC with the simulated reader hub)::

    >>> from companion.readers import kind
    >>> print(choose(kind("hub"), root=Path("/nonexistent"), environ={"GPIOZERO_PIN_FACTORY": "mock"}).reason)
    GPIOZERO_PIN_FACTORY=mock (gpiozero's own setting): mock pins

The daemon, ``companion enroll`` and ``companion doctor`` all choose through :func:`choose`, and doctor says the
choice and its reason::

    >>> choose(kind("sim"), root=Path("/nonexistent")).name
    'mock'

Pins are written as gpiozero users write them: ``17``, ``"GPIO17"``, ``"BCM17"``, ``"BOARD11"`` (header pin 11) or
``"J8:11"``. :func:`gpio_number` reads them through gpiozero's own tables of the board (the Pi's revision code
from the device tree; off a Pi the mock pins' Pi 4 B: every Pi since the B+ has the same 40-pin header)::

    >>> gpio_number("BOARD11", board_revision(Path("/nonexistent")))
    17

lgpio writes its notification pipe (``.lgd-nfy0``) into the working directory when it is imported, and fails
when it cannot: the unit gives the service ``WorkingDirectory=/var/lib/companion``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.i18n import N_, Said, SaidError

__all__ = [
    "MODEL",
    "REVISION",
    "PinChoice",
    "PinFactoryError",
    "ReaderChoice",
    "board_model",
    "board_revision",
    "choose",
    "factory_for",
    "gpio_number",
    "make_factory",
]

MODEL = Path("/proc/device-tree/model")  # "Raspberry Pi 4 Model B Rev 1.5", NUL-terminated
REVISION = Path("/proc/device-tree/system/linux,revision")  # the board's revision code, 4 bytes big-endian
MOCK_REVISION = "c03111"  # the mock pins are a Pi 4 B's header
PIN_NAMES = N_('17, "GPIO17", "BCM17" or the header pin "BOARD11"')  # a msgid: say it as Said(PIN_NAMES)


class PinFactoryError(RuntimeError):
    """The pin factory cannot start: ``problem`` says what failed, ``fix`` what to check."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}: {fix}")
        self.problem, self.fix = problem, fix


@dataclass(frozen=True)
class PinChoice:
    name: str  # "lgpio" or "mock"
    reason: Said  # in English in the service's log, in the command line's language in doctor
    chip: int | None = None  # lgpio's gpiochip; None lets gpiozero pick the Pi's (0, or 4 on an early Pi 5 kernel)


class ReaderChoice(Protocol):
    """What the choice needs of the readers (a :class:`companion.readers.ReaderKind`)."""

    @property
    def name(self) -> str: ...

    @property
    def simulated(self) -> bool: ...


def board_model(root: Path = Path("/")) -> str | None:
    """The Raspberry Pi's model from the device tree under ``root``, or None when this is not a Pi."""
    try:
        model = (root / MODEL.relative_to("/")).read_bytes()[:200].decode("ascii", "replace").strip("\0 \n")
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def board_revision(root: Path = Path("/")) -> int:
    """The Raspberry Pi's revision code from the device tree under ``root``; off a Pi, the mock pins' Pi 4 B."""
    try:
        code = (root / REVISION.relative_to("/")).read_bytes()[:4]
    except OSError:
        code = b""
    return int.from_bytes(code, "big") if len(code) == 4 else int(MOCK_REVISION, 16)


@functools.cache
def _board_info(revision: int) -> Any:
    from gpiozero.exc import PinUnknownPi
    from gpiozero.pins.pi import PiBoardInfo

    try:
        return PiBoardInfo.from_revision(revision)
    except PinUnknownPi:  # a board newer than this gpiozero: its 40-pin header is still the Pi 4 B's
        return PiBoardInfo.from_revision(int(MOCK_REVISION, 16))


def gpio_number(name: object, revision: int) -> int:
    """The BCM GPIO number of the pin ``name`` (as gpiozero takes it) on the board of ``revision``; a
    :class:`~companion.i18n.SaidError` says why it is not a GPIO and how to write one."""
    from gpiozero.exc import PinInvalidPin

    board = _board_info(revision)
    if isinstance(name, bool) or not isinstance(name, int | str):  # gpiozero would take True for GPIO1
        raise SaidError(
            Said(N_("a pin is a number or a name such as {names}, not {name}"), names=Said(PIN_NAMES), name=repr(name))
        )
    try:
        gpio: str = board.to_gpio(name)
    except PinInvalidPin:  # gpiozero's own words are English: say it in ours
        said = N_("{name} is not a GPIO of the Raspberry Pi {model}'s header; write {names}")
        raise SaidError(Said(said, name=repr(name), model=board.model, names=Said(PIN_NAMES))) from None
    return int(gpio.removeprefix("GPIO"))


def choose(readers: ReaderChoice, root: Path = Path("/"), environ: Mapping[str, str] = os.environ) -> PinChoice:
    """The pin factory for ``readers`` on the machine whose ``/`` is ``root``, unless ``environ`` asks gpiozero
    for mock pins."""
    if environ.get("GPIOZERO_PIN_FACTORY") == "mock":
        return PinChoice("mock", Said(N_("GPIOZERO_PIN_FACTORY=mock (gpiozero's own setting): mock pins")))
    model = board_model(root)
    if model is not None:
        said = N_(
            "{model} ({file}): lgpio on /dev/gpiochip*, as on every Pi (RPi.GPIO fails edge detection on "
            "kernel 6.6+ and does not run on a Pi 5)"
        )
        return PinChoice("lgpio", Said(said, model=model, file=MODEL))
    if readers.simulated:
        said = N_("not a Raspberry Pi (no {file}) and the readers are simulated: mock pins")
        return PinChoice("mock", Said(said, file=MODEL))
    said = N_("not a Raspberry Pi (no {file}), but the readers are real ({readers}): lgpio on gpiochip0")
    return PinChoice("lgpio", Said(said, file=MODEL, readers=readers.name), chip=0)


def make_factory(choice: PinChoice) -> Any:
    """The gpiozero pin factory of ``choice``; :class:`PinFactoryError` says what to check when lgpio fails."""
    if choice.name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(revision=MOCK_REVISION, pin_class=MockPWMPin)
    try:
        import lgpio
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:
        raise PinFactoryError(
            f"lgpio cannot be loaded ({exc})",
            "install it into companion's environment (sudo make install does; or pip install lgpio)",
        ) from None
    except OSError as exc:  # lgpio makes its notification pipe in the working directory when imported
        raise PinFactoryError(
            f"lgpio could not make its notification pipe in the working directory {os.getcwd()} ({exc})",
            "run it from a writable folder (the service's unit sets WorkingDirectory=/var/lib/companion)",
        ) from None
    try:
        return LGPIOFactory(chip=choice.chip)
    except (lgpio.error, OSError, RuntimeError) as exc:  # gpiozero's PinUnknownPi is a RuntimeError
        chips = sorted(str(path) for path in Path("/dev").glob("gpiochip*"))
        raise PinFactoryError(
            f"lgpio cannot open a GPIO chip ({exc}); "
            + (f"{', '.join(chips)} are there" if chips else "there is no /dev/gpiochip*"),
            "check that this is a Raspberry Pi under Raspberry Pi OS (ls -l /dev/gpiochip*) and that the user is "
            "in group gpio; companion doctor says more",
        ) from None


def factory_for(readers: ReaderChoice) -> Any:
    """gpiozero's ``Device.pin_factory`` when the program has set one (gpiozero's own way to choose), else the
    factory :func:`choose` picks for ``readers``."""
    from gpiozero import Device

    return Device.pin_factory or make_factory(choose(readers))
