"""The simulated MFRC522 register by register, against what the datasheet says a chip does."""

from __future__ import annotations

import pytest

import companion.sim as sim
from companion.sim.chip import CRYSTAL_START_S, TD_S, Cmd, Reg


class Port:
    """Raw register access over the simulated SPI bus at 4 MHz, the way any driver does it."""

    def __init__(self, bus: int = 0, device: int = 0) -> None:
        self.dev = sim.spidev.SpiDev(bus, device)
        self.dev.max_speed_hz = 4_000_000

    def write(self, reg: int, *values: int) -> None:
        self.dev.xfer2([reg << 1, *values])

    def read(self, reg: int) -> int:
        return self.dev.xfer2([0x80 | reg << 1, 0])[1]

    def transceive(self, frame: bytes, framing: int = 0) -> None:
        self.write(Reg.COMMAND, Cmd.IDLE)
        self.write(Reg.COMM_IRQ, 0x7F)
        self.write(Reg.FIFO_LEVEL, 0x80)
        self.write(Reg.FIFO_DATA, *frame)
        self.write(Reg.COMMAND, Cmd.TRANSCEIVE)
        self.write(Reg.BIT_FRAMING, 0x80 | framing)

    def wait(self, mask: int, polls: int = 2000) -> int:
        for _ in range(polls):
            irq = self.read(Reg.COMM_IRQ)
            if irq & mask:
                return irq
        raise AssertionError(f"CommIrqReg never showed 0x{mask:02X}")

    def fifo(self) -> bytes:
        return bytes(self.read(Reg.FIFO_DATA) for _ in range(self.read(Reg.FIFO_LEVEL)))

    def field_on(self, timer_ticks: int = 100) -> None:
        self.write(Reg.T_MODE, 0x80)  # TAuto
        self.write(Reg.T_PRESCALER, 67)  # about 10 us a tick
        self.write(Reg.T_RELOAD_H, timer_ticks >> 8)
        self.write(Reg.T_RELOAD_L, timer_ticks & 0xFF)
        self.write(Reg.MODE, 0x3D)  # CRC preset 0x6363, as ISO/IEC 14443-3 needs
        self.write(Reg.TX_CONTROL, 0x83)


@pytest.mark.parametrize(("data", "crc"), [(b"\x00\x00", b"\xa0\x1e"), (b"\x12\x34", b"\x26\xcf")])
def test_calc_crc_gives_the_crc_a_of_iso_14443_3_annex_b(data: bytes, crc: bytes) -> None:
    port = Port()
    port.write(Reg.MODE, 0x3D)  # preset 0x6363
    port.write(Reg.FIFO_DATA, *data)
    port.write(Reg.COMMAND, Cmd.CALC_CRC)
    assert port.read(Reg.DIV_IRQ) & 0x04
    assert bytes((port.read(Reg.CRC_RESULT_L), port.read(Reg.CRC_RESULT_H))) == crc


def test_the_fifo_holds_64_bytes_and_flags_an_overflow() -> None:
    port = Port()
    port.write(Reg.FIFO_DATA, *range(65))
    assert port.read(Reg.FIFO_LEVEL) == 64
    assert port.read(Reg.ERROR) & 0x10  # BufferOvfl
    assert port.read(Reg.FIFO_DATA) == 0
    port.write(Reg.FIFO_LEVEL, 0x80)  # FlushBuffer clears the level and the overflow
    assert port.read(Reg.FIFO_LEVEL) == 0
    assert not port.read(Reg.ERROR) & 0x10


def test_a_read_transaction_reads_a_register_per_address_byte() -> None:
    port = Port()
    assert port.dev.xfer2([0x80 | Reg.VERSION << 1, 0x80 | Reg.MODE << 1, 0]) == [0, 0x92, 0x3F]


def test_comm_irq_set1_sets_or_clears_the_marked_bits() -> None:
    port = Port()
    assert port.read(Reg.COMM_IRQ) == 0x14  # reset value
    port.write(Reg.COMM_IRQ, 0x80 | 0x01)
    assert port.read(Reg.COMM_IRQ) == 0x15
    port.write(Reg.COMM_IRQ, 0x04)
    assert port.read(Reg.COMM_IRQ) == 0x11


def test_the_timer_fires_after_its_programmed_period_and_the_receiver_keeps_waiting() -> None:
    port = Port()
    port.field_on(timer_ticks=99)  # 100 ticks of (2 * 67 + 1) / 13.56 MHz = 0.996 ms
    start = sim.clock.now_s
    port.transceive(b"\x52", framing=7)  # WUPA, nobody there
    irq = port.wait(0x01)
    elapsed = sim.clock.now_s - start
    # plus the 7-bit frame, and the set-up writes and the polls at 25 us a call (a Pi 4's spidev)
    assert 0.996e-3 < elapsed < 0.996e-3 + 0.15e-3 + 8 * 29e-6
    assert not irq & 0x30  # neither RxIRq nor IdleIRq: Transceive does not end by itself
    assert port.read(Reg.COMMAND) & 0x0F == Cmd.TRANSCEIVE


def test_an_answer_stops_the_timer_and_sets_rx_irq() -> None:
    port = Port()
    port.field_on()
    sim.field(0, 0).add(sim.Ntag213("04A1B2C3D4E5F6"))
    port.transceive(b"\x52", framing=7)
    irq = port.wait(0x20)
    assert not irq & 0x01
    assert port.fifo() == b"\x44\x00"
    assert port.read(Reg.CONTROL) & 0x07 == 0  # RxLastBits: whole bytes
    assert not port.read(Reg.STATUS1) & 0x08  # TRunning cleared after the answer's first bits


def test_colliding_answers_give_coll_err_and_the_position_of_the_first_differing_bit() -> None:
    port = Port()
    port.field_on()
    sim.field(0, 0).add(sim.MifareClassic1K("DEADBEEF"), sim.MifareClassic1K("DEADBEFF"))
    port.write(Reg.COLL, 0x00)  # ValuesAfterColl = 0
    port.transceive(b"\x52", framing=7)
    port.wait(0x20)
    port.transceive(b"\x93\x20")
    irq = port.wait(0x20)
    assert irq & 0x02  # ErrIRq
    assert port.read(Reg.ERROR) & 0x08  # CollErr
    # DE AD BE EF vs DE AD BE FF: bit 4 of byte 3 (the 29th bit) is the first that differs.
    assert port.read(Reg.COLL) & 0x3F == 29
    assert port.fifo()[:4] == bytes.fromhex("DEADBE0F")  # bits from the collision on read 0


def test_a_4_bit_ack_shows_in_rx_last_bits() -> None:
    port = Port()
    port.field_on(timer_ticks=1000)
    tag = sim.Ntag213("04A1B2C3D4E5F6")
    sim.field(0, 0).add(tag)
    port.transceive(b"\x52", framing=7)
    port.wait(0x20)
    port.write(Reg.TX_MODE, 0x80)  # TxCRCEn
    for frame in (b"\x93\x70\x88\x04\xa1\xb2\x9f", b"\x95\x70\xc3\xd4\xe5\xf6\x04"):
        port.transceive(frame)
        port.wait(0x20)
    assert tag.state is sim.State.ACTIVE
    port.transceive(b"\xa2\x05abcd")
    port.wait(0x20, polls=5000)
    assert port.read(Reg.CONTROL) & 0x07 == 4
    assert port.fifo() == b"\x0a"
    assert tag.page(5) == b"abcd"


def test_soft_reset_switches_the_field_off_and_tags_lose_their_state() -> None:
    port = Port()
    port.field_on()
    tag = sim.Ntag213("04A1B2C3D4E5F6")
    sim.field(0, 0).add(tag)
    port.transceive(b"\x52", framing=7)
    port.wait(0x20)
    assert tag.state is sim.State.READY
    port.write(Reg.COMMAND, Cmd.SOFT_RESET)
    assert not tag.powered and tag.state is sim.State.IDLE
    assert port.read(Reg.TX_CONTROL) == 0x80
    assert port.read(Reg.MODE) == 0x3F


def test_machine_spi_reaches_only_the_reader_whose_chip_select_is_low() -> None:
    spi = sim.machine_spi(0)
    first, second = sim.machine_pin(0, 0), sim.machine_pin(0, 1)
    sim.reader(0, 1).version = 0x91
    sim.reader(0, 1).regs[Reg.VERSION] = 0x91
    buf = bytearray(2)
    second.value(0)
    spi.write_readinto(bytes((0x80 | Reg.VERSION << 1, 0)), buf)
    second.value(1)
    assert buf[1] == 0x91
    first.value(0)
    second.value(0)
    with pytest.raises(OSError, match="all low at once"):
        spi.write(b"\x00")


def test_one_transaction_reads_several_registers_and_a_write_goes_to_one_register() -> None:
    """Datasheet 8.1.2: each address byte of a read clocks out the register the byte before named; a write sends
    one address, then data bytes that all go to that register."""
    port = Port()
    port.write(Reg.T_RELOAD_H, 0x12)
    port.write(Reg.T_RELOAD_L, 0x34)
    answer = port.dev.xfer2([0x80 | Reg.T_RELOAD_H << 1, 0x80 | Reg.T_RELOAD_L << 1, 0x80 | Reg.VERSION << 1, 0])
    assert answer[1:] == [0x12, 0x34, 0x92]
    port.write(Reg.T_RELOAD_H, 0x01, 0x02, 0x03)  # three data bytes, one register: the last one stays
    assert (port.read(Reg.T_RELOAD_H), port.read(Reg.T_RELOAD_L)) == (0x03, 0x34)
    port.write(Reg.FIFO_DATA, 0x0A, 0x0B, 0x0C)  # the FIFO takes them all
    assert port.fifo() == b"\x0a\x0b\x0c"


def test_each_transaction_costs_the_platforms_call_time() -> None:
    port = Port()
    start, calls = sim.clock.now_s, sim.clock.transactions
    port.read(Reg.VERSION)
    assert sim.clock.transactions - calls == 1
    assert sim.clock.now_s - start == pytest.approx(25e-6 + 2 * 8 / 4_000_000)  # a Pi 4's spidev call, 2 bytes
    sim.clock.platform("zero2w")
    start = sim.clock.now_s
    port.read(Reg.VERSION)
    assert sim.clock.now_s - start == pytest.approx(60e-6 + 2 * 8 / 4_000_000)
    with pytest.raises(ValueError, match="use one of pi4, zero2w, pico"):
        sim.clock.platform("pi3")


def test_start_send_is_ignored_while_the_receiver_waits_and_works_again_after_an_answer() -> None:
    """Datasheet 10.3.1.8: Transceive repeats transmit-then-receive; after a frame nobody answered, the receiver
    still waits and StartSend does nothing until the command is written again."""
    port = Port()
    port.field_on()
    tag = sim.Ntag213("04A1B2C3D4E5F6")
    port.transceive(b"\x52", framing=7)  # nobody there
    port.wait(0x01)
    sim.field(0, 0).add(tag)
    port.write(Reg.COMM_IRQ, 0x7F)
    port.write(Reg.FIFO_DATA, 0x52)
    port.write(Reg.BIT_FRAMING, 0x87)  # StartSend alone: ignored
    sim.wait(2e-3)
    assert port.read(Reg.COMM_IRQ) & 0x60 == 0 and tag.state is sim.State.IDLE
    port.transceive(b"\x52", framing=7)  # Idle, flush, Transceive again: sent
    port.wait(0x20)
    assert port.fifo() == b"\x44\x00"
    port.write(Reg.COMM_IRQ, 0x7F)
    port.write(Reg.FIFO_DATA, 0x93, 0x20)
    port.write(Reg.BIT_FRAMING, 0x80)  # after an answer, StartSend alone sends the next frame
    port.wait(0x20)
    assert port.fifo() == bytes.fromhex("8804A1B29F")


def test_the_chip_ignores_spi_until_its_oscillator_runs_after_power_on() -> None:
    """Datasheet 8.8.2: the crystal's start-up plus 1024 clocks before the chip can be addressed."""
    port = Port()
    chip = sim.reader(0, 0)
    port.write(Reg.T_RELOAD_L, 0x55)
    chip.power_on()
    assert port.read(Reg.VERSION) == 0x00  # nothing answers yet
    port.write(Reg.T_RELOAD_L, 0x66)  # lost
    sim.wait(CRYSTAL_START_S + TD_S)
    assert port.read(Reg.VERSION) == 0x92
    assert port.read(Reg.T_RELOAD_L) == 0x00  # the reset value: the write above never arrived
    assert chip.ignored == 2


def test_leaving_soft_power_down_restarts_the_oscillator() -> None:
    port = Port()
    port.write(Reg.COMMAND, 0x10)  # PowerDown
    assert port.read(Reg.COMMAND) & 0x10
    port.write(Reg.COMMAND, Cmd.SOFT_RESET)
    assert port.read(Reg.COMMAND) == 0x00  # ignored: the oscillator is starting
    sim.wait(CRYSTAL_START_S + TD_S)
    assert port.read(Reg.COMMAND) == 0x20  # reset: RcvOff, PowerDown clear, Idle


def test_a_write_that_changes_reserved_bits_is_recorded() -> None:
    port = Port()
    port.write(Reg.RF_CFG, 0x70)  # RxGain 48 dB, but bit 3 (reserved, 1 after reset) cleared
    assert sim.reader(0, 0).reserved_changed == [(Reg.RF_CFG, 0x48, 0x70)]
