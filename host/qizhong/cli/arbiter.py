# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter``: the arbiter's console at the table (docs/arbiter.md).

The console itself (``Console``: typed lines in, lines out; ``make_session``;
``replay``) is ``qizhong.arbiter.console``'s, shared with the hall server.
Here is the terminal around it (``run_terminal``: on a terminal it redraws the
clocks, the hint and the prompt as keys come; from a pipe it reads one line
at a time), the journal beside the record, and the note of which game each
clock has, from which a stopped console resumes.
"""

from __future__ import annotations

import argparse
import codecs
import datetime
import os
import selectors
import signal
import sys
from typing import IO, TYPE_CHECKING, Any, cast

from qizhong.cli import clock as cli_clock

if TYPE_CHECKING:  # the sessions load with the console, not with every `qizhong` command
    from qizhong.arbiter.console import Console
    from qizhong.clocks.driver import Clock


# -- the terminal -----------------------------------------------------------------------


def run_terminal(console: Console, stdin: IO[str], stdout: IO[str]) -> int:
    """The console on a terminal (redrawn as keys come), or line by line from a pipe."""
    for line in console.poll():
        print(line, file=stdout)
    if not stdin.isatty():
        try:
            for line in stdin:
                for out in console.handle(line):
                    print(out, file=stdout)
                if console.done:
                    break
        except KeyboardInterrupt:  # Ctrl-C (or SIGTERM, SIGHUP): leave as at the end of input
            pass
        for out in console.close():
            print(out, file=stdout)
        return 0
    return _tty(console, stdin, stdout)


def _tty(console: Console, stdin: IO[str], stdout: IO[str]) -> int:  # pragma: no cover
    import termios
    import tty

    fd = stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    buf = ""
    drawn = False
    print("type help for the commands", file=stdout)
    try:
        while not console.done:
            above = console.poll()
            for _ in sel.select(0.2):
                data = os.read(fd, 1024)
                if not data:
                    console.done = True
                for ch in dec.decode(data):
                    if ch in "\r\n":
                        above += ["> " + buf, *console.handle(buf)]
                        buf = ""
                    elif ch in "\x7f\b":
                        buf = buf[:-1]
                    elif ch == "\t":
                        buf = console.complete(buf)
                    elif ch == "\x04" and not buf:
                        console.done = True
                    elif ch >= " ":
                        buf += ch
            if drawn:
                stdout.write("\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K")
            for line in above:
                stdout.write(line + "\n")
            stdout.write("%s\n%s\n> %s" % (console.status(), console.hint(buf), buf))
            stdout.flush()
            drawn = True
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        stdout.write("\n")
        for line in console.close():
            stdout.write(line + "\n")
        stdout.flush()
    return 0


# -- the command ------------------------------------------------------------------------


def state_dir() -> str:
    """Where the console notes which journal each clock's game is in:
    ``$QIZHONG_STATE``, else ``$XDG_STATE_HOME/qizhong``, else ``~/.local/state/qizhong``."""
    path = os.environ.get("QIZHONG_STATE")
    if path:
        return path
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "qizhong")


def _pointer(clock_id: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in clock_id)
    return os.path.join(state_dir(), "arbiter-%s.journal" % safe)


def _point(clock_id: str, journal: str | None) -> None:
    """Note (or, with None, forget) the journal of the game on this clock."""
    path = _pointer(clock_id)
    try:
        if journal is None:
            try:
                os.unlink(path)
            except OSError:  # none there; or a note of a finished game, which is passed over
                pass
            return
        from qizhong.records import files

        os.makedirs(os.path.dirname(path), exist_ok=True)
        files.replace(path, (os.path.abspath(journal) + "\n").encode())
    except OSError as e:  # a state folder that cannot be used: the game goes on without the note
        print("qizhong: cannot note the clock's game in %s (%s); resume it with --resume %s"
              % (state_dir(), e.strerror or e, journal), file=sys.stderr)  # fmt: skip


def _pointed(clock_id: str) -> str | None:
    try:
        with open(_pointer(clock_id), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def new_console(args: argparse.Namespace, clock: Clock, out: str) -> Console:
    """A new game: the record and its journal claimed first (a taken path is
    refused before the clock is touched), then the session."""
    from qizhong.arbiter.console import KEPT_ARGS, Console, make_session
    from qizhong.arbiter.journal import Journal, journal_path
    from qizhong.arbiter.session import ArbiterError

    jpath = journal_path(out)
    for path in (out, jpath):
        if os.path.exists(path):
            raise ArbiterError("%s exists: give another --out (records are never overwritten)"
                               % path)  # fmt: skip
    args.date = (args.date or datetime.date.today()).isoformat()  # kept in the journal
    header = {
        "args": {k: getattr(args, k, None) for k in KEPT_ARGS},
        "clock": {"id": clock.hello.id, "boot": clock.hello.boot},
        "record": os.path.abspath(out),
    }
    journal = Journal.create(jpath, clock, header)
    try:
        with journal.action("new"):
            session = make_session(args, cast("Clock", journal.tape))
        session.keep(out)
    except BaseException:
        journal.close()
        os.unlink(jpath)
        raise
    # The note stays until the clock's next game replaces it: a game ended and
    # then taken up again (``unrule``) resumes, whenever the console stopped.
    _point(clock.hello.id, jpath)
    console = Console(session, journal=journal)
    return console


def resume_console(jpath: str, clock: Clock) -> tuple[Console, list[str]]:
    """The game of journal ``jpath`` picked up again: every line typed is run
    again on the clock's journaled answers, then the clock's events since
    come in (the presses made meanwhile wait for their moves)."""
    from qizhong.arbiter import journal as jr
    from qizhong.arbiter.console import replay
    from qizhong.arbiter.session import ArbiterError

    header, actions, good = jr.read(jpath)
    if header["clock"].get("id") != clock.hello.id:
        raise ArbiterError("%s is the game on clock %s; this is clock %s" % (
            jpath, header["clock"].get("id"), clock.hello.id))  # fmt: skip
    if not actions or actions[0][0] != ["new"]:
        raise ArbiterError("%s: the game never started; remove it to start again" % jpath)
    journal = jr.Journal.reopen(jpath, clock, good)
    # The link starts after the last event the journal has: an action the stop
    # cut short may run on live, and must not be handed the old ones again.
    seen = jr.last_event(actions)
    if seen:
        clock.link.skip_to(seen)
    late = clock.status().seq  # events up to here came while no console watched
    journal.late(seen, late)
    # Each resume's span, the journaled ones and this one: the presses the
    # journal has were ruled as they came, whatever came after them.
    console = replay(header, actions, journal, spans=[(seen, late)])
    session = console.session
    lines = []
    if header["clock"].get("boot") != clock.hello.boot:
        lines.append("!  the clock restarted since (power): its events since are those it kept")
    clock.link.sync()  # the clock's events after the last one journaled (it keeps 256)
    if clock.link.lost:
        lines.append("!  %d of the clock's events were no longer kept" % clock.link.lost)
    session.keep(str(header["record"]), claim=False)
    console.ended = session.over
    fouls = "" if not any(session.fouls) else ", fouls %d-%d" % tuple(session.fouls)
    lines.insert(0, "   resumed from %s: %d moves%s%s" % (
        jpath, len(session.played), fouls,
        "; " + session.result_text() if session.over else ""))  # fmt: skip
    return console, lines


def open_console(args: argparse.Namespace, clock: Clock) -> tuple[Console, list[str]]:
    """Resume the clock's unfinished game if there is one, else start a new one."""
    from qizhong.arbiter.journal import journal_path
    from qizhong.arbiter.session import ArbiterError, free_path

    if args.resume:
        console, lines = resume_console(args.resume, clock)
        _point(clock.hello.id, args.resume)  # a bare console goes on with it (an unrule)
        return console, lines
    if args.out and os.path.exists(journal_path(args.out)):
        console, lines = resume_console(journal_path(args.out), clock)
        if not console.session.over:
            _point(clock.hello.id, journal_path(args.out))
            return console, lines
        console.close()
        raise ArbiterError("%s exists (a finished game): give another --out" % args.out)
    pointed = _pointed(clock.hello.id)
    if pointed and os.path.exists(pointed):
        console, lines = resume_console(pointed, clock)
        if not console.session.over:
            return console, lines
        console.close()
    _point(clock.hello.id, None)
    out = args.out
    if not out:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        out = free_path("qizhong-%s%s" % (stamp, ".sgf" if args.game == "go" else ".pgn"))
    return new_console(args, clock, out), []


def cmd_arbiter(
    args: argparse.Namespace, stdin: IO[str] | None = None, stdout: IO[str] | None = None
) -> int:
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.xiangqi import XiangqiSession

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    with cli_clock._clock(args) as clock:
        from qizhong.server.client import ServerLink

        if isinstance(clock.link, ServerLink):  # the hall server owns it: its game, there
            return _remote(args, clock.link, stdin, stdout)
        console, lines = open_console(args, clock)
        session = console.session
        game_name = {"go": "Go", "chess": "Chess"}.get(args.game, "Xiangqi")
        print("%s game, %s; the record goes to %s" % (
            game_name, session.spec, console.out), file=stdout)  # fmt: skip
        if isinstance(session, ChessSession):
            print("   %s play: an illegal move or a wrong claim gives the opponent %d min (CH-5)%s"
                  % (session.time_class.value, session.penalty_ms // 60000,
                     "; Armageddon: a draw is a win for Black (CH-6)"
                     if session.armageddon else ""), file=stdout)  # fmt: skip
        for line in lines:
            print(line, file=stdout)
        if isinstance(session, XiangqiSession) and session.rounds_limit:
            print("   at most %d rounds a day at this control (XQ-R27)" % session.rounds_limit,
                  file=stdout)  # fmt: skip

        def stop(signum: int, frame: object) -> None:
            raise KeyboardInterrupt  # as Ctrl-C: the console ends as at the end of its input

        old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            return run_terminal(console, stdin, stdout)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


def _remote(args: argparse.Namespace, link: Any, stdin: IO[str], stdout: IO[str]) -> int:
    """The console as a client of the hall server's session of this board."""
    from qizhong.cli.remote import RemoteConsole

    remote = RemoteConsole(link)
    for line in remote.open(args):
        print(line, file=stdout)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return run_terminal(cast("Console", remote), stdin, stdout)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _date(text: str) -> datetime.date:
    from qizhong.arbiter.console import game_date

    return game_date(text)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``qizhong arbiter``."""
    s = sub.add_parser(
        "arbiter",
        help="the arbiter's console: the record synced with the clock (resumes a stopped one)",
        description="Keep a game's record at the table, synced with the clock's presses, "
        "and apply the rules with the clock's times (docs/arbiter.md). Type moves as they "
        "are made; `help` lists the commands. The record (PGN or SGF) is kept on disk after "
        "every move; a console that stops is resumed by the next `qizhong arbiter` on the clock.",
    )
    s.add_argument("--game", choices=["xiangqi", "go", "chess"], default="xiangqi")
    s.add_argument("--port", help="serial device (default: $QIZHONG_PORT, or the one Pico)")
    s.add_argument(
        "--timeout", type=cli_clock._timeout, default=2.0, help="seconds to wait for a reply"
    )
    s.add_argument("--spec", help="time control (default xq-rapid, go-byoyomi, chess rapid)")
    s.add_argument(
        "--left",
        choices=["red", "black", "white"],
        help="whose lever is the left one (EQ-1; default red, in Go and chess white)",
    )
    s.add_argument(
        "--out",
        help="the record file (default qizhong-DATE-TIME.pgn or .sgf); kept up to date after "
        "every move, never over another file. Its journal (PATH.journal) resumes the game",
    )
    s.add_argument("--resume", metavar="JOURNAL", help="resume the game of this journal")
    s.add_argument("--red", help="Red's name")
    s.add_argument("--black", help="Black's name")
    s.add_argument("--white", help="White's name (Go, chess)")
    s.add_argument("--event")
    s.add_argument("--site")
    s.add_argument("--round")
    s.add_argument("--date", type=_date, help="YYYY-MM-DD (or YYYY.MM.DD); default today")
    s.add_argument("--fen", help="Xiangqi, chess: a starting position")
    s.add_argument(
        "--knockout",
        action="store_true",
        help="Xiangqi: a single-game knock-out; a draw goes by fouls (XQ-R22)",
    )
    s.add_argument(
        "--late-entry",
        action="store_true",
        help="Xiangqi, chess: a press may come before its move is typed; rule XQ-R19 or "
        "CH-1 with nomove",
    )
    s.add_argument(
        "--lang",
        default="en",
        help="chess: the piece letters moves are typed in (en, de, fr, es, nl, ..., figurine)",
    )
    s.add_argument(
        "--chess960", type=int, metavar="N", help="chess: Chess960 from start position N (0-959)"
    )
    s.add_argument("--emt", action="store_true", help="chess: [%%emt] move times in the PGN")
    s.add_argument(
        "--repetition",
        choices=["cxa", "axf"],
        default="cxa",
        help="Xiangqi repetition rules: cxa, the Chinese rules' 棋例 (default), or axf "
        "(docs/repetition.md)",
    )
    s.add_argument("--size", type=int, default=19, choices=[9, 13, 19], help="Go board size")
    s.add_argument("--komi", default="7.5", help="Go komi in points (default 7.5 = 3¾ stones)")
    s.add_argument("--handicap", type=int, default=0, help="Go: handicap stones (2-9), White first")
    s.add_argument("--board", help="the round's board number (the record's [Board])")
    s.set_defaults(func=cmd_arbiter)
