# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong`` commands that talk to a clock: ports, config, start, status...

Every one takes ``--port`` (or the QIZHONG_PORT variable): a Pico's USB
serial device, or the pty that ``qizhong sim --headless`` prints; both work
the same way. Exit codes: 0 done, 1 not done (the clock could not be
reached, another program owns its port (the message gives its pid and
command line), or the question was answered no), 2 bad input (checked here,
before the clock is asked), 3 the clock refused the command (its reason is
printed).

Sides go by the game's own colours (``--game``, else the game the clock's
time control belongs to): red and black in Xiangqi, black and white in Go,
white and black in chess; 0 and 1 (0 moves first) always work. A command
that ends a game or cannot be undone asks first, or takes ``--yes``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from dataclasses import replace

from qizhong import timecontrol as tcs
from qizhong.clocks.driver import DRAW, GAMES, PICO_USB, Clock, Status, side_index
from qizhong.clocks.link import CommandError, Event, LinkError, PortBusy, Restart
from qizhong.core.voice import LANGS, STYLES
from qizhong.rules.ref import see_rules


class NotDone(Exception):
    """The user answered no: nothing was done (exit 1)."""


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
    try:
        return Clock(port, timeout=args.timeout)
    except PortBusy as busy:  # #15: a hall server owns it: through the server
        from qizhong.server.client import via_server

        clock = via_server(port, busy, timeout=args.timeout)
        if clock is None:
            raise
        return clock


def _ports() -> list:
    from serial.tools import list_ports

    return list(list_ports.comports())


def parse_spec(text: str) -> tcs.TimeControl:
    """A spec or preset; a near miss of a preset's name gets "did you mean"."""
    try:
        return tcs.parse(text)
    except tcs.SpecError:
        hint = tcs.suggest(text)
        if hint:
            raise ValueError(hint) from None
        raise


def _game(args: argparse.Namespace, c: Clock) -> tuple[str, tcs.TimeControl]:
    """The game whose colours name the sides (``--game``, else the clock's
    time control's), and that control; sets ``c.game``."""
    tc = tcs.parse(c.time_control())
    c.game = getattr(args, "game", None) or tcs.game_of(tc)
    return c.game, tc


def _side_of(args: argparse.Namespace, c: Clock, name: str) -> int:
    game, _ = _game(args, c)
    return _side_in(args, game, name)


def _side_in(args: argparse.Namespace, game: str, name: str) -> int:
    try:
        return side_index(name, game)
    except ValueError as e:
        if game == "xiangqi" and name == "white" and not getattr(args, "game", None):
            raise ValueError("%s; in chess, add --game chess" % e) from None
        raise


def _confirm(args: argparse.Namespace, what: str) -> None:
    """A command that ends a game or cannot be undone: ``--yes``, or ask on a
    terminal; with no terminal to ask, refuse (bad input, exit 2)."""
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise ValueError("%s, which cannot be undone: add --yes (no terminal to ask)" % what)
    answer = input("%s, which cannot be undone. Go on? [y/N] " % what)
    if answer.strip().lower() not in ("y", "yes"):
        raise NotDone("not done")


def _result_text(st: Status, names: tuple[str, str]) -> str:
    if st.result in (0, 1):
        return "%s wins" % names[st.result]
    if st.result == DRAW:
        return "draw"
    return "none given"


def fmt_status(
    st: Status, tc: str = "", game: str = "xiangqi", voice: tuple[str, str] = ("cmn", "up")
) -> str:
    """The clock's state in lines: who is to move, both times, the time
    control, the result when there is one, the voice."""
    names = GAMES[game]
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
    if tc:
        lines.append("  time control %s (%s)" % (tc, game))
    if st.state == "finished":
        lines.append("  result: %s" % _result_text(st, names))
    lines.append(
        "  voice: %s, counting %s, volume %d%s"
        % (voice[0], voice[1], st.volume, ", muted" if st.muted else "")
    )
    left = names[("red", "black").index(st.levers)] if st.levers in ("red", "black") else st.levers
    lines.append("  left lever: %s; last event %d; clock time %d ms" % (left, st.seq, st.t))
    return "\n".join(lines)


EVENT_HEAD = "%6s %10s  %-9s %-5s %8s   %s"


def fmt_event(ev: Event, game: str = "xiangqi") -> str:
    names = GAMES[game]
    side = names[ev.side] if ev.side in (0, 1) else "-"
    return "%6d %10d  %-9s %-5s %8d   %s | %s" % (
        ev.seq,
        ev.t,
        ev.name,
        side,
        ev.arg,
        tcs.fmt_clock(ev.left[0]),
        tcs.fmt_clock(ev.left[1]),
    )


def _event_head(game: str) -> str:
    names = GAMES[game]
    return EVENT_HEAD % ("seq", "clock ms", "event", "side", "arg", "%s | %s" % names)


# -- the commands -----------------------------------------------------------------------


def cmd_ports(args: argparse.Namespace) -> int:
    ports = _ports()
    if not ports:
        print("no serial ports")
        return 0
    print("%-20s %-10s %s" % ("device", "usb id", "description"))
    for p in ports:
        mark = "  qizhong (Pico)" if (p.vid, p.pid) == PICO_USB else ""
        ids = "%04X:%04X" % (p.vid, p.pid) if p.vid is not None else "-"
        print("%-20s %-10s %s%s" % (p.device, ids, p.description, mark))
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    try:
        tc = parse_spec(args.spec)
    except tcs.SpecError as e:
        print("qizhong: bad time control: %s" % e.msg, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return 2
    with _clock(args) as c:
        if args.levers:
            c.game = args.game or tcs.game_of(tc)
            left = _side_in(args, c.game, args.levers)  # checked before anything changes
        if args.voice or args.count:  # first: a game in play refuses it, and nothing changed
            c.voice(args.voice, args.count)
        c.configure(tcs.spec_of(tc), override=args.override)
        if args.levers:
            c.levers(left, override=args.override)
        print("configured: %s" % c.time_control())
        if args.voice or args.count:
            print("voice: %s, counting %s" % c.voice())
    return 0


def cmd_voice(args: argparse.Namespace) -> int:
    lang = [w for w in args.words if w in LANGS]
    count = [w for w in args.words if w in STYLES]
    if len(lang) > 1 or len(count) > 1 or len(lang) + len(count) != len(args.words):
        raise ValueError(
            "voice [%s] [%s]: one language, one style, or both"
            % ("|".join(LANGS), "|".join(STYLES))
        )
    with _clock(args) as c:
        got = c.voice(lang[0] if lang else None, count[0] if count else None)
        print("voice: %s, counting %s" % got)
    return 0


def _simple(verb: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        with _clock(args) as c:
            if verb == "start":
                c.start(0 if args.side is None else _side_of(args, c, args.side))
            elif verb == "knock":
                c.knock(_side_of(args, c, args.side))
            elif verb == "levers":
                c.levers(_side_of(args, c, args.left), override=args.override)
            elif verb == "volume":
                c.volume(args.level)
            elif verb == "mute":
                c.mute(args.state == "on")
            else:
                getattr(c, verb)()
            print("%s: done" % verb)
        return 0

    return run


def _times(c: Clock, side: int, names: tuple[str, str]) -> str:
    st = c.status()
    return "%s now %s (moves %d, periods %d)" % (
        names[side],
        tcs.fmt_clock(st.left[side]),
        st.moves[side],
        st.periods[side],
    )


def cmd_penalty(args: argparse.Namespace) -> int:
    delta = tcs.duration(args.time, "the penalty", signed=True)
    with _clock(args) as c:
        side = _side_of(args, c, args.side)
        names = GAMES[c.game or "xiangqi"]
        st = c.status()
        if st.left[side] + delta > tcs.MAX_MS:  # the clock's faces and events stop at 100h
            have, more = tcs.fmt_clock(st.left[side]), tcs.fmt_ms(delta)
            raise ValueError("%s has %s: %s more is over 100h, the most a clock holds"
                             % (names[side], have, more))  # fmt: skip
        if st.state in ("running", "paused", "knocked") and st.left[side] + delta <= 0:
            name, have = names[side], tcs.fmt_clock(st.left[side])
            _confirm(args, "%s has %s: taking %s flags %s and ends the game"
                     % (name, have, tcs.fmt_ms(-delta), name))  # fmt: skip
        c.penalty(side, delta)
        sign = "-" if delta < 0 else "+"
        print("penalty: %s %s%s; %s"
              % (names[side], sign, tcs.fmt_ms(abs(delta)), _times(c, side, names)))  # fmt: skip
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    ms = tcs.duration(args.time, "the time")
    with _clock(args) as c:
        side = _side_of(args, c, args.side)
        game, tc = _game(args, c)
        if args.periods is not None:
            ot = tc.overtime
            if ot is None or ot.kind != "byoyomi":
                raise ValueError("--periods: %s has no byo-yomi periods" % tcs.spec_of(tc))
            if args.periods > ot.count:
                raise ValueError("--periods: %s has at most %d" % (tcs.spec_of(tc), ot.count))
        if ms == 0 and tc.overtime is None and c.status().state in ("running", "paused", "knocked"):
            name = GAMES[game][side]  # no overtime to go on in: a flag, as a penalty's (TC-8)
            _confirm(args, "%s at 0 flags %s and ends the game" % (name, name))
        c.set(side, ms, args.moves, args.periods)
        print("set: %s" % _times(c, side, GAMES[game]))
    return 0


def cmd_finish(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        game, _ = _game(args, c)
        names = GAMES[game]
        if args.result is None or args.result == "draw":
            result = None if args.result is None else DRAW
        else:
            result = side_index(args.result, game)
        st = c.status()
        if st.state == "finished" and st.result >= 0:
            raise CommandError(
                "finish", "state", "the game already has a result: %s" % _result_text(st, names)
            )
        said = "no result" if result is None else _result_text(replace(st, result=result), names)
        if st.state != "idle":  # idle: the clock's own refusal says it has not started
            _confirm(args, "finish the game: %s" % said)
        c.finish(result)
        print("finish: %s" % said)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        st = c.status()
        if st.state in ("running", "paused", "knocked"):
            _confirm(args, "a game is in play (moves %d and %d): a new one ends it with no result"
                     % st.moves)  # fmt: skip
        c.new_game(override=args.override)
        print("new: a new game under %s" % c.time_control())
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with _clock(args) as c:

        def text() -> str:
            game, tc = _game(args, c)
            return fmt_status(c.status(), tcs.spec_of(tc), game, c.voice())

        if not args.watch:
            print(text())
            return 0
        shown = 0
        n = 0
        try:
            while not args.count or n < args.count:
                n += 1
                now = text()
                if shown:
                    sys.stdout.write("\x1b[%dA" % shown)  # back up over the last picture
                sys.stdout.write("\n".join("\x1b[2K" + ln for ln in now.split("\n")) + "\n")
                sys.stdout.flush()
                shown = now.count("\n") + 1
                c.events(args.interval)  # wakes early on an event
        except KeyboardInterrupt:
            pass
        return 0


def cmd_events(args: argparse.Namespace) -> int:
    with _clock(args) as c:
        game, _ = _game(args, c)
        print(_event_head(game), flush=True)
        if args.since is not None:
            for ev in c.since(args.since):
                print(fmt_event(ev, game))
        if not args.follow:
            return 0
        seen = len(c.link.restarts)
        try:
            while True:
                for ev in c.events(1.0):
                    print(fmt_event(ev, game), flush=True)
                for r in c.link.restarts[seen:]:  # #12: say so, never renumber silently
                    print(fmt_restart(r), file=sys.stderr, flush=True)
                seen = len(c.link.restarts)
        except KeyboardInterrupt:
            return 0


CALIBRATE_PPM = 20  # the promise: within 20 ppm, under 0.15 s in a two-hour game
READ_MS = 1  # the clock's time reads in whole ms


def calibrate(
    c: Clock,
    seconds: int,
    now: Callable[[], int] | None = None,
    wait: Callable[[int], None] | None = None,
    say: Callable[[str], None] = print,
) -> tuple[int, int]:
    """Measure the crystal over ``seconds`` and send the trim; returns (trim,
    uncertainty), both ppm. The uncertainty bounds the rate from the first
    and last readings: each is off by at most half its round trip, plus the
    1 ms of a reading. Refuses (ValueError), before the clock's trim is
    touched, a span too short for CALIBRATE_PPM on this link."""
    import time

    host = now or (lambda: time.monotonic_ns() // 1000000)
    if seconds <= 0:
        raise ValueError("--seconds must be positive")
    trips = []
    for _ in range(3):  # this link's round trip, before anything changes
        a = host()
        c.now()
        trips.append(host() - a)
    span = seconds * 1000
    worst = max(max(trips), READ_MS) + READ_MS  # ms either end may be off, at worst
    if worst * 1000000 > CALIBRATE_PPM * span:
        need = -(-worst * 1000000 // CALIBRATE_PPM // 1000)
        raise ValueError(
            "--seconds %d cannot measure within %d ppm on this link (round trip up to %d ms): "
            "use at least --seconds %d" % (seconds, CALIBRATE_PPM, max(trips), need)
        )
    stamps: list[int] = []

    def stamped() -> int:
        t = host()
        stamps.append(t)
        return t

    say("measuring for %d s..." % seconds)
    trim = c.calibrate(span, samples=max(4, seconds // 5), now=stamped, wait=wait)
    rtt = max(stamps[i + 1] - stamps[i] for i in range(0, len(stamps) - 1, 2))
    measured = stamps[-1] - stamps[0]
    unc = -(-(rtt + READ_MS) * 1000000 // max(measured, 1))  # rounded up
    if unc > CALIBRATE_PPM:  # a round trip grew during the measurement (a busy host)
        need = -(-(rtt + READ_MS) * 1000000 // CALIBRATE_PPM // 1000)
        raise NotDone(
            "the clock runs %+d ppm, but only within ±%d ppm, not %d: a round trip took %d ms "
            "while measuring. The trim is set to it; measure again on a quieter host, or "
            "with --seconds %d or more" % (trim, unc, CALIBRATE_PPM, rtt, max(need, MIN_SECONDS))
        )
    say("the clock runs %+d ppm (within ±%d ppm); trim set" % (trim, unc))
    return trim, unc


MIN_SECONDS = 2 * READ_MS * 1000 // CALIBRATE_PPM  # 100 s: two 1 ms readings, 20 ppm


def fmt_restart(r: Restart) -> str:
    """One line for a restart of the clock (``Link.restarts``)."""
    return "qizhong: the clock restarted (boot %s)%s; %s" % (
        r.new_boot or "?",
        ", its event numbers start again" if r.renumbered else "",
        "%d event numbers could not be had" % r.lost if r.lost else "nothing kept was lost",
    )


def cmd_calibrate(args: argparse.Namespace) -> int:
    if args.seconds < MIN_SECONDS:  # before the clock is touched: its trim stays
        raise ValueError(
            "--seconds %d is too short to measure within %d ppm: at least %d (600 is better)"
            % (args.seconds, CALIBRATE_PPM, MIN_SECONDS)
        )
    with _clock(args) as c:
        calibrate(c, args.seconds, say=lambda s: print(s, flush=True))
    return 0


def cmd_flash(args: argparse.Namespace) -> int:
    from qizhong.clocks import flash

    return int(flash.main_flash(args.port, args.build_only))


# -- wiring -------------------------------------------------------------------------------


def _timeout(text: str) -> float:
    v = float(text)
    if not v > 0 or v > 3600:
        raise argparse.ArgumentTypeError("seconds above 0, at most 3600")
    return v


def _interval(text: str) -> float:
    v = float(text)
    if not 0 <= v <= 3600:  # nan and inf too
        raise argparse.ArgumentTypeError("seconds 0 (as fast as the clock answers) to 3600")
    return v


def _count(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError("0 or more")
    return v


MAX_MOVES = 9999  # more than any game; the journal keeps 16 bits (docs/journal.md)


def _moves(text: str) -> int:
    v = int(text)
    if not 0 <= v <= MAX_MOVES:
        raise argparse.ArgumentTypeError("0 or more, at most %d" % MAX_MOVES)
    return v


def _level(text: str) -> int:
    v = int(text)
    if not 0 <= v <= 10:
        raise argparse.ArgumentTypeError("a level 0..10")
    return v


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", help="serial device (default: $QIZHONG_PORT, or the one Pico)")
    p.add_argument("--timeout", type=_timeout, default=2.0, help="seconds to wait for a reply")


def _game_opt(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--game",
        choices=list(GAMES),
        help="whose colours name the sides (default: the clock's time control's game: "
        "go for byo-yomi and Canadian, chess for the delays, else xiangqi)",
    )


def _yes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help="do it without asking (it cannot be undone)")


SIDE_HELP = "the game's colour (xiangqi red/black, go black/white, chess white/black) or 0/1"


def add_commands(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("ports", help="list serial ports; marks the Pico clocks")
    s.set_defaults(func=cmd_ports)

    s = sub.add_parser("config", help="load a time control into the clock")
    _common(s)
    _game_opt(s)
    s.add_argument("spec", help="a spec such as '15m+10s' or a preset (qizhong presets)")
    s.add_argument("--override", action="store_true", help="after three moves each (EQ-6)")
    s.add_argument("--levers", metavar="SIDE", help="whose lever is the left one (EQ-1)")
    s.add_argument("--voice", choices=LANGS, help="the voice's language (docs/voice.md)")
    s.add_argument("--count", choices=STYLES, help="the voice counts up or down (docs/voice.md)")
    s.set_defaults(func=cmd_config)

    for verb, about in (
        ("pause", "pause both times"),
        ("resume", "resume after a pause or a knock"),
    ):
        s = sub.add_parser(verb, help=about)
        _common(s)
        s.set_defaults(func=_simple(verb))

    s = sub.add_parser(
        "new",
        help="a new game under the same control",
        description="A new game under the same control. Over a game in play it ends that "
        "game with no result (asks, or --yes); after three moves each only with --override "
        "(EQ-6).",
    )
    _common(s)
    _yes(s)
    s.add_argument("--override", action="store_true", help="the arbiter's override (EQ-6)")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("start", help="start the game")
    _common(s)
    _game_opt(s)
    s.add_argument("side", nargs="?", help="who moves first's clock runs (default: 0)")
    s.set_defaults(func=_simple("start"))

    s = sub.add_parser(
        "penalty",
        help="add (or, negative, take) time from a side",
        description="Add time to a side, or take it away: 30s, -2m, 1m30s (the spec's "
        "units), or a bare number of ms. Prints the side's new time. A penalty that "
        "flags the side ends the game: it asks first, or takes --yes.",
    )
    _common(s)
    _game_opt(s)
    _yes(s)
    s.add_argument("side", help=SIDE_HELP)
    s.add_argument("time", help="e.g. -2m, 30s, -120000 (ms)")
    # -2m and -1m30s are times, not options (argparse only knows -120000 so)
    s._negative_number_matcher = re.compile(r"^-\d[\dhms]*$")  # type: ignore[attr-defined]
    s.set_defaults(func=cmd_penalty)

    s = sub.add_parser("knock", help="after a tilt: the side that knocked the clock (EQ-5)")
    _common(s)
    _game_opt(s)
    s.add_argument("side", help=SIDE_HELP)
    s.set_defaults(func=_simple("knock"))

    s = sub.add_parser("set", help="set a side's time, moves and periods (EQ-7)")
    _common(s)
    _game_opt(s)
    s.add_argument("side", help=SIDE_HELP)
    s.add_argument("time", help="main time: 5m, 1h30m, or a bare number of ms (at most 100h)")
    s.add_argument("--moves", type=_moves, help="moves made (0..%d)" % MAX_MOVES)
    s.add_argument("--periods", type=_count, help="byo-yomi periods left (TC-6)")
    _yes(s)
    s._negative_number_matcher = re.compile(r"^-\d[\dhms]*$")  # type: ignore[attr-defined]
    s.set_defaults(func=cmd_set)

    s = sub.add_parser("levers", help="whose lever is the left one (EQ-1)")
    _common(s)
    _game_opt(s)
    s.add_argument("left", help=SIDE_HELP)
    s.add_argument(
        "--override", action="store_true", help="in a game after three moves each (EQ-6)"
    )
    s.set_defaults(func=_simple("levers"))

    s = sub.add_parser(
        "finish",
        help="end the game; the displays show the result",
        description="End the game with a result (a side, draw, or none). A game has one "
        "result: a second is refused. Asks first, or takes --yes.",
    )
    _common(s)
    _game_opt(s)
    _yes(s)
    s.add_argument("result", nargs="?", help="the winner (%s), or draw" % SIDE_HELP)
    s.set_defaults(func=cmd_finish)

    s = sub.add_parser("volume", help="voice volume 0..10")
    _common(s)
    s.add_argument("level", type=_level)
    s.set_defaults(func=_simple("volume"))

    s = sub.add_parser(
        "voice",
        help="the voice's language and count: qizhong voice ja down (docs/voice.md)",
        description="The language the clock speaks (%s) and whether it counts the time "
        "used (up) or left (down); either word, or both. Between games only." % ", ".join(LANGS),
    )
    _common(s)
    s.add_argument("words", nargs="+", metavar="LANG|up|down")
    s.set_defaults(func=cmd_voice)

    s = sub.add_parser("mute", help="voice off or on (the time-out buzzer always sounds)")
    _common(s)
    s.add_argument("state", choices=["on", "off"])
    s.set_defaults(func=_simple("mute"))

    s = sub.add_parser("status", help="the clock's state, time control, result and voice")
    _common(s)
    _game_opt(s)
    s.add_argument("--watch", action="store_true", help="live, updating in place")
    s.add_argument("--interval", type=_interval, default=0.2, help="seconds between refreshes")
    s.add_argument("--count", type=_count, default=0, help="stop after N refreshes (0: never)")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("events", help="the clock's events: what it still keeps, and new ones")
    _common(s)
    _game_opt(s)
    s.add_argument("--since", type=_count, help="every kept event after this sequence number")
    s.add_argument("--follow", action="store_true", help="then print new events as they come")
    s.set_defaults(func=cmd_events)

    s = sub.add_parser(
        "calibrate",
        help="measure the clock's crystal and trim it",
        description="Measure the clock's crystal against this computer's clock for "
        "--seconds, then send the trim. The span must give %d ppm on this link "
        "(at least %d s; 600 s is better): a shorter one is refused before the "
        "clock's trim is touched. Prints the result's uncertainty." % (CALIBRATE_PPM, MIN_SECONDS),
    )
    _common(s)
    s.add_argument("--seconds", type=int, default=600, help="how long to measure (default 600)")
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
    except NotDone as e:
        print("qizhong: %s" % e, file=sys.stderr)
        return 1
    except tcs.SpecError as e:
        print("qizhong: bad time: %s" % e.msg, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return 2
    except ValueError as e:
        print(see_rules("qizhong: %s" % e), file=sys.stderr)
        return 2
