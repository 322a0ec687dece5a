"""The card id on an NTAG213, as an NDEF Text record any phone can read, laid out so one page holds it.

Three NULL TLVs pad the message so the record's text starts on page 7, the *card-id page*::

    page 4  00 00 00 03    NULL NULL NULL, NDEF message TLV
    page 5  L  D1 01 PL    its length; record header (short, well-known), type length 1, payload length
    page 6  54 02 65 73    type "T"; UTF-8, language code of 2 bytes: "es"
    page 7  36 4F FE 00    the card id ("6O"), then the terminator TLV

A reader that knows the layout reads page 7 alone (one FAST_READ of 4 bytes) for ids of up to 3 bytes, more
pages for longer ones; ``card_id_from_ndef`` parses any NDEF message, for tags written by other tools.
"""

from __future__ import annotations

__all__ = ["CARD_PAGE", "FIRST_PAGE", "NdefError", "card_id_from_ndef", "card_id_from_text_pages", "card_id_pages"]

FIRST_PAGE = 4  # start of NTAG213 user memory
CARD_PAGE = 7
LAST_USER_PAGE = 39
_LANGUAGE = b"es"
_TERMINATOR = 0xFE


def card_id_pages(card_id: str) -> bytes:
    """The bytes to write from page 4 on, a whole number of pages."""
    text = card_id.encode("utf-8")
    if not text or b"\x00" in text:
        raise ValueError(f"card id {card_id!r}: it must be non-empty text")
    payload = bytes((len(_LANGUAGE),)) + _LANGUAGE + text
    record = bytes((0xD1, 0x01, len(payload))) + b"T" + payload
    data = bytes((0x00, 0x00, 0x00, 0x03, len(record))) + record + bytes((_TERMINATOR,))
    data += bytes(-len(data) % 4)
    if len(payload) > 255 or FIRST_PAGE + len(data) // 4 - 1 > LAST_USER_PAGE:
        raise ValueError(f"card id {card_id!r} is too long for an NTAG213")
    return data


class NdefError(ValueError):
    """Tag memory that holds no card id this module can read; the message says what is wrong with it."""


def card_id_from_text_pages(data: bytes) -> str | None:
    """The card id from the card-id page on (``data`` read from page 7); ``None`` if the terminator is not
    there yet (read more pages). Raises ``NdefError`` when the page holds no card id."""
    if not data or data[0] in (0x00, _TERMINATOR):
        raise NdefError("the card-id page is empty: a blank tag, or one not written by companion enroll")
    end = data.find(bytes((_TERMINATOR,)))
    if end < 0:
        return None
    try:
        return data[:end].decode("utf-8")
    except UnicodeDecodeError:
        raise NdefError("the card-id page is not UTF-8 text: the tag was written by something else") from None


def card_id_from_ndef(memory: bytes) -> str:
    """The text of the first NDEF Text record in ``memory`` (user memory from page 4).

    Raises ``NdefError`` for anything else: no NDEF message, a TLV or record that runs past the memory, no Text
    record, text that does not decode.
    """
    i = 0
    while i < len(memory):
        tlv = memory[i]
        if tlv == 0x00:
            i += 1
            continue
        if tlv == _TERMINATOR:
            break
        if i + 1 >= len(memory):
            raise NdefError(f"TLV 0x{tlv:02X} at byte {i} has no length: the memory ends there")
        length, start = memory[i + 1], i + 2
        if length == 0xFF:
            if start + 2 > len(memory):
                raise NdefError(f"TLV 0x{tlv:02X} at byte {i}: its 3-byte length runs past the memory")
            length, start = int.from_bytes(memory[start : start + 2], "big"), start + 2
        if start + length > len(memory):
            raise NdefError(f"TLV 0x{tlv:02X} at byte {i} claims {length} bytes; the memory ends before")
        if tlv == 0x03:
            return _text_record(memory[start : start + length])
        i = start + length
    raise NdefError("no NDEF message on the tag: write the card id with companion enroll --write-tags")


def _text_record(message: bytes) -> str:
    i = 0
    while i < len(message):
        if i + 3 > len(message):
            raise NdefError("an NDEF record header is cut short")
        header, type_length = message[i], message[i + 1]
        if header & 0x10:  # SR: a 1-byte payload length
            payload_length, i = message[i + 2], i + 3
        else:
            if i + 6 > len(message):
                raise NdefError("an NDEF record's 4-byte payload length is cut short")
            payload_length, i = int.from_bytes(message[i + 2 : i + 6], "big"), i + 6
        id_length = 0
        if header & 0x08:  # IL: an id length byte follows
            if i >= len(message):
                raise NdefError("an NDEF record's id length is cut short")
            id_length, i = message[i], i + 1
        kind = message[i : i + type_length]
        i += type_length + id_length
        payload = message[i : i + payload_length]
        if i + payload_length > len(message):
            raise NdefError("an NDEF record runs past its message")
        i += payload_length
        if header & 0x07 == 0x01 and kind == b"T" and payload:
            status = payload[0]
            text = payload[1 + (status & 0x3F) :]
            try:
                return text.decode("utf-16" if status & 0x80 else "utf-8")
            except UnicodeDecodeError:
                raise NdefError("the NDEF Text record does not decode as its status byte says") from None
        if header & 0x40:  # ME: the last record
            break
    raise NdefError("the NDEF message holds no Text record")
