"""Doctor's checks of the OLED: something answers at its I2C address, and its bus runs at 400 kHz."""

from __future__ import annotations

import errno
from collections.abc import Sequence

from companion.config import Config
from companion.doctor.checks import Check, System
from companion.doctor.pi import boot_config
from companion.hardware import PinMap
from companion.ui.display import display_words, i2c_write_s
from companion.ui.display import parse_options as parse_display_options

__all__ = ["check_display", "check_i2c_speed", "display_options"]

I2C_HZ = 400_000  # the rate hardware/README.md sets: a full frame holds the bus 23 ms, against 92 ms at 100 kHz
DEFAULT_I2C_HZ = 100_000  # i2c_arm_baudrate's default (Raspberry Pi firmware, boot/overlays/README)


def check_i2c_speed(system: System, port: int) -> Check:
    """The OLED's bus runs at 400 kHz: the rate the kernel runs it at (the device tree's clock-frequency, under
    /sys), else the one config.txt will give it at the next boot."""
    if port != 1:  # only I2C1 (i2c_arm) is set by dtparam; another bus is the maker's own choice
        return Check("I2C speed", True, f"/dev/i2c-{port}: its rate is set by its own overlay, not checked")
    config, params, _ = boot_config(system)
    where = system.shown(config) if config else "/boot/firmware/config.txt"
    line = f"dtparam=i2c_arm_baudrate={I2C_HZ}"
    try:
        configured = int(params.get("i2c_arm_baudrate", DEFAULT_I2C_HZ))
    except ValueError:
        return Check(
            "I2C speed",
            False,
            f"{where} has i2c_arm_baudrate={params['i2c_arm_baudrate']}, not a number",
            f"write {line} in {where}, then sudo reboot",
        )
    running = _running_i2c_hz(system, port)
    hz = configured if running is None else running
    frame_ms = i2c_write_s(1024, hz) * 1e3
    said = f"I2C{port} runs at {hz // 1000} kHz ({'the kernel says' if running is not None else where}): a full frame "
    said += f"holds the bus {frame_ms:.0f} ms"
    if hz >= I2C_HZ:
        return Check("I2C speed", True, said)
    if configured >= I2C_HZ:
        return Check(
            "I2C speed", False, f"{said}; {where} sets {configured // 1000} kHz from the next boot", "sudo reboot"
        )
    return Check(
        "I2C speed",
        False,
        f"{said} (the screen lags a change by that much)",
        f"add {line} to {where} (or to its dtparam=i2c_arm=on line: dtparam=i2c_arm=on,i2c_arm_baudrate={I2C_HZ}), "
        "then sudo reboot",
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
        return Check("display", False, str(exc), "correct display.options in the config, or [oled] in the pin map")
    if args.interface != "i2c":
        return Check("display", True, f"{args.display} on {args.interface}: doctor checks I2C displays only")
    address = int(str(args.i2c_address), 0)
    port = int(args.i2c_port)
    node = f"/dev/i2c-{port}"
    at = f"{args.display} at 0x{address:02X} on {node}"
    if not system.path(node).exists():
        return Check("display", False, f"{at}: {node} is missing", "switch I2C on: see the I2C check above")
    try:
        bus = system.i2c_bus(port)
    except PermissionError:
        return Check("display", False, f"{at}: not allowed to open {node}", "run it as root: sudo companion doctor")
    except OSError as exc:
        return Check("display", False, f"{at}: cannot open {node} ({exc})", "sudo reboot, then run doctor again")
    try:
        bus.read_byte(address)
    except OSError as exc:
        if exc.errno in (errno.EREMOTEIO, errno.ENXIO):
            return Check(
                "display",
                False,
                f"{at}: nothing answers at 0x{address:02X}",
                f"check the OLED's wiring (SDA pin 3, SCL pin 5, VCC 3.3 V, GND); i2cdetect -y {port} shows the "
                f'address it has: if 3d, set i2c_address = "0x3D" in [oled] of the pin map',
            )
        return Check(
            "display",
            False,
            f"{at}: the bus fails ({exc})",
            "SDA or SCL is shorted or held low: unplug the OLED, check its wiring, then sudo reboot",
        )
    finally:
        bus.close()
    return Check("display", True, f"{at} answers")
