# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenario files: timed actions and expectations, run on a clock (docs/scenarios.md).

    # TC-1 Xiangqi rapid
    config 15m+10s
    at 0 key start
    at 30000 press left
    expect 30000 time red 880000
    expect cue 61000 1

A scenario runs on the simulated board in virtual time (``qizhong sim run``);
the format names only what a test jig can do to a real clock too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qizhong.core import cuenames, voice
from qizhong.sim.simulator import Sim, SimError

SIDES = {"red": 0, "black": 1, "first": 0, "second": 1, "0": 0, "1": 1}
LEVERS = {"left": 0, "right": 1}
KEYS = ("start", "menu", "plus", "minus", "ok")


class ScenarioError(ValueError):
    """A line that is not in the format; ``line`` is 1-based."""

    def __init__(self, path: str, line: int, msg: str) -> None:
        super().__init__("%s:%d: %s" % (path, line, msg))
        self.line = line


@dataclass
class Step:
    line: int
    t: int  # -1: checked at the end (outputs with their own times)
    op: str
    args: list[str]


@dataclass
class Result:
    path: str
    failures: list[str] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


def _int(path: str, n: int, word: str) -> int:
    try:
        v = int(word.replace("_", ""))
    except ValueError:
        raise ScenarioError(path, n, "%r is not a whole number of ms" % word)
    if v < 0:
        raise ScenarioError(path, n, "times are not negative")
    return v


def parse(text: str, path: str = "<scenario>") -> list[Step]:
    steps: list[Step] = []
    last = 0
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        head = words[0]
        if head == "config":
            steps.append(Step(n, last, "host", ["config", *words[1:]]))
            continue
        if head not in ("at", "expect") or len(words) < 3:
            raise ScenarioError(path, n, "a line starts with config, at T or expect")
        if head == "expect" and words[1] in ("cue", "beep", "event", "no-cue", "no-event"):
            steps.append(Step(n, -1, "expect-" + words[1], words[2:]))
            continue
        t = _int(path, n, words[1])
        if t < last:
            raise ScenarioError(path, n, "time goes backwards (%d after %d)" % (t, last))
        last = t
        op, args = words[2], words[3:]
        if head == "expect":
            if op not in ("time", "state", "moves", "periods", "run", "first-flag"):
                raise ScenarioError(path, n, "unknown expectation %r" % op)
            steps.append(Step(n, t, "expect-" + op, args))
        else:
            if op not in ("press", "lever", "bounce", "hold", "key", "tilt", "host", "refuse"):
                raise ScenarioError(path, n, "unknown action %r" % op)
            steps.append(Step(n, t, op, args))
            if op == "bounce":
                last = t + 100  # the bounce's release
    return steps


def _side(word: str) -> int:
    if word not in SIDES:
        raise ValueError("no side %r (red, black)" % word)
    return SIDES[word]


def _lever(word: str) -> int:
    if word not in LEVERS:
        raise ValueError("no lever %r (left, right)" % word)
    return LEVERS[word]


def _cue(word: str) -> int:
    if word.isdigit():
        return int(word)
    for cue in (
        *range(1, 400),
        *range(voice.NUM, voice.NUM + 60),
        *range(voice.PER, voice.PER + 100),
    ):
        if cuenames.cue_text(cue).replace(" ", "") == word:
            return cue
    raise ValueError("no voice cue %r" % word)


# Events whose arg is a time in ms (compared within the tolerance, as times are).
MS_ARGS = ("press", "record", "held", "set")


def run(steps: list[Step], sim: Sim, path: str = "<scenario>", tolerance: int = 0) -> Result:
    """Run ``steps`` on ``sim`` (or a jig driving a real clock). Times in
    expectations must match exactly, or within ``tolerance`` ms (real time:
    a real clock through the jig agrees to a few ms, docs/jig.md)."""
    res = Result(path)
    later = [s for s in steps if s.t < 0]
    for s in steps:
        if s.t < 0:
            continue
        where = "line %d" % s.line
        try:
            msg = _step(sim, s, tolerance)
        except (ValueError, IndexError) as e:
            msg = "bad line: %s" % e
        if msg:
            res.failures.append("%s: %s" % (where, msg))
        if s.op.startswith("expect-"):
            res.checked += 1
    if later:  # outputs are checked once the run has reached every time they name
        sim.run_to(max(int(s.args[0]) for s in later) + 1)
    sim.collect_all()  # every event sent so far, gaps filled, before any is checked (#24)
    for s in later:
        res.checked += 1
        try:
            msg = _final(sim, s, tolerance)
        except (ValueError, IndexError) as e:
            msg = "bad line: %s" % e
        if msg:
            res.failures.append("line %d: %s" % (s.line, msg))
    return res


def _step(sim: Sim, s: Step, tol: int = 0) -> str:
    a = s.args
    if s.op == "press":
        hold = int(a[2]) if len(a) > 2 and a[1] == "hold" else 80
        sim.press(_lever(a[0]), s.t, hold)
    elif s.op == "lever":
        sim.run_to(s.t)
        sim.lever(_lever(a[0]), a[1] == "down", s.t)
    elif s.op == "bounce":  # a press whose contacts chatter: N extra edges 3 ms apart
        lever, n = _lever(a[0]), int(a[1])
        sim.run_to(s.t)
        sim.lever(lever, True, s.t)
        for i in range(1, n + 1):
            sim.run_to(s.t + 3 * i)
            sim.lever(lever, i % 2 == 0, s.t + 3 * i)
        sim.run_to(s.t + 3 * n + 3)
        sim.lever(lever, True, s.t + 3 * n + 3)
        sim.run_to(s.t + 100)
        sim.lever(lever, False, s.t + 100)
    elif s.op == "hold":
        sim.press(_lever(a[0]), s.t, int(a[1]))
    elif s.op == "key":  # key NAME [hold MS]
        if a[0] not in KEYS:
            raise ValueError("no key %r" % a[0])
        if len(a) == 3 and a[1] == "hold" and a[2].isdigit() and 0 < int(a[2]) <= 60000:
            sim.key(a[0], s.t, int(a[2]))
        elif len(a) == 1:
            sim.key(a[0], s.t)
        else:
            raise ValueError("key NAME [hold MS] (MS 1..60000)")
    elif s.op == "tilt":
        sim.tilt(s.t)
    elif s.op in ("host", "refuse"):
        sim.run_to(s.t)
        reply = sim.command(" ".join(a))
        want = "ok" if s.op == "host" else "err"
        if not reply.startswith(want):
            return "%s: %r" % (" ".join(a), reply)
    else:
        sim.run_to(s.t)
        return _expect_now(sim, s, tol)
    return ""


def _expect_now(sim: Sim, s: Step, tol: int = 0) -> str:
    st = sim.status()
    a = s.args
    got: int | str
    want: int | str
    if s.op == "expect-time":
        got, want = st["left%d" % _side(a[0])], int(a[1])
    elif s.op == "expect-state":
        got, want = st["state"], a[0]
    elif s.op == "expect-moves":
        got, want = st["moves%d" % _side(a[0])], int(a[1])
    elif s.op == "expect-periods":
        got, want = st["periods%d" % _side(a[0])], int(a[1])
    elif s.op == "expect-run":
        got, want = st["run"], _side(a[0])
    else:  # first-flag
        got, want = st["first_flag"], _side(a[0])
    if got != want and not (
        s.op == "expect-time" and isinstance(got, int) and abs(got - int(want)) <= tol
    ):
        return "%s %s at %d: want %r, got %r" % (s.op[7:], " ".join(a), s.t, want, got)
    return ""


def _final(sim: Sim, s: Step, tol: int = 0) -> str:
    a = s.args
    if s.op in ("expect-cue", "expect-no-cue"):
        t, cue = int(a[0]), _cue(a[1])
        found = any(c == cue and abs(ct - t) <= tol for ct, c in sim.cues)
        if found != (s.op == "expect-cue"):
            near_cues = [c for c in sim.cues if abs(c[0] - t) <= 2000]
            return "cue %s at %d: %s (cues near: %r)" % (
                a[1],
                t,
                "missing" if not found else "spoken",
                near_cues,
            )
    elif s.op == "expect-beep":
        t, on = int(a[0]), 1 if a[1] == "on" else 0
        if not any(o == on and abs(bt - t) <= tol for bt, o in sim.beeps):
            return "beep %s at %s: missing (beeps: %r)" % (a[1], a[0], sim.beeps)
    else:  # event / no-event: T NAME SIDE [ARG]
        t, name, side = int(a[0]), a[1], _side(a[2])
        hits = [e for e in sim.events if e[:2] == (name, side) and abs(e[2] - t) <= tol]
        if len(a) > 3:
            arg_tol = tol if name in MS_ARGS else 0
            hits = [e for e in hits if abs(e[3] - int(a[3])) <= arg_tol]
        if bool(hits) != (s.op == "expect-event"):
            near = [e for e in sim.events if e[0] == name]
            return "event %s: %s (%r)" % (" ".join(a), "missing" if not hits else "present", near)
    return ""


def run_file(path: str, tolerance: int = 0) -> Result:
    with open(path, encoding="utf-8") as f:
        steps = parse(f.read(), path)
    try:
        with Sim() as sim:
            return run(steps, sim, path, tolerance)
    except SimError as e:
        return Result(path, ["the simulator failed: %s" % e])
