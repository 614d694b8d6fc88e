# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``qizhong`` command.

Exit codes: 0 done, 1 failed (or the clock could not be reached), 2 bad input
(a bad spec, a bad option), 3 the clock refused the command.
"""

from __future__ import annotations

import argparse
import io
import os
import sys

from qizhong import __version__
from qizhong import timecontrol as tcs
from qizhong.cli import arbiter as cli_arbiter
from qizhong.cli import clock as cli_clock
from qizhong.cli import pair as cli_pair
from qizhong.cli import rounds as cli_rounds
from qizhong.core import voice


def _parse_spec(text: str) -> tcs.TimeControl | None:
    try:
        return tcs.parse(text)
    except tcs.SpecError as e:
        hint = tcs.suggest(text)  # xq-rapidd: "did you mean xq-rapid?"
        if hint:
            print("qizhong: %s" % hint, file=sys.stderr)
            return None
        print("qizhong: bad time control: %s" % e.msg, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return None


def cmd_presets(args: argparse.Namespace) -> int:
    width = max(len(name) for name in tcs.PRESETS)
    for name, (spec, about) in tcs.PRESETS.items():
        print("%-*s  %-22s %s" % (width, name, spec, about))
    return 0


def cmd_tc(args: argparse.Namespace) -> int:
    if args.spec is None:  # every accepted form, in words
        forms = [(" | ".join(texts), about) for texts, about in tcs.FORMS]
        width = max(len(text) for text, _ in forms)
        for text, about in forms:
            print("%-*s  %s" % (width, text, about))
        return 0
    tc = _parse_spec(args.spec)
    if tc is None:
        return 2
    print(tcs.spec_of(tc))
    if tcs.reading(args.spec) == "us":
        print("  Read as US notation: bare base times are minutes, increments and delays seconds")
    elif tcs.reading(args.spec) == "pgn":
        print("  Read as PGN: bare times are seconds")
    for line in tcs.describe(tc):
        print("  " + line)
    try:
        print("  PGN TimeControl: %s" % tcs.to_pgn(tc))
    except ValueError:
        pass
    try:
        tm, ot = tcs.to_sgf(tc)
        print("  SGF: TM[%s]%s" % (tm, " OT[%s]" % ot if ot else ""))
    except ValueError:
        pass
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from qizhong.sim import demo

    return demo.main(args.spec)


def cmd_sim(args: argparse.Namespace) -> int:
    from qizhong.sim import scenario
    from qizhong.sim.simulator import SimError

    if args.files:
        failed = 0
        for path in args.files:
            if bool(args.jig) != bool(args.clock):
                print("qizhong: --jig and --clock go together", file=sys.stderr)
                return 2
            try:
                if args.jig:  # a real clock, pressed by the test jig (docs/jig.md)
                    from qizhong.sim import jig

                    res = jig.run_file(path, args.jig, args.clock, args.tolerance)
                else:
                    res = scenario.run_file(path, args.tolerance)
            except scenario.ScenarioError as e:
                print("ERROR %s" % e)
                failed += 1
                continue
            except (OSError, UnicodeDecodeError) as e:  # a typo in a name, a binary file
                print("ERROR %s: %s" % (path, getattr(e, "strerror", None) or e))
                failed += 1
                continue
            if res.ok:
                print("ok    %s (%d expectations)" % (path, res.checked))
            else:
                failed += 1
                print("FAIL  %s" % path)
                for f in res.failures:
                    print("      " + f)
        print("%d passed, %d failed" % (len(args.files) - failed, failed))
        return 1 if failed else 0
    if _parse_spec(args.spec) is None:
        return 2
    if args.headless:
        from qizhong.sim.headless import listen_address

        listen_address(args.listen)  # bad input (exit 2) before the firmware starts
    if not args.headless:
        from qizhong.sim import term

        voice = " ".join(w for w in (args.voice, args.count) if w)
        return term.main(args.spec, voice=voice, board=args.board)
    from qizhong.sim import headless

    try:
        return headless.serve(args.spec, args.state, args.listen, board=args.board)
    except (SimError, OSError) as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 1


SIM_CONTROL = ("press", "tilt", "key", "png", "port", "stop")


def sim_control(argv: list[str]) -> int:
    """``qizhong sim press|tilt|key|png|stop``: the world of a running headless sim."""
    from qizhong.sim import headless

    p = argparse.ArgumentParser(
        prog="qizhong sim",
        description="Press the levers, knock the clock over and press the arbiter's keys "
        "of a running `qizhong sim --headless`, from another terminal or a script. It is "
        "found by its state file (--state; default %s) or by --world HOST:PORT (its second "
        "line of output)." % headless.default_state(),
    )
    sub = p.add_subparsers(dest="op", metavar="ACTION", required=True)
    a = sub.add_parser("press", help="press a lever (left, right) and let it up")
    a.add_argument("lever", choices=["left", "right"])
    a.add_argument("--hold", type=int, default=headless.HOLD_MS, metavar="MS",
                   help="how long it stays down (default %(default)s; EQ-3 at 2000)")  # fmt: skip
    sub.add_parser("tilt", help="knock the clock over (the tilt switch, EQ-5)")
    a = sub.add_parser("key", help="an arbiter's key")
    a.add_argument("name", choices=list(headless.KEYS))
    a = sub.add_parser("png", help="both displays now, to a PNG file")
    a.add_argument("file")
    sub.add_parser("port", help="its serial device (for --port)")
    sub.add_parser("stop", help="stop the headless simulator")
    for a in sub.choices.values():
        a.add_argument("--world", metavar="HOST:PORT", help="the simulator's control address")
        a.add_argument("--state", metavar="FILE", help="its state file")
    args = p.parse_args(argv)
    more = {
        "press": lambda: [args.lever, str(args.hold)],
        "key": lambda: [args.name],
        "png": lambda: [args.file],
    }.get(args.op, lambda: [])()
    if args.op == "press" and not 0 < args.hold <= 60000:
        p.error("--hold is 1..60000 ms")
    try:
        return headless.main_control(args.op, more, args.world, args.state)
    except headless.HeadlessError as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 1
    except ValueError as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 2


def cmd_serve(args: argparse.Namespace) -> int:
    from qizhong.server import main as server_main

    return server_main.main(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="qizhong",
        description="棋钟 qizhong: a game clock for Xiangqi, Go and chess.",
    )
    p.add_argument("--version", action="version", version="qizhong %s" % __version__)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    s = sub.add_parser("presets", help="list the named time controls")
    s.set_defaults(func=cmd_presets)
    s = sub.add_parser("tc", help="check a time-control spec and explain it")
    s.add_argument(
        "spec", nargs="?", help="a spec such as '15m+10s' or a preset name (none: every form)"
    )
    s.set_defaults(func=cmd_tc)
    s = sub.add_parser("demo", help="run the clock in this terminal (keys are the levers)")
    s.add_argument("spec", nargs="?", default="xq-rapid", help="time control (default xq-rapid)")
    s.set_defaults(func=cmd_demo)
    s = sub.add_parser(
        "sim",
        help="the firmware on a simulated board",
        description="Without files: run a simulated clock in real time in this terminal "
        "(--headless: print its serial device, which pyserial opens like a USB port, "
        "then its control address, and run until stopped; `qizhong sim press left|right`, "
        "`tilt`, `key NAME`, `png FILE` and `stop` act on it from elsewhere: "
        "`qizhong sim press --help`). With `run FILE...`: run scenario files in virtual "
        "time; exit 0 only when every expectation holds.",
    )
    s.add_argument(
        "--headless", action="store_true", help="no display: print the serial device and run"
    )
    s.add_argument("--state", metavar="FILE", help="--headless: where to write its address")
    s.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:0",
        help="--headless: the control address (default: a free port on 127.0.0.1)",
    )
    s.add_argument("--spec", default="xq-rapid", help="time control (default xq-rapid)")
    s.add_argument(
        "--board",
        choices=("oled", "battery"),
        default=None,
        help="the OLED board (default) or the battery board's segment glass (docs/power.md)",
    )
    s.add_argument("--voice", choices=voice.LANGS, help="the voice's language (docs/voice.md)")
    s.add_argument("--count", choices=voice.STYLES, help="count up or down (docs/voice.md)")
    s.add_argument("files", nargs="*", metavar="run FILE", help="scenario files")
    s.add_argument("--jig", metavar="PORT", help="run on a real clock: the test jig's port")
    s.add_argument("--clock", metavar="PORT", help="with --jig: the clock's own port")
    s.add_argument(
        "--tolerance", type=int, default=0, metavar="MS", help="times match within MS (real time)"
    )
    s.set_defaults(func=cmd_sim)
    s = sub.add_parser(
        "serve",
        help="the hall server: own this laptop's clocks, keep every event, serve the hall page",
        description="One process owns every clock on this laptop's USB ports (or N simulated "
        "ones), keeps every event in SQLite, and serves the hall to browsers (docs/server.md).",
    )
    from qizhong.server import main as server_main

    server_main.add_arguments(s)
    s.set_defaults(func=cmd_serve)
    cli_clock.add_commands(sub)
    cli_arbiter.add_commands(sub)
    cli_pair.add_commands(sub)
    cli_rounds.add_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["sim"] and argv[1:2] and argv[1] in SIM_CONTROL:
            code = sim_control(argv[1:])
        else:
            if argv[:2] == ["sim", "run"]:  # `qizhong sim run FILE...`
                argv = ["sim", *argv[2:]]
            args = build_parser().parse_args(argv)
            code = cli_clock.run(args.func, args)
        sys.stdout.flush()
    except BrokenPipeError:  # `qizhong status | head -3`: the reader has had enough
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # no second error at exit
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
