"""The builder's journey, as the README's "At the table" tells it, walked on simulated hardware, for each table
layout of hardware/zones.toml (the README's own, and the others by putting their name where it says
``seises-hub-4``, as it tells a builder to; on the Pi alone, skipping the hub's flash as it says).

Every command of that section's shell block is run, in its order, as a real process: ``sudo make install`` into a
temporary root (``DESTDIR``: the real ``systemd/install.sh`` and a real virtual environment that pip fills, as on
the Pi), the layout's pin map copied, the config edited with the keys of the layout's ``config.toml`` (the README's
TOML block for its layout: a test holds them equal), the hub flashed with the layout's ``hub_config.py`` (the
hub's firmware on simulated readers at the far end of a pty, as in ``tests/hub``, booted from that file: its own
check runs, and its CHIP_SELECTS say how many readers there are), ``companion run --check`` on it, a whole deck
enrolled through the hub while the enroll command asks for each card, each laid on the pad the layout's mat names
for it (a Seises card on its suit's, 6º SET's on the first), the service started from the installed unit's own
``ExecStart=`` (read from the unit, never retyped, with its ``WorkingDirectory=``, ``Environment=`` and
``StateDirectory=``, and ``READY=1`` awaited on ``NOTIFY_SOCKET``, as systemd does), a hand of Seises (or a set
of 6º SET, each card on its line's pad) played by laying cards on the hub's zones and pressing the buttons, the
service stopped with the unit's ``KillSignal=``, and the game read back from ``companion history``. A command in
that section that this test cannot run fails it, so the README and the test cannot drift apart.

What the temporary root changes, and nothing else: an absolute path in a command, the unit or the config is taken
inside the root (as a chroot would), ``sudo`` and ``sudo -u companion`` run as this user, and what simulated
hardware needs is added as a systemd drop-in or the config would add it: ``hub_port`` names the simulated hub's pty
(by the name the udev rule gives a real hub), and the unit's environment gets ``GPIOZERO_PIN_FACTORY=mock`` and
``COMPANION_PRESSES``, the named pipe through which this process presses the buttons (``companion/ui/presses.py``).
On the Pi alone the service and the enroll command also get a ``spidev`` drop-in on their ``PYTHONPATH`` whose
transfers reach this process's simulated readers, at the bus and device the layout's pin map wires
(``spi_table.py``).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import signal
import socket
import subprocess
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from machines import machine, spanish_locale
from one_language import foreign_lines
from seises_pads import seises_pad
from spi_table import SpiTable
from systemd_units import unit_settings

from companion.config import parse_config
from companion.decks import load_deck
from companion.games import find_kind
from companion.games.seises.rules import Pay, Seises
from companion.games.sexto_set.rules import SextoSet
from companion.hardware import HARDWARE_DIR, Layout, load_layouts, load_pinmap
from companion.hub.protocol import COLOURS, MODES
from companion.hub.simulated import HubStatus, SimulatedHub
from companion.nfc.ndef import card_id_from_ndef
from companion.rules import Pass, Play

ROOT = Path(__file__).resolve().parents[2]
README_LAYOUT = "seises-hub-4"  # the layout the README's "At the table" walks through
GREEN = (COLOURS.index("green"), MODES.index("steady"))
PAYS_AT = 2  # the seat of the second turn says it cannot play: PASS, then CONFIRM
UNDONE_AT = 3  # the third action is taken back (UNDO held) and played again


def at_the_table(readme: str) -> tuple[list[str], dict[str, Any]]:
    """The commands of the README's "At the table" (its ``sh`` block, one a line, comments dropped) and the config
    keys it says to set (its ``toml`` block)."""
    section = readme.split("\n## At the table\n", 1)[1].split("\n## ", 1)[0]
    shell = re.search(r"```sh\n(.*?)```", section, re.S)
    keys = re.search(r"```toml\n(.*?)```", section, re.S)
    assert shell and keys, "At the table: a sh block of commands and a toml block of the config's keys"
    commands = [line.split(" #", 1)[0].strip() for line in shell.group(1).splitlines()]
    return [command for command in commands if command], tomllib.loads(keys.group(1))


def layout_keys(name: str) -> dict[str, Any]:
    """The config keys of the layout ``name``, as its own file gives them."""
    return tomllib.loads((HARDWARE_DIR / "layouts" / name / "config.toml").read_text("utf-8"))


def commands_for(name: str) -> list[str]:
    """The README's commands for the layout ``name``: its name where the README's layout's stands."""
    commands, _ = at_the_table((ROOT / "README.md").read_text("utf-8"))
    return [command.replace(README_LAYOUT, name) for command in commands]


def set_keys(text: str, keys: dict[str, dict[str, Any]]) -> str:
    """The config ``text`` with every key of ``keys`` (table -> key -> value) set as a person edits it: a key's value
    is changed where it is (its comment kept), a key that is not there is added at the end of its table."""
    left = {table: dict(values) for table, values in keys.items()}
    lines: list[str] = []

    def add_what_is_left(table: str) -> None:
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in left.pop(table, {}).items())

    table = ""
    for line in text.splitlines():
        header, key = re.match(r"\[([\w.]+)\]", line), re.match(r"(\w+)\s*=[^#]*?(\s+#.*)?$", line)
        if header:
            add_what_is_left(table)
            table = header.group(1)
        elif key and key.group(1) in left.get(table, {}):
            line = f"{key.group(1)} = {json.dumps(left[table].pop(key.group(1)))}{key.group(2) or ''}"
        lines.append(line)
    add_what_is_left(table)
    for table in list(left):
        lines.append(f"[{table}]")
        add_what_is_left(table)
    return "\n".join(lines) + "\n"


def terminal_lines(fd: int, process: subprocess.Popen[bytes], timeout: float) -> Iterator[str]:
    """The lines a program writes to its terminal (the pty's master side ``fd``) until it closes it."""
    end, pending = time.monotonic() + timeout, b""
    while time.monotonic() < end:
        if not select.select([fd], [], [], 0.5)[0]:
            if process.poll() is not None:
                return
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the program has closed its terminal
            return
        if not data:
            return
        *lines, pending = (pending + data).split(b"\n")
        yield from (line.decode("utf-8", "replace").rstrip("\r") for line in lines)
    pytest.fail(f"{process.args} did not finish within {timeout} s")


def await_true(check: Callable[[], bool], what: Callable[[], str], timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, what()
        time.sleep(0.01)


class Journey:
    """The temporary root with the hub plugged in, and the service when it runs. :meth:`run` carries out one
    command of the README as it is meant on the Pi; what each printed is kept in ``printed``."""

    def __init__(self, root: Path, layout: Layout, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.layout = layout
        self.env = dict(os.environ) if env is None else env  # the machine's (tests/machines.py)
        self.keys = layout_keys(layout.name)
        self.hub = SimulatedHub(self.inside("/dev/companion-hub"))  # plugged in when flashed
        self.table: SpiTable | None = None  # the Pi alone's readers, wired as the layout's pin map says
        if not layout.on_hub:
            pins = load_pinmap(HARDWARE_DIR / "layouts" / layout.name / "pinmap.toml").zones
            wired = [pins[zone].reader for zone in layout.zones]
            self.table = SpiTable(root / "spi", [(r.spi_port, r.spi_device) for r in wired if r is not None])
        self.presses = root / "presses"
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(root / "notify"))
        self.notices: list[str] = []
        self.service: subprocess.Popen[str] | None = None
        self.kill_signal = signal.SIGTERM
        self.log: list[str] = []  # the service's stderr: what journalctl -u companion shows
        self.tags: dict[str, bytes] = {}  # each card's tag UID, as enrolled
        self.deck = load_deck(find_kind(layout.game).default_deck)
        self.game: Any = (  # what the players did, through the engine
            Seises(players=self.keys["game"]["players"]) if layout.game == "seises" else SextoSet(deck=self.deck)
        )
        self.entries: list[str] = []  # what the journal should hold, as the service logs it: "action play 6O"
        self.printed: dict[str, str] = {}

    def inside(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def rooted(self, word: str) -> str:
        return str(self.inside(word)) if word.startswith("/") else word

    def run(self, command: str) -> None:
        for part in command.split(" && "):
            words = shlex.split(part)
            if words[0] == "sudo":
                words = words[3:] if words[1] == "-u" else words[1:]
            if words == ["make", "install"]:
                self.install()
            elif words[:2] == ["make", "firmware-deploy"] and words[2].startswith("HUB_CONFIG="):
                if self.table is None:  # on the Pi alone there is no hub: the README says to skip it
                    self.flash(ROOT / words[2].split("=", 1)[1])
            elif words[0] == "cp":
                self.inside(words[2]).write_bytes((ROOT / words[1]).read_bytes())
            elif words[0] == "nano":
                self.configure(self.inside(words[1]))
            elif words == ["systemctl", "start", "companion"]:
                self.start()
            elif words == ["systemctl", "stop", "companion"]:
                self.stop()
            elif words == ["journalctl", "-u", "companion", "-f"]:
                if self.layout.game == "seises":  # while the log is followed, the players play
                    self.play_a_hand()
                else:
                    self.play_a_set()
            elif words[0] == "companion":
                self.companion(words[1:])
            else:
                pytest.fail(f"README, At the table: {part!r} is a command this journey does not know how to run")

    def install(self) -> None:
        done = subprocess.run(
            ["make", "install"],
            cwd=ROOT,
            env={**self.env, "DESTDIR": str(self.root)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        self.printed["make install"] = done.stdout
        self.inside("/dev").mkdir()
        if self.table is not None:
            self.table.start()  # the readers under the pads, wired to the Pi

    def readers(self) -> Any:
        """Where the cards are laid: the hub, or the Pi alone's readers."""
        return self.hub if self.table is None else self.table

    def sim_environment(self) -> dict[str, str]:
        """What the simulation's drop-in adds to a process on the Pi alone: its readers, and mock pins."""
        return {} if self.table is None else {**self.table.environment(), "GPIOZERO_PIN_FACTORY": "mock"}

    def flash(self, hub_config: Path) -> None:
        """``make firmware-deploy HUB_CONFIG=...``: the hub's board gets the firmware and that file, and boots (its
        check_config runs); plugged in, the udev rule's name for it is a link to the pty."""
        self.hub.stop()
        self.hub.hub_config = hub_config
        self.hub.start()

    def zone_of(self, card: str) -> int:
        """The hub zone of the pad the layout's mat names for a Seises ``card``; 6º SET enrolls on its first."""
        if self.layout.game != "seises":
            return 0
        return self.layout.zones.index(seises_pad(self.layout, card[-1], int(card[:-1])).zone)

    def configure(self, path: Path) -> None:
        # The one key the simulation adds: the hub by the name the udev rule gives it ("auto" looks there too).
        keys = {**self.keys, "readers": {**self.keys["readers"], "hub_port": "/dev/companion-hub"}}
        text = set_keys(path.read_text(), keys)
        path.write_text(re.sub(r'^(\w+\s*=\s*")/', rf"\g<1>{self.root}/", text, flags=re.M))

    def companion(self, args: list[str]) -> None:
        """The installed command: ``/usr/local/bin/companion``, a link into the installed environment."""
        argv = [self.rooted(os.readlink(self.inside("/usr/local/bin/companion"))), *map(self.rooted, args)]
        name = " ".join(arg for arg in args if not arg.startswith("/") and arg != "--config")  # "run --check"
        if args[0] == "enroll":
            self.printed[name] = self.enroll(argv)
            return
        done = subprocess.run(
            argv, cwd=self.root, env=self.env, capture_output=True, text=True, check=False, timeout=60
        )
        assert done.returncode == 0, f"companion {' '.join(args)}:\n{done.stdout}{done.stderr}"
        self.printed[name] = done.stdout

    def enroll(self, argv: list[str]) -> str:
        """The enroll command on a terminal (a pty, as a person runs it): each card it names is laid on its suit's
        zone, and the card before taken off."""
        names = {card.name("es"): card.id for card in self.deck}
        master, terminal = pty.openpty()
        env = {**self.env, **self.sim_environment()}
        process = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal, cwd=self.root, env=env)
        os.close(terminal)
        seen: list[str] = []
        laid: tuple[int, bytes] | None = None
        try:
            for line in terminal_lines(master, process, timeout=120):
                seen.append(line)
                if " pon " in line:  # the config's game.language is Spanish: so is the command line
                    card = names[line.split(" pon ", 1)[1].rsplit(" (", 1)[0]]
                    if laid is not None:
                        self.readers().take(*laid)
                    self.tags[card] = bytes((0x04, 0xE0, len(self.tags), 0x10, 0x20, 0x30, 0x40))
                    laid = (self.zone_of(card), self.tags[card])
                    self.readers().put(*laid)
        finally:
            os.close(master)
        assert process.wait(10) == 0, "\n".join(seen)
        if laid is not None:
            self.readers().take(*laid)
        return "\n".join(seen)

    def start(self) -> None:
        """What systemd does for ``systemctl start companion``, from the installed unit."""
        unit = unit_settings(self.inside("/etc/systemd/system/companion.service").read_text())
        assert unit["Type"] == ["notify"], "READY=1 is awaited as systemd awaits it for Type=notify"
        for state in unit["StateDirectory"]:
            self.inside(f"/var/lib/{state}").mkdir(parents=True, exist_ok=True)
        environment = dict(pair.split("=", 1) for value in unit["Environment"] for pair in shlex.split(value))
        (exec_start,) = unit["ExecStart"]
        self.kill_signal = signal.Signals[unit["KillSignal"][0]]
        self.service = subprocess.Popen(
            [self.rooted(word) for word in shlex.split(exec_start)],
            cwd=self.rooted(unit["WorkingDirectory"][0]),
            env={
                **self.env,
                **environment,
                "NOTIFY_SOCKET": str(self.root / "notify"),
                "GPIOZERO_PIN_FACTORY": "mock",  # the simulation's drop-in: no GPIO chip here
                "COMPANION_PRESSES": str(self.presses),
                **self.sim_environment(),
            },
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._follow_the_log, args=(self.service,), daemon=True).start()
        self.await_notice("READY=1")

    def _follow_the_log(self, service: subprocess.Popen[str]) -> None:
        assert service.stderr is not None
        self.log.extend(service.stderr)

    def await_notice(self, notice: str, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while notice not in self.notices:
            self.notify.settimeout(max(0.01, min(0.5, end - time.monotonic())))
            try:
                self.notices += self.notify.recv(4096).decode().splitlines()
            except TimeoutError:
                assert self.service is None or self.service.poll() is None, "".join(self.log)
                assert time.monotonic() < end, f"no {notice} from the service:\n{''.join(self.log)}"

    def stop(self) -> None:
        """``systemctl stop companion``: the unit's ``KillSignal=``, and the service's exit."""
        if self.service is None:
            return  # not running: under DESTDIR the installer starts nothing
        self.service.send_signal(self.kill_signal)
        assert self.service.wait(10) == 0, "".join(self.log)
        self.await_notice("STOPPING=1", timeout=1)
        self.service = None

    def press(self, *buttons: str) -> None:
        with self.presses.open("w") as pipe:
            pipe.write("".join(f"{button}\n" for button in buttons))

    def logged(self) -> list[str]:
        """The journal entries the service has logged as written (``game 1: action play 6O``), in order."""
        return [line.split("game 1: ", 1)[1].strip() for line in self.log if "game 1: " in line]

    def await_entry(self, entry: str) -> None:
        self.entries.append(entry)
        await_true(lambda: self.logged() == self.entries, lambda: f"no {entry!r}:\n{''.join(self.log[-20:])}")

    def await_zone(self, zone: int, check: Callable[[HubStatus], bool], what: str) -> None:
        await_true(lambda: check(self.hub.status()), lambda: f"zone z{zone + 1}: {what}")

    def play_card(self, zone: int, card: str, play: Play) -> None:
        """``card`` laid on ``zone``, CONFIRM once the zone says it waits for it, lifted once the play is logged.
        On the hub its LED shows it; the Pi alone's LEDs are mock pins in the service, so there the card is left
        for some polls of its reader and CONFIRM pressed again while the play is not logged."""
        uid = self.tags[card]
        if self.table is None:
            self.hub.put(zone, uid)
            self.await_zone(zone, lambda hub: hub.leds[zone] == GREEN, f"{card} laid, no green LED")
            self.press("confirm")
            self.await_entry(f"action {play}")
            self.hub.take(zone, uid)
            self.await_zone(zone, lambda hub: not hub.zones[zone], f"{card} taken off, still seen")
            return
        self.table.put(zone, uid)
        self.await_polls(zone)
        self.entries.append(f"action {play}")
        for _ in range(10):
            self.press("confirm")
            end = time.monotonic() + 1.0
            while self.logged() != self.entries and time.monotonic() < end:
                time.sleep(0.01)
            if self.logged() == self.entries:
                break
        assert self.logged() == self.entries, f"no {play}:\n{''.join(self.log[-20:])}"
        self.table.take(zone, uid)
        self.await_polls(zone)

    def await_polls(self, zone: int, transactions: int = 300) -> None:
        """Until the service's reader of ``zone`` has been polled for a while (``transactions`` more on SPI)."""
        assert self.table is not None
        table, start = self.table, self.table.transactions(zone)
        await_true(lambda: table.transactions(zone) >= start + transactions, lambda: f"z{zone + 1} not polled")

    def play_a_hand(self) -> None:
        """The first hand of Seises: the seat of turn ``PAYS_AT`` pays (PASS, CONFIRM); every other turn lays the
        lowest legal card on its suit's zone, waits for the zone's LED to turn green, presses CONFIRM and takes the
        card off the reader once the service has logged the play; until a seat has laid its last card. The action
        of turn ``UNDONE_AT`` is taken back once (UNDO held) and made again."""
        game = self.game
        while game.hand == 1:
            if len(game.actions) + 1 == PAYS_AT:
                self.press("pass", "confirm")
                self.await_entry(f"action {Pay()}")
                game.push(Pay())
                continue
            card = min(game.legal_cards(), key=lambda card: (card[-1], int(card[:-1])))
            self.play_card(self.zone_of(card), card, Play(card))
            game.push(Play(card))
            if len(game.actions) == UNDONE_AT and "undo" not in self.entries:
                self.press("undo long")
                self.await_entry("undo")
                game.pop()

    def play_a_set(self) -> None:
        """A set of 6º SET: each turn places the first legal card on the pad of its line (the layout's zone whose
        role is that line's master card), waits for the green LED, presses CONFIRM and lifts the card once the
        service has logged the play; a pair with no card to place passes (PASS, CONFIRM), which ends the set."""
        game = self.game
        pads = {pad.role: index for index, pad in enumerate(self.layout.pads)}
        while game.result is None:
            play = next((action for action in game.legal_actions() if isinstance(action, Play)), None)
            if play is None:
                self.press("pass", "confirm")
                self.await_entry(f"action {Pass()}")
                game.push(Pass())
                continue
            self.play_card(pads[play.line], play.card, play)
            game.push(play)


LAYOUTS = load_layouts()
SEISES_HUB_LAYOUTS = [name for name, layout in LAYOUTS.items() if layout.game == "seises" and layout.on_hub]
SEISES_LAYOUTS = [name for name, layout in LAYOUTS.items() if layout.game == "seises"]
OTHER_HUB_LAYOUTS = [name for name, layout in LAYOUTS.items() if layout.game != "seises" and layout.on_hub]


# The README's layout walked on a machine whose locale is Spanish and on one whose locale is C (tests/machines.py),
# the others on the C one: the table speaks its config's language (game.language) on both.
WALKS = [(README_LAYOUT, "es"), *((name, "C") for name in SEISES_LAYOUTS)]


@pytest.fixture
def journey(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Journey]:
    (tmp_path / "root").mkdir()
    param = getattr(request, "param", README_LAYOUT)
    name, on = param if isinstance(param, tuple) else (param, "C")
    (tmp_path / "locales").mkdir()
    env = machine(on, spanish_locale(tmp_path / "locales") if on == "es" else {})
    walk = Journey(tmp_path / "root", LAYOUTS[name], env)
    try:
        yield walk
    finally:
        if walk.service is not None:
            walk.service.kill()
        walk.hub.stop()
        if walk.table is not None:
            walk.table.stop()
        walk.notify.close()


def test_the_readme_walks_a_layout_of_its_own_files() -> None:
    """The README's layout is one of hardware/zones.toml, its commands name that layout's files, and the keys it
    shows are that layout's config.toml: what each layout's journey runs is what the README says."""
    commands, keys = at_the_table((ROOT / "README.md").read_text("utf-8"))
    assert README_LAYOUT in LAYOUTS and README_LAYOUT in SEISES_HUB_LAYOUTS
    assert keys == layout_keys(README_LAYOUT) == LAYOUTS[README_LAYOUT].config_keys()
    named = {match for command in commands for match in re.findall(r"hardware/layouts/([\w-]+)/", command)}
    assert named == {README_LAYOUT}
    for command in commands_for("seises-hub-8"):
        for path in re.findall(r"hardware/layouts/\S+", command):
            assert (ROOT / path).is_file(), f"{command}: no {path}"


@pytest.mark.slow
@pytest.mark.parametrize("journey", WALKS, indirect=True, ids=[f"{name}-{on}" for name, on in WALKS])
def test_the_readme_journey_from_install_to_history(journey: Journey) -> None:
    for command in commands_for(journey.layout.name):
        journey.run(command)
    if journey.table is None:
        assert len(journey.hub.status().leds) == len(journey.layout.pads)  # one zone a reader, as flashed
    printed = journey.printed
    assert "installing companion and its libraries into /opt/companion/venv" in printed["make install"]
    # the config says game.language = "es": the commands that read it speak Spanish
    assert printed["run --check"].split(": ", 1)[1].startswith("bien: seises, 4 jugadores, baraja spanish-40")
    # the whole deck, each tag bound and its card id written on it by the hub
    assert printed["enroll --write-tags"].splitlines()[-1].endswith("hecho: 40 cartas de spanish-40 inscritas")
    assert len(journey.tags) == 40
    for card, uid in journey.tags.items():
        journey.readers().put(0, uid)
        assert card_id_from_ndef(journey.readers().memory(uid)[16:160]) == card
        journey.readers().take(0, uid)
    # the hand: every action committed once, in order, the undo too; the first seat to lay its last card took the pot
    game = journey.game
    assert game.hand == 2 and len(game.actions) == 37
    taken_back = f"action {game.actions[UNDONE_AT - 1]}"
    actions = [f"action {action}" for action in game.actions]
    assert journey.logged() == [*actions[:UNDONE_AT], "undo", taken_back, *actions[UNDONE_AT:]]
    points = " ".join(f"{seat}:{score}" for seat, score in enumerate(game.scores, start=1))
    assert points == "1:1 2:0 3:0 4:0"  # seat 1 laid its tenth card first, and took the one chip paid
    assert any("stopped: " in line for line in journey.log)
    (line,) = printed["history"].splitlines()
    assert re.fullmatch(rf"\s+1  \S+ \S+  Seises\s+39 entradas  puntos {points}  en juego", line), line
    # one language each, on either machine: the table's commands its config's, the installer's and the log English
    said = {command: ("en" if command == "make install" else "es") for command in printed}
    wrong = [(command, foreign_lines(printed[command], lang)) for command, lang in said.items()]
    wrong += [("journalctl -u companion", foreign_lines("".join(journey.log), "en"))]
    assert not any(lines for _, lines in wrong), [found for found in wrong if found[1]]


@pytest.mark.slow
def test_a_hub_flashed_for_another_layout_is_named_so_in_the_log(journey: Journey) -> None:
    """The flash step left out (the firmware's own hub_config.py, 8 readers, for the 4-reader layout's config): the
    service says both counts and what to flash, not "check the USB cable"."""
    for command in commands_for(README_LAYOUT)[:4]:  # installed, the pin map copied, configured, stopped
        journey.run(command)
    journey.flash(ROOT / "firmware" / "hub_config.py")
    journey.start()
    await_true(
        lambda: any("hub has 8 zones, config names 4 (z1, z2, z3, z4)" in line for line in journey.log),
        lambda: "".join(journey.log),
    )
    assert not any("USB cable" in line for line in journey.log)
    journey.stop()


@pytest.mark.slow
@pytest.mark.parametrize("journey", OTHER_HUB_LAYOUTS, indirect=True)
def test_the_readme_journey_of_a_6o_set_table(journey: Journey) -> None:
    """The same commands for the 6º SET layout: its hub flashed with 8 zones, its Squadratik deck enrolled, a set
    played line by line on the pads its mat names, and the game in the history."""
    for command in commands_for(journey.layout.name):
        journey.run(command)
    assert len(journey.hub.status().leds) == len(journey.layout.pads)
    printed = journey.printed
    assert "sexto-set" in printed["run --check"] and "squadratik" in printed["run --check"]
    deck = journey.deck
    enrolled = printed["enroll --write-tags"].splitlines()[-1]
    assert enrolled.endswith(f"hecho: {len(deck)} cartas de {deck.name} inscritas"), enrolled
    game = journey.game
    assert game.result is not None and game.set_number == 1
    assert journey.logged() == [f"action {action}" for action in game.actions]
    (line,) = printed["history"].splitlines()
    assert re.search(rf"6º SET\s+{len(game.actions)} entradas", line), line
    assert f"sets A {game.sets_won['A']} B {game.sets_won['B']}" in line and sum(game.sets_won.values()) == 1


def test_the_config_is_edited_as_a_person_edits_it() -> None:
    """The README's keys change their lines where they are; every other key and every comment stays."""
    _, keys = at_the_table((ROOT / "README.md").read_text("utf-8"))
    installed = (ROOT / "systemd" / "config.toml").read_text()
    edited = set_keys(installed, keys)
    before, after = tomllib.loads(installed), tomllib.loads(edited)
    assert after["zones"] == keys["zones"] and after["readers"]["backend"] == keys["readers"]["backend"]
    for table, values in before.items():
        for key, value in values.items():
            if key not in keys.get(table, {}):
                assert after[table][key] == value, f"{table}.{key} changed"
    comments = [line[line.index(" #") :] if " #" in line else line for line in installed.splitlines() if "#" in line]
    assert all(comment in edited for comment in comments)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_the_config_sample_takes_every_layouts_keys(name: str) -> None:
    """systemd/config.toml, edited with a layout's keys as a person edits it, is a config of that layout's table."""
    installed = (ROOT / "systemd" / "config.toml").read_text()
    assert "hardware/layouts/NAME/config.toml" in installed
    config = parse_config(set_keys(installed, layout_keys(name)), "config.toml")
    layout = LAYOUTS[name]
    assert tuple(config.zones) == layout.zones and config.zones == layout.config_keys()["zones"]
    assert config.game.name == layout.game and config.game.players == layout.players


def test_a_readme_command_the_journey_cannot_run_fails_it(tmp_path: Path) -> None:
    walk = Journey(tmp_path, LAYOUTS[README_LAYOUT])
    try:
        with pytest.raises(pytest.fail.Exception, match="'sudo reboot' is a command this journey does not know"):
            walk.run("sudo reboot")
    finally:
        walk.notify.close()
