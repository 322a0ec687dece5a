"""The receive side of MicroPython's USB serial port (CDC), for the hub firmware off the board.

On the Pico, every byte the host sends goes through ``tud_cdc_rx_cb`` (MicroPython,
``shared/tinyusb/mp_usbd_cdc.c``) into the stdin ring buffer that ``sys.stdin`` reads (``ports/rp2/mphalport.c``,
``mp_hal_stdin_rx_chr``). There, a byte equal to the interrupt char (``mp_interrupt_char``: 0x03, Ctrl-C, while a
script runs, until ``micropython.kbd_intr(-1)``) is not data: it empties the ring buffer (``iget = iput = 0``)
and schedules a ``KeyboardInterrupt`` (``mp_sched_keyboard_interrupt``), which the VM raises in the running code.
``CdcInput`` does the same: ``receive()`` is the USB side, ``read()`` the firmware's, and raises there.
"""

import micropython


class CdcInput:
    def __init__(self):
        self.ring = bytearray()
        self.interrupts = 0  # Ctrl-Cs that reached the firmware
        self._pending = False

    def receive(self, data):
        """Bytes from the host, as the USB stack hands them over."""
        for byte in data:
            if byte == micropython.interrupt_char[0]:
                self.ring = bytearray()  # what was waiting is gone, not only this byte
                self._pending = True
            else:
                self.ring.append(byte)

    def read(self):
        """What the firmware reads: everything waiting, or the ``KeyboardInterrupt`` an interrupt char scheduled."""
        if self._pending:
            self._pending = False
            self.interrupts += 1
            raise KeyboardInterrupt
        data = bytes(self.ring)
        self.ring = bytearray()
        return data
