"""MFRC522 reader driver: ISO/IEC 14443-3 type A and NTAG21x memory.

One file for the Pi (CPython, ``spidev``) and the reader hub (MicroPython, ``machine.SPI``): it uses only what
MicroPython has, and ``mpy-cross`` compiles it. The bus is passed in as ``transfer(data) -> bytes``, one
full-duplex SPI transaction with chip select held for its length::

    reader = RC522(spidev_transfer(dev))            # Pi: dev is an open spidev.SpiDev
    reader = RC522(machine_transfer(spi, cs_pin))   # hub: machine.SPI and machine.Pin
    reader = RC522(transfer, sequence=run)          # hub's RP2040: several transactions a call (firmware/spi_rp2.py)
    reader.init()                                   # raises ReaderNotResponding if no MFRC522 answers
    uids = reader.scan()                            # [] only when nothing answered WUPA

Why not the common drivers: they wait 15 ms or more on an empty field, read only cascade level 1 (a 7-byte UID
comes back as ``88 xx xx xx BCC``), and none of them finds several tags in one field.

``scan()`` walks the UID tree: WUPA wakes every tag, bit-oriented anticollision follows one branch of each
collision and remembers the other, the tag at the end of the branch is selected and halted, and the next round
wakes the field again and forces the remembered prefix. One tag costs one round and no extra time-out.

Every SPI transaction costs the host tens of microseconds (a Python ``spidev`` call: about 25 us on a Pi 4, 60 us
on a Pi Zero 2 W), so the driver spends as few as it can: it waits in one transaction that reads CommIrqReg over
and over for as long as the answer should take and then the status registers and the answer's FIFO bytes
(datasheet 8.1.2.1: one address byte per register read); it leaves Transceive waiting for StartSend after an
answer (datasheet 10.3.1.8), so the next frame needs no Idle, flush or command; it computes CRC_A itself rather
than switch the chip's CRC on and off; it does not wait for the end of an HLTA, which needs no answer.
"""

# MicroPython has neither str.format's full mini-language everywhere nor contextlib, and no collections.abc:
# ruff: noqa: UP031, UP035, SIM105

try:
    from micropython import const  # type: ignore[import-not-found]
except ImportError:

    def const(x: int) -> int:
        return x


try:
    from typing import Any, Callable, Iterator
except ImportError:
    pass

import time

# The errors every reader kind shares (companion/nfc/errors.py). On the hub, where there is no companion package,
# firmware/build.py puts that file beside this one as nfc_errors. The hub's scanner takes them from here (in the
# tests' CPython both files are importable, and only the driver's choice is the class it raises).
try:
    from companion.nfc.errors import (
        NfcCollision,
        NfcCrcError,
        NfcError,
        NfcProtocolError,
        NfcTimeout,
        ReaderNotResponding,
    )
except ImportError:
    from nfc_errors import (  # type: ignore[import-not-found,no-redef]
        NfcCollision,
        NfcCrcError,
        NfcError,
        NfcProtocolError,
        NfcTimeout,
        ReaderNotResponding,
    )

__all__ = [
    "FULL_SCAN_EVERY",
    "GAINS_DB",
    "KNOWN_VERSIONS",
    "RC522",
    "NfcCollision",
    "NfcCrcError",
    "NfcError",
    "NfcProtocolError",
    "NfcTimeout",
    "ReaderNotResponding",
    "cascade_levels",
    "crc_a",
    "in_turn",
    "machine_transfer",
    "script",
    "spidev_transfer",
    "transactions",
    "with_crc",
]

# Registers (MFRC522 datasheet, section 9.2).
_COMMAND = const(0x01)
_COMM_IRQ = const(0x04)
_ERROR = const(0x06)
_STATUS1 = const(0x07)
_FIFO_DATA = const(0x09)
_FIFO_LEVEL = const(0x0A)
_CONTROL = const(0x0C)
_BIT_FRAMING = const(0x0D)
_COLL = const(0x0E)
_TX_MODE = const(0x12)
_RX_MODE = const(0x13)
_TX_CONTROL = const(0x14)
_TX_ASK = const(0x15)
_RF_CFG = const(0x26)
_T_MODE = const(0x2A)
_T_PRESCALER = const(0x2B)
_T_RELOAD_H = const(0x2C)
_T_RELOAD_L = const(0x2D)
_VERSION = const(0x37)

# Commands (section 10.3).
_CMD_IDLE = const(0x00)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFT_RESET = const(0x0F)
_POWER_DOWN = const(0x10)

# CommIrqReg and ErrorReg bits.
_TX_IRQ = const(0x40)
_RX_IRQ = const(0x20)
_ERR_IRQ = const(0x02)
_TIMER_IRQ = const(0x01)
_BUFFER_OVFL = const(0x10)
_COLL_ERR = const(0x08)
_PARITY_ERR = const(0x02)
_PROTOCOL_ERR = const(0x01)

_COLL_POS_NOT_VALID = const(0x20)
_START_SEND = const(0x80)
_T_STOP_NOW = const(0x80)
_T_RUNNING = const(0x08)  # Status1Reg

# The timer ticks every (2 * _PRESCALER + 1) / 13.56 MHz, about 10 us: fine enough for a 1 ms time-out, long
# enough (up to 650 ms) for an EEPROM write.
_PRESCALER = const(67)
_FC_KHZ = const(13560)
# One tick in microseconds. The time-out is rounded to whole ticks and the timer starts as the frame's last bit
# leaves: a look one tick after the time-out finds the timer fired, where a look right at it may come a byte early
# and cost another look (another transaction).
_TICK_US = (2 * _PRESCALER + 1) * 1000 / _FC_KHZ

# ISO/IEC 14443-3 type A.
_REQA = const(0x26)
_WUPA = const(0x52)
_REQA_FRAME = bytes((_REQA,))
_WUPA_FRAME = bytes((_WUPA,))  # every poll sends it: made once
_SEL = b"\x93\x95\x97"  # SEL code of cascade levels 1, 2, 3
_CT = const(0x88)  # cascade tag: the UID goes on at the next level
_SAK_CASCADE = const(0x04)

# NTAG21x.
_READ = const(0x30)
_FAST_READ = const(0x3A)
_WRITE = const(0xA2)
_ACK = const(0x0A)
_WRITE_TIMEOUT_MS = 10  # NTAG213 EEPROM programming takes about 4 ms before the ACK

# VersionReg of the MFRC522 (0x91 v1.0, 0x92 v2.0, 0x90 v0.0) and the clones sold on the same boards
# (0x88 Fudan FM17522, 0xB2 FM17522 variant, 0x12 a counterfeit that works).
KNOWN_VERSIONS = (0x90, 0x91, 0x92, 0x88, 0xB2, 0x12)

# RFCfgReg RxGain code by receiver gain in dB (section 9.3.3.6); codes 0 and 1 repeat 2 and 3.
GAINS_DB = {18: 2, 23: 3, 33: 4, 38: 5, 43: 6, 48: 7}
# With quick_confirm, every FULL_SCAN_EVERY-th scan of a lone tag selects it in full all the same: a twin sharing
# its level-1 answer (laid beside it, or slid in as it left) is found within that many scans, never missed.
FULL_SCAN_EVERY = 16  # a full selection costs a still card twice a quick one: 1 in 16 keeps a round in its goal

# Waiting: each wait is one SPI transaction that reads CommIrqReg over and over for as long as the answer should
# take (the bus clocks it: 2 us a read at 4 MHz), then ErrorReg, FIFOLevelReg, ControlReg and CollReg; a call
# costs tens of microseconds on a Pi, reads within it cost bus time only. A burst is at most _MAX_BURST bytes
# (spidev's buffer is 4096), and waits beyond the chip's own time-out end after _MAX_WAIT_US.
_MAX_BURST = 1024
_KEPT_BURSTS = const(48)
_BURSTS: "dict[int, bytes]" = {}  # every reader's, by length (RC522._burst_bytes)
_MAX_WAIT_US = 20000
# When the chip's timer ends the wait no later than this after the answer is due, the answer is looked for once,
# when the timer fires: a second look costs a transaction (on the hub's Pico about 0.2 ms, more than the wait it
# saves), and the timer stops at an answer's 5th bit (datasheet 9.3.3.10, TAuto), so a tag that answers is never
# cut short. With the hub's short time-out an empty-zone poll is then one look (firmware/hub_config.py).
_ONE_LOOK_US = 100
_ETU_US = 128 / 13.56  # one bit on air at 106 kbit/s
# The tag's frame delay (ISO/IEC 14443-3, 6.2.1.1): 1236/fc after a frame whose last bit is 1, 1172/fc after 0.
_FDT_US = (1172 / 13.56, 1236 / 13.56)
_STATUS = bytes((_ERROR, _FIFO_LEVEL, _CONTROL, _COLL))
# A burst's read addresses (datasheet 8.1.2.1), made once; its run of CommIrqReg reads is multiplied, not built a
# byte at a time: on the hub's Pico a Python loop costs about 10 us a byte, more than the byte takes on the bus.
_COMM_IRQ_READ = bytes((0x80 | (_COMM_IRQ << 1),))
_STATUS_READ = bytes(0x80 | (reg << 1) for reg in _STATUS)
_FIFO_READ = bytes((0x80 | (_FIFO_DATA << 1),))
_FIFO_WRITE = bytes((_FIFO_DATA << 1,))
# The transactions of a WUPA poll (RC522.wupa), made once.
_CLEAR_IRQS = bytes((_COMM_IRQ << 1, 0x7F))
_FIFO_WUPA = _FIFO_WRITE + _WUPA_FRAME
_SEND_SHORT_FRAME = bytes((_BIT_FRAMING << 1, _START_SEND | 7))
# The transactions of a still tag's anticollision at cascade level 1 (RC522._still), made once.
_ANTICOLLISION_CL1 = b"\x93\x20"
_SEND_FRAME = bytes((_BIT_FRAMING << 1, _START_SEND))
_IDLE_COMMAND = bytes((_COMMAND << 1, _CMD_IDLE))
_TRANSCEIVE_COMMAND = bytes((_COMMAND << 1, _CMD_TRANSCEIVE))
_LOOK_MASK = const(0x23)  # RxIRq, ErrIRq, TimerIRq
_FLUSH_FIFO = bytes((_FIFO_LEVEL << 1, 0x80))
_SENT_READ = bytes((0x80 | (_COMM_IRQ << 1), 0x80 | (_STATUS1 << 1), 0))
_KEPT_PLANS = const(32)
_PLANS: "dict[tuple[float, int], dict[int, tuple[float, float, int, tuple[bytes, int]]]]" = {}
_PLANNED = ((_WUPA_FRAME, 7, 16), (b"\x93\x20", 0, 40), (bytes(9), 0, 24), (b"\xff" * 9, 0, 24))


def _plan_key(frame: bytes, last_bits: int, rx_align: int, answer_bits: int) -> int:
    """What the wait for an answer to ``frame`` depends on (RC522._plan): its length, ending and answer."""
    return (((len(frame) << 3 | last_bits) << 3 | rx_align) << 9 | answer_bits) << 1 | frame[-1] >> (
        (last_bits or 8) - 1
    ) & 1


_ANTICOLLISION_PLAN = _plan_key(b"\x93\x20", 0, 0, 40)  # a level-1 anticollision's, as a still tag gets (_still)

# After a reset the chip answers nothing until its crystal runs (datasheet 8.8.2: the crystal's start-up plus
# 1024 clocks). CommandReg then reads 0x20 (RcvOff set, PowerDown clear); until then MISO reads 0x00. It is read
# every millisecond, for up to _RESET_WAIT_MS the first time, as the common drivers wait (tens of milliseconds).
# Later (setting up again a reader that stopped answering, at every poll) for up to _AGAIN_WAIT_MS: a chip just
# powered again is found at the next try if its crystal is slower, and a dead one does not hold the others up.
_RESET_WAIT_MS = 25
_AGAIN_WAIT_MS = 3
_RCV_OFF = const(0x20)

_HLTA_WITH_CRC = b"\x50\x00\x57\xcd"  # HLTA and its CRC_A
_FIFO_HLTA = _FIFO_WRITE + _HLTA_WITH_CRC
# A lone tag's selection (RC522._lone): each level's ANTICOLLISION in the FIFO, and a SELECT's wait by the last bit
# of the frame (its CRC_A's): made once.
_FIFO_ANTICOLLISION = tuple(_FIFO_WRITE + bytes((sel, 0x20)) for sel in _SEL)
_SELECT_PLAN = _plan_key(b"\xff" * 9, 0, 0, 24)  # a SELECT whose frame ends in a 1: see _make_scripts
# What scan() returns for an empty field, made once (a new list each poll is garbage on the Pico): not to be changed.
_NO_TAGS: "list[bytes]" = []


def script(*transactions: bytes) -> bytes:
    """Transactions for a reader's ``sequence``: each one's size in two bytes, little end first, then its bytes."""
    out = b""
    for data in transactions:
        out += bytes((len(data) & 0xFF, len(data) >> 8)) + data
    return out


def transactions(steps: bytes) -> "Iterator[bytes]":
    """The transactions of a ``script``, in order."""
    i = 0
    while i < len(steps):
        size = steps[i] | steps[i + 1] << 8
        yield bytes(steps[i + 2 : i + 2 + size])
        i += 2 + size


# The scripts of the hub's exchanges (RC522._wake, _confirm_cl1, _lone, halt, _finish_send) that are the same for
# every reader, made once; those that end in a wait for an answer are each reader's (RC522.__init__).
_SENT = script(_SENT_READ)
_STOP_TIMER = script(bytes((_CONTROL << 1, _T_STOP_NOW)))
# HLTA on a reader armed, and on one set up again (receiver stopped, FIFO emptied, Transceive: as _start)
_HALTS = (
    script(_CLEAR_IRQS, _FIFO_HLTA, _SEND_FRAME),
    script(_IDLE_COMMAND, _FLUSH_FIFO, _CLEAR_IRQS, _FIFO_HLTA, _TRANSCEIVE_COMMAND, _SEND_FRAME),
)
# Where a SELECT's frame (its FIFO write) starts in its script: after the 2-byte interrupt clear and its own size
_SELECT_AT = const(6)


def _clean(looked: bytes, n: int, size: int) -> bool:
    """Whether a look read from ``n`` shows an answer received whole: RxIRq without error, ``size`` whole bytes in
    the FIFO (CommIrqReg, ErrorReg, FIFOLevelReg, ControlReg, as RC522._burst reads them)."""
    return (
        looked[n] & _LOOK_MASK == _RX_IRQ
        and not looked[n + 1]
        and looked[n + 2] & 0x7F == size
        and not looked[n + 3] & 7
    )


def _hex(data: bytes) -> str:
    """Bytes in an error message. The UID's spelling is ``companion.events.hexuid``; this file runs on the hub as
    it is, where no ``companion`` package is, so its messages spell the bytes themselves."""
    return "".join("%02X" % b for b in data)


# machine_transfer keeps an answer buffer for each length up to this: registers, frames to send, the waits' bursts
# (a handful of lengths, set by the frames and the time-out).
_KEPT_BUFFER = const(256)


def spidev_transfer(dev: "Any") -> "Callable[[bytes], bytes]":
    """The transfer function of an open ``spidev.SpiDev`` (or ``companion.sim.spidev.SpiDev``)."""

    def transfer(data: bytes) -> bytes:
        return bytes(dev.xfer2(list(data)))

    return transfer


def machine_transfer(spi: "Any", cs: "Any") -> "Callable[[bytes], bytes]":
    """The transfer function of a MicroPython ``machine.SPI`` with a ``machine.Pin`` as chip select.

    On the hub's Pico every Python step of a transaction costs several microseconds, more than its bytes take on
    the bus (docs/NFC.md, "Per-call cost and figures"): the methods are looked up once, and the answer of a short
    transaction (a register, a frame for the FIFO) lands in a buffer kept for its length and is returned as it is,
    not copied. The driver reads it before its next transaction, as ``RC522`` does (an index or a slice)."""
    cs.value(1)
    select, release, exchange = cs.off, cs.on, spi.write_readinto
    kept: dict[int, Any] = {}  # bytearrays, handed out where bytes are read

    def transfer(data: bytes) -> bytes:
        n = len(data)
        buf: Any = kept.get(n)
        if buf is None:
            buf = bytearray(n)
            if n <= _KEPT_BUFFER:
                kept[n] = buf
        select()
        try:
            exchange(data, buf)
        finally:
            release()
        answer: bytes = buf
        return answer

    return transfer


def in_turn(transfer: "Callable[[bytes], bytes]") -> "Callable[[bytes, Any], None]":
    """The ``sequence`` of a ``transfer``: a script's transactions (``script``) one call each, their answers one
    after the other in ``out``. Where no native code clocks a script in one call (firmware/spi_rp2.py)."""

    def sequence(steps: bytes, out: "Any") -> None:
        at = 0
        for data in transactions(steps):
            out[at : at + len(data)] = transfer(data)
            at += len(data)

    return sequence


def _placed(transactions: "tuple[bytes, ...]", look: "tuple[bytes, int]") -> "tuple[bytes, int]":
    """The script of ``transactions`` then ``look`` (a wait's burst, its first ``look[1]`` bytes CommIrqReg reads),
    and where in the answers its last CommIrqReg sample lies."""
    return script(*transactions, look[0]), sum(len(data) for data in transactions) + look[1]


def _crc_step(byte: int) -> int:
    # ISO/IEC 14443-3, annex B: what one byte (already XORed with the CRC's low byte) adds to the CRC shifted
    byte = (byte ^ (byte << 4)) & 0xFF
    return (byte << 8) ^ (byte << 3) ^ (byte >> 4)


# Each byte costs a look-up, not the annex's six operations: on the hub's Pico every operation costs
_CRC_TABLE = tuple(_crc_step(i) for i in range(256))


def crc_a(data: bytes) -> int:
    """CRC_A of ISO/IEC 14443-3 (annex B): preset 0x6363, bytes in as they go on air.

    >>> hex(crc_a(bytes((0x50, 0x00))))  # HLTA
    '0xcd57'
    """
    crc = 0x6363
    table = _CRC_TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


def with_crc(frame: bytes) -> bytes:
    crc = crc_a(frame)
    return frame + bytes((crc & 0xFF, crc >> 8))


def cascade_levels(uid: bytes) -> list[bytes]:
    """The 4 bytes each cascade level carries for a 4-, 7- or 10-byte UID (ISO/IEC 14443-3, 6.5.4)."""
    if len(uid) == 4:
        return [uid]
    if len(uid) == 7:
        return [bytes((_CT,)) + uid[0:3], uid[3:7]]
    if len(uid) == 10:
        return [bytes((_CT,)) + uid[0:3], bytes((_CT,)) + uid[3:6], uid[6:10]]
    raise ValueError("a type A UID has 4, 7 or 10 bytes, not %d" % len(uid))


class RC522:
    """One MFRC522 reader behind ``transfer``.

    ``timeout_ms`` is how long to wait for a tag's first answer bits (the timer stops when they arrive, so a
    long answer is not cut short); ``gain`` is the receiver gain in dB (see ``GAINS_DB``).

    ``quick_confirm``: a lone tag that gives the same cascade-level-1 answer as the lone tag of the previous scan
    is taken for it without selecting it (a third of the time), except every ``FULL_SCAN_EVERY``-th scan, which
    selects it in full. Two NTAG213s of one roll share that answer when their first three UID bytes match: a twin
    laid beside the tag, or slid in as it left, is found by the next full scan (a lift that leaves the pad empty
    for a poll clears the memory at once). Enrollment, which binds what it reads, turns it off.

    ``sequence(script, out)`` clocks the transactions of a ``script`` one after the other, each in its own
    chip-select period, their answers in ``out``: the exchanges every scan makes (a poll, an anticollision, a
    SELECT, an HLTA) go through it, a call each rather than a call a transaction. The hub's RP2040 does it in native
    code (firmware/spi_rp2.py); by default it is ``in_turn(transfer)``, the same transactions one call each.
    """

    def __init__(
        self,
        transfer: "Callable[[bytes], bytes]",
        *,
        sequence: "Callable[[bytes, Any], None] | None" = None,
        timeout_ms: float = 1.0,
        gain: int = 48,
        quick_confirm: bool = True,
        keep_ready: bool = False,
        full_scan_turn: int = 0,
        spi_hz: int = 4_000_000,
    ) -> None:
        if gain not in GAINS_DB:
            raise ValueError("gain %r dB: use one of %s" % (gain, sorted(GAINS_DB)))
        if not 0.05 <= timeout_ms <= 600:
            raise ValueError("timeout_ms %r: use 0.05 to 600 ms (about 1 ms suits a card on a pad)" % timeout_ms)
        self._transfer = transfer
        self._pair: Any = bytearray(2)  # a register's address and value (or the byte clocked out to read it)
        self._bursts = _BURSTS  # the waits' address bytes, by length: made once, not at every wait
        self.timeout_ms = timeout_ms
        # Spelled once: every poll of an empty zone raises it, and on the hub's Pico formatting a float costs
        # 0.4 ms, more than the rest of the poll's Python.
        self._silence = "no tag answered within %s ms" % timeout_ms
        self.gain = gain
        self.quick_confirm = quick_confirm
        self.keep_ready = keep_ready
        # With keep_ready, the lone tag is selected in full at the scans where _turn (every scan's count, modulo
        # FULL_SCAN_EVERY) is full_scan_turn: a hub gives its readers different turns, so that cards laid together
        # are not all selected in full in one round (7 of them made a round of 120 ms on the Pico, once in 16).
        self.full_scan_turn = full_scan_turn % FULL_SCAN_EVERY
        self._turn = 0
        self._byte_us = 8_000_000 / spi_hz  # one byte on the bus
        self._wait_ms = _RESET_WAIT_MS  # how long init() waits for the oscillator
        # The chip waits for StartSend in Transceive (a frame was received and the FIFO emptied): the next
        # exchange needs neither Idle, a flush, nor the command again (datasheet 10.3.1.8).
        self._armed = False
        # A frame that needs no answer (HLTA) may still be on air: the next exchange waits for its TxIRq and
        # stops the timer it started.
        self._sending = False
        # The UID of the previous scan when it found exactly one tag: a clean cascade-level-1 answer equal to
        # its first level confirms it without the rest of the selection.
        self._single: bytes | None = None
        self._confirms = 0  # scans in a row that took the lone tag for the previous one by its level-1 answer
        # The lone tag, its level-1 anticollision answer (its cascade level 1 and BCC), and the list of it that the
        # scans confirming it return: made once for the tag, not at every scan (to be read, not changed). Not three
        # attributes: on MicroPython each attribute of an object slows the lookup of its methods (the object's
        # table of attributes is searched first, and it grows only once full).
        self._cl1: tuple[bytes | None, bytes, list[bytes]] = (None, b"", _NO_TAGS)
        # With keep_ready, the lone tag confirmed by the previous scan was left READY (not halted): the next scan
        # sends it its level-1 anticollision alone, without HLTA and WUPA (see scan).
        self._ready = False
        self._plans = _PLANS.setdefault((timeout_ms, spi_hz), {})  # see _plan
        self._tx_look = self._burst_bytes(100, 0)  # see _finish_send
        # Planned now, not when the first card comes: WUPA, a level's anticollision and SELECT (both endings)
        for frame, last_bits, answer_bits in _PLANNED:
            self._plan(frame, last_bits, 0, answer_bits)
        # A WUPA's answer looked for once, when the timer fires (see _ONE_LOOK_US): what that look clocks out.
        first_us, deadline_us, fifo = self._looks(_WUPA_FRAME, 7, 0, 16)
        self._poll = self._burst_bytes(first_us, fifo) if first_us == deadline_us else None
        self._sequence = sequence or in_turn(transfer)
        self._scripts = self._make_scripts()
        polls, anticollisions, select, _, _, _ = self._scripts
        # Every script's answers land here, read before the next exchange: as long as the longest script
        self._out: Any = bytearray(max([len(select)] + [len(steps) for steps, _ in polls + anticollisions]))

    def _make_scripts(self) -> "tuple[Any, ...]":
        """This reader's scripts of the exchanges that wait for an answer, each with where its look's last
        CommIrqReg sample lies in the answers (``_placed``): WUPA's poll (armed, and set up again as _start does),
        each cascade level's ANTICOLLISION, a SELECT (a bytearray, its frame filled in place through the memoryview
        after it: ``_lone``), and the UID that ``_lone`` reads into."""
        polls: tuple[tuple[bytes, int], ...] = ()
        if self._poll is not None:
            polls = (
                _placed((_CLEAR_IRQS, _FIFO_WUPA, _SEND_SHORT_FRAME), self._poll),
                _placed(
                    (_IDLE_COMMAND, _FLUSH_FIFO, _CLEAR_IRQS, _FIFO_WUPA, _TRANSCEIVE_COMMAND, _SEND_SHORT_FRAME),
                    self._poll,
                ),
            )
        look = self._plans[_ANTICOLLISION_PLAN][3]
        anticollisions = tuple(
            _placed((_CLEAR_IRQS, _FIFO_ANTICOLLISION[level], _SEND_FRAME), look) for level in range(3)
        )
        # A SELECT's answer is looked for when it is due after a frame ending in 1, 4.7 us later than after a 0 (the
        # tag's frame delay, _FDT_US): one script for both
        steps, at = _placed((_CLEAR_IRQS, _FIFO_WRITE + bytes(9), _SEND_FRAME), self._plans[_SELECT_PLAN][3])
        select = bytearray(steps)
        frame = memoryview(select)[_SELECT_AT : _SELECT_AT + 10]
        return polls, anticollisions, select, frame, at, bytearray(12)

    # -- registers ------------------------------------------------------------------------------------------

    def _write(self, reg: int, value: int) -> None:
        pair = self._pair  # filled in place: building a 2-byte object costs the hub's Pico more than its bytes
        pair[0] = reg << 1
        pair[1] = value
        self._transfer(pair)

    def _read(self, reg: int) -> int:
        pair = self._pair
        pair[0] = 0x80 | (reg << 1)
        pair[1] = 0
        return self._transfer(pair)[1]

    def _read_many(self, regs: bytes) -> bytes:
        # In one transaction each address byte clocks out the register named by the byte before it
        # (datasheet 8.1.2.1); a register named n times is read n times.
        out: Any = bytearray(len(regs) + 1)
        for i in range(len(regs)):
            out[i] = 0x80 | (regs[i] << 1)
        return self._transfer(out)[1:]

    def _burst(self, us: float, fifo: int = 0) -> bytes:
        """CommIrqReg read for about ``us`` microseconds of bus time, then the status registers and ``fifo``
        bytes of the FIFO, in one transaction: the last CommIrqReg sample, ErrorReg, FIFOLevelReg, ControlReg,
        CollReg, the FIFO bytes."""
        out, n = self._burst_bytes(us, fifo)
        return self._transfer(out)[n:]

    def _burst_bytes(self, us: float, fifo: int) -> tuple[bytes, int]:
        """What ``_burst`` clocks out, and how many CommIrqReg reads lead it."""
        n = min(max(int(us / self._byte_us + 0.999), 1), _MAX_BURST)
        key = n << 8 | fifo
        out = self._bursts.get(key)
        if out is None:  # a wait of a new length: a handful per reader (the frames' answers, the time-out)
            out = _COMM_IRQ_READ * n + _STATUS_READ + _FIFO_READ * fifo + b"\x00"
            if len(self._bursts) < _KEPT_BURSTS:
                self._bursts[key] = out
        return out, n

    def version(self) -> int:
        """VersionReg: 0x91 or 0x92 for a genuine MFRC522."""
        return self._read(_VERSION)

    # -- set-up ---------------------------------------------------------------------------------------------

    def init(self) -> None:
        """Soft reset, wait for the oscillator, check the chip, set the timer, modulation, gain and CRC preset,
        switch the field on."""
        self._write(_COMMAND, _CMD_SOFT_RESET)
        wait_ms, self._wait_ms = self._wait_ms, _AGAIN_WAIT_MS
        for _ in range(wait_ms):
            # A chip still starting (or none at all) reads 0x00: wait 1 ms on the bus, then look again.
            if self._read(_COMMAND) & (_RCV_OFF | _POWER_DOWN) == _RCV_OFF:
                break
            self._read_many(bytes((_COMMAND,)) * int(1000 / self._byte_us))
        version = self.version()
        if version not in KNOWN_VERSIONS:
            raise ReaderNotResponding(
                "no MFRC522 answers on this chip select (VersionReg reads 0x%02X): check wiring and chip select"
                % version
            )
        self._armed = self._sending = self._ready = False
        self._single = None
        self._write(_T_MODE, 0x80 | (_PRESCALER >> 8))  # TAuto: the timer starts when a frame is sent
        self._write(_T_PRESCALER, _PRESCALER & 0xFF)
        self._set_timeout(self.timeout_ms)
        self._write(_TX_ASK, 0x40)  # Force100ASK: type A tags need 100 % modulation
        # The driver adds and checks CRC_A itself: switching TxCRCEn/RxCRCEn between anticollision (no CRC)
        # and the other frames would cost an SPI transaction each time.
        self._write(_TX_MODE, 0x00)
        self._write(_RX_MODE, 0x00)
        self._write(_COLL, 0x00)  # ValuesAfterColl = 0: bits after a collision read as 0
        # RxGain is bits 6-4; bit 7 and bits 3-0 are reserved and keep what the chip holds (datasheet 9.3.3.6).
        self._write(_RF_CFG, (self._read(_RF_CFG) & 0x8F) | GAINS_DB[self.gain] << 4)
        self._write(_TX_CONTROL, 0x83)  # both antenna drivers on
        # Tags need a few milliseconds of field before they can answer (ISO/IEC 14443-3, 6.1: at least 5 ms).
        time.sleep(0.005)

    def _set_timeout(self, ms: float) -> None:
        ticks = int(ms * _FC_KHZ / (2 * _PRESCALER + 1) + 0.5)
        reload = min(max(ticks, 1), 0x10000) - 1
        self._write(_T_RELOAD_H, reload >> 8)
        self._write(_T_RELOAD_L, reload & 0xFF)

    # -- one exchange ---------------------------------------------------------------------------------------

    def _start(self, frame: bytes, last_bits: int, rx_align: int, fifo: "bytes | None" = None) -> None:
        """Put ``frame`` on air (``fifo``: the FIFO write of it, when made once)."""
        if self._sending:
            self._finish_send()
        if not self._armed:
            # The receiver may still listen (after a frame without answer, or a time-out): stop it, then empty
            # the FIFO of what it heard, or those bytes would go on air before the frame
            self._transfer(_IDLE_COMMAND)
            self._transfer(_FLUSH_FIFO)
        self._transfer(_CLEAR_IRQS)  # clear every interrupt flag
        self._transfer(_FIFO_WRITE + frame if fifo is None else fifo)
        if not self._armed:
            self._transfer(_TRANSCEIVE_COMMAND)
        self._write(_BIT_FRAMING, _START_SEND | (rx_align << 4) | last_bits)
        self._armed = False

    def _wait(
        self, mask: int, first_us: float, deadline_us: float, fifo: int = 0, looked: "bytes | None" = None
    ) -> tuple[bytes, bytes]:
        """Wait until CommIrqReg shows a bit of ``mask``: the first look after ``first_us`` (when the answer
        should be in), the next when the chip's timer fires (``deadline_us``), then every 100 us. Returns
        CommIrqReg, ErrorReg, FIFOLevelReg, ControlReg, CollReg as they were once it did, and what the first
        look read of the FIFO (``fifo`` bytes, read in the same transaction as the answer should be complete;
        ``NfcCrcError`` if it was not, the bytes taken from a frame still arriving being lost). ``looked`` is
        what the first look read, when the caller made it (``_poll``)."""
        waited = 0.0
        head = b""
        cut = False
        while waited < deadline_us + _MAX_WAIT_US:
            target = first_us if waited < first_us else deadline_us if waited < deadline_us else waited + 100
            step = min(target - waited, _MAX_BURST * self._byte_us)
            if looked is None:
                status = self._burst(step, fifo if target == first_us else 0)
            else:
                status, looked = looked, None
            waited += step
            irq = status[0]
            if irq == 0xFF:  # Set1 always reads 0: a bus that reads all ones has no chip on it
                break
            if target == first_us and fifo:
                head, status = status[5:], status[:5]
                if not irq & mask:  # too early: nothing to keep, and nothing lost unless bytes had come in
                    head, cut = b"", status[2] & 0x7F > 0
            if irq & mask:
                if cut:
                    self._armed = False  # what is left of the frame stays in the FIFO until the next flush
                    raise NfcCrcError("the answer came later than ISO/IEC 14443-3 allows and was cut")
                return status, head
        raise ReaderNotResponding("the MFRC522 stopped answering in the middle of an exchange")

    def _send(self, frame: bytes) -> None:
        """Send a frame that gets no answer (HLTA). The next exchange waits for its end, not this one."""
        self._start(frame, 0, 0)
        self._sending = True

    def _finish_send(self) -> None:
        # The frame sent without answer is over once TxIRq is set; the timer it started must not fire during
        # the next exchange: stop it unless it already ran out.
        self._sending = False
        sent = self._out
        self._sequence(_SENT, sent)  # read in place: a slice would be an object made
        irq, status1 = sent[1], sent[2]
        if not irq & _TX_IRQ:
            # Still on air (an HLTA is 0.4 ms): _wait's looks, every 100 us, read in place (no object made)
            look, n = self._tx_look
            waited = 0
            while True:
                irq = self._transfer(look)[n]
                if irq != 0xFF and irq & _TX_IRQ:
                    break
                waited += 100
                if irq == 0xFF or waited >= _MAX_WAIT_US:
                    raise ReaderNotResponding("the MFRC522 stopped answering in the middle of an exchange")
            status1 = _T_RUNNING
        if status1 & _T_RUNNING:
            self._sequence(_STOP_TIMER, sent)
        # Whatever the FIFO holds now, the receiver listens on until the next exchange stops it (Idle), and
        # interference may still land there: that exchange empties it after stopping the receiver (_start)

    def transceive(
        self,
        frame: bytes,
        last_bits: int = 0,
        rx_align: int = 0,
        anticollision: bool = False,
        answer_bits: int = 0,
        add_crc: bool = False,
        check_crc: bool = False,
    ) -> tuple[bytes, int, int]:
        """Send ``frame`` and return ``(data, bits, collision)``.

        ``last_bits`` is how many bits of the last byte are sent (0 for all 8), ``rx_align`` where the first
        received bit lands in the first byte. ``collision`` is -1, or with ``anticollision`` the 0-based bit
        index (counted from bit 0 of the first received byte) where tags first disagreed; without it a collision
        raises ``NfcCollision``. ``answer_bits`` (CRC included), when known, is when to look for the answer
        first; without it the driver looks when the time-out ends. ``add_crc`` appends CRC_A to the frame,
        ``check_crc`` checks and strips the answer's (a 4-bit ACK or NAK has none).
        """
        if add_crc:
            frame = with_crc(frame)
        self._start(frame, last_bits, rx_align)
        return self._answer(frame, last_bits, rx_align, anticollision, answer_bits, check_crc)

    def _looks(self, frame: bytes, last_bits: int, rx_align: int, answer_bits: int) -> tuple[float, float, int]:
        """When to look first for the answer to ``frame`` and when the chip's timer ends the wait (microseconds
        from the start of the transaction that sent it), and how many FIFO bytes the first look reads."""
        nbits = len(frame) * 8 - (8 - last_bits if last_bits else 0)
        air_us = (nbits + nbits // 8 + 2) * _ETU_US
        deadline_us = air_us + self.timeout_ms * 1000 + _TICK_US  # the timer counts whole ticks: see _TICK_US
        last_bit = frame[-1] >> ((last_bits or 8) - 1) & 1
        answer_us = _FDT_US[last_bit] + (answer_bits + answer_bits // 8 + 2) * _ETU_US
        expect_us = air_us + answer_us if answer_bits else deadline_us
        if expect_us < deadline_us <= expect_us + _ONE_LOOK_US:
            expect_us = deadline_us
        return expect_us, deadline_us, (rx_align + answer_bits + 7) // 8

    def _plan(
        self, frame: bytes, last_bits: int, rx_align: int, answer_bits: int
    ) -> tuple[float, float, int, tuple[bytes, int]]:
        """``_looks`` and the first look's bytes. What a frame of this length and ending waits is worked out once
        (in floats, which the Pico allocates one by one) for every reader of the same time-out and bus speed."""
        plan = self._plans.get(_plan_key(frame, last_bits, rx_align, answer_bits))
        if plan is None:
            expect_us, deadline_us, fifo = self._looks(frame, last_bits, rx_align, answer_bits)
            plan = (expect_us, deadline_us, fifo, self._burst_bytes(min(expect_us, _MAX_BURST * self._byte_us), fifo))
            if len(self._plans) < _KEPT_PLANS:
                self._plans[_plan_key(frame, last_bits, rx_align, answer_bits)] = plan
        return plan

    def _answer(
        self,
        frame: bytes,
        last_bits: int,
        rx_align: int,
        anticollision: bool,
        answer_bits: int,
        check_crc: bool,
        looked: "bytes | None" = None,
    ) -> tuple[bytes, int, int]:
        """The answer to ``frame``, just sent (``transceive``)."""
        expect_us, deadline_us, fifo, (look, n) = self._plan(frame, last_bits, rx_align, answer_bits)
        if looked is None:
            looked = self._transfer(look)[n:]
        if looked[0] & _LOOK_MASK and looked[0] != 0xFF:  # settled at the first look, as most exchanges are
            status, head = (looked[:5], looked[5:]) if fifo else (looked, b"")
        else:
            status, head = self._wait(_LOOK_MASK, expect_us, deadline_us, fifo, looked)
        irq, error, level, control, coll = status
        level &= 0x7F
        if not irq & (_RX_IRQ | _ERR_IRQ):
            # The receiver still listens: stop it and set Transceive up again now, so that the next exchange
            # (the next poll of an empty pad, or a tag just laid there) only fills the FIFO and starts.
            self._transfer(_IDLE_COMMAND)
            if level:
                self._transfer(_FLUSH_FIFO)
            self._transfer(_TRANSCEIVE_COMMAND)
            self._armed = True
            raise NfcTimeout(self._silence)
        if error & (_PROTOCOL_ERR | _BUFFER_OVFL):
            raise NfcProtocolError("the answer broke the frame format (ErrorReg 0x%02X)" % error)
        data = head[:level]
        if level > len(data):
            data += self._read_many(bytes((_FIFO_DATA,)) * (level - len(data)))
        self._armed = bool(irq & _RX_IRQ)  # received, FIFO emptied: Transceive waits for the next StartSend
        rx_last = control & 0x07
        bits = (level - 1) * 8 + rx_last if rx_last else level * 8
        collision = -1
        if error & _COLL_ERR:
            if not anticollision or coll & _COLL_POS_NOT_VALID:
                raise NfcCollision("several tags answered at once")
            collision = ((coll & 0x1F) or 32) - 1
        elif bits == 4 and frame[0] in (_READ, _FAST_READ, _WRITE):
            # NTAG21x answers a refused command with a 4-bit NAK, which carries no CRC.
            return data, bits, collision
        if error & _PARITY_ERR:
            raise NfcCrcError("parity error: the answer was damaged on the way")
        if check_crc and bits != 4:
            if len(data) < 3 or crc_a(data[:-2]) != data[-2] | data[-1] << 8:
                raise NfcCrcError("CRC error: the answer was damaged on the way")
            data = data[:-2]
            bits -= 16
        return data, bits, collision

    # -- ISO/IEC 14443-3 type A -----------------------------------------------------------------------------

    def _short_frame(self, command: bytes) -> bytes:
        data, bits, _ = self.transceive(command, last_bits=7, answer_bits=16)
        if bits != 16:
            raise NfcProtocolError("ATQA must be 16 bits, got %d" % bits)
        return data

    def reqa(self) -> bytes:
        """REQA: wakes tags in IDLE (not HALT); returns the ATQA."""
        return self._short_frame(_REQA_FRAME)

    def wupa(self) -> bytes:
        """WUPA: wakes tags in IDLE and HALT; returns the ATQA."""
        atqa = self._wake()
        if atqa is None:
            raise NfcTimeout(self._silence)
        return atqa

    def _wake(self, quiet: bool = False) -> "bytes | None":
        """``wupa``, with ``None`` for a clean time-out: most scans of a hub's zones, where an exception raised is
        an object made each time, and the garbage of a round of empty zones (on the Pico a collection of the heap
        costs tens of milliseconds, which then falls at any moment). ``quiet``: a clean ATQA is not wanted, ``b""``
        stands for it (``scan``: no object made for it)."""
        if self._poll is None:
            return self._short_frame(_WUPA_FRAME)
        # Most polls of a hub's zones: the transactions of transceive's in one script made once (__init__), and
        # a clean time-out or ATQA settled here. On the Pico this halves an empty zone's poll.
        if self._sending:
            self._finish_send()
        # Armed; or after a time-out, an HLTA or an answer that left bytes behind, set up again as _start does
        steps, n = self._scripts[0][0 if self._armed else 1]
        looked = self._out
        self._sequence(steps, looked)  # read in place: a slice would be an object made every poll
        self._armed = False
        irq = looked[n] & _LOOK_MASK
        if irq == _TIMER_IRQ and not looked[n + 2] & 0x7F:  # nothing came
            # The receiver still listens. The next poll stops it, flushes what noise may have brought meanwhile and
            # sets Transceive up again, in its own call: one call a poll, not two
            return None
        if quiet and irq == _RX_IRQ and not looked[n + 1] and looked[n + 2] & 0x7F == 2 and not looked[n + 3] & 7:
            self._armed = True  # a clean ATQA, 16 bits: received, FIFO emptied
            return b""
        data, bits, _ = self._answer(_WUPA_FRAME, 7, 0, False, 16, False, looked[n:])
        if bits != 16:
            raise NfcProtocolError("ATQA must be 16 bits, got %d" % bits)
        return data

    def halt(self) -> None:
        """HLTA with CRC_A: the selected tag goes to HALT and answers only WUPA from now on (a READY one falls
        back to where it came from, HALT after a WUPA)."""
        if self._sending:
            self._finish_send()
        # _send's transactions, in a script made once
        self._sequence(_HALTS[0 if self._armed else 1], self._out)
        self._armed = False
        self._sending = True

    def anticollision(self, level: int, known: bytes = b"", nbits: int = 0) -> tuple[bytes, int]:
        """Bit-oriented anticollision at cascade ``level`` (1 to 3), the first ``nbits`` of the level known.

        Returns the 5 bytes (4 UID bytes and BCC) the tags sent, completed by ``known``, and the 0-based bit
        index of the first collision within the level (-1 if none: then the BCC is checked). Bits after a
        collision read as 0.
        """
        whole, last = nbits // 8, nbits % 8
        sent = known[: whole + (1 if last else 0)]
        frame = bytes((_SEL[level - 1], ((2 + whole) << 4) | last)) + sent
        data, _, collision = self.transceive(
            frame, last_bits=last, rx_align=last, anticollision=True, answer_bits=40 - nbits
        )
        answer = bytearray(5)
        answer[: len(sent)] = sent
        count = min(len(data), 5 - whole)
        if not last:  # whole bytes (every level's first anticollision): copied at once, not a byte a turn
            answer[whole : whole + count] = data[:count]
        else:
            keep = (1 << last) - 1
            for i in range(count):
                answer[whole + i] = (answer[whole] & keep) | (data[0] & ~keep & 0xFF) if i == 0 else data[i]
        if collision >= 0:
            position = whole * 8 + collision
            if not nbits <= position < 32:
                raise NfcProtocolError("collision reported at bit %d, outside the UID bits" % position)
            return bytes(answer), position
        if answer[4] != answer[0] ^ answer[1] ^ answer[2] ^ answer[3]:
            raise NfcCrcError("BCC error: the UID bytes came back damaged")
        return bytes(answer), -1

    def select_level(self, level: int, uid5: bytes) -> int:
        """SELECT at cascade ``level`` with the level's 4 UID bytes and BCC; returns the SAK."""
        data, _, _ = self.transceive(
            bytes((_SEL[level - 1], 0x70)) + uid5, answer_bits=24, add_crc=True, check_crc=True
        )
        if len(data) != 1:
            raise NfcProtocolError("SAK must be 1 byte, got %d" % len(data))
        return data[0]

    def _walk(self, path: bytes, nbits: int, branches: list[tuple[bytes, int]]) -> tuple[bytes, int]:
        """Select the tag at the end of a UID-tree branch and return its UID and SAK; other branches found on
        the way go on ``branches``.

        ``path`` holds the 4 bytes of each cascade level chosen so far; its first ``nbits`` bits are forced.
        """
        uid = b""
        level = 1
        while True:
            base = (level - 1) * 32
            forced = min(max(nbits - base, 0), 32)
            known = bytearray(path[(level - 1) * 4 : level * 4])
            known.extend(bytes(5 - len(known)))
            while forced < 32:
                answer, collision = self.anticollision(level, bytes(known), forced)
                if collision < 0:
                    known = bytearray(answer)
                    break
                # Follow the 1 branch now; the 0 branch (the same prefix, that bit clear) is a later round.
                byte, bit = collision // 8, 1 << (collision % 8)
                known = bytearray(answer)
                known[byte] &= bit - 1  # keep the bits below the collision
                other = bytes(path[: (level - 1) * 4]) + bytes(known[:4])
                branches.append((other, base + collision + 1))
                known[byte] |= bit
                forced = collision + 1
            known[4] = known[0] ^ known[1] ^ known[2] ^ known[3]
            cl = bytes(known[:4])
            path = bytes(path[: (level - 1) * 4]) + cl + bytes(path[level * 4 :])
            sak = self.select_level(level, bytes(known))
            if not sak & _SAK_CASCADE:
                return uid + cl, sak
            if cl[0] != _CT or level == 3:
                raise NfcProtocolError("SAK asks for another cascade level after %s" % _hex(uid + cl))
            uid += cl[1:]
            level += 1

    def select(self, uid: bytes) -> int:
        """Select the tag with ``uid`` (it must be READY: after REQA or WUPA); returns the final SAK."""
        levels = cascade_levels(uid)
        sak = 0
        for level in range(1, len(levels) + 1):
            cl = levels[level - 1]
            sak = self.select_level(level, cl + bytes((cl[0] ^ cl[1] ^ cl[2] ^ cl[3],)))
        return sak

    def activate(self, uid: bytes) -> int:
        """Wake the field and select ``uid`` (to read or write its memory); returns the SAK."""
        self._unready()
        try:
            self.wupa()
        except NfcCollision:
            pass  # several tags woke up: the SELECT below picks ours out
        return self.select(uid)

    def scan(self, on_select: "Callable[[bytes, int], None] | None" = None) -> list[bytes]:
        """The UIDs of every tag in the field.

        Returns ``[]`` only when nothing answered WUPA (a clean time-out; one list made once, to be read, not
        changed); a damaged answer raises an ``NfcError``, and so does a tag that answered WUPA and then went
        silent: keep the cards as they were.
        ``on_select(uid, sak)`` is called while each tag the scan selects is ACTIVE, before it is halted (to read
        its memory; SAK 0x00 is a type 2 tag such as NTAG213, 0x08 a MIFARE Classic 1K).

        With ``quick_confirm``, a lone tag whose level-1 anticollision answer matches the lone tag of the
        previous scan is taken for it without being selected. Every tag is left in HALT (the next scan wakes
        them with WUPA), except, with ``keep_ready``, a lone tag confirmed that way: it is left READY, and the
        next scan confirms it by one anticollision frame (``_still``).
        """
        self._turn = (self._turn + 1) % FULL_SCAN_EVERY
        try:
            if self._ready:
                still = self._still()
                if still is not None:
                    return still
            try:
                atqa = self._wake(True)
            except NfcTimeout:
                atqa = None
            except NfcCollision:
                atqa = b""  # different ATQAs: several tags, the inventory below sorts them out
            if atqa is None:
                self._single = None
                return _NO_TAGS
            found = self._inventory(on_select)
        except NfcError:
            # Tags may be left READY or ACTIVE, where the next WUPA would silence them: send them to HALT
            # (or IDLE), from where the next scan wakes them.
            self._single = None
            try:
                self.halt()
            except NfcError:
                pass
            raise
        self._single = found[0] if len(found) == 1 else None
        return found

    def _still(self) -> "list[bytes] | None":
        """The lone tag the previous scan left READY, confirmed by its cascade-level-1 answer to the one frame that
        a READY tag answers and stays READY after: ANTICOLLISION (ISO/IEC 14443-3, 6.3.2.3 and 6.5.3.2; NTAG213
        datasheet, 8.3, Figure 5: READY1 loops on ANTICOLLISION CL1). ``None`` when a full scan must follow: the
        FULL_SCAN_EVERY-th scan, no answer (lifted, or this frame missed), or another answer. The tag is then
        halted first: a READY tag takes a WUPA for a frame it does not expect and falls back to HALT or IDLE
        silently (6.3.2.3), so the scan's WUPA would find nothing where a tag lies."""
        self._ready = False
        if self._single is None or self._turn == self.full_scan_turn:
            self.halt()
            return None
        # A hub's still cards, every scan: anticollision()'s transactions, each one's bytes made once, and a clean
        # answer settled here. On the Pico this halves the scan, as wupa() does an empty zone's poll.
        if self._armed and not self._sending:
            if self._confirm_cl1():
                self._confirms += 1
                self._ready = True
                return self._cl1[2]
        else:
            try:
                answer, collision = self.anticollision(1)
            except NfcTimeout:
                answer, collision = b"", -1
            if collision < 0 and answer == self._cl1[1]:
                self._confirms += 1
                self._ready = True
                return self._cl1[2]
        self.halt()  # back to HALT (woken from it by the WUPA before: READY* in 6.3.2.3), for the scan's WUPA
        return None

    def _confirm_cl1(self) -> bool:
        """Whether the lone tag answers a level-1 ANTICOLLISION with its own level 1 and BCC, clean (the frame's
        bytes made once, the answer read in place). Anything else is settled as anticollision() would take it; a
        time-out is a ``False``, a damaged answer raises."""
        steps, n = self._scripts[1][0]  # made in __init__
        looked = self._out
        self._sequence(steps, looked)  # read in place, from n: a slice would be an object made every scan
        self._armed = False
        # Received, no error, five whole bytes in the FIFO, read in the same look: the tag's level 1 and BCC
        if _clean(looked, n, 5):
            self._armed = True  # received, FIFO emptied: Transceive waits for the next StartSend
            cl1 = self._cl1[1]
            n += 5
            return (  # type: ignore[no-any-return]  # the answers' buffer is a bytearray the sequence fills
                looked[n] == cl1[0]
                and looked[n + 1] == cl1[1]
                and looked[n + 2] == cl1[2]
                and looked[n + 3] == cl1[3]
                and looked[n + 4] == cl1[4]
            )
        try:  # late, damaged, collided: as anticollision() would take it
            self._answer(_ANTICOLLISION_CL1, 0, 0, True, 40, False, looked[n:])
        except NfcTimeout:
            pass
        return False

    def _lone(self, on_select: "Callable[[bytes, int], None] | None") -> "list[bytes] | None":
        """The hub's selection of what answered WUPA when one tag answers alone: each cascade level's ANTICOLLISION
        and SELECT from frames made once or filled in place, each answer settled in place (as _still and wupa() do),
        and for the lone tag already known (its full selection every FULL_SCAN_EVERY scans, decision 003) not one
        object made. The same transactions as _walk's for one tag. ``None`` when an answer is anything but one
        tag's, clean: the walk of the UID tree takes over, from the level-1 anticollision (which READY tags answer
        again, ISO/IEC 14443-3, 6.5.3.2), or after a later level (a twin sharing the tag's first UID bytes: its
        collision comes at level 2) from a WUPA after an HLTA, which the READY tags of a later level take for a
        frame they do not expect, falling back to HALT (6.3.2.3)."""
        if not self._armed or self._sending:
            return None
        sequence, looked = self._sequence, self._out
        frame: Any
        # Each level's ANTICOLLISION; the SELECT, its frame (the FIFO write) filled in place; the UID so far
        _, anticollisions, select, frame, at, uid = self._scripts  # unpacked whole: a slice is an object made
        table = _CRC_TABLE
        size = 0
        sak = 0
        for level in range(3):
            steps, n = anticollisions[level]
            sequence(steps, looked)
            self._armed = False
            n += 5
            if (
                not _clean(looked, n - 5, 5)
                or looked[n + 4] != looked[n] ^ looked[n + 1] ^ looked[n + 2] ^ looked[n + 3]
            ):
                return self._settle_lone(level, _FIFO_ANTICOLLISION[level][1:], True, 40, looked[n - 5 :])
            self._armed = True
            crc = 0x6363
            for i in range(1, 8):
                frame[i] = _SEL[level] if i == 1 else 0x70 if i == 2 else looked[n + i - 3]
                crc = (crc >> 8) ^ table[(crc ^ frame[i]) & 0xFF]
            frame[8] = crc & 0xFF
            frame[9] = crc >> 8
            sequence(select, looked)
            self._armed = False
            n = at
            sak = looked[n + 5]
            if (
                not _clean(looked, n, 3)
                or (0x6363 >> 8) ^ table[(0x6363 ^ sak) & 0xFF] != looked[n + 6] | looked[n + 7] << 8
            ):
                data, _, _ = self._answer(bytes(frame[1:]), 0, 0, False, 24, True, looked[n:])  # or it raises
                if len(data) != 1:
                    raise NfcProtocolError("SAK must be 1 byte, got %d" % len(data))
                sak = data[0]
            else:
                self._armed = True  # received, FIFO emptied: Transceive waits for the next StartSend
            cascade = sak & _SAK_CASCADE
            if cascade and (frame[3] != _CT or level == 2):
                raise NfcProtocolError("SAK asks for another cascade level after %s" % _hex(bytes(frame[3:7])))
            for i in range(4 if not cascade else 3):
                uid[size] = frame[7 - (4 if not cascade else 3) + i]
                size += 1
            if not cascade:
                break
        single = self._single or b""
        same = len(single) == size
        i = 0
        while same and i < size:
            same = single[i] == uid[i]
            i += 1
        tag = single if same else bytes(uid[:size])  # a new tag: its UID made once
        found = self._cl1[2] if same and self._cl1[0] is single else [tag]
        if on_select is not None:
            on_select(tag, sak)
        self.halt()
        return found

    def _settle_lone(
        self, level: int, frame: bytes, anticollision: bool, answer_bits: int, looked: bytes
    ) -> "list[bytes] | None":
        """_lone's way out at ``level`` (0 to 2): the answer to ``frame`` settled as transceive would (a damaged one
        raises), and the tags made ready for the walk of the UID tree."""
        try:
            self._answer(frame, 0, 0, anticollision, answer_bits, False, looked)
        except NfcTimeout:
            if level:
                raise  # a tag selected at level 1, silent at level 2: not a clean absence
        if level:
            self.halt()
            try:
                self.wupa()
            except NfcCollision:
                pass  # several tags: the walk sorts them out
        return None

    def _unready(self) -> None:
        """Send a tag left READY back to HALT, where a WUPA finds it."""
        if self._ready:
            self._ready = False
            self.halt()

    def forget(self) -> None:
        """Forget the lone tag of the previous scan: the next scan selects every tag in the field (and hands
        each to ``on_select``) rather than confirm that one by its level-1 answer."""
        self._single = None

    def _inventory(self, on_select: "Callable[[bytes, int], None] | None") -> list[bytes]:
        due = self._turn == self.full_scan_turn if self.keep_ready else self._confirms >= FULL_SCAN_EVERY - 1
        single = self._single if self.quick_confirm and not due else None
        self._confirms = self._confirms + 1 if single is not None else 0
        if single is not None:
            if self._cl1[0] is not single:  # the same tag scan after scan: its level-1 bytes worked out once
                level = cascade_levels(single)[0]
                self._cl1 = (single, level + bytes((level[0] ^ level[1] ^ level[2] ^ level[3],)), [single])
            if self.keep_ready and self._armed and not self._sending and self._confirm_cl1():
                self._ready = True  # the next scan sends it ANTICOLLISION alone (_still)
                return self._cl1[2]
            cl1 = self._cl1[1]
            answer, collision = self.anticollision(1)
            if collision < 0 and answer == cl1:
                if self.keep_ready:
                    self._ready = True  # the next scan sends it ANTICOLLISION alone (_still)
                else:
                    self.halt()  # back to HALT (or IDLE) so that the next WUPA finds it
                return self._cl1[2]
            branches: list[tuple[bytes, int]] = []
            if collision >= 0:
                # Seed the walk with what this answer taught: its two branches at the first collision.
                known = bytearray(answer)
                byte, bit = collision // 8, 1 << (collision % 8)
                known[byte] &= bit - 1
                branches.append((bytes(known[:4]), collision + 1))
                known[byte] |= bit
                branches.append((bytes(known[:4]), collision + 1))
            else:
                branches.append((answer[:4], 32))
        else:
            lone = self._lone(on_select) if self.keep_ready else None
            if lone is not None:
                return lone
            branches = [(b"", 0)]
        found: list[bytes] = []
        first = True
        while branches:
            path, nbits = branches.pop()
            if not first:
                try:
                    self.wupa()
                except NfcTimeout:
                    break  # every remaining tag has left the field
                except NfcCollision:
                    pass
            try:
                uid, sak = self._walk(path, nbits, branches)
            except NfcTimeout:
                if first:
                    raise  # something answered WUPA, then nothing: not a clean absence
                first = False
                continue  # this branch's tag has left the field
            first = False
            if on_select is not None:
                on_select(uid, sak)
            self.halt()
            if uid not in found:
                found.append(uid)
        return found

    # -- NTAG21x memory -------------------------------------------------------------------------------------

    def _memory(self, frame: bytes, expect: int) -> bytes:
        data, bits, _ = self.transceive(frame, answer_bits=8 * expect + 16, add_crc=True, check_crc=True)
        if bits == 4:
            raise NfcProtocolError("the tag refused the command (NAK 0x%X): page out of range?" % (data[0] & 0x0F))
        if len(data) != expect:
            raise NfcProtocolError("expected %d bytes from the tag, got %d" % (expect, len(data)))
        return data

    def read_pages(self, page: int) -> bytes:
        """READ: 16 bytes, pages ``page`` to ``page + 3`` of the selected tag."""
        return self._memory(bytes((_READ, page)), 16)

    def fast_read(self, first: int, last: int) -> bytes:
        """FAST_READ: pages ``first`` to ``last`` of the selected NTAG21x, 4 bytes each."""
        return self._memory(bytes((_FAST_READ, first, last)), 4 * (last - first + 1))

    def write_page(self, page: int, data4: bytes) -> None:
        """WRITE: one 4-byte page of the selected tag (waits for the tag's ACK after programming)."""
        if len(data4) != 4:
            raise ValueError("an NTAG page is 4 bytes, not %d" % len(data4))
        self._set_timeout(_WRITE_TIMEOUT_MS)
        try:
            data, bits, _ = self.transceive(bytes((_WRITE, page)) + data4, answer_bits=4, add_crc=True)
        finally:
            self._set_timeout(self.timeout_ms)
        if bits != 4 or data[0] & 0x0F != _ACK:
            raise NfcProtocolError("the tag did not acknowledge the write of page %d" % page)
