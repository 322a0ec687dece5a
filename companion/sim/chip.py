"""A register-level model of the NXP MFRC522 (datasheet rev. 3.9), as seen from its SPI port.

Everything a driver can observe is driven by one modeled clock: SPI bytes take ``8 / speed`` seconds, frames take
their time on air, tags answer after the ISO/IEC 14443-3 frame delay, and the timer counts down from TReload at
13.56 MHz / (2 * TPrescaler + 1). A poll of CommIrqReg sees RxIRq only once the modeled clock has passed the end of
the tag's answer, so a driver cannot finish faster than the hardware would.

The SPI port (datasheet 8.1.2): the first byte after chip select is an address byte (bit 7 read, bits 6-1 the
register). In a read, each further byte is the next address while the chip clocks out the register named by the
byte before (so one transaction reads several registers, or one register many times); in a write, every further
byte goes to the same register (8.1.2.3: "up to n data bytes by only sending one address byte"; FIFODataReg takes
them all), so writes to different registers take a transaction each.

Start-up (datasheet 8.8.2, oscillator start-up time): after power-on, a hard reset (NRSTPD low, then high) or
leaving soft power-down (CommandReg's PowerDown bit), the chip answers nothing until its crystal oscillator runs:
the crystal's own start-up, which the datasheet leaves to the crystal (``CRYSTAL_START_S``), plus an internal
delay of 1024 clocks of 27.12 MHz (td, 37.74 us). Until then every SPI transaction is ignored: MISO reads 0x00,
writes are lost. Common drivers wait tens of milliseconds (miguelbalboa/rfid, MFRC522.cpp, PCD_Init and PCD_Reset:
"Let us be generous: 50ms"). A SoftReset with the oscillator running takes effect at once (the datasheet gives it
no duration); from soft power-down it wakes the chip as above.

Transceive (datasheet 10.3.1.8) repeats transmit-then-receive: once a frame has been received, the next
StartSend sends the FIFO again without a new command. After a frame that got no answer, the receiver keeps
waiting (Status2Reg ModemState "wait for data"); StartSend is ignored until the command is written again.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from companion.sim.rf import BIT_S, FC_HZ, Field, Reception, crc_a, frame_time_s


class Reg(IntEnum):
    COMMAND = 0x01
    COMM_IEN = 0x02
    DIV_IEN = 0x03
    COMM_IRQ = 0x04
    DIV_IRQ = 0x05
    ERROR = 0x06
    STATUS1 = 0x07
    STATUS2 = 0x08
    FIFO_DATA = 0x09
    FIFO_LEVEL = 0x0A
    WATER_LEVEL = 0x0B
    CONTROL = 0x0C
    BIT_FRAMING = 0x0D
    COLL = 0x0E
    MODE = 0x11
    TX_MODE = 0x12
    RX_MODE = 0x13
    TX_CONTROL = 0x14
    TX_ASK = 0x15
    TX_SEL = 0x16
    RX_SEL = 0x17
    RX_THRESHOLD = 0x18
    DEMOD = 0x19
    MF_TX = 0x1C
    MF_RX = 0x1D
    SERIAL_SPEED = 0x1F
    CRC_RESULT_H = 0x21
    CRC_RESULT_L = 0x22
    MOD_WIDTH = 0x24
    RF_CFG = 0x26
    GS_N = 0x27
    CW_GS_P = 0x28
    MOD_GS_P = 0x29
    T_MODE = 0x2A
    T_PRESCALER = 0x2B
    T_RELOAD_H = 0x2C
    T_RELOAD_L = 0x2D
    T_COUNTER_H = 0x2E
    T_COUNTER_L = 0x2F
    TEST_PIN_EN = 0x33
    AUTO_TEST = 0x36
    VERSION = 0x37


class Cmd(IntEnum):
    IDLE = 0x0
    MEM = 0x1
    GENERATE_RANDOM_ID = 0x2
    CALC_CRC = 0x3
    TRANSMIT = 0x4
    NO_CMD_CHANGE = 0x7
    RECEIVE = 0x8
    TRANSCEIVE = 0xC
    MF_AUTHENT = 0xE
    SOFT_RESET = 0xF


# Reset values (datasheet table 20 and the register descriptions).
RESET_VALUES = {
    Reg.COMMAND: 0x20,
    Reg.COMM_IEN: 0x80,
    Reg.COMM_IRQ: 0x14,
    Reg.WATER_LEVEL: 0x08,
    Reg.CONTROL: 0x10,
    Reg.COLL: 0xA0,
    Reg.MODE: 0x3F,
    Reg.TX_CONTROL: 0x80,
    Reg.TX_SEL: 0x10,
    Reg.RX_SEL: 0x84,
    Reg.RX_THRESHOLD: 0x84,
    Reg.DEMOD: 0x4D,
    Reg.MF_TX: 0x62,
    Reg.SERIAL_SPEED: 0xEB,
    Reg.CRC_RESULT_H: 0xFF,
    Reg.CRC_RESULT_L: 0xFF,
    Reg.MOD_WIDTH: 0x26,
    Reg.RF_CFG: 0x48,
    Reg.GS_N: 0x88,
    Reg.CW_GS_P: 0x20,
    Reg.MOD_GS_P: 0x20,
    Reg.TEST_PIN_EN: 0x80,
    Reg.AUTO_TEST: 0x40,
}

# CommIrqReg, DivIrqReg, ErrorReg, Status bits.
SET = 0x80
TX_IRQ, RX_IRQ, IDLE_IRQ, HI_ALERT_IRQ, LO_ALERT_IRQ, ERR_IRQ, TIMER_IRQ = 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01
CRC_IRQ = 0x04
BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR, PROTOCOL_ERR = 0x10, 0x08, 0x04, 0x02, 0x01
CRYPTO1_ON = 0x08
FIFO_SIZE = 64
_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)
POWER_DOWN = 0x10  # CommandReg
CRYSTAL_START_S = 2e-3  # a 27.12 MHz crystal's start-up: about a millisecond; taken with margin
TD_S = 1024 / 27.12e6  # the internal delay once the clock is stable (datasheet 8.8.2)
# Reserved bits a driver must leave as they are (datasheet 9.3.3.6: RFCfgReg bits 7 and 3-0).
RESERVED_BITS = {Reg.RF_CFG: 0x8F}
_AUTH_S = 4 * frame_time_s(36)  # the four frames of a MIFARE authentication, roughly


@dataclass(order=True)
class _Event:
    at: float
    seq: int
    action: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Mfrc522:
    """One MFRC522 with its antenna's ``field``. ``now`` reads the modeled clock shared by the whole bus."""

    def __init__(self, now: Callable[[], float], version: int = 0x92) -> None:
        self.field = Field()
        self.version = version
        self._now = now
        self._t = now()
        self._events: list[_Event] = []
        self._seq = itertools.count()
        self._unplugged = False
        self._spi: tuple[bool, int] | None = None  # (reading, address) while selected
        self.spi_bytes = 0
        self.transactions = 0
        self.ignored = 0  # transactions that came before the oscillator was up
        self.reserved_changed: list[tuple[int, int, int]] = []  # (register, before, written) for each offence
        self._ready_at = float("-inf")  # powered long ago: the oscillator runs
        self._powered_down = False
        self._soft_reset()

    # -- power ----------------------------------------------------------------------------------------------

    @property
    def unplugged(self) -> bool:
        """No chip answers (a loose wire, no power); plugging it back powers it on, from reset."""
        return self._unplugged

    @unplugged.setter
    def unplugged(self, value: bool) -> None:
        if self._unplugged and not value:
            self.power_on()
        self._unplugged = value

    def power_on(self) -> None:
        """Power-on or a hard reset (NRSTPD low, then high): registers from reset, oscillator starting."""
        self.catch_up()
        self._soft_reset()
        self._powered_down = False
        self._start_oscillator()

    def _start_oscillator(self) -> None:
        self._ready_at = self._now() + CRYSTAL_START_S + TD_S

    def starting(self, at: float) -> bool:
        """Whether a transaction whose chip select falls at ``at`` comes before the oscillator runs."""
        return at < self._ready_at

    # -- state ----------------------------------------------------------------------------------------------

    def _soft_reset(self) -> None:
        for event in self._events:
            event.cancelled = True
        self._events = []
        self.regs = bytearray(0x40)
        for reg, value in RESET_VALUES.items():
            self.regs[reg] = value
        self.regs[Reg.VERSION] = self.version
        self.fifo = bytearray()
        self.memory = bytearray(25)
        self._timer_start: float | None = None  # when the running timer was (re)loaded
        self._rx: _Event | None = None
        self._transmitting = False
        self._listening = False  # Transceive's receiver waits for an answer; StartSend is ignored meanwhile
        self._crc = 0
        self.field.switch(False)

    def _schedule(self, delay: float, action: Callable[[], None]) -> _Event:
        event = _Event(self._t + delay, next(self._seq), action)
        heapq.heappush(self._events, event)
        return event

    def catch_up(self) -> None:
        """Run, in time order, everything that has happened on the chip up to the modeled present."""
        now = self._now()
        while True:
            while self._events and self._events[0].cancelled:
                heapq.heappop(self._events)
            event_at = self._events[0].at if self._events else float("inf")
            timer_at = float("inf") if self._timer_start is None else self._timer_start + self._timer_period()
            at = min(event_at, timer_at)
            if at > now:
                break
            self._t = at
            if timer_at <= event_at:
                self._irq(TIMER_IRQ)
                self._timer_start = timer_at if self.regs[Reg.T_MODE] & 0x10 else None  # TAutoRestart
            else:
                heapq.heappop(self._events).action()
        self._t = now

    @property
    def command(self) -> int:
        return self.regs[Reg.COMMAND] & 0x0F

    def _irq(self, bits: int) -> None:
        self.regs[Reg.COMM_IRQ] |= bits

    # -- timer (datasheet 8.5) ------------------------------------------------------------------------------

    def _timer_period(self) -> float:
        prescaler = ((self.regs[Reg.T_MODE] & 0x0F) << 8) | self.regs[Reg.T_PRESCALER]
        reload = (self.regs[Reg.T_RELOAD_H] << 8) | self.regs[Reg.T_RELOAD_L]
        return (2 * prescaler + 1) * (reload + 1) / FC_HZ

    def _timer_counter(self) -> int:
        if self._timer_start is None:
            return 0
        prescaler = ((self.regs[Reg.T_MODE] & 0x0F) << 8) | self.regs[Reg.T_PRESCALER]
        ticks = int((self._t - self._timer_start) * FC_HZ / (2 * prescaler + 1))
        reload = (self.regs[Reg.T_RELOAD_H] << 8) | self.regs[Reg.T_RELOAD_L]
        return max(reload - ticks, 0)

    # -- registers ------------------------------------------------------------------------------------------

    def read(self, reg: int) -> int:
        self.catch_up()
        if reg == Reg.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0x00
        if reg == Reg.FIFO_LEVEL:
            return len(self.fifo)
        if reg == Reg.COMM_IRQ:
            return self.regs[reg] & 0x7F
        if reg == Reg.DIV_IRQ:
            return self.regs[reg] & 0x7F
        if reg == Reg.STATUS1:
            return self._status1()
        if reg == Reg.STATUS2:
            return (self.regs[reg] & 0xC8) | self._modem_state()
        if reg == Reg.CONTROL:
            return (self.regs[reg] & 0x37) | 0x10  # TStopNow and TStartNow read 0; Initiator is 1
        if reg == Reg.T_COUNTER_H:
            return self._timer_counter() >> 8
        if reg == Reg.T_COUNTER_L:
            return self._timer_counter() & 0xFF
        return self.regs[reg & 0x3F]

    def _status1(self) -> int:
        level, water = len(self.fifo), self.regs[Reg.WATER_LEVEL] & 0x3F
        status = 0
        if level <= water:
            status |= 0x01  # LoAlert
        if FIFO_SIZE - level <= water:
            status |= 0x02  # HiAlert
        if self._timer_start is not None:
            status |= 0x08  # TRunning
        if self.regs[Reg.COMM_IRQ] & self.regs[Reg.COMM_IEN] & 0x7F or self.regs[Reg.DIV_IRQ] & 0x14:
            status |= 0x10  # IRq
        if self.regs[Reg.DIV_IRQ] & CRC_IRQ:
            status |= 0x20  # CRCReady
        if self._crc == 0:
            status |= 0x40  # CRCOk
        return status

    def _modem_state(self) -> int:
        if self.command != Cmd.TRANSCEIVE:
            return 0b000
        if self._transmitting:
            return 0b011
        if self._rx is not None or self._listening:
            return 0b101
        return 0b001  # waiting for StartSend

    def write(self, reg: int, value: int) -> None:
        self.catch_up()
        if reg == Reg.FIFO_DATA:
            self._fifo_in(value)
        elif reg == Reg.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.regs[Reg.ERROR] &= ~BUFFER_OVFL & 0xFF
        elif reg in (Reg.COMM_IRQ, Reg.DIV_IRQ):
            mask = value & 0x7F
            if value & SET:
                self.regs[reg] |= mask
            else:
                self.regs[reg] &= ~mask & 0xFF
        elif reg == Reg.COMMAND:
            self._command(value)
        elif reg == Reg.CONTROL:
            if value & 0x80:  # TStopNow
                self._timer_start = None
            elif value & 0x40:  # TStartNow
                self._timer_go()
        elif reg == Reg.BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.command == Cmd.TRANSCEIVE and not self._transmitting and not self._listening:
                self._transmit()
        elif reg == Reg.COLL:
            self.regs[reg] = (self.regs[reg] & 0x7F) | (value & 0x80)
        elif reg == Reg.TX_CONTROL:
            self.regs[reg] = value
            self.field.switch(bool(value & 0x03))
        elif reg == Reg.STATUS2:
            self.regs[reg] = value & 0xC8  # MFCrypto1On can only be cleared by software, in effect
        elif reg in (Reg.ERROR, Reg.STATUS1, Reg.VERSION, Reg.T_COUNTER_H, Reg.T_COUNTER_L):
            pass  # read-only
        else:
            reserved = RESERVED_BITS.get(reg, 0)  # type: ignore[call-overload]
            if (value ^ self.regs[reg & 0x3F]) & reserved:
                self.reserved_changed.append((reg, self.regs[reg & 0x3F], value))
            self.regs[reg & 0x3F] = value

    def _fifo_in(self, value: int) -> None:
        if len(self.fifo) >= FIFO_SIZE:
            self.regs[Reg.ERROR] |= BUFFER_OVFL
            return
        self.fifo.append(value)
        if self.command == Cmd.CALC_CRC:
            self._calc_crc()

    # -- commands (datasheet 10.3) --------------------------------------------------------------------------

    def _command(self, value: int) -> None:
        command = value & 0x0F
        if self._powered_down and (command == Cmd.SOFT_RESET or not value & POWER_DOWN):
            self._powered_down = False  # waking up: the oscillator starts again
            self._start_oscillator()
            self.regs[Reg.COMMAND] &= ~POWER_DOWN & 0xFF
        elif value & POWER_DOWN and command != Cmd.SOFT_RESET:
            self._powered_down = True  # soft power-down: registers kept, oscillator stopped
            self.regs[Reg.COMMAND] |= POWER_DOWN
            self._stop()
            return
        if command == Cmd.NO_CMD_CHANGE:
            self.regs[Reg.COMMAND] = (self.regs[Reg.COMMAND] & 0x0F) | (value & 0x20)
            return
        if command == Cmd.SOFT_RESET:
            self._soft_reset()
            return
        self._stop()
        self.regs[Reg.COMMAND] = value & 0x3F
        if command == Cmd.IDLE:
            return
        if command == Cmd.MEM:
            if len(self.fifo) >= 25:
                self.memory[:] = self.fifo[:25]
                del self.fifo[:25]
            elif not self.fifo:
                self.fifo.extend(self.memory)
            self._finish()
        elif command == Cmd.GENERATE_RANDOM_ID:
            self.memory[:10] = bytes(range(10))
            self._finish()
        elif command == Cmd.CALC_CRC:
            self._crc = _PRESETS[self.regs[Reg.MODE] & 0x03]
            self._calc_crc()
        elif command == Cmd.MF_AUTHENT:
            self._authenticate()
        elif command in (Cmd.TRANSMIT, Cmd.RECEIVE):
            raise NotImplementedError(
                "the simulated MFRC522 runs Transceive, not Transmit or Receive alone: use Transceive"
            )

    def _stop(self) -> None:
        """A new command cancels the running one: the receiver stops listening."""
        for event in self._events:
            event.cancelled = True
        self._events = []
        self._rx = None
        self._transmitting = False
        self._listening = False

    def _finish(self) -> None:
        self.regs[Reg.COMMAND] &= 0xF0
        self._irq(IDLE_IRQ)

    def _calc_crc(self) -> None:
        crc = self._crc
        data = bytes(self.fifo)
        self.fifo.clear()
        self._crc = crc_a(data, crc)
        self.regs[Reg.CRC_RESULT_L] = self._crc & 0xFF
        self.regs[Reg.CRC_RESULT_H] = self._crc >> 8
        self.regs[Reg.DIV_IRQ] |= CRC_IRQ

    def _authenticate(self) -> None:
        data = bytes(self.fifo)
        self.fifo.clear()
        self.regs[Reg.ERROR] = 0
        self._start_timer_after(frame_time_s(32))
        if len(data) < 12:
            self.regs[Reg.ERROR] |= PROTOCOL_ERR
            self._irq(ERR_IRQ)
            return
        command, block, key, uid4 = data[0], data[1], data[2:8], data[8:12]
        authenticate = [getattr(t, "authenticate", None) for t in self.field.tags if self.field.powered]
        if any(check(command, block, key, uid4) for check in authenticate if check is not None):

            def done() -> None:
                self.regs[Reg.STATUS2] |= CRYPTO1_ON
                self._timer_start = None
                self._finish()

            self._schedule(_AUTH_S, done)
        # Otherwise the card stays silent and only the timer ends the wait (datasheet 10.3.1.9).

    def _start_timer_after(self, delay: float) -> None:
        if self.regs[Reg.T_MODE] & 0x80:  # TAuto
            self._schedule(delay, self._timer_go)

    def _timer_go(self) -> None:
        self._timer_start = self._t

    # -- Transceive -----------------------------------------------------------------------------------------

    def _transmit(self) -> None:
        framing = self.regs[Reg.BIT_FRAMING]
        last_bits, rx_align = framing & 0x07, (framing >> 4) & 0x07
        data = bytes(self.fifo)
        self.fifo.clear()
        if self.regs[Reg.TX_MODE] & 0x80:
            crc = crc_a(data, _PRESETS[self.regs[Reg.MODE] & 0x03])
            data += bytes((crc & 0xFF, crc >> 8))
            last_bits = 0
        nbits = (len(data) - 1) * 8 + last_bits if last_bits else len(data) * 8
        self.regs[Reg.ERROR] &= BUFFER_OVFL
        self.regs[Reg.CONTROL] &= 0xF8
        self._transmitting = True
        crypto1 = bool(self.regs[Reg.STATUS2] & CRYPTO1_ON)

        def sent() -> None:
            self._transmitting = False
            self._listening = True
            self._irq(TX_IRQ)
            if self.regs[Reg.T_MODE] & 0x80:
                self._timer_go()
            reception = self.field.transmit(data, nbits, crypto1) if nbits else None
            if reception is not None:
                self._receive(reception, rx_align)

        self._schedule(frame_time_s(nbits), sent)

    def _receive(self, reception: Reception, rx_align: int) -> None:
        def first_bits() -> None:
            if self.regs[Reg.T_MODE] & 0x80 and not self.regs[Reg.RX_MODE] & 0x04:
                self._timer_start = None  # TAuto: the timer stops after the 5th bit of an answer

        def received() -> None:
            self._rx = None
            self._listening = False  # back to waiting for StartSend
            self._store(reception, rx_align)

        self._schedule(reception.delay_s + 5 * BIT_S, first_bits)
        self._rx = self._schedule(reception.delay_s + frame_time_s(reception.nbits), received)

    def _store(self, reception: Reception, rx_align: int) -> None:
        value, nbits, error = reception.value, reception.nbits, 0
        coll = 0x20  # CollPosNotValid
        if reception.collision is not None:
            error |= COLL_ERR
            position = rx_align + reception.collision + 1  # counted from bit 0 of the first FIFO byte
            if position <= 32:
                coll = position & 0x1F
            if not self.regs[Reg.COLL] & 0x80:  # ValuesAfterColl = 0: bits from the collision on read 0
                value &= (1 << reception.collision) - 1
        elif reception.bad_parity:
            error |= PARITY_ERR
        total = rx_align + nbits
        data = bytearray((value << rx_align).to_bytes((total + 7) // 8, "little"))
        if self.regs[Reg.RX_MODE] & 0x80:
            # The chip checks CRC_A and keeps the CRC bytes out of the FIFO.
            if nbits < 16 or nbits % 8:
                error |= CRC_ERR
            else:
                if crc_a(bytes(data[:-2]), _PRESETS[self.regs[Reg.MODE] & 0x03]) != data[-2] | (data[-1] << 8):
                    error |= CRC_ERR
                del data[-2:]
        for byte in data:
            self._fifo_in(byte)
        self.regs[Reg.COLL] = (self.regs[Reg.COLL] & 0x80) | coll
        self.regs[Reg.CONTROL] = (self.regs[Reg.CONTROL] & 0xF8) | (total % 8)
        self.regs[Reg.ERROR] |= error
        self._irq(RX_IRQ | (ERR_IRQ if error else 0))

    # -- SPI ------------------------------------------------------------------------------------------------

    def select(self) -> None:
        """Chip select goes low: the next byte is an address byte."""
        self._spi = None

    def clock(self, mosi: int) -> int:
        """One byte while selected: the byte in, and the byte the chip shifts out at the same time."""
        if self.unplugged:
            return 0x00
        if self._spi is None:
            self._spi = (bool(mosi & 0x80), (mosi >> 1) & 0x3F)
            return 0x00
        reading, address = self._spi
        if reading:
            self._spi = (True, (mosi >> 1) & 0x3F)
            return self.read(address)
        self.write(address, mosi)
        return 0x00
