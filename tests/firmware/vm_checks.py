"""Firmware checks that run inside the real MicroPython VM (``firmware/vm/run.mjs``), and in CPython to compare.

In the VM, ``main()`` decodes and encodes every shared test vector, and replays a scan of three zones recorded
on the chip simulator in CPython: the driver must send the very SPI bytes it sent there (``Replay`` refuses any
other) and the scanner must make the same frames. It prints one JSON line for the test to compare.
"""

import json

import protocol

CHIP_SELECTS = (0, 1, 2)  # zone 0, 1 and 2 of the scenario; nothing answers on the third
CYCLES = 6  # the card taken off at cycle 3 is missed by 3 scans (scanner.LIFT_SCANS) by the last


def check_vectors(vectors):
    namespace = {name: getattr(protocol, name) for name in dir(protocol)}
    results = {}
    for vector in vectors:
        decoder = protocol.FrameDecoder()
        frames = [[seq, repr(message)] for seq, message in decoder.feed(bytes.fromhex(vector["hex"]))]
        encoded = None
        if vector.get("encodes"):
            seq, text = vector["frames"][0]
            encoded = protocol.encode_frame(seq, eval(text, namespace)).hex()
        counts = {name: n for name, n in decoder.counts.items() if n and name != "frames"}
        results[vector["name"]] = {"frames": frames, "counts": counts, "encoded": encoded}
    return results


def scan_frames(between):
    """Start the readers, scan every zone ``CYCLES`` times (``between(cycle)`` first), end with a snapshot."""
    import machine
    from rc522 import RC522, machine_transfer
    from scanner import Scanner

    spi = machine.SPI(0, baudrate=4000000)
    readers = [RC522(machine_transfer(spi, machine.Pin(gpio, machine.Pin.OUT, value=1))) for gpio in CHIP_SELECTS]
    scanner = Scanner(readers)
    messages = list(scanner.start())
    for cycle in range(CYCLES):
        between(cycle)
        for zone in range(len(readers)):
            messages.extend(scanner.scan_zone(zone))
    messages.append(scanner.snapshot())
    return [protocol.encode_frame(seq, message).hex() for seq, message in enumerate(messages)]


class _ChipSelect:
    def __init__(self, bus, gpio):
        self.bus = bus
        self.gpio = gpio

    def value(self, level):
        self.bus.selected = None if level else self.gpio

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class Replay:
    """An SPI bus that answers from a transcript of ``[gpio selected, bytes out, bytes in]``, checking each."""

    def __init__(self, transcript):
        self.transcript = transcript
        self.selected = None
        self.done = 0

    def chip_select(self, gpio):
        return _ChipSelect(self, gpio)

    def write_readinto(self, write_buf, read_buf):
        if self.done >= len(self.transcript):
            raise AssertionError(f"transfer {self.done} is beyond the {len(self.transcript)} recorded")
        gpio, out, answer = self.transcript[self.done]
        if gpio != self.selected or bytes(write_buf).hex() != out:
            sent = bytes(write_buf).hex()
            raise AssertionError(f"transfer {self.done}: sent {sent} to GP{self.selected}, recorded {out} to GP{gpio}")
        read_buf[:] = bytes.fromhex(answer)
        self.done += 1


def main():
    import machine

    with open("/data/vectors.json") as f:
        vectors = json.load(f)["vectors"]
    with open("/data/transcript.json") as f:
        transcript = json.load(f)
    replay = Replay(transcript)
    machine.attach(replay, {gpio: replay.chip_select(gpio) for gpio in CHIP_SELECTS})
    frames = scan_frames(lambda cycle: None)
    print(json.dumps({"vectors": check_vectors(vectors), "scan": frames, "transfers": replay.done}))


if __name__ == "__main__":
    main()
