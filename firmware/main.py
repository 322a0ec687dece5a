"""The reader hub's entry point: MicroPython runs this file at boot."""

import asyncio

import hub_config
from hub_app import UsbPort, build

asyncio.run(build(hub_config, UsbPort()).run())
