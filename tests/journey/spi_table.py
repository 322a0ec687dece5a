"""The Pi alone's readers for the service and the enroll command, each a process of its own: one simulated table
(``companion.sim``'s MFRC522s and tags) in this process, reached through a ``spidev`` module that the simulation
puts first on their ``PYTHONPATH``, as a drop-in adds an environment variable. Each SPI transfer goes over a Unix
socket to the reader at its bus and device here, so the tags the enroll command wrote are the ones the service
reads, and this process lays and lifts cards on the zones."""

from __future__ import annotations

import socket
import struct
import threading
from pathlib import Path

import companion.sim
from companion.sim.spidev import SpiDev

# The drop-in module: py-spidev's interface, each transfer a round trip to the table.
SPIDEV_SHIM = '''"""spidev for the simulated table of tests/journey/spi_table.py: every transfer goes to its socket."""
import os
import socket
import struct


class SpiDev:
    def __init__(self, bus=None, device=None):
        self.mode, self.bits_per_word, self.max_speed_hz = 0, 8, 500000
        self.cshigh = self.lsbfirst = self.no_cs = self.threewire = self.loop = False
        self._sock, self._where = None, None
        if bus is not None:
            self.open(bus, device or 0)

    def open(self, bus, device):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(os.environ["COMPANION_SPI_TABLE"])
        self._where = (bus, device)

    def close(self):
        if self._sock is not None:
            self._sock.close()
        self._sock = None

    def fileno(self):
        return -1 if self._sock is None else 3

    def _transfer(self, values, speed_hz=0):
        if self._sock is None:
            raise OSError("SpiDev is not open: call open(bus, device) first")
        data = bytes(values)
        bus, device = self._where
        self._sock.sendall(struct.pack("<BBII", bus, device, speed_hz or self.max_speed_hz, len(data)) + data)
        miso = b""
        while len(miso) < len(data):
            chunk = self._sock.recv(len(data) - len(miso))
            if not chunk:
                raise OSError("the simulated table went away")
            miso += chunk
        return list(miso)

    def xfer(self, values, speed_hz=0, delay_usec=0, bits_per_word=0):
        return self._transfer(values, speed_hz)

    xfer2 = xfer3 = xfer

    def writebytes(self, values):
        self._transfer(values)

    writebytes2 = writebytes

    def readbytes(self, length):
        return self._transfer(bytes(length))
'''
_HEADER = struct.Struct("<BBII")


class SpiTable:
    """The readers of ``zones`` (each a (bus, device) of the Pi's SPI) on a socket at ``path``."""

    def __init__(self, path: Path, zones: list[tuple[int, int]]) -> None:
        self.path = path
        self.zones = zones
        self.site = path.with_name(path.name + "-site")  # where the drop-in spidev module lies
        self.tags: dict[bytes, companion.sim.Ntag213] = {}
        self.lock = threading.Lock()
        self._server: socket.socket | None = None

    def environment(self) -> dict[str, str]:
        """What a process needs to reach the table: the drop-in first on its path, and the socket."""
        return {"PYTHONPATH": str(self.site), "COMPANION_SPI_TABLE": str(self.path)}

    def start(self) -> None:
        companion.sim.reset()
        self.site.mkdir(exist_ok=True)
        (self.site / "spidev.py").write_text(SPIDEV_SHIM)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen()
        threading.Thread(target=self._accept, args=(self._server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the journey is over
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        devices: dict[tuple[int, int], SpiDev] = {}
        with connection:
            while True:
                header = self._read(connection, _HEADER.size)
                if header is None:
                    return
                bus, device, speed, length = _HEADER.unpack(header)
                data = self._read(connection, length)
                if data is None:
                    return
                with self.lock:
                    dev = devices.get((bus, device)) or devices.setdefault((bus, device), SpiDev(bus, device))
                    miso = bytes(dev.xfer2(list(data), speed))
                connection.sendall(miso)

    @staticmethod
    def _read(connection: socket.socket, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = connection.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def put(self, zone: int, uid: bytes) -> None:
        with self.lock:
            tag = self.tags.setdefault(uid, companion.sim.Ntag213(uid))
            companion.sim.field(*self.zones[zone]).add(tag)

    def take(self, zone: int, uid: bytes) -> None:
        with self.lock:
            companion.sim.field(*self.zones[zone]).remove(self.tags[uid])

    def memory(self, uid: bytes) -> bytes:
        with self.lock:
            return bytes(self.tags[uid].memory)

    def transactions(self, zone: int) -> int:
        """SPI transactions the zone's reader has had: it is polled while they grow."""
        with self.lock:
            return int(companion.sim.reader(*self.zones[zone]).transactions)

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self.path.unlink(missing_ok=True)
        companion.sim.reset()
