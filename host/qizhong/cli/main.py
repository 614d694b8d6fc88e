# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``qizhong`` command.

Exit codes: 0 done, 1 failed (or the clock could not be reached), 2 bad input
(a bad spec, a bad option), 3 the clock refused the command.
"""

from __future__ import annotations

import argparse
import sys

from qizhong import __version__
from qizhong import timecontrol as tcs
from qizhong.cli import arbiter as cli_arbiter
from qizhong.cli import clock as cli_clock
from qizhong.cli import pair as cli_pair


def _parse_spec(text: str) -> tcs.TimeControl | None:
    try:
        return tcs.parse(text)
    except tcs.SpecError as e:
        print("qizhong: bad time control: %s" % e.msg, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return None


def cmd_presets(args: argparse.Namespace) -> int:
    width = max(len(name) for name in tcs.PRESETS)
    for name, (spec, about) in tcs.PRESETS.items():
        print("%-*s  %-22s %s" % (width, name, spec, about))
    return 0


def cmd_tc(args: argparse.Namespace) -> int:
    tc = _parse_spec(args.spec)
    if tc is None:
        return 2
    print(tcs.spec_of(tc))
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
    from qizhong.sim.simulator import Sim, SimError

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
            if res.ok:
                print("ok    %s (%d expectations)" % (path, res.checked))
            else:
                failed += 1
                print("FAIL  %s" % path)
                for f in res.failures:
                    print("      " + f)
        print("%d passed, %d failed" % (len(args.files) - failed, failed))
        return 1 if failed else 0
    if not args.headless:
        from qizhong.sim import term

        return term.main(args.spec)
    try:
        sim = Sim(virtual=False, open_link=False)
    except SimError as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 1
    print(sim.serial_path, flush=True)
    try:
        sim.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
    return 0


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
    s.add_argument("spec", help="a spec such as '15m+10s' or a preset name")
    s.set_defaults(func=cmd_tc)
    s = sub.add_parser("demo", help="run the clock in this terminal (keys are the levers)")
    s.add_argument("spec", nargs="?", default="xq-rapid", help="time control (default xq-rapid)")
    s.set_defaults(func=cmd_demo)
    s = sub.add_parser(
        "sim",
        help="the firmware on a simulated board",
        description="Without files: run a simulated clock in real time in this terminal "
        "(--headless: print its serial device, which pyserial opens like a USB port, "
        "and run until stopped). With `run FILE...`: run scenario files in virtual "
        "time; exit 0 only when every expectation holds.",
    )
    s.add_argument(
        "--headless", action="store_true", help="no display: print the serial device and run"
    )
    s.add_argument("--spec", default="xq-rapid", help="time control (default xq-rapid)")
    s.add_argument("files", nargs="*", metavar="run FILE", help="scenario files")
    s.add_argument("--jig", metavar="PORT", help="run on a real clock: the test jig's port")
    s.add_argument("--clock", metavar="PORT", help="with --jig: the clock's own port")
    s.add_argument(
        "--tolerance", type=int, default=0, metavar="MS", help="times match within MS (real time)"
    )
    s.set_defaults(func=cmd_sim)
    cli_clock.add_commands(sub)
    cli_arbiter.add_commands(sub)
    cli_pair.add_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["sim", "run"]:  # `qizhong sim run FILE...`
        argv = ["sim", *argv[2:]]
    args = build_parser().parse_args(argv)
    return cli_clock.run(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
