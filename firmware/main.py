"""The reader hub's entry point: MicroPython runs this file at boot."""

import micropython

# First of all: MicroPython runs main.py with Ctrl-C on, and on USB serial the byte 0x03 is then no data but an
# interrupt that empties the input (shared/tinyusb/mp_usbd_cdc.c). The host's frames hold 0x03, and it may be
# talking already while the modules below load.
micropython.kbd_intr(-1)

import machine  # noqa: E402

try:
    import asyncio

    import hub_config
    from hub_app import UsbPort, boot

    hub = boot(hub_config, UsbPort())
    if hub is not None:  # else maintenance mode: the REPL, for mpremote
        asyncio.run(hub.run())
except KeyboardInterrupt:
    machine.reset()  # a Ctrl-C that came before the line above: start again rather than sit in the REPL
