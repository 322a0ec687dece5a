"""A third game added as one folder (``companion/games/escalera/``) and one registration, played through the config,
the referee, the table (journal and tracker), the real screen drawer on the fake I2C bus, the demo and ``companion
play``; the figures docs/EXTENDING.md gives for it; and the check that the code outside the games' packages never
names a game."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import companion
from companion.cli import main
from companion.config import ConfigError, parse_config
from companion.demo import Demo
from companion.events import Button, Press, ZoneScan
from companion.games import find_kind, kinds, register, unregister
from companion.games.escalera import KIND, EscaleraKind, EscaleraView
from companion.journal import Journal
from companion.menu import Menu, Settings, games_for
from companion.nfc.registry import Registry
from companion.nfc.tracking import TableTracker
from companion.referee import Referee
from companion.rules import Pass, Play
from companion.rules.base import SetupError
from companion.sim.oled import FakeI2CBus
from companion.table import Table
from companion.ui.display import Screen, make_device
from companion.ui.screens import render, screen_for
from companion.view import MessageKind, ZoneLight


@pytest.fixture
def toy() -> Iterator[EscaleraKind]:
    register(KIND)
    yield KIND
    unregister(KIND.name)


class _Hands:
    """Fingers at the table: each card laid is read on the zone by the tracker, each button pressed."""

    def __init__(self, table: Table, registry: Registry) -> None:
        self.table, self.now = table, 0.0
        self.uids = {
            card.id: bytes([4, i, 0x10, 0x20, 0x30, 0x40, 0x50]) for i, card in enumerate(table.referee.game.deck)
        }
        for card, uid in self.uids.items():
            registry.bind(uid, card)

    def lay(self, card: str) -> None:
        self.now += 0.5
        self.table.scan(ZoneScan("z1", (self.uids[card],), self.now), self.now)

    def lift(self) -> None:
        for _ in range(self.table.tracker.absences):
            self.now += 0.1
            self.table.scan(ZoneScan("z1", (), self.now), self.now)

    def press(self, button: Button) -> None:
        self.now += 0.5
        self.table.press(Press(button, "short", self.now), self.now)


def test_a_game_registered_once_plays_through_the_referee_the_table_and_the_screen(
    toy: EscaleraKind, tmp_path: Path
) -> None:
    config = parse_config('[game]\nname = "escalera"\nplayers = 2\nlanguage = "en"', "toy.toml")
    assert config.zones == {"z1": "table"} and find_kind("escalera") is toy
    registry = Registry.load(tmp_path / "registry.toml", deck=toy.default_deck)
    bus = FakeI2CBus()
    referee = Referee(config.game, config.zones)
    table = Table(referee, TableTracker(registry), Journal(tmp_path / "journal.db"), [Screen(make_device([], bus=bus))])
    hands = _Hands(table, registry)
    table.start(0.0)
    robots = toy.robots(referee.game, random.Random(4))
    hands.lay("5O"), hands.press(Button.CONFIRM), hands.lift()
    hands.lay("3C")  # lower than the 5: refused, its zone red, and the screen says why
    view = referee.view()
    assert view.zone_lights["z1"] is ZoneLight.ILLEGAL and view.message is not None
    assert view.message.kind is MessageKind.ILLEGAL and view.message.title == "3 of cups is not above 5 of coins"
    hands.lift()
    assert referee.view().zone_lights["z1"] is ZoneLight.OFF
    while not robots.over():
        action, hand = robots.choose()
        if isinstance(action, Play):
            hands.lay(action.card), hands.press(Button.CONFIRM), hands.lift()
        else:
            hands.press(Button.PASS)
            assert referee.view().message.title == "Cannot climb? You lose"  # type: ignore[union-attr]
            hands.press(Button.CONFIRM)
        robots.played(action, hand)
    game = referee.game
    outcome = game.outcome()
    assert outcome is not None
    view = referee.view()
    assert isinstance(view.game, EscaleraView) and view.game.winner == outcome.winner - 1  # type: ignore[operator]
    assert view.message is not None and view.message.title == f"Seat {outcome.winner} wins"
    # the real ssd1306 driver drew the last view, pixel for pixel, with the kind's own drawer
    assert bus.last_image().tobytes() == render(view).convert("1").tobytes()
    # the journal holds every action, and the kind's outcome closed the game
    record = table.journal.game(table.game_id)
    assert record is not None and record.outcome == {"termination": outcome.termination, "winner": outcome.winner}
    entries = table.journal.entries(table.game_id)
    assert [entry.text for entry in entries] == [str(action) for action in game.actions]
    assert any(isinstance(action, Pass) for action in game.actions) or outcome.termination == "climbed"


def test_companion_play_reads_the_toy_games_transcripts(
    toy: EscaleraKind, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = tmp_path / "escalera.txt"
    transcript.write_text("# escalera\nplay 5O\nplay 7C\nplay 12B\n", "utf-8")
    assert main(["play", "escalera", str(transcript), "--lang", "en"]) == 0
    last = "4: seat 1 plays the king of clubs; the game is over: seat 1"  # a game with no transcript module of its own
    assert capsys.readouterr().out.splitlines()[-1] == last
    assert main(["play", "escalera", str(transcript), "--players", "3"]) == 2


def test_the_built_in_games_come_first_whichever_module_was_imported_first() -> None:
    """A module that imports a built-in kind's module on its own (a test's) registers it before the registry has
    loaded the others: the menu, the page and the errors list them in their order all the same."""
    code = "import companion.games.sexto_set\nfrom companion.games import kinds\nprint(' '.join(kinds()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["seises", "sexto-set"]


def test_the_menu_and_the_config_offer_the_registered_games(toy: EscaleraKind) -> None:
    assert list(kinds()) == ["seises", "sexto-set", "escalera"]
    with pytest.raises(ConfigError, match=r"game\.players: 4 cannot play Escalera with 40 cards: use 2"):
        parse_config('[game]\nname = "escalera"\nplayers = 4', "toy.toml")
    menu = Menu(Settings(game="escalera", players=2))
    assert menu.view().items[:3] == ("Juego: Escalera", "Jugadores: 2", "Baraja: Española 40")
    assert menu.press(Press(Button.CONFIRM, "short", 0.0)) is None
    assert menu.view().items == ("Seises", "Escalera"), "6º SET is not played on Escalera's one zone"
    assert games_for({f"z{i}": "auto" for i in range(1, 9)}) == ("seises", "sexto-set"), "nor Escalera on 6º SET's"


def test_the_demo_plays_the_toy_game_with_its_robots(
    toy: EscaleraKind, tmp_path: Path, mock_factory: MockFactory
) -> None:
    lines: list[str] = []
    demo = Demo(
        game="escalera", seed=3, out=lines.append, factory=mock_factory, language="en", journal_path=tmp_path / "j.db"
    )
    assert demo.run() == 0
    outcome = demo.referee.game.outcome()
    assert outcome is not None and f"Seat {outcome.winner} wins" in "\n".join(lines)
    assert lines[-2].startswith(f"escalera: {len(demo.referee.game.actions)} actions confirmed")


def test_a_game_is_registered_once_and_an_unknown_one_is_named_with_those_there_are(toy: EscaleraKind) -> None:
    register(toy)  # the same kind again: nothing changes
    with pytest.raises(ValueError, match="already registered"):
        register(EscaleraKind())
    with pytest.raises(SetupError, match="choose seises, sexto-set or escalera"):
        find_kind("poker")
    assert screen_for(EscaleraView(top="", turn=0)).__module__ == "companion.games.escalera.screen"


# The files that may name a game: the games' packages and their registry, the rules' shared docs, and data files.
NAMING = re.compile(r"seises|sexto|Seises|SextoSet|escalera|Escalera")
MAY_NAME = (
    "games/",  # the registry and each game's package
    "rules/",  # the actions and refusals every game shares, whose docs say which game uses them
    "decks/",  # the decks are data
)
PACKAGE = Path(companion.__file__).parent
EXTENDING = (PACKAGE.parent / "docs" / "EXTENDING.md").read_text("utf-8")


def test_no_game_is_named_outside_its_package_the_registry_the_rules_and_data() -> None:
    named = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file()
        and path.suffix in (".py", ".toml", ".txt", ".md")
        and not str(path.relative_to(PACKAGE)).startswith(MAY_NAME)
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if NAMING.search(line)
    ]
    assert named == [], "a game named outside its package:\n" + "\n".join(named)


def test_the_third_game_is_one_folder_of_as_many_modules_as_the_docs_say_and_no_line_elsewhere() -> None:
    """docs/EXTENDING.md's figures, measured on the toy game: its folder's modules, and every line of the project
    outside that folder that names it (none: it is not listed as a built-in game; the tests register it)."""
    folder = PACKAGE / "games" / "escalera"
    modules = sorted(path.name for path in folder.glob("*.py"))
    said = re.search(r"\*\*(\d+) modules\*\*, no line elsewhere", EXTENDING)
    assert said is not None, "docs/EXTENDING.md gives the toy game's count of modules"
    assert len(modules) == int(said.group(1)), modules
    root = PACKAGE.parent
    elsewhere = [
        f"{path.relative_to(root)}:{number}"
        for top in ("companion", "pyproject.toml", "bench", "systemd", "firmware")
        for path in ([root / top] if (root / top).is_file() else sorted((root / top).rglob("*")))
        if path.is_file()
        and path.suffix in (".py", ".toml", ".txt", ".js", ".po", ".pot", ".json", "")
        and folder not in path.parents
        for number, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), start=1)
        if re.search(r"escalera", line, re.IGNORECASE)
    ]
    assert elsewhere == [], f"the toy game is named outside its folder: {elsewhere}"
