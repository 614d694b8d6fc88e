# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong pair``: pair this host with a clock, so only it may change the time.

At the clock, with the game not running, the arbiter presses ok three times;
both displays show a 16-character code for two minutes. ``qizhong pair`` asks
for it (or takes ``--code``), derives the clock's key from it and proves it
to the clock; the key goes to the key file (docs/security.md). From then on
every ``qizhong`` command that changes this clock is tagged with it.
``--unpair`` makes the clock forget its key (it accepts anyone's commands
again) and removes it here. Exit codes as for the other clock commands: 2 a
code that cannot be one, 3 the clock refused it (a wrong code, pairing off).
"""

from __future__ import annotations

import argparse
import sys

from qizhong.cli import clock as cli_clock
from qizhong.clocks import auth


def _store(args: argparse.Namespace) -> auth.KeyStore:
    return auth.KeyStore(args.keys) if args.keys else auth.KeyStore.default()


def cmd_pair(args: argparse.Namespace) -> int:
    store = _store(args)
    with cli_clock._clock(args) as c:
        board = c.hello.id
        if args.unpair:
            if not auth.attach(c.link, c.link.request("hello").fields(), store):
                print("qizhong: clock %s is not paired with this host" % board, file=sys.stderr)
                return 3
            auth.unpair(c.link, board, store)
            print("clock %s unpaired: it takes commands from anyone again" % board)
            return 0
        code = args.code
        if code is None:
            print("At the clock (not running): press OK three times; it shows a code.")
            try:
                code = input("code: ")
            except EOFError:
                print("qizhong: no code given", file=sys.stderr)
                return 2
        auth.pair(c.link, board, code, store)
        print("paired with clock %s; its key is in %s" % (board, store.path))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("pair", help="pair with a clock: only this host may then change it")
    cli_clock._common(s)
    s.add_argument("--code", help="the code the clock shows (default: ask for it)")
    s.add_argument(
        "--keys", help="key file (default: $QIZHONG_KEYS, else ~/.config/qizhong/keys.json)"
    )
    s.add_argument("--unpair", action="store_true", help="make the clock drop its key")
    s.set_defaults(func=cmd_pair)


def main(argv: list[str] | None = None) -> int:
    """``qizhong pair`` on its own (until cli.py registers it)."""
    p = argparse.ArgumentParser(prog="qizhong")
    add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(["pair", *(sys.argv[1:] if argv is None else argv)])
    return cli_clock.run(args.func, args)
