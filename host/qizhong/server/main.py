# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong serve``: run the hall server (docs/server.md)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import os
import secrets
import signal
import socket
import sys
from typing import TYPE_CHECKING

from qizhong.clocks.driver import GAMES, PICO_USB
from qizhong.server import password, sims, validate
from qizhong.server.app import make_app
from qizhong.server.hall import Hall
from qizhong.server.password import Password
from qizhong.server.store import Store, StoreError

if TYPE_CHECKING:
    from qizhong.server.mqtt import BrokerLogin


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        action="append",
        default=[],
        metavar="DEV",
        help="a clock's serial port (repeat; default: every Pico clock on USB)",
    )
    p.add_argument(
        "--sim",
        type=int,
        default=0,
        metavar="N",
        help="N simulated clocks (their own processes; a restarted server takes them back)",
    )
    p.add_argument("--spec", default="xq-rapid", help="--sim: their time control")
    p.add_argument(
        "--game",
        choices=list(GAMES),
        default="xiangqi",
        help="the game of new boards (changed per board on the page)",
    )
    p.add_argument("--db", default="qizhong-hall.sqlite", help="the SQLite file (kept)")
    p.add_argument(
        "--listen",
        default="127.0.0.1:8080",
        metavar="HOST:PORT",
        help="where the page and API are served (port 0: a free one)",
    )
    p.add_argument("--tournament", default="hall", help="the tournament's name (MQTT topics)")
    p.add_argument(
        "--mqtt",
        metavar="HOST[:PORT]",
        help="join the tournament's hall over an MQTT broker (docs/server.md)",
    )
    p.add_argument(
        "--mqtt-user",
        metavar="USER",
        help="the broker login's user name (default: --name; docs/security.md)",
    )
    p.add_argument(
        "--mqtt-password-file",
        metavar="FILE",
        help="the broker login's password: the first line of FILE, which only you may read",
    )
    p.add_argument(
        "--mqtt-ca",
        metavar="FILE",
        help="TLS to the broker, its certificate checked against this CA file",
    )
    p.add_argument(
        "--name",
        default=socket.gethostname(),
        help="this server's name in the hall (default: the host name)",
    )
    p.add_argument(
        "--heartbeat",
        type=float,
        default=5.0,
        metavar="S",
        help="a beat to every page this often; a page that hears none for 2.5 beats"
        " says the server is lost (default 5)",
    )
    p.add_argument(
        "--entry",
        choices=["late", "live"],
        default="late",
        help="how the boards' sessions take moves: late (entered after their presses, as a"
        " scorekeeper does) or live (as made: a press without one is XQ-R19 / CH-1 at once)",
    )
    p.add_argument(
        "--stop-sims",
        action="store_true",
        help="stop the simulated clocks of --db (they outlive the server) and exit",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy's address (repeatable): its X-Forwarded-For names the client"
        " whose wrong passwords are counted (docs/security.md)",
    )
    p.add_argument(
        "--password-file",
        metavar="FILE",
        help="the arbiter's password, first line (default: $QIZHONG_ARBITER_PASSWORD, else"
        " the one kept in --db from an earlier start, else a new one, printed); kept hashed",
    )


def _password(args: argparse.Namespace, store: Store) -> tuple[Password, str]:
    """The arbiter's password, and what to print of it. Given (a file, the
    environment): its hash is kept in the store for the next start, and a
    password other than the kept one ends every login. Not given: the one
    kept from an earlier start, else a new one, printed once."""
    given = ""
    if args.password_file:
        with open(args.password_file) as f:
            given = f.readline().strip()
        if not given:
            raise ValueError("the arbiter's password is empty")
    else:
        given = os.environ.get("QIZHONG_ARBITER_PASSWORD", "")
    if given:
        kept = store.setting(password.SETTING)
        if kept and password.matches(given, kept):
            return Password(given, stored=kept), ""  # the same password: its logins go on
        pw = Password(given)
        store.set_setting(password.SETTING, pw.stored)
        store.drop_logins()  # another password: every login made with the old one ends
        return pw, ""
    kept = store.setting(password.SETTING)
    if kept:
        return Password(stored=kept), "arbiter's password: the one kept in %s" % args.db
    made = secrets.token_urlsafe(12)
    pw = Password(made)
    store.set_setting(password.SETTING, pw.stored)
    return pw, "arbiter's password: %s" % made


def _broker_login(args: argparse.Namespace) -> BrokerLogin | None:
    """``--mqtt``'s login (``--mqtt-user``, ``--mqtt-password-file``,
    ``--mqtt-ca``), checked; ValueError says what is wrong."""
    from qizhong.server.mqtt import BrokerLogin, parse_broker

    if not args.mqtt:
        if args.mqtt_user or args.mqtt_password_file or args.mqtt_ca:
            raise ValueError("--mqtt-user, --mqtt-password-file and --mqtt-ca need --mqtt")
        return None
    parse_broker(args.mqtt)
    return BrokerLogin.from_files(
        args.mqtt_user or args.name, args.mqtt_password_file or "", args.mqtt_ca or ""
    )


def _discover() -> list[str]:
    from serial.tools import list_ports

    return [p.device for p in list_ports.comports() if (p.vid, p.pid) == PICO_USB]


async def _serve(args: argparse.Namespace) -> int:
    from aiohttp import web

    if args.stop_sims:
        n = sims.stop_folder(args.db + ".sims")
        print("stopped %d simulated clocks" % n)
        return 0
    if not 0.1 <= args.heartbeat <= 60:
        print("qizhong serve: --heartbeat: 0.1 to 60 seconds", file=sys.stderr)
        return 2
    if args.mqtt and not validate.is_server_name(args.name):  # its name on the broker
        print(
            "qizhong serve: --name: letters, digits, . _ - (at most 64), and not one of %s"
            % ", ".join(validate.RESERVED),
            file=sys.stderr,
        )
        return 2
    try:
        login = _broker_login(args)  # before anything starts: a bad login file stops here
        trusted = frozenset(str(ipaddress.ip_address(a)) for a in args.trusted_proxy)
    except ValueError as e:
        print("qizhong serve: %s" % e, file=sys.stderr)
        return 2
    try:
        store = Store(args.db)  # first: a second server on this file starts nothing
    except StoreError as e:
        print("qizhong serve: %s" % e, file=sys.stderr)
        return 1
    # A file-size limit (ulimit -f) makes a write fail (a StoreError, an alert), not the server.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        pw, said = _password(args, store)
    except ValueError as e:
        print("qizhong serve: %s" % e, file=sys.stderr)
        store.close()
        return 2
    hall = Hall(store, pw, args.tournament, beat_s=args.heartbeat, trusted=trusted)
    hall.games.late_entry = args.entry == "late"
    ports = list(args.port)
    started: list[sims.SimClock] = []
    if args.sim:
        started = sims.start(args.sim, args.db + ".sims", args.spec, "%s-sim" % args.name)
        sims.number(store, started, args.game, args.spec)
        ports += [s.serial for s in started]
    elif not ports:
        ports = _discover()
    app = make_app(hall)
    runner = web.AppRunner(app)
    await runner.setup()
    host, _, port = args.listen.rpartition(":")
    site = web.TCPSite(runner, host or "127.0.0.1", int(port or 0))
    await site.start()  # serving first: the clocks come up meanwhile (#32)
    for port in ports:  # each worker opens and greets its clock on its own thread, all at once
        hall.add_port(port, args.game, args.spec)
    addr = runner.addresses[0]
    url = "http://%s:%d/" % (addr[0], addr[1])
    bridge = None
    if args.mqtt:
        from qizhong.server.mqtt import Bridge

        bridge = Bridge(hall, args.mqtt, args.name, url, login)
        bridge.start()
    # The modules and the store's history, read once, are never garbage:
    # kept out of the collector's full passes, which walked all of them and
    # held every thread up to 90 ms under a flood (#34).
    gc.freeze()
    print("hall at http://%s:%d/ (%d clocks)" % (addr[0], addr[1], len(ports)), flush=True)
    from qizhong.server import client

    registry = client.register(url)  # `qizhong start --port ...` finds the server here
    if said:
        print(said, flush=True)
    for problem in hall.problems:
        print("qizhong serve: %s" % problem, file=sys.stderr, flush=True)
    for s in started:
        print("sim %s: %s, levers at %s" % (s.board_id, s.serial, s.world), flush=True)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, done.set)
    await done.wait()
    if bridge is not None:
        bridge.stop()
    await runner.cleanup()
    await asyncio.to_thread(hall.stop)
    # The simulated clocks run on, as clocks on tables do: the next server takes them back
    # (``--stop-sims`` ends them).
    store.close()
    os.unlink(registry)
    return 0


# How long a thread keeps the GIL while another waits for it (CPython's
# default is 5 ms). A press goes through three threads (the ports' epoll, its
# clock's worker, the loop): under a flood from the broker each hand-over
# waited up to 5 ms behind the bridge's thread (#34).
SWITCH_S = 0.001


def main(args: argparse.Namespace) -> int:
    sys.setswitchinterval(SWITCH_S)
    return asyncio.run(_serve(args))


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="qizhong serve")
    add_arguments(parser)
    sys.exit(main(parser.parse_args()))
