"""How an exchange with an NFC reader or a tag fails: one tree of ``OSError``\\ s that every reader kind raises
and every caller catches, whichever driver is underneath (``except NfcError``).

Only :class:`NfcTimeout` means "no card"; the others say the read went wrong and the cards on the table are kept
as they were. The file is plain MicroPython as well as CPython: the reader hub's MFRC522 driver raises the same
errors, and ``firmware/build.py`` puts this file on the board beside it as ``nfc_errors``, where there is no
``companion`` package.
"""

__all__ = ["NfcCollision", "NfcCrcError", "NfcError", "NfcProtocolError", "NfcTimeout", "ReaderNotResponding"]


class NfcError(OSError):
    """A failed exchange with a reader or a tag; the subclass says which way it failed."""


class NfcTimeout(NfcError):
    """No tag answered before the reader's time-out: the only outcome that means "no card"."""


class NfcCrcError(NfcError):
    """A frame came back damaged (CRC, parity or BCC check failed): a tag is there but the read is garbled."""


class NfcCollision(NfcError):
    """Several tags answered at once where one answer was expected."""


class NfcProtocolError(NfcError):
    """An answer that breaks ISO/IEC 14443-3 or NTAG21x framing, or a tag that refused a command (NAK)."""


class ReaderNotResponding(NfcError):
    """The reader itself does not answer on its bus: wiring, chip select, power or reset."""
