"""Acceptance: the unmodified public ``mfrc522`` package reads tags through the simulator."""

from __future__ import annotations

import types
from collections.abc import Callable

import companion.sim as sim

FakePi = Callable[[], types.ModuleType]


def test_the_package_reads_a_mifare_classic_uid(fake_pi: FakePi) -> None:
    mfrc522 = fake_pi()
    uid = bytes.fromhex("DEADBEEF")
    sim.field(0, 0).add(sim.MifareClassic1K(uid))
    reader = mfrc522.SimpleMFRC522()
    bcc = uid[0] ^ uid[1] ^ uid[2] ^ uid[3]
    assert reader.read_id_no_block() == int.from_bytes(uid + bytes((bcc,)), "big")


def test_the_package_authenticates_and_reads_blocks(fake_pi: FakePi) -> None:
    mfrc522 = fake_pi()
    card = sim.MifareClassic1K("DEADBEEF")
    card.blocks[8][:] = b"6 de oros".ljust(16)
    sim.field(0, 0).add(card)
    _, text = mfrc522.SimpleMFRC522().read_no_block()
    assert text.startswith("6 de oros")


def test_the_package_writes_blocks_after_authenticating(fake_pi: FakePi) -> None:
    mfrc522 = fake_pi()
    card = sim.MifareClassic1K("DEADBEEF")
    sim.field(0, 0).add(card)
    reader = mfrc522.SimpleMFRC522()
    _, written = reader.write_no_block("rey de copas")
    assert written == "rey de copas"
    assert bytes(card.blocks[8]).startswith(b"rey de copas")


def test_a_wrong_key_fails_authentication(fake_pi: FakePi) -> None:
    mfrc522 = fake_pi()
    sim.field(0, 0).add(sim.MifareClassic1K("DEADBEEF"))
    chip = mfrc522.MFRC522()
    status, _ = chip.MFRC522_Request(chip.PICC_REQIDL)
    status, uid = chip.MFRC522_Anticoll()
    assert status == chip.MI_OK
    chip.MFRC522_SelectTag(uid)
    assert chip.MFRC522_Auth(chip.PICC_AUTHENT1A, 11, [0x00] * 6, uid) != chip.MI_OK
    assert chip.MFRC522_Auth(chip.PICC_AUTHENT1A, 11, [0xFF] * 6, uid) != chip.MI_OK  # the card went back to IDLE


def test_the_package_sees_only_level_one_of_a_7_byte_uid(fake_pi: FakePi) -> None:
    # Why it cannot be our main driver: an NTAG213 comes back as the cascade tag 88 and three UID bytes.
    mfrc522 = fake_pi()
    sim.field(0, 0).add(sim.Ntag213("04A1B2C3D4E5F6"))
    number = mfrc522.SimpleMFRC522().read_id_no_block()
    assert number.to_bytes(5, "big") == bytes.fromhex("8804A1B29F")


def test_an_empty_poll_spins_two_thousand_register_reads(fake_pi: FakePi) -> None:
    mfrc522 = fake_pi()
    reader = mfrc522.SimpleMFRC522()
    before = sim.reader(0, 0).spi_bytes
    assert reader.read_id_no_block() is None
    assert 4000 <= sim.reader(0, 0).spi_bytes - before <= 4100
