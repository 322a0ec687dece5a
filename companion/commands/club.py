"""``companion club``: the club's service. Every table's events from the broker into the league's standings
(SQLite), and the room's board served live; ``--csv`` writes the standings and exits (docs/CLUB.md)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from companion.club.broker import BrokerError, LocalBroker, listening
from companion.club.room import Room
from companion.club.service import Club, stop
from companion.club.standings import League
from companion.config import ConfigError, MqttConfig, parse_listen, read_mqtt
from companion.i18n import _, language
from companion.systemd import Notifier, log_to

LOOPBACK = ("127.0.0.1", "localhost", "::1")

log = logging.getLogger("companion.club")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "club",
        help=_("the club's service: every table's games into the league's standings, and the room's board"),
        description=_(
            "Reads every table's events from the club's MQTT broker (a persistent session: what the tables "
            "publish while it is away waits for it), keeps the league's standings in SQLite and serves the room's "
            "board with every table live. docs/CLUB.md."
        ),
    )
    parser.add_argument(
        "--mqtt", metavar="URL", default="mqtt://127.0.0.1:1883", help=_("the club's broker (default %(default)s)")
    )
    parser.add_argument("--username", default="", help=_("the club's login on the broker (the sample ACL's is club)"))
    parser.add_argument(
        "--password-file", type=Path, help=_("the file holding the password (never on the command line)")
    )
    parser.add_argument("--ca", default="", help=_("with mqtts://: the CA certificate that signed the broker's"))
    parser.add_argument(
        "--broker",
        action="store_true",
        help=_("start a mosquitto of its own on this machine, on --mqtt's port (to try a club on one computer)"),
    )
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        default="0.0.0.0:8090",
        help=_("where the room's board is served (default %(default)s: every address of this machine)"),
    )
    parser.add_argument("--db", type=Path, default=Path("club.db"), help=_("the league's file (default %(default)s)"))
    parser.add_argument("--csv", metavar="FILE", help=_("write the standings as CSV to FILE (- for stdout), exit"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.csv is not None:
        return _csv(args.db, args.csv)
    try:
        password = args.password_file.read_text().strip() if args.password_file else ""
    except OSError as exc:
        print(f"companion club: --password-file: {exc.strerror}: {args.password_file}", file=sys.stderr)
        return 2
    settings = {"url": args.mqtt, "table": "club", "username": args.username, "password": password, "ca": args.ca}
    try:
        mqtt = read_mqtt(settings, "companion club")  # the table key is the reader's: the club publishes nothing
        listen = parse_listen(args.web)
    except ConfigError as exc:
        text = str(exc).replace("mqtt.url", "--mqtt").replace("mqtt.password", "--password-file")
        print(text.replace("mqtt.username", "--username").replace("mqtt.ca", "--ca"), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"companion club: --web: {exc}", file=sys.stderr)
        return 2
    assert mqtt is not None
    if args.broker and mqtt.host not in LOOPBACK:
        said = _("--broker starts a broker on this machine: give --mqtt mqtt://127.0.0.1:{port}")
        print(f"companion club: {said.format(port=mqtt.port)}", file=sys.stderr)
        return 2
    log_to(sys.stderr)
    broker = LocalBroker(mqtt.port, args.db.absolute().parent / "club-broker") if args.broker else None
    if broker is not None and (found := listening(mqtt.port)) is not None:
        if found != "mqtt":
            said = _(
                "127.0.0.1:{port} is taken by a program that is no MQTT broker: give --mqtt another port, and the "
                "tables the same"
            )
            print(f"companion club: --broker: {said.format(port=mqtt.port)}", file=sys.stderr)
            return 1
        # the system's mosquitto, which apt install mosquitto starts on 1883: the tables publish there already
        said = _("a broker already answers on 127.0.0.1:{port} (the system's mosquitto?): the club reads it")
        print(f"companion club: --broker: {said.format(port=mqtt.port)}", flush=True)
        broker = None
    try:
        if broker is not None:
            broker.start()
        return asyncio.run(_serve(mqtt, args.db, listen, args.lang, broker is not None))
    except BrokerError as exc:
        print(f"companion club: --broker: {exc.said.text(language())}", file=sys.stderr)
        return 1
    except (sqlite3.Error, OSError) as exc:
        said = _("cannot open it ({error}); give a file you may write").format(error=exc)
        print(f"companion club: --db {args.db}: {said}", file=sys.stderr)
        return 1
    finally:
        if broker is not None:
            broker.stop()


async def _serve(mqtt: MqttConfig, db: Path, listen: tuple[str, int], language: str, own_broker: bool) -> int:
    league = League(db)
    room = Room(league, listen, language)
    club = Club(mqtt, league, on_update=room.changed)
    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, ended.set)
    serving = asyncio.create_task(room.serve())
    reading = asyncio.create_task(club.run())
    stopping = asyncio.create_task(ended.wait())
    systemd = Notifier.from_environ()
    try:
        while room.port is None:
            if serving.done():
                error = serving.exception()
                where = f"{listen[0]}:{listen[1]}"
                said = _("cannot listen on {address} ({error}); give a free one").format(address=where, error=error)
                print(f"companion club: --web: {said}", file=sys.stderr)
                return 1
            await asyncio.sleep(0.01)
        host = "127.0.0.1" if listen[0] in ("0.0.0.0", "::") else listen[0]
        board = _("the room's board on {url}, the league in {path}").format(url=f"http://{host}:{room.port}/", path=db)
        print(f"companion club: {board}", flush=True)
        tables = _("the tables from {url} (its own mosquitto)") if own_broker else _("the tables from {url}")
        print(f"companion club: {tables.format(url=mqtt.url)}", flush=True)
        systemd.send("READY=1")
        tasks = {"the board": serving, "the league's reader": reading}
        while not stopping.done():
            systemd.tick(time.monotonic())
            await asyncio.wait(
                {stopping, *tasks.values()}, timeout=min(1.0, systemd.watchdog_s or 1.0), return_when="FIRST_COMPLETED"
            )
            for name, task in tasks.items():
                if task.done():  # a fault of ours: the process stops (no more watchdog), and systemd starts it again
                    error = None if task.cancelled() else task.exception()
                    log.critical("club: %s stopped (%r); the club stops", name, error, exc_info=error)
                    return 1
        systemd.send("STOPPING=1")
        return 0
    finally:
        await stop(serving, reading, stopping)
        league.close()


def _csv(db: Path, out: str) -> int:
    if not db.exists():
        said = _("no such league (the service makes it when it starts)")
        print(f"companion club: --db {db}: {said}", file=sys.stderr)
        return 2
    league = League(db)
    try:
        text = league.csv()
    finally:
        league.close()
    if out == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(out).write_text(text)
    except OSError as exc:
        said = _("{error}; give a file you may write").format(error=exc.strerror)
        print(f"companion club: --csv {out}: {said}", file=sys.stderr)
        return 1
    return 0
