"""The card id on the tag: what enroll writes reads back, and any bytes at all give an id or a clear error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.nfc.ndef import (
    CARD_PAGE,
    FIRST_PAGE,
    NdefError,
    card_id_from_ndef,
    card_id_from_text_pages,
    card_id_pages,
)


@given(st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=40))
def test_what_enroll_writes_reads_back_both_ways(card_id: str) -> None:
    try:
        data = card_id_pages(card_id)
    except ValueError:
        return  # too long for an NTAG213: refused before anything is written
    assert card_id_from_ndef(data) == card_id
    assert card_id_from_text_pages(data[4 * (CARD_PAGE - FIRST_PAGE) :]) == card_id


@given(st.binary(max_size=160))
def test_any_memory_gives_a_card_id_or_a_clear_error(memory: bytes) -> None:
    """Random 16-byte pages made card_id_from_ndef raise IndexError about one time in fifty."""
    try:
        assert isinstance(card_id_from_ndef(memory), str)
    except NdefError as exc:
        assert str(exc)


@given(st.binary(min_size=16, max_size=16))
def test_any_16_byte_read_gives_a_card_id_or_a_clear_error(page: bytes) -> None:
    for parse in (card_id_from_ndef, card_id_from_text_pages):
        try:
            assert parse(page) is None or isinstance(parse(page), str)
        except NdefError as exc:
            assert str(exc)


@pytest.mark.parametrize(
    ("memory", "message"),
    [
        (b"", "no NDEF message"),
        (b"\x03", "has no length"),
        (b"\x03\x05\xd1\x01", "claims 5 bytes"),
        (b"\x03\x03\xd1\x01\x05", "runs past its message"),
        (b"\x03\x03\xd9\x01\x01", "id length is cut short"),
        (b"\x03\x05\xd1\x01\x01U\x00", "no Text record"),
    ],
)
def test_damaged_memory_says_what_is_wrong(memory: bytes, message: str) -> None:
    with pytest.raises(NdefError, match=message):
        card_id_from_ndef(memory)
