"""The reader hub: a Raspberry Pi Pico that scans many MFRC522 readers and lights their LEDs, on USB serial.

- ``protocol``: the link's frames and messages, shared with the firmware (see docs/PROTOCOL.md).
- ``session``: the host's side of the link without I/O; the daemon's ``HubOnline`` and ``HubOffline`` events.
- ``backend``: ``HubBackend``, the session on a serial port with pyserial: what the daemon runs.
- ``simulated``: the firmware itself on the chip simulator behind a pty, for tests, benchmarks and demos.
"""
