"""Which gpiozero pin factory drives the buttons, the LEDs and the readers' reset lines, and why.

On a Raspberry Pi it is always lgpio, on the kernel's ``/dev/gpiochip*``. gpiozero would otherwise pick the first
library it can import, and the ``mfrc522`` package pulls in RPi.GPIO 0.7.1: on kernel 6.6 and later (current
Raspberry Pi OS) its ``Button`` fails with "Failed to add edge detection", and it does not run on a Pi 5 at all.
Off a Pi with simulated readers (``backend = "sim"``) the pins are gpiozero's mock pins; off a Pi with real
readers it is lgpio again, which fails with a message that says what to check.

The daemon, ``companion enroll`` and ``companion doctor`` all choose through :func:`choose`, and doctor says the
choice and its reason::

    >>> choose("sim", root=Path("/nonexistent")).name
    'mock'

lgpio writes its notification pipe (``.lgd-nfy0``) into the working directory when it is imported, and fails
when it cannot: the unit gives the service ``WorkingDirectory=/var/lib/companion``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MODEL", "PinChoice", "PinFactoryError", "board_model", "choose", "factory_for", "make_factory"]

MODEL = Path("/proc/device-tree/model")  # "Raspberry Pi 4 Model B Rev 1.5", NUL-terminated
MOCK_REVISION = "c03111"  # the mock pins are a Pi 4 B's header


class PinFactoryError(RuntimeError):
    """The pin factory cannot start: ``problem`` says what failed, ``fix`` what to check."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}: {fix}")
        self.problem, self.fix = problem, fix


@dataclass(frozen=True)
class PinChoice:
    name: str  # "lgpio" or "mock"
    reason: str
    chip: int | None = None  # lgpio's gpiochip; None lets gpiozero pick the Pi's (0, or 4 on an early Pi 5 kernel)


def board_model(root: Path = Path("/")) -> str | None:
    """The Raspberry Pi's model from the device tree under ``root``, or None when this is not a Pi."""
    try:
        model = (root / MODEL.relative_to("/")).read_bytes()[:200].decode("ascii", "replace").strip("\0 \n")
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def choose(backend: str, root: Path = Path("/")) -> PinChoice:
    """The pin factory for readers on ``backend`` on the machine whose ``/`` is ``root``."""
    model = board_model(root)
    if model is not None:
        return PinChoice(
            "lgpio",
            f"{model} ({MODEL}): lgpio on /dev/gpiochip*, as on every Pi (RPi.GPIO fails edge detection on "
            "kernel 6.6+ and does not run on a Pi 5)",
        )
    if backend == "sim":
        return PinChoice("mock", f"not a Raspberry Pi (no {MODEL}) and the readers are simulated: mock pins")
    return PinChoice(
        "lgpio", f"not a Raspberry Pi (no {MODEL}), but the readers are real ({backend}): lgpio on gpiochip0", chip=0
    )


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


def factory_for(backend: str) -> Any:
    """gpiozero's ``Device.pin_factory`` when the program has set one (gpiozero's own way to choose), else the
    factory :func:`choose` picks for readers on ``backend``."""
    from gpiozero import Device

    return Device.pin_factory or make_factory(choose(backend))
