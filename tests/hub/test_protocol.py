"""The hub codec against the shared test vectors, an independent CRC, and random streams."""

import binascii
import doctest
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.hub import protocol
from companion.hub.protocol import (
    COUNTS,
    MAX_PAYLOAD,
    FrameDecoder,
    Heartbeat,
    Message,
    Snapshot,
    ZoneReport,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
    uid_is_valid,
)

VECTORS = json.loads((Path(__file__).parent / "vectors.json").read_text())["vectors"]
NAMESPACE = {name: getattr(protocol, name) for name in dir(protocol) if not name.startswith("_")}


def described(frames: list[tuple[int, Message]]) -> list[list[object]]:
    return [[seq, repr(message)] for seq, message in frames]


def test_docstring_examples() -> None:
    assert doctest.testmod(protocol).failed == 0


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_decodes_whole_and_byte_by_byte(vector: dict[str, object]) -> None:
    data = bytes.fromhex(str(vector["hex"]))
    whole = FrameDecoder()
    assert described(whole.feed(data)) == vector["frames"]
    assert {k: v for k, v in whole.counts.items() if v and k != "frames"} == vector["counts"]
    single = FrameDecoder()
    frames = [frame for i in range(len(data)) for frame in single.feed(data[i : i + 1])]
    assert described(frames) == vector["frames"]
    assert single.counts == whole.counts


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.get("encodes")], ids=lambda v: v["name"])
def test_vector_encodes_to_its_bytes(vector: dict[str, Any]) -> None:
    [[seq, text]] = vector["frames"]
    message = eval(text, NAMESPACE)
    assert encode_frame(seq, message).hex() == vector["hex"]


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1
    for vector in VECTORS:
        if vector.get("encodes"):
            body = cobs_decode(bytes.fromhex(vector["hex"])[:-1])
            assert crc16(body[:-2]) == binascii.crc_hqx(body[:-2], 0xFFFF) == int.from_bytes(body[-2:], "big")


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


uid = st.sampled_from([4, 7, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n)).filter(uid_is_valid)
uids = st.lists(uid, max_size=2)
messages = st.one_of(
    st.builds(Heartbeat, st.integers(0, 0xFFFF)),
    st.builds(ZoneReport, st.integers(0, 0xFFFF), st.integers(0, 15), uids.map(tuple)),
    st.builds(Snapshot, st.integers(0, 0xFFFF), st.lists(uids.map(tuple), max_size=8).map(tuple)),
)


@given(st.lists(st.tuples(st.binary(max_size=40), messages), min_size=1, max_size=10), st.data())
def test_frames_survive_any_garbage_between_them(chunks: list[tuple[bytes, Message]], data: st.DataObject) -> None:
    """Garbage ending in a zero (a torn frame, line noise) costs nothing but itself: every frame after it arrives."""
    stream = bytearray()
    sent = []
    for seq, (garbage, message) in enumerate(chunks):
        stream += garbage + b"\x00" + encode_frame(seq, message)
        sent.append((seq, message))
    decoder = FrameDecoder()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    received = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        received += decoder.feed(bytes(stream[start:end]))
    assert received == sent
    assert decoder.counts["frames"] == len(sent)


@given(st.binary(max_size=2000))
def test_random_bytes_never_raise_and_every_byte_is_accounted(data: bytes) -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(data)
    assert set(decoder.counts) == set(COUNTS)
    assert decoder.counts["frames"] == len(frames)


def test_too_big_a_message_is_refused_at_the_sender() -> None:
    zones = tuple((b"\x01" * 10,) * 4 for _ in range(8))
    with pytest.raises(ValueError, match=f"at most {MAX_PAYLOAD}"):
        encode_frame(0, Snapshot(1, zones))


@pytest.mark.parametrize("size", range(0, 13))
def test_only_4_7_and_10_byte_uids_that_are_not_all_00_or_ff(size: int) -> None:
    for uid in (bytes(range(1, size + 1)), bytes(size), b"\xff" * size):
        valid = size in (4, 7, 10) and uid == bytes(range(1, size + 1))
        assert uid_is_valid(uid) == valid, uid.hex()
        report = ZoneReport(1, 0, (uid,))
        if valid:
            assert FrameDecoder().feed(encode_frame(0, report)) == [(0, report)]
        else:
            with pytest.raises(ValueError, match="4, 7 or 10, not all 00 nor all FF"):
                encode_frame(0, report)
