# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong`` commands that talk to a clock: ports, config, start, status...

Every one takes ``--port`` (or the QIZHONG_PORT variable): a Pico's USB
serial device, or the pty that ``qizhong sim --headless`` prints; both work
the same way. Exit codes: 0 done, 1 the clock could not be reached, 2 bad
input, 3 the clock refused the command (its reason is printed).
"""

from __future__ import annotations

import argparse
import os
import sys

from qizhong import timecontrol as tcs
from qizhong.cli.ruleref import see_rules
from qizhong.clocks.driver import DRAW, PICO_USB, Clock, Status
from qizhong.clocks.link import CommandError, Event, LinkError


def _clock(args: argparse.Namespace) -> Clock:
    port = args.port or os.environ.get("QIZHONG_PORT")
    if not port:
        pico = [p for p in _ports() if (p.vid, p.pid) == PICO_USB]
        if len(pico) != 1:
            raise LinkError(
                "no --port given, and %s Pico clocks are plugged in (see `qizhong ports`)"
                % (len(pico) or "no")
            )
        port = pico[0].device
    return Clock(port, timeout=args.timeout)


def _ports() -> list:
    from serial.tools import list_ports

    return list(list_ports.comports())


def fmt_status(st: Status) -> str:
    names = ("red", "black")
    lines = [
        "state %s, %s to move%s"
        % (
            st.state,
            names[st.run] if st.run >= 0 else "nobody",
            ", settings locked (EQ-6)" if st.locked else "",
        )
    ]
    for i in (0, 1):
        lines.append(
            "  %-5s %10s  moves %3d  periods %d%s"
            % (
                names[i],
                tcs.fmt_clock(st.left[i]),
                st.moves[i],
                st.periods[i],
                "  flag (first)" if st.first_flag == i else "",
            )
        )
    lines.append("  left lever: %s; last event %d; clock time %d ms" % (st.levers, st.seq, st.t))
    return "\n".join(lines)


def fmt_event(ev: Event) -> str:
    side = ("red", "black")[ev.side] if ev.side in (0, 1) else "-"
    return "%6d %10d  %-9s %-5s %8d   %s | %s" % (
        ev.seq,
        ev.t,
        ev.name,
        side,
        ev.arg,
        tcs.fmt_clock(ev.left[0]),
        tcs.fmt_clock(ev.left[1]),
    )


# -- the commands -----------------------------------------------------------------------


def cmd_ports(args: argparse.Namespace) -> int:
    ports = _ports()
    if not ports:
        print("no serial ports")
    for p in ports:
        mark = "  qizhong (Pico)" if (p.vid, p.pid) == PICO_USB else ""
        ids = "%04X:%04X" % (p.vid, p.pid) if p.vid is not None else "-"
        print("%-20s %-10s %s%s" % (p.device, ids, p.description, mark))
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    try:
        tc = tcs.parse(args.spec)
    except tcs.SpecError as e:
        print("qizhong: bad time control: %s" % e.msg, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return 2
    with _clock(args) as c:
        c.configure(tcs.spec_of(tc), override=args.override)
        if args.levers:
            c.levers(args.levers)
        print("configured: %s" % c.time_control())
    return 0


def _simple(verb: str):
    def run(args: argparse.Namespace) -> int:
        with _clock(args) as c:
            if verb == "start":
                c.start(args.side)
            elif verb == "penalty":
                c.penalty(args.side, args.ms)
            elif verb == "knock":
                c.knock(args.side)
            elif verb == "set":
                c.set(args.side, args.ms, args.moves, args.periods)
            elif verb == "volume":
                c.volume(args.level)
            elif verb == "mute":
                c.mute(args.state == "on")
            elif verb == "finish":
                r = {"red": 0, "black": 1, "draw": DRAW, None: None}[args.result]
                c.finish(r)
            elif verb == "levers":
                c.levers(args.left)
            else:
                getattr(c, {"new": "new_game"}.get(verb, verb))()
            print("%s: done" % verb)
        return 0

    return run


def cmd_status(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        if not args.watch:
            print(fmt_status(c.status()))
            return 0
        shown = 0
        n = 0
        try:
            while not args.count or n < args.count:
                n += 1
                text = fmt_status(c.status())
                if shown:
                    sys.stdout.write("\x1b[%dA" % shown)  # back up over the last picture
                sys.stdout.write("\n".join("\x1b[2K" + ln for ln in text.split("\n")) + "\n")
                sys.stdout.flush()
                shown = text.count("\n") + 1
                c.events(args.interval)  # wakes early on an event
        except KeyboardInterrupt:
            pass
        return 0


def cmd_events(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        if args.since is not None:
            for ev in c.since(args.since):
                print(fmt_event(ev))
        if not args.follow:
            return 0
        try:
            while True:
                for ev in c.events(1.0):
                    print(fmt_event(ev), flush=True)
        except KeyboardInterrupt:
            return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        print("measuring for %d s..." % args.seconds, flush=True)
        trim = c.calibrate(args.seconds * 1000, samples=max(4, args.seconds // 5))
        print("the clock runs %+d ppm; trim set" % trim)
    return 0


def cmd_flash(args: argparse.Namespace) -> int:
    from qizhong.clocks import flash

    return int(flash.main_flash(args.port, args.build_only))


# -- wiring -------------------------------------------------------------------------------


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", help="serial device (default: $QIZHONG_PORT, or the one Pico)")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a reply")


def add_commands(sub: argparse._SubParsersAction) -> None:
    side = {"choices": ["red", "black", "0", "1"], "help": "red (0, moves first) or black (1)"}

    s = sub.add_parser("ports", help="list serial ports; marks the Pico clocks")
    s.set_defaults(func=cmd_ports)

    s = sub.add_parser("config", help="load a time control into the clock")
    _common(s)
    s.add_argument("spec", help="a spec such as '15m+10s' or a preset (qizhong presets)")
    s.add_argument("--override", action="store_true", help="after three moves each (EQ-6)")
    s.add_argument("--levers", choices=["red", "black"], help="whose lever is the left one")
    s.set_defaults(func=cmd_config)

    for verb, about in (
        ("pause", "pause both times"),
        ("resume", "resume after a pause or a knock"),
        ("new", "a new game under the same control"),
    ):
        s = sub.add_parser(verb, help=about)
        _common(s)
        s.set_defaults(func=_simple(verb))

    s = sub.add_parser("start", help="start the game")
    _common(s)
    s.add_argument("side", nargs="?", default="red", **side)
    s.set_defaults(func=_simple("start"))

    s = sub.add_parser("penalty", help="add (or, negative, take) time from a side")
    _common(s)
    s.add_argument("side", **side)
    s.add_argument("ms", type=int, help="milliseconds, e.g. -120000 for 2 minutes off")
    s.set_defaults(func=_simple("penalty"))

    s = sub.add_parser("knock", help="after a tilt: the side that knocked the clock (EQ-5)")
    _common(s)
    s.add_argument("side", **side)
    s.set_defaults(func=_simple("knock"))

    s = sub.add_parser("set", help="set a side's time, moves and periods (EQ-7)")
    _common(s)
    s.add_argument("side", **side)
    s.add_argument("ms", type=int, help="main time in ms")
    s.add_argument("--moves", type=int)
    s.add_argument("--periods", type=int)
    s.set_defaults(func=_simple("set"))

    s = sub.add_parser("levers", help="whose lever is the left one (EQ-1)")
    _common(s)
    s.add_argument("left", choices=["red", "black"])
    s.set_defaults(func=_simple("levers"))

    s = sub.add_parser("finish", help="end the game; the displays show the result")
    _common(s)
    s.add_argument("result", nargs="?", choices=["red", "black", "draw"])
    s.set_defaults(func=_simple("finish"))

    s = sub.add_parser("volume", help="voice volume 0..10")
    _common(s)
    s.add_argument("level", type=int)
    s.set_defaults(func=_simple("volume"))

    s = sub.add_parser("mute", help="voice off or on (the time-out buzzer always sounds)")
    _common(s)
    s.add_argument("state", choices=["on", "off"])
    s.set_defaults(func=_simple("mute"))

    s = sub.add_parser("status", help="the clock's state")
    _common(s)
    s.add_argument("--watch", action="store_true", help="live, updating in place")
    s.add_argument("--interval", type=float, default=0.2, help="seconds between refreshes")
    s.add_argument("--count", type=int, default=0, help="stop after N refreshes (0: never)")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("events", help="the clock's events: what it still keeps, and new ones")
    _common(s)
    s.add_argument("--since", type=int, help="every kept event after this sequence number")
    s.add_argument("--follow", action="store_true", help="then print new events as they come")
    s.set_defaults(func=cmd_events)

    s = sub.add_parser("calibrate", help="measure the clock's crystal and trim it")
    _common(s)
    s.add_argument("--seconds", type=int, default=60, help="how long to measure")
    s.set_defaults(func=cmd_calibrate)

    s = sub.add_parser("flash", help="build the firmware bundle and upload it with mpremote")
    s.add_argument("--port", help="the Pico's serial device (default: mpremote's choice)")
    s.add_argument("--build-only", action="store_true", help="build build/firmware only")
    s.set_defaults(func=cmd_flash)


def run(func, args: argparse.Namespace) -> int:
    """Run a clock command: its errors become plain words and exit codes."""
    try:
        return int(func(args))
    except CommandError as e:
        text = "qizhong: the clock refused %s: %s (%s)" % (e.verb, e.message, e.code)
        print(see_rules(text), file=sys.stderr)
        return 3
    except LinkError as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 1
    except ValueError as e:
        print(see_rules("qizhong: %s" % e), file=sys.stderr)
        return 2
