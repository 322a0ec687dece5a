"""``companion demo``: the main job, a complete simulated game through the whole stack."""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiomqtt
from PIL import Image

from companion.club.publisher import publish_journal
from companion.config import ConfigError, MqttConfig, parse_listen, read_mqtt
from companion.demo import Demo, save_gif
from companion.games import kinds
from companion.i18n import _, ngettext
from companion.journal import Journal

MQTT_PROBE_S = 3.0  # how long the broker has to accept a connection before the game is played


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help=_("play a complete simulated game through the whole stack (no hardware needed)"),
        description=_(
            "Robot players lay cards on simulated readers and press mock buttons. By default the demo "
            "tells the story (the first plays, the illegal attempt, the undo, each hand or set won, the standings "
            "and the final screen); --verbose prints every event as it happens."
        ),
    )
    parser.add_argument(
        "--game", choices=[*kinds(), "all"], default="all", help=_("one game, or every game in turn (the default)")
    )
    parser.add_argument("--seed", type=int, default=1, help=_("the same seed plays the same game"))
    parser.add_argument("--frames", type=Path, help=_("also write every screen as a PNG into this folder"))
    parser.add_argument(
        "--journal", type=Path, help=_("the journal file, kept (default: a temporary one, removed at the end)")
    )
    parser.add_argument("--keep", action="store_true", help=_("keep the temporary folder (registry and journal)"))
    parser.add_argument(
        "--verbose", action="store_true", help=_("print every card laid, press, LED change and message")
    )
    parser.add_argument("--gif", type=Path, help=_("also write the screens as an animated GIF to this file"))
    parser.add_argument(
        "--voice",
        type=Path,
        metavar="DIR",
        help=_(
            "also write every sentence the table says aloud into this folder: GAME-NNN.wav, its words in GAME-NNN.txt"
        ),
    )
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help=_("serve the table's page there while the game is played, at the table's pace (docs/WEB.md)"),
    )
    parser.add_argument("--speed", type=float, default=1.0, help=_("with --web: play this many times faster"))
    parser.add_argument("--hold", action="store_true", help=_("with --web: keep serving after the game, until Ctrl-C"))
    parser.add_argument(
        "--seat",
        type=int,
        help=_(
            "with --web: the seat you play on the page (default 1; 6º SET: pair A is 1, B 2); 0: the robots play all"
        ),
    )
    parser.add_argument(
        "--mqtt", metavar="URL", help=_("publish the games to this MQTT broker as a table does (docs/CLUB.md)")
    )
    parser.add_argument("--table", help=_("the table's name on the broker, with --mqtt"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = list(kinds()) if args.game == "all" else [args.game]
    try:
        args.listen = parse_listen(args.web) if args.web is not None else None
    except ValueError as exc:
        print(f"companion demo: --web: {exc}", file=sys.stderr)
        return 2
    if args.web is None and (args.hold or args.speed != 1.0 or args.seat is not None):
        print("companion demo: " + _("--hold, --speed and --seat go with --web HOST:PORT"), file=sys.stderr)
        return 2
    if args.speed <= 0:
        said = _("--speed {speed}: give a number above 0 (2 plays twice as fast)").format(speed=f"{args.speed:g}")
        print(f"companion demo: {said}", file=sys.stderr)
        return 2
    mqtt = None
    if args.mqtt is not None or args.table is not None:
        try:
            mqtt = read_mqtt({"url": args.mqtt or "", "table": args.table or ""}, "companion demo")
        except ConfigError as exc:
            print(str(exc).replace("mqtt.url", "--mqtt").replace("mqtt.table", "--table"), file=sys.stderr)
            return 2
    if mqtt is not None and args.journal is None:  # the games are published from their journal once played
        with tempfile.TemporaryDirectory(prefix="companion-demo-") as folder:
            args.journal = Path(folder) / "journal.db"
            return _run(args, games, mqtt)
    return _run(args, games, mqtt)


def _outputs_refused(args: argparse.Namespace, mqtt: MqttConfig | None) -> str | None:
    """Why an output the demo was given cannot take what it will write, said before the game rather than after it
    (a whole game for nothing): the frames' folder and the GIF's must take a file, the broker must answer."""
    for option, folder in (("--frames", args.frames), ("--voice", args.voice)):
        try:
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                tempfile.TemporaryFile(dir=folder).close()
        except OSError as exc:
            said = _("{option} {folder}: cannot write there ({error}); give a folder you may write to")
            return said.format(option=option, folder=folder, error=exc.strerror or exc)
    if args.voice is not None and shutil.which("espeak-ng") is None:
        return _("--voice: espeak-ng is not installed (sudo apt-get install espeak-ng)")
    if args.gif is not None:
        folder = args.gif.parent
        try:
            if args.gif.is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as exc:
            said = _("--gif {file}: cannot write it ({error}); give another file")
            return said.format(file=args.gif, error=exc.strerror or exc)
    if mqtt is not None:
        try:
            socket.create_connection((mqtt.host, mqtt.port), timeout=MQTT_PROBE_S).close()
        except OSError as exc:
            said = _("--mqtt {url}: {error}; is the broker running there?")
            return said.format(url=mqtt.url, error=exc.strerror or exc)
    return None


def _run(args: argparse.Namespace, games: list[str], mqtt: MqttConfig | None) -> int:
    refused = _outputs_refused(args, mqtt)
    if refused is not None:
        print(f"companion demo: {refused}", file=sys.stderr)
        return 2
    screens: list[tuple[float, Image.Image]] | None = [] if args.gif is not None else None
    for number, game in enumerate(games, start=1):
        demo = Demo(
            game=game,
            seed=args.seed,
            frames=args.frames,
            journal_path=args.journal,
            language=args.lang,
            verbose=args.verbose,
            keep=args.keep,
            screens=screens,
            web=args.listen,
            speed=args.speed,
            hold=args.hold and number == len(games),  # after the last game
            seat=None if args.web is None or args.seat == 0 else (args.seat or 1),
            voice=args.voice,
        )
        try:
            status = demo.run()
        except BrokenPipeError:
            raise  # the story's reader left (`companion demo | head`): the command line ends quietly, status 141
        except OSError as exc:  # the journal (a JournalError says what to do) or a frame that cannot be written
            print(f"companion demo: {exc}", file=sys.stderr)
            return 1
        except ValueError as exc:  # --seat beyond the game's seats
            print(f"companion demo: {exc}", file=sys.stderr)
            return 2
        if status:
            return status
    if mqtt is not None:
        status = _publish(mqtt, args.journal)
        if status:
            return status
    if args.gif is not None and screens:
        try:
            count = save_gif(screens, args.gif)
        except OSError as exc:
            said = _("--gif {file}: cannot write it ({error}); give another file")
            print("companion demo: " + said.format(file=args.gif, error=exc.strerror), file=sys.stderr)
            return 1
        print(ngettext("{file}: {count} screen", "{file}: {count} screens", count).format(file=args.gif, count=count))
    return 0


def _publish(mqtt: MqttConfig, path: Path) -> int:
    journal = Journal(path)
    try:
        asyncio.run(publish_journal(mqtt, journal))
    except aiomqtt.MqttError as exc:
        said = _("--mqtt {url}: {error}; is the broker running there?").format(url=mqtt.url, error=exc)
        print(f"companion demo: {said}", file=sys.stderr)
        return 1
    finally:
        journal.close()
    print(_("{url}: published as companion/{table}").format(url=mqtt.url, table=mqtt.table))
    return 0
