# SPDX-License-Identifier: GPL-3.0-or-later
"""The clock driver: one qizhong clock, from a laptop.

    from qizhong import Clock
    with Clock("/dev/ttyACM0") as clock:
        clock.configure("xq-rapid")
        clock.levers("red")        # Red's lever is on the left (EQ-1)
        clock.start()
        for ev in clock.events(timeout=5.0):
            print(ev.name, ev.side, ev.t, ev.left)

Sides are numbers: 0 moves first (Red in Xiangqi, Black in Go, White in
chess), 1 second; the constants ``FIRST`` and ``SECOND`` name them. Times are
integer milliseconds. Every method that changes the clock returns once the
clock has done it; a refusal raises ``CommandError`` with the clock's reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from types import TracebackType

from qizhong.clocks import auth
from qizhong.clocks.link import CommandError, Event, Link, LinkError, OtherClock, Reply

PICO_USB = (0x2E8A, 0x0005)  # USB vendor and product id of MicroPython on a Pico

FIRST = 0
SECOND = 1
DRAW = 2  # finish(result=DRAW)

__all__ = [
    "DRAW",
    "FIRST",
    "GAMES",
    "SECOND",
    "Clock",
    "CommandError",
    "Event",
    "Hello",
    "LinkError",
]


@dataclass(frozen=True)
class Hello:
    """What a clock says of itself."""

    proto: int
    firmware: str
    board: str  # "pico", "sim"
    id: str  # unique per board (the Pico's flash id)
    boot: str  # changes at every power-on
    seq: int  # its last event's sequence number


@dataclass(frozen=True)
class Status:
    t: int  # the clock's own ms
    state: str  # idle, running, paused, knocked, flagged, finished
    run: int  # the side to move, -1 none
    left: tuple[int, int]
    moves: tuple[int, int]
    periods: tuple[int, int]
    first_flag: int
    result: int  # after finish: 0, 1, DRAW, or -1
    levers: str  # whose lever is on the left: red (first) or black (second)
    locked: bool  # EQ-6: settings locked after three moves each
    seq: int
    volume: int
    muted: bool
    freezes: bool = True  # after a flag both clocks stop (flag freeze), else play goes on


def _pair(text: str) -> tuple[int, int]:
    a, b = text.split(",")
    return int(a), int(b)


# Each game's colour names, the side that moves first (0) before the second (1).
GAMES = {"xiangqi": ("red", "black"), "go": ("black", "white"), "chess": ("white", "black")}


def side_index(side: int | str, game: str | None = None) -> int:
    """The clock's side (0 moves first) for ``side``: 0, 1, first, second, or
    a colour of ``game`` (``GAMES``): in Go black is 0 and white 1; in chess
    white is 0. A colour of another game is refused (ValueError). Without a
    game: red and black, as the clock itself says them (white is refused: it
    moves first in chess but second in Go)."""
    if side in (0, 1, "0", "1"):
        return int(side)
    if side in ("first", "second"):
        return 0 if side == "first" else 1
    names = GAMES.get(game or "xiangqi", GAMES["xiangqi"])
    if side in names:
        return names.index(str(side))
    if game is None and side == "white":
        raise ValueError("white moves first in chess and second in Go: name the game")
    raise ValueError(
        "no side %r in %s (%s or %s)" % (side, game or "this game", names[0], names[1])
    )


def _side(side: int | str, game: str | None = None) -> str:
    return str(side_index(side, game))


class Clock:
    """One clock over a serial port (a Pico's USB, or a simulator's pty)."""

    def __init__(
        self,
        port: str | Link,
        *,
        timeout: float = Link.TIMEOUT_S,
        keys: auth.KeyStore | None = None,
        game: str | None = None,
    ) -> None:
        """``keys``: where the arbiter's keys are (#8; default ``KeyStore.default()``,
        read only when the clock says it is paired). ``game``: xiangqi, go or
        chess, whose colour names the methods take (``side_index``)."""
        if game is not None and game not in GAMES:
            raise ValueError("no game %r (%s)" % (game, ", ".join(GAMES)))
        self.link = port if isinstance(port, Link) else Link(port, timeout=timeout)
        self.keys = keys
        self.game = game
        self.hello = self._hello()

    def __enter__(self) -> Clock:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.link.close()

    def _hello(self) -> Hello:
        f = self.link.request("hello").fields()
        try:
            hello = Hello(int(f["proto"]), f["fw"], f["board"], f["id"], f["boot"], int(f["seq"]))
        except (KeyError, ValueError):
            raise LinkError("%s: not a qizhong clock (hello: %r)" % (self.link.port, f)) from None
        auth.attach(self.link, f, self.keys)  # #8: tag changes when paired and the key is known
        return hello

    def _do(self, verb: str, *args: object) -> Reply:
        return self.link.request(verb, " ".join(str(a) for a in args))

    # -- settings ----------------------------------------------------------------------

    def configure(self, spec: str, override: bool = False) -> None:
        """Load a time control (docs/timecontrol.md). After three moves each the
        clock refuses unless ``override`` (EQ-6)."""
        self._do("override" if override else "config", spec)

    def time_control(self) -> str:
        """The clock's time control, in the spec syntax."""
        return self._do("tc").text.split(" ", 1)[1]

    def levers(self, left: int | str, override: bool = False) -> None:
        """Which side's lever is the left one (EQ-1). During a game, after three
        moves each, the clock refuses unless ``override`` (EQ-6)."""
        self._do("levers", _side(left, self.game), *("override",) * override)

    def volume(self, level: int) -> None:
        """Voice volume 0..10."""
        self._do("volume", level)

    def voice(self, lang: str | None = None, count: str | None = None) -> tuple[str, str]:
        """Speak ``lang`` (cmn, yue, ja, ko, en) counting ``count`` (up or down),
        either or both (docs/voice.md); between games only. Returns the
        language and style the clock now has; with neither, only asks."""
        r = self._do("voice", *[w for w in (lang, count) if w])
        return r.words[1], r.words[2]

    def mute(self, on: bool = True) -> None:
        """Silence the voice; the time-out buzzer still sounds (TC-8)."""
        self._do("mute", "on" if on else "off")

    # -- the game ------------------------------------------------------------------------

    def start(self, side: int | str = FIRST) -> None:
        self._do("start", _side(side, self.game))

    def pause(self) -> None:
        self._do("pause")

    def resume(self) -> None:
        self._do("resume")

    def new_game(self, override: bool = False) -> None:
        """A new game under the same control. A game in play ends there with
        no result; after three moves each only with ``override`` (EQ-6)."""
        self._do("new", *("override",) * override)

    def finish(self, result: int | None = None) -> None:
        """Stop the game; ``result``: the winning side, DRAW, or None. The
        displays show it."""
        if result is None:
            self._do("finish")
        else:
            self._do("finish", "draw" if result == DRAW else _side(result, self.game))

    def penalty(self, side: int | str, ms: int) -> None:
        """Add ``ms`` to ``side``'s time (negative: take it away)."""
        self._do("penalty", _side(side, self.game), int(ms))

    def knock(self, side: int | str) -> None:
        """After a tilt: ``side`` knocked the clock over; the opponent gets 60 s (EQ-5)."""
        self._do("knock", _side(side, self.game))

    def set(
        self, side: int | str, ms: int, moves: int | None = None, periods: int | None = None
    ) -> None:
        """Set a side's main time, and its move count and byo-yomi periods (EQ-7)."""
        args: list[object] = [_side(side, self.game), int(ms)]
        if moves is not None or periods is not None:
            args.append(-1 if moves is None else moves)
        if periods is not None:
            args.append(periods)
        self._do("set", *args)

    def load(
        self,
        run: int | str,
        left: tuple[int, int],
        moves: tuple[int, int],
        periods: tuple[int, int] = (-1, -1),
        running: bool = False,
    ) -> None:
        """Load a whole game state into a (replacement) clock (EQ-7)."""
        self._do(
            "state",
            _side(run, self.game),
            left[0],
            moves[0],
            periods[0],
            left[1],
            moves[1],
            periods[1],
            "running" if running else "paused",
        )

    # -- watching ------------------------------------------------------------------------

    def status(self) -> Status:
        f = self._do("status").fields()
        return Status(
            t=int(f["t"]),
            state=f["state"],
            run=int(f["run"]),
            left=_pair(f["left"]),
            moves=_pair(f["moves"]),
            periods=_pair(f["periods"]),
            first_flag=int(f["flag"]),
            result=int(f["result"]),
            levers=f["levers"],
            locked=f["locked"] == "1",
            seq=int(f["seq"]),
            volume=int(f["volume"]),
            muted=f["mute"] == "1",
            freezes=f.get("freeze", "1") == "1",  # not said (older firmware): frozen
        )

    def now(self) -> int:
        """The clock's own time (ms since it started)."""
        return int(self._do("time").words[1])

    def events(self, timeout: float = 0.0) -> list[Event]:
        """New events (each once, in order), waiting up to ``timeout`` s for one."""
        return self.link.poll(timeout)

    def since(self, seq: int) -> list[Event]:
        """Every event after ``seq`` the clock still keeps (a fresh history)."""
        self.link.skip_to(seq)
        self.link.sync()
        return self.link.take_events()

    def reconnect(self) -> None:
        """Reopen the port and collect whatever was missed meanwhile.

        The boot id in ``hello`` decides (#12): the same boot, and the events
        after the last one handed out follow; a new boot (the clock
        restarted), and every event the clock keeps of it follows, the
        restart noted in ``link.restarts`` and what cannot be had in
        ``link.lost``. Events that come with the ``hello`` reply are handed
        out once, in order. ``OtherClock`` if another clock (another id)
        answers on the port: it is closed again, and this clock stays lost."""
        self.link.close()
        self.link.open()
        hello = self._hello()
        if hello.id != self.hello.id:
            self.link.close()
            raise OtherClock(self.link.port, self.hello.id, hello.id)
        self.hello = hello
        self.link.sync()

    # -- drift -----------------------------------------------------------------------------

    def measure_drift(
        self, now: Callable[[], int], wait: Callable[[int], None], span_ms: int, samples: int = 8
    ) -> Fraction:
        """The clock's rate against ``now`` (host ms), in ppm: positive when
        the clock runs fast. Reads the clock's time ``samples`` times over
        ``span_ms``, each stamped at the midpoint of its round trip, and fits a
        line. ``wait(ms)`` lets host time pass (a sleep, or a simulator's step)."""
        xs: list[Fraction] = []
        ys: list[int] = []
        step = span_ms // max(1, samples - 1)
        for i in range(samples):
            if i:
                wait(step)
            a = now()
            c = self.now()
            b = now()
            xs.append(Fraction(a + b, 2))
            ys.append(c)
        n = len(xs)
        mx = sum(xs, Fraction(0)) / n
        my = Fraction(sum(ys), n)
        sxx = sum(((x - mx) * (x - mx) for x in xs), Fraction(0))
        sxy = sum(((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)), Fraction(0))
        if not sxx:
            raise ValueError("no time passed between samples")
        return (sxy / sxx - 1) * 1000000

    def trim(self, ppm: int) -> None:
        """Tell the clock its crystal runs ``ppm`` fast (+) or slow (-)."""
        self._do("trim", int(ppm))

    def calibrate(
        self,
        span_ms: int,
        samples: int = 8,
        now: Callable[[], int] | None = None,
        wait: Callable[[int], None] | None = None,
    ) -> int:
        """Measure drift over ``span_ms`` with the trim off, then apply it.
        Returns the trim (ppm). By default against this host's monotonic clock."""

        def host_ms() -> int:
            return time.monotonic_ns() // 1000000

        def sleep_ms(ms: int) -> None:
            time.sleep(ms / 1000)

        self.trim(0)
        ppm = self.measure_drift(now or host_ms, wait or sleep_ms, span_ms, samples)
        trim = round(ppm)
        self.trim(trim)
        return trim
