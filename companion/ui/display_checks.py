"""Doctor's checks of the OLED: something answers at its I2C address, and its bus runs at 400 kHz."""

from __future__ import annotations

import errno
from collections.abc import Sequence

from companion.config import Config
from companion.doctor.checks import Check, System
from companion.doctor.pi import boot_config
from companion.hardware import PinMap
from companion.i18n import N_, _
from companion.ui.display import display_words, i2c_write_s
from companion.ui.display import parse_options as parse_display_options

__all__ = ["check_display", "check_i2c_speed", "display_options"]

I2C_HZ = 400_000  # the rate hardware/README.md sets: a full frame holds the bus 23 ms, against 92 ms at 100 kHz
DEFAULT_I2C_HZ = 100_000  # i2c_arm_baudrate's default (Raspberry Pi firmware, boot/overlays/README)
SPEED, DISPLAY = N_("I2C speed"), N_("display")  # the checks' names


def check_i2c_speed(system: System, port: int) -> Check:
    """The OLED's bus runs at 400 kHz: the rate the kernel runs it at (the device tree's clock-frequency, under
    /sys), else the one config.txt will give it at the next boot."""
    if port != 1:  # only I2C1 (i2c_arm) is set by dtparam; another bus is the maker's own choice
        return Check(
            _(SPEED), True, _("/dev/i2c-{port}: its rate is set by its own overlay, not checked").format(port=port)
        )
    config, params, _overlays = boot_config(system)
    where = system.shown(config) if config else "/boot/firmware/config.txt"
    line = f"dtparam=i2c_arm_baudrate={I2C_HZ}"
    try:
        configured = int(params.get("i2c_arm_baudrate", DEFAULT_I2C_HZ))
    except ValueError:
        return Check(
            _(SPEED),
            False,
            _("{where} has i2c_arm_baudrate={value}, not a number").format(
                where=where, value=params["i2c_arm_baudrate"]
            ),
            _("write {line} in {where}, then sudo reboot").format(line=line, where=where),
        )
    running = _running_i2c_hz(system, port)
    hz = configured if running is None else running
    frame_ms = i2c_write_s(1024, hz) * 1e3
    said = _("I2C{port} runs at {khz} kHz ({source}): a full frame holds the bus {ms} ms").format(
        port=port, khz=hz // 1000, source=_("the kernel says") if running is not None else where, ms=f"{frame_ms:.0f}"
    )
    if hz >= I2C_HZ:
        return Check(_(SPEED), True, said)
    if configured >= I2C_HZ:
        later = _("{where} sets {khz} kHz from the next boot").format(where=where, khz=configured // 1000)
        return Check(_(SPEED), False, f"{said}; {later}", "sudo reboot")
    return Check(
        _(SPEED),
        False,
        said + _(" (the screen lags a change by that much)"),
        _(
            "add {line} to {where} (or to its dtparam=i2c_arm=on line: dtparam=i2c_arm=on,i2c_arm_baudrate={hz}), "
            "then sudo reboot"
        ).format(line=line, where=where, hz=I2C_HZ),
    )


def _running_i2c_hz(system: System, port: int) -> int | None:
    """The bus's clock-frequency from its device-tree node (a 32-bit big-endian number), or None off a Pi."""
    try:
        raw = system.path(f"/sys/class/i2c-adapter/i2c-{port}/of_node/clock-frequency").read_bytes()
    except OSError:
        return None
    return int.from_bytes(raw[:4], "big") if len(raw) >= 4 else None


def display_options(config: Config, pinmap: PinMap) -> list[str]:
    """The display's luma options: the config's, else the pin map's OLED."""
    return display_words(config.display or pinmap.oled)


def check_display(system: System, options: Sequence[str]) -> Check:
    """Something acknowledges the display's I2C address (what ``i2cdetect`` shows)."""
    try:
        args = parse_display_options(options)
    except ValueError as exc:
        return Check(_(DISPLAY), False, str(exc), _("correct display.options in the config, or [oled] in the pin map"))
    if args.interface != "i2c":
        said = _("{display} on {interface}: doctor checks I2C displays only")
        return Check(_(DISPLAY), True, said.format(display=args.display, interface=args.interface))
    address = int(str(args.i2c_address), 0)
    port = int(args.i2c_port)
    node = f"/dev/i2c-{port}"
    at = _("{display} at 0x{address} on {node}").format(display=args.display, address=f"{address:02X}", node=node)
    if not system.path(node).exists():
        missing = _("{at}: {node} is missing").format(at=at, node=node)
        return Check(_(DISPLAY), False, missing, _("switch I2C on: see the I2C check above"))
    try:
        bus = system.i2c_bus(port)
    except PermissionError:
        refused = _("{at}: not allowed to open {node}").format(at=at, node=node)
        return Check(_(DISPLAY), False, refused, _("run it as root: sudo companion doctor"))
    except OSError as exc:
        failed = _("{at}: cannot open {node} ({error})").format(at=at, node=node, error=exc)
        return Check(_(DISPLAY), False, failed, _("sudo reboot, then run doctor again"))
    try:
        bus.read_byte(address)
    except OSError as exc:
        if exc.errno in (errno.EREMOTEIO, errno.ENXIO):
            return Check(
                _(DISPLAY),
                False,
                _("{at}: nothing answers at 0x{address}").format(at=at, address=f"{address:02X}"),
                _(
                    "check the OLED's wiring (SDA pin 3, SCL pin 5, VCC 3.3 V, GND); i2cdetect -y {port} shows the "
                    'address it has: if 3d, set i2c_address = "0x3D" in [oled] of the pin map'
                ).format(port=port),
            )
        return Check(
            _(DISPLAY),
            False,
            _("{at}: the bus fails ({error})").format(at=at, error=exc),
            _("SDA or SCL is shorted or held low: unplug the OLED, check its wiring, then sudo reboot"),
        )
    finally:
        bus.close()
    return Check(_(DISPLAY), True, _("{at} answers").format(at=at))
