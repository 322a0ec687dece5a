"""The daemon: from a ``ZoneScan`` entering the table to the LED pin changing and the screen frame leaving, over a
whole simulated game (p50 and p99); scan to LED while a frame is on the I2C bus; scan to LED while the table speaks
every ruling aloud, against the same run silent; start-up to the first scan, and peak memory.

The game is the demo's (robot players, simulated readers, mock pins, the real ssd1306 driver on a fake I2C bus),
with every scan that changes something timed in-process. Scan to LED during a frame runs the service itself
(asyncio, the readers' thread, the screen's thread) on a fake bus that takes the time its bytes take at 100 and
400 kHz, and times each scan from the reader thread's hand-off to the LED pin; with ``[speech] level = "all"`` the
voice's thread renders every refusal with espeak-ng and plays it with aplay on ALSA's ``null`` PCM (which takes the
samples at once: the voice is never idle, the worst case for the loop), rounds of it interleaved with silent ones;
beside that wall-clock pair, the CPU time the voice takes on the table's loop per event (``time.thread_time`` around
its ``hear``: all the LED path waits for), on its own thread per sentence, and in espeak-ng and aplay (the children's
rusage), which a busy machine does not change.
Start-up and memory are taken from a process of their own, as systemd would start it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest.mock
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.config import parse_config
from companion.daemon import Daemon
from companion.demo import Demo
from companion.events import ZoneScan
from companion.journal import Entry, Journal
from companion.nfc.backends import ReaderBackend
from companion.sim.oled import FakeI2CBus
from companion.speech import Speaker
from companion.speech.queue import Queue
from companion.speech.sentences import utterances
from companion.table import Table
from companion.ui.display import Screen, i2c_write_s, make_device

STARTUP = textwrap.dedent(
    """
    import time
    t0 = float({t0!r})
    import asyncio, resource, shutil, tempfile
    from pathlib import Path
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from companion.config import parse_config
    from companion.daemon import Daemon
    from companion.table import Table
    folder = Path(tempfile.mkdtemp())
    text = f'[readers]\\nbackend = "sim"\\nregistry = "{{folder}}/r.toml"\\n[journal]\\npath = "{{folder}}/j.db"\\n'
    config = parse_config(text, "bench")
    stop = asyncio.Event()
    first = []
    scan = Table.scan
    def timed(self, *args):
        if not first:
            first.append(time.time() - t0)
            stop.set()
        return scan(self, *args)
    Table.scan = timed
    from companion.sim.oled import FakeI2CBus
    from companion.ui.display import make_device
    daemon = Daemon(config, pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin),
                    display=make_device([], bus=FakeI2CBus()))
    asyncio.run(daemon.run(stop))
    shutil.rmtree(folder, ignore_errors=True)
    print(first[0])
    """
)


def game_latencies(game: str) -> tuple[list[float], list[float], int, int]:
    """Per changing scan: seconds until the LEDs were set, and until the screen frame was sent; the count of
    scans, and of scans that wrote to the journal first (6º SET's zone registrations: a disk sync each)."""
    to_led: list[float] = []
    to_frame: list[float] = []
    scans = 0
    writes = [0]
    synced = [0]
    original = Table.scan
    append = Journal.append

    def counted(self: Journal, game_id: int, entry: Entry) -> None:
        writes[0] += 1
        append(self, game_id, entry)

    def timed(self: Table, scan: ZoneScan, now: float) -> None:
        nonlocal scans
        scans += 1
        before = writes[0]
        marks: dict[str, float] = {}
        outputs = self.outputs
        self.outputs = [_Mark(output, name, marks) for output, name in zip(outputs, ("led", "frame"), strict=True)]
        start = time.perf_counter()
        try:
            original(self, scan, now)
        finally:
            self.outputs = outputs
        if marks:
            to_frame.append(marks["frame"] - start)
            to_led.append(marks["led"] - start)
            synced[0] += writes[0] > before

    Table.scan = timed  # type: ignore[method-assign]
    Journal.append = counted  # type: ignore[method-assign]
    try:
        Demo(game=game, seed=3, out=lambda line: None, bus=_Bus()).run()
    finally:
        Table.scan = original  # type: ignore[method-assign]
        Journal.append = append  # type: ignore[method-assign]
    return to_led, to_frame, scans, synced[0]


class _Bus:
    """An I2C bus that takes the driver's bytes as a real one does and keeps only their count: the frame has
    left for the display when the driver's last write returns. (The tests' FakeI2CBus decodes every byte back
    into a picture, which is the test's work, not the table's.)"""

    def __init__(self) -> None:
        self.bytes = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.bytes += len(data)


class _Mark:
    def __init__(self, output: Any, name: str, marks: dict[str, float]) -> None:
        self.output, self.name, self.marks = output, name, marks

    def show(self, view: Any, now: float) -> None:
        self.output.show(view, now)
        self.marks[self.name] = time.perf_counter()


def scan_to_led_during_frames(hz: int, background: bool, changes: int = 120, seed: int = 5) -> tuple[list[float], int]:
    """For each scan that changed the LED while a frame was half sent: seconds from its hand-off to its LED; and
    how many of those LEDs waited for that frame to end. ``background`` False draws on the loop, as the daemon
    did before the screen had its thread. Every frame is whole (luma's full_frame): the worst case."""
    timed = scan_to_led_in_service(hz, background, changes, seed)
    during = [(latency, waited) for latency, waited in timed if waited is not None]
    return [latency for latency, _ in during], sum(waited for _, waited in during if waited)


Beside = Callable[[Daemon], AbstractAsyncContextManager[object]]


def scan_to_led_in_service(
    hz: int, background: bool = True, changes: int = 120, seed: int = 5, extra: str = "", beside: Beside | None = None
) -> list[tuple[float, bool | None]]:
    """For each scan that changed the LED, in the service itself (asyncio, the readers' thread, the screen's
    thread, mock pins, the real ssd1306 driver on a bus that takes its bytes' time at ``hz``): seconds from the
    readers' thread handing it over to its LED pin, and whether the LED waited for a frame that was half sent
    then (None: no frame was). A wrong card is laid on z1 and lifted ``changes`` times, 10 to 60 ms apart, from a
    thread of the player's own. ``extra`` is added to the config; ``beside(daemon)`` is entered once the readers
    are up, and left once the player is done (what else the service does meanwhile, such as serving pages)."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    text = (
        f'[readers]\nbackend = "sim"\nregistry = "{folder}/r.toml"\npoll_interval_ms = 5\nabsences = 1\n'
        f'[journal]\npath = "{folder}/j.db"\n{extra}'
    )
    bus = FakeI2CBus(hz=hz, realtime=True)
    daemon = Daemon(
        parse_config(text, "bench"),
        pin_factory=MockFactory(revision="c03111", pin_class=MockPWMPin),
        display=make_device(["--framebuffer", "full_frame"], bus=bus),
    )
    handed: dict[int, tuple[float, int | None]] = {}  # scan -> when the readers' thread handed it over, and the
    # bus's frame count then if a frame was half sent
    timed: list[tuple[float, bool | None]] = []
    original = Table.scan

    def timed_scan(self: Table, scan: ZoneScan, now: float) -> None:
        handed_at, frames = handed.pop(id(scan), (0.0, None))
        marks: dict[str, float] = {}
        outputs = self.outputs
        self.outputs = [_Mark(outputs[0], "led", marks), *outputs[1:]]
        try:
            original(self, scan, now)
        finally:
            self.outputs = outputs
        if marks:
            timed.append((marks["led"] - handed_at, None if frames is None else bus.frames > frames))

    def player(done: asyncio.Event, loop: asyncio.AbstractEventLoop) -> None:
        rng = random.Random(seed)
        readers: Any = daemon._readers
        for change in range(changes):
            time.sleep(rng.uniform(0.010, 0.060))
            if change % 2 == 0:
                readers.put("1C", "z1")  # not the 6 of oros: the zone blinks red
            else:
                readers.take("1C")  # and goes dark
        time.sleep(0.3)
        loop.call_soon_threadsafe(done.set)

    async def run() -> None:
        stop, done = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        while daemon._readers is None:
            await asyncio.sleep(0.01)
        async with beside(daemon) if beside is not None else contextlib.nullcontext():
            threading.Thread(target=player, args=(done, asyncio.get_running_loop()), daemon=True).start()
            await done.wait()
        stop.set()
        await task

    def on_the_loop(device: Any, **options: Any) -> Screen:
        return Screen(device, **(options | {"background": False}))

    start = ReaderBackend.start

    def timed_start(self: ReaderBackend, emit: Any, *args: Any) -> None:
        def marked(scan: ZoneScan) -> None:
            handed[id(scan)] = (time.perf_counter(), bus.frames if bus.in_frame else None)
            emit(scan)

        start(self, marked, *args)

    Table.scan = timed_scan  # type: ignore[method-assign]
    try:
        with (
            unittest.mock.patch("companion.daemon.Screen", Screen if background else on_the_loop),
            unittest.mock.patch.object(ReaderBackend, "start", timed_start),
        ):
            asyncio.run(run())
    finally:
        Table.scan = original  # type: ignore[method-assign]
        shutil.rmtree(folder, ignore_errors=True)
    return timed


SPEECH_ALL = '[speech]\nlevel = "all"\ndevice = "null"\n'  # ALSA's null PCM: any machine has it


@dataclass
class SpeechCost:
    """CPU time the voice took, by thread: figures that do not depend on how busy the machine is (a busy machine
    stretches the wall-clock p99, not the CPU a piece of work needs)."""

    events: dict[str, int] = field(default_factory=lambda: {"off": 0, "all": 0})  # events the voice heard
    loop_s: dict[str, float] = field(default_factory=lambda: {"off": 0.0, "all": 0.0})  # its CPU on the loop
    wording_s: dict[str, float] = field(default_factory=lambda: {"off": 0.0, "all": 0.0})  # of which: the words
    queued: int = 0  # sentences put in the queue (speech all)
    said: int = 0  # sentences the voice's thread rendered and played
    thread_s: float = 0.0  # the voice's thread's own CPU (spawning, passing the bytes)
    children_s: float = 0.0  # espeak-ng's and aplay's CPU (the children's rusage)


def scan_to_led_with_speech(rounds: int = 5, hz: int = 400_000) -> tuple[list[float], list[float], SpeechCost]:
    """Seconds from hand-off to LED for each scan that changed it: with the voice off, and with it saying
    everything (rounds interleaved, the same seeds); and the CPU the voice took: on the table's loop (its
    ``hear``, per event: all the LED path ever waits for), on its own thread, and in its programs."""
    off: list[float] = []
    on: list[float] = []
    cost = SpeechCost()
    mode = ["off"]
    hear, say, put, word = Speaker.hear, Speaker._say, Queue.put, utterances

    def timed_words(*args: Any) -> Any:
        start = time.thread_time()
        try:
            return word(*args)
        finally:
            cost.wording_s[mode[0]] += time.thread_time() - start

    def timed_hear(self: Speaker, *args: Any) -> None:
        start = time.thread_time()
        try:
            hear(self, *args)
        finally:
            cost.loop_s[mode[0]] += time.thread_time() - start
            cost.events[mode[0]] += 1

    def timed_say(self: Speaker, utterance: Any) -> None:
        start = time.thread_time()
        try:
            say(self, utterance)
        finally:
            cost.thread_s += time.thread_time() - start
            cost.said += 1

    def counted_put(self: Queue, utterance: Any) -> None:
        cost.queued += 1
        put(self, utterance)

    def children() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    with (
        unittest.mock.patch.object(Speaker, "hear", timed_hear),
        unittest.mock.patch.object(Speaker, "_say", timed_say),
        unittest.mock.patch.object(Queue, "put", counted_put),
        unittest.mock.patch("companion.speech.speaker.utterances", timed_words),
    ):
        for round_ in range(rounds):  # which goes first alternates: neither gets the quieter half of a round
            for extra in ("", SPEECH_ALL) if round_ % 2 == 0 else (SPEECH_ALL, ""):
                mode[0] = "all" if extra else "off"
                before = children()
                timed = [latency for latency, _ in scan_to_led_in_service(hz, seed=5 + round_, extra=extra)]
                if extra:
                    cost.children_s += children() - before
                (on if extra else off).extend(timed)
    return off, on, cost


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1] if len(values) > 1 else values[0]


def startup_and_memory() -> tuple[float, float]:
    """Seconds from the process's start to the first scan reaching the table; peak memory (MB) of a whole game."""
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", STARTUP.format(t0=t0)], capture_output=True, text=True, check=True)
    startup = float(out.stdout.split()[-1])
    peak = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource; from companion.demo import Demo; Demo(game='seises', seed=3, out=lambda s: None).run();"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return startup, int(peak.stdout.split()[-1]) / 1024


def main() -> None:
    print("## Daemon (python -m bench daemon)")
    for game in ("seises", "sexto-set"):
        to_led, to_frame, scans, synced = game_latencies(game)
        led = [percentile(to_led, p) * 1e3 for p in (50, 99)]
        frame = [percentile(to_frame, p) * 1e3 for p in (50, 99)]
        print(f"{game}: {scans} scans, {len(to_led)} changed something, {synced} of them wrote the journal first")
        print(f"  scan to LED: p50 {led[0]:.2f} ms, p99 {led[1]:.2f} ms (goal p99 under 2 ms)")
        print(f"  scan to screen frame: p50 {frame[0]:.2f} ms, p99 {frame[1]:.2f} ms (goal p99 under 2 ms)")
    for hz in (100_000, 400_000):
        frame_ms = i2c_write_s(1024, hz) * 1e3
        print(f"scan to LED while a full frame is on the I2C bus at {hz // 1000} kHz ({frame_ms:.1f} ms on the Pi):")
        for background, how in (
            (False, "frames drawn on the loop (before)"),
            (True, "frames from the screen's thread"),
        ):
            times, waited = scan_to_led_during_frames(hz, background)
            ms = [t * 1e3 for t in times]
            print(
                f"  {how}: {len(ms)} scans, LED after that frame ended in {waited}; p50 {percentile(ms, 50):.2f} ms, "
                f"p99 {percentile(ms, 99):.2f} ms (goal: p99 under 2 ms, no LED waits for a frame)"
            )
    off, on, cost = scan_to_led_with_speech()
    p99 = {name: percentile([t * 1e3 for t in times], 99) for name, times in (("off", off), ("all", on))}
    for name, times in (("off", off), ("all", on)):
        ms = [t * 1e3 for t in times]
        late = sum(m > 5 for m in ms)
        print(
            f"scan to LED, speech {name}: {len(ms)} scans, p50 {percentile(ms, 50):.2f} ms, p99 {p99[name]:.2f} ms, "
            f"over 5 ms: {late}"
        )
    print(
        f"  p99 added by the voice ({cost.said} sentences rendered and played meanwhile): "
        f"{p99['all'] - p99['off']:+.2f} ms (goal: at most 5 ms above speech off's; it moves with the machine's load)"
    )
    print("  the voice's CPU time, by thread (does not move with the load):")
    for name in ("off", "all"):
        events = max(cost.events[name], 1)
        per, words = cost.loop_s[name] / events * 1e6, cost.wording_s[name] / events * 1e6
        print(
            f"    on the table's loop, after the LED, speech {name}: {per:.0f} us per event ({cost.events[name]} "
            f"events), of which wording {words:.0f} us and queueing {per - words:.0f} us"
        )
    print(
        f"    {cost.queued} sentences queued, one queue operation each; "
        f"the voice's thread: {cost.thread_s / max(cost.said, 1) * 1e3:.1f} ms per sentence said; "
        f"espeak-ng and aplay: {cost.children_s / max(cost.said, 1) * 1e3:.1f} ms per sentence"
    )
    startup, peak = startup_and_memory()
    print(
        f"start-up to first scan: {startup:.2f} s (goal under 1.5 s); peak memory over a game: {peak:.0f} MB (goal 60)"
    )


if __name__ == "__main__":
    main()
