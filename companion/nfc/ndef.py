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

__all__ = ["CARD_PAGE", "FIRST_PAGE", "card_id_from_ndef", "card_id_from_text_pages", "card_id_pages"]

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


def card_id_from_text_pages(data: bytes) -> str | None:
    """The card id from the card-id page on (``data`` read from page 7); ``None`` if the terminator is not
    there yet (read more pages) or the page holds no text."""
    if not data or data[0] in (0x00, _TERMINATOR):
        return None
    end = data.find(bytes((_TERMINATOR,)))
    if end < 0:
        return None
    try:
        return data[:end].decode("utf-8")
    except UnicodeDecodeError:
        return None


def card_id_from_ndef(memory: bytes) -> str | None:
    """The text of the first NDEF Text record in ``memory`` (user memory from page 4), or ``None``."""
    i = 0
    while i < len(memory):
        tlv = memory[i]
        if tlv == 0x00:
            i += 1
            continue
        if tlv == _TERMINATOR or i + 1 >= len(memory):
            return None
        length, start = memory[i + 1], i + 2
        if length == 0xFF:
            length, start = int.from_bytes(memory[i + 2 : i + 4], "big"), i + 4
        if tlv == 0x03:
            return _text_record(memory[start : start + length])
        i = start + length
    return None


def _text_record(message: bytes) -> str | None:
    i = 0
    while i + 3 <= len(message):
        header, type_length = message[i], message[i + 1]
        short = header & 0x10
        if short:
            payload_length, i = message[i + 2], i + 3
        else:
            payload_length, i = int.from_bytes(message[i + 2 : i + 6], "big"), i + 6
        id_length = 0
        if header & 0x08:
            id_length, i = message[i], i + 1
        kind = message[i : i + type_length]
        i += type_length + id_length
        payload = message[i : i + payload_length]
        i += payload_length
        if header & 0x07 == 0x01 and kind == b"T" and payload:
            status = payload[0]
            text = payload[1 + (status & 0x3F) :]
            try:
                return text.decode("utf-16" if status & 0x80 else "utf-8")
            except UnicodeDecodeError:
                return None
        if header & 0x40:  # ME: the last record
            return None
    return None
