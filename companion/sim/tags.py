"""ISO/IEC 14443-3 type A tags: the state machine every tag shares, NTAG213 memory, MIFARE Classic 1K sectors.

States follow ISO/IEC 14443-3, 6.3: IDLE (powered), READY (being selected, one cascade level at a time), ACTIVE
(selected), HALT. A tag woken from HALT by WUPA remembers it (READY* and ACTIVE* in the standard): any frame it
does not expect sends it back to HALT rather than IDLE. A tag stays silent when it does not understand a frame.
"""

from __future__ import annotations

import random
from enum import StrEnum

from companion.events import hexuid
from companion.sim.rf import FDT_LAST_0_S, FDT_LAST_1_S, Answer, crc_ok, uid_bytes, with_crc

REQA = 0x26
WUPA = 0x52
SEL = (0x93, 0x95, 0x97)
CT = 0x88
HLTA = b"\x50\x00"
ACK = 0x0A
NAK_ARGUMENT = 0x0
NAK_CRC = 0x1


class State(StrEnum):
    IDLE = "IDLE"
    READY = "READY"
    ACTIVE = "ACTIVE"
    HALT = "HALT"


class Iso14443aTag:
    """A type A tag with a 4-, 7- or 10-byte UID; subclasses add the commands of the ACTIVE state."""

    def __init__(self, uid: bytes | str, *, atqa: bytes = b"\x44\x00", sak: int = 0x00) -> None:
        self.uid = uid_bytes(uid)
        if len(self.uid) not in (4, 7, 10):
            raise ValueError(f"UID {hexuid(self.uid)}: a type A UID has 4, 7 or 10 bytes")
        if (len(self.uid) > 4 and self.uid[0] == CT) or (len(self.uid) == 10 and self.uid[3] == CT):
            raise ValueError(f"UID {hexuid(self.uid)}: 0x88 is the cascade tag and cannot start a level")
        self.atqa = atqa
        self.sak = sak
        self.state = State.IDLE
        self.powered = False
        self.level = 1
        self._from_halt = False
        # Faults on demand.
        self._drop = self._drop_after = 0
        self._garble = self._garble_after = 0
        self._garble_crc_only = False
        self._one_in = 1
        self._polls = 0
        self._browned_out = False
        self._rng = random.Random(int.from_bytes(self.uid, "big"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({hexuid(self.uid)!r}, state={self.state})"

    # -- the UID as cascade levels --------------------------------------------------------------------------

    def cascade(self) -> list[bytes]:
        """The 4 bytes and BCC of each cascade level."""
        u = self.uid
        levels = {4: [u], 7: [bytes((CT,)) + u[:3], u[3:]], 10: [bytes((CT,)) + u[:3], bytes((CT,)) + u[3:6], u[6:]]}
        return [cl + bytes((cl[0] ^ cl[1] ^ cl[2] ^ cl[3],)) for cl in levels[len(u)]]

    # -- faults ---------------------------------------------------------------------------------------------

    def drop_next(self, answers: int = 1, *, after: int = 0) -> None:
        """Lose ``answers`` answers on the way, once ``after`` more have gone through (the tag acts on the
        commands all the same)."""
        self._drop, self._drop_after = answers, after

    def garble_next(self, answers: int = 1, *, after: int = 0, crc_only: bool = False) -> None:
        """Flip one bit in ``answers`` answers, once ``after`` more have gone through: a parity error, or with
        ``crc_only`` a damage only the CRC (or the BCC) can catch."""
        self._garble, self._garble_after = answers, after
        self._garble_crc_only = crc_only

    def answer_one_in(self, polls: int) -> None:
        """At the edge of range: the tag gets enough power for only one REQA/WUPA poll in ``polls``."""
        self._one_in = max(1, polls)
        self._polls = 0

    # -- the field ------------------------------------------------------------------------------------------

    def power(self, on: bool) -> None:
        self.powered = on
        self._reset()

    def _reset(self) -> None:
        self.state = State.IDLE
        self.level = 1
        self._from_halt = False
        self._on_reset()

    def _on_reset(self) -> None:
        """Forget per-session state (authentication) when power or state is lost."""

    def _fall_back(self) -> None:
        self.state = State.HALT if self._from_halt else State.IDLE
        self.level = 1
        self._on_reset()

    def hear(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None:
        if not self.powered:
            return None
        if nbits == 7:
            self._polls += 1
            self._browned_out = self._polls % self._one_in != 0
            if self._browned_out:
                self._reset()
                return None
        if self._browned_out:
            return None
        answer = self._respond(frame, nbits, crypto1)
        if answer is None:
            return None
        last_bit = (frame[(nbits - 1) // 8] >> ((nbits - 1) % 8)) & 1 if nbits else 1
        if answer.delay_s == FDT_LAST_1_S and not last_bit:
            answer.delay_s = FDT_LAST_0_S
        if self._drop and not self._drop_after:
            self._drop -= 1
            return None
        self._drop_after = max(self._drop_after - 1, 0)
        if self._garble and not self._garble_after:
            self._garble -= 1
            bit = self._rng.randrange(answer.nbits)
            answer.value ^= 1 << bit
            answer.bad_parity = not self._garble_crc_only
        else:
            self._garble_after = max(self._garble_after - 1, 0)
        return answer

    def _respond(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None:
        if nbits == 7:
            command = frame[0] & 0x7F
            if (command == WUPA and self.state in (State.IDLE, State.HALT)) or (
                command == REQA and self.state is State.IDLE
            ):
                self._from_halt = self.state is State.HALT
                self.state = State.READY
                self.level = 1
                return Answer.of_bytes(self.atqa)
            if self.state in (State.READY, State.ACTIVE):
                self._fall_back()
            return None
        if self.state is State.READY:
            return self._select(frame, nbits)
        if self.state is State.ACTIVE:
            if nbits == 32 and frame == with_crc(HLTA) and not crypto1:
                self.state = State.HALT
                self._on_reset()
                return None
            answer = self._command(frame, nbits, crypto1)
            if answer is None:
                self._fall_back()
            return answer
        return None

    def _select(self, frame: bytes, nbits: int) -> Answer | None:
        """ANTICOLLISION and SELECT of the current cascade level (ISO/IEC 14443-3, 6.5.3)."""
        if nbits < 16 or frame[0] != SEL[self.level - 1]:
            self._fall_back()
            return None
        level = self.cascade()[self.level - 1]
        nvb = frame[1]
        if nvb == 0x70:
            if nbits != 72 or not crc_ok(frame):
                self._fall_back()
                return None
            if frame[2:7] != level:
                return None  # another tag is being selected: stay READY, silent
            sak = self.sak
            if self.level < len(self.cascade()):
                self.level += 1
                sak = 0x04  # cascade bit: the UID is not complete
            else:
                self.state = State.ACTIVE
            return Answer.of_bytes(with_crc(bytes((sak,))))
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known < 40 or nbits != 16 + known:
            self._fall_back()
            return None
        level_bits = int.from_bytes(level, "little")
        sent = int.from_bytes(frame[2:], "little")
        mask = (1 << known) - 1
        if (sent ^ level_bits) & mask:
            return None  # our UID does not start with the bits sent: keep quiet and READY
        return Answer(level_bits >> known, 40 - known)

    def _command(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None:
        """A frame in the ACTIVE state other than HLTA; ``None`` means not understood (back to IDLE/HALT)."""
        return None


# NTAG213 (NXP NTAG213/215/216 datasheet): 45 pages of 4 bytes; user memory is pages 4 to 39.
NTAG213_PAGES = 45
_NTAG213_VERSION = bytes((0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03))
_NTAG_WRITE_S = 0.0041  # EEPROM programming before the ACK


class Ntag213(Iso14443aTag):
    """An NTAG213 sticker: 7-byte UID, ATQA 0x0044, SAK 0x00, factory-fresh memory with an empty NDEF message."""

    def __init__(self, uid: bytes | str) -> None:
        super().__init__(uid, atqa=b"\x44\x00", sak=0x00)
        if len(self.uid) != 7:
            raise ValueError(f"UID {hexuid(self.uid)}: an NTAG213 has a 7-byte UID")
        u = self.uid
        self.memory = bytearray(4 * NTAG213_PAGES)
        self.memory[0:4] = bytes((u[0], u[1], u[2], CT ^ u[0] ^ u[1] ^ u[2]))
        self.memory[4:8] = u[3:7]
        self.memory[8:12] = bytes((u[3] ^ u[4] ^ u[5] ^ u[6], 0x48, 0x00, 0x00))
        self.memory[12:16] = bytes((0xE1, 0x10, 0x12, 0x00))  # capability container: NDEF, 144 bytes
        self.memory[16:20] = bytes((0x03, 0x00, 0xFE, 0x00))  # an empty NDEF message, then the terminator
        self.memory[160:164] = bytes((0x00, 0x00, 0x00, 0xBD))
        self.memory[164:168] = bytes((0x04, 0x00, 0x00, 0xFF))
        self.memory[168:172] = bytes((0x00, 0x05, 0x00, 0x00))

    def page(self, number: int) -> bytes:
        return bytes(self.memory[4 * number : 4 * number + 4])

    def _page_out(self, number: int) -> bytes:
        # PWD and PACK always read as zeros.
        return bytes(4) if number >= 43 else self.page(number)

    def _command(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None:
        if nbits % 8 or not frame or crypto1:
            return None
        if not crc_ok(frame):
            return Answer.nibble(NAK_CRC)
        command, args = frame[0], frame[1:-2]
        if command == 0x30 and len(args) == 1:  # READ: 4 pages, rolling over at the end of memory
            if args[0] >= NTAG213_PAGES:
                return Answer.nibble(NAK_ARGUMENT)
            data = b"".join(self._page_out((args[0] + i) % NTAG213_PAGES) for i in range(4))
            return Answer.of_bytes(with_crc(data))
        if command == 0x3A and len(args) == 2:  # FAST_READ
            first, last = args
            if not first <= last < NTAG213_PAGES:
                return Answer.nibble(NAK_ARGUMENT)
            return Answer.of_bytes(with_crc(b"".join(self._page_out(p) for p in range(first, last + 1))))
        if command == 0xA2 and len(args) == 5:  # WRITE one page
            page, data = args[0], args[1:]
            if not 2 <= page < NTAG213_PAGES:
                return Answer.nibble(NAK_ARGUMENT)
            if page == 3:  # the capability container is one-time programmable: bits only get set
                data = bytes(a | b for a, b in zip(self.page(3), data, strict=True))
            self.memory[4 * page : 4 * page + 4] = data
            return Answer.nibble(ACK, _NTAG_WRITE_S)
        if command == 0x60 and not args:  # GET_VERSION
            return Answer.of_bytes(with_crc(_NTAG213_VERSION))
        return None


# MIFARE Classic 1K: 16 sectors of 4 blocks; the last block of each sector holds key A, access bits, key B.
_TRANSPORT_KEY = b"\xff" * 6
_TRAILER = _TRANSPORT_KEY + bytes((0xFF, 0x07, 0x80, 0x69)) + _TRANSPORT_KEY


class MifareClassic1K(Iso14443aTag):
    """A MIFARE Classic 1K card: 4-byte UID, ATQA 0x0004, SAK 0x08, transport keys FF..FF.

    Crypto1 is the reader chip's business: the simulator checks the key at MFAuthent and then lets frames
    through in clear, which is all a driver can observe.
    """

    def __init__(self, uid: bytes | str) -> None:
        super().__init__(uid, atqa=b"\x04\x00", sak=0x08)
        if len(self.uid) != 4:
            raise ValueError(f"UID {hexuid(self.uid)}: a MIFARE Classic 1K here has a 4-byte UID")
        u = self.uid
        self.blocks = [bytearray(16) for _ in range(64)]
        self.blocks[0][:] = u + bytes((u[0] ^ u[1] ^ u[2] ^ u[3], 0x08, 0x04, 0x00)) + b"companion!"[:8]
        for sector in range(16):
            self.blocks[4 * sector + 3][:] = _TRAILER
        self.authenticated: int | None = None  # the sector Crypto1 was set up for
        self._pending_write: int | None = None

    def _on_reset(self) -> None:
        self.authenticated = None
        self._pending_write = None

    def authenticate(self, command: int, block: int, key: bytes, uid4: bytes) -> bool:
        """MFAuthent as the reader chip runs it: right state, right UID, right key of the block's sector."""
        if self.state is not State.ACTIVE or block >= 64 or uid4 != self.uid or command not in (0x60, 0x61):
            return False
        trailer = self.blocks[4 * (block // 4) + 3]
        if key != (trailer[:6] if command == 0x60 else trailer[10:16]):
            self._fall_back()  # a wrong key leaves the card waiting for a fresh wake-up
            return False
        self.authenticated = block // 4
        return True

    def _command(self, frame: bytes, nbits: int, crypto1: bool) -> Answer | None:
        if not crypto1 or self.authenticated is None or nbits % 8 or not crc_ok(frame):
            return None
        if self._pending_write is not None and len(frame) == 18:
            self.blocks[self._pending_write][:] = frame[:16]
            self._pending_write = None
            return Answer.nibble(ACK)
        command, block = frame[0], frame[1]
        if len(frame) != 4 or block // 4 != self.authenticated:
            return Answer.nibble(NAK_ARGUMENT)
        if command == 0x30:
            return Answer.of_bytes(with_crc(bytes(self.blocks[block])))
        if command == 0xA0 and block != 0:
            self._pending_write = block
            return Answer.nibble(ACK)
        return Answer.nibble(NAK_ARGUMENT)
