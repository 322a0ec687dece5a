"""companion: a Raspberry Pi that referees physical card games played with NFC-tagged cards."""

__version__ = "0.1.0"
