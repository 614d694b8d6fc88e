# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs the core cases of core_cases.py against a clock core.

Runs on CPython (pytest) and on the MicroPython interpreter (tests/mp), so it
sticks to what both have. ``run_case`` returns a list of failure messages.

Steps (t and ms are integer milliseconds; side 0 moves first):
  ("new", spec[, left_side])       a fresh clock
  ("start", t[, side]) ("press", side, t) ("release", side, t)
  ("pause", t) ("resume", t) ("knock", t) ("assign", side, t) ("finish", t)
  ("adjust", side, delta, t) ("tick", t)
  ("set", side, t, main[, moves[, periods[, bank[, block]]]]) ("load", t, run[, "running"])
  ("config", spec, t[, override])
  ("error", step)                  the step must be refused with ClockError
  expectations:
  ("left", side, t, ms) ("periods", side, n) ("moves", side, n) ("block", side, n)
  ("state", name) ("run", side) ("lever", lever, side) ("locked", bool)
  ("deadline", t) ("first_flag", side)
  ("has", kind, side, t, arg)      that event happened (arg None: any)
  ("hasnt", kind[, side])          no such event so far
  ("cues", side, [(t, cue), ...])  exactly these voice cues so far, in order
"""


def _events(c, clock, log):
    while True:
        k = c.pop_event()
        if not k:
            return
        log.append((clock.EVENT_NAMES[k], c.ev_side, c.ev_t, c.ev_arg))


def _do(c, clock, tcspec, step):
    op = step[0]
    if op == "start":
        c.start(step[1], step[2] if len(step) > 2 else 0)
    elif op == "press":
        c.press(step[1], step[2])
    elif op == "release":
        c.release(step[1], step[2])
    elif op == "pause":
        c.pause(step[1])
    elif op == "resume":
        c.resume(step[1])
    elif op == "knock":
        c.knock(step[1])
    elif op == "assign":
        c.assign_knock(step[1], step[2])
    elif op == "finish":
        c.finish(step[1])
    elif op == "adjust":
        c.adjust(step[1], step[2], step[3])
    elif op == "tick":
        c.tick(step[1])
    elif op == "set":
        extra = list(step[4:]) + [-1] * (4 - len(step[4:]))
        c.set_side(step[1], step[2], step[3], extra[0], extra[1], extra[2], extra[3])
    elif op == "load":
        running = len(step) > 3 and step[3] == "running"
        c.load(step[1], step[2], clock.RUNNING if running else clock.PAUSED)
    elif op == "config":
        c.configure(tcspec.parse(step[1]), step[2], len(step) > 3 and step[3])
    else:
        return False
    return True


def run_case(case, clock, tcspec):
    """Run one (name, steps) case; return the failures as text."""
    name, steps = case
    fails = []
    c = None
    log = []
    for i, step in enumerate(steps):
        op = step[0]
        where = "%s: step %d %r" % (name, i, step)
        try:
            if op == "new":
                left_side = step[2] if len(step) > 2 else 0
                c = clock.Clock(tcspec.parse(step[1]), left_side)
                log = []
                continue
            if op == "error":
                try:
                    _do(c, clock, tcspec, step[1])
                except clock.ClockError:
                    _events(c, clock, log)
                    continue
                fails.append(where + ": not refused")
                continue
            if _do(c, clock, tcspec, step):
                _events(c, clock, log)
                continue
            got = _check(c, clock, log, step)
            if got is not None:
                fails.append("%s: got %r" % (where, got))
        except Exception as e:  # a case must report, never stop the run
            fails.append("%s: raised %r" % (where, e))
    return fails


def _check(c, clock, log, step):
    """None when the expectation holds, else what was found."""
    op = step[0]
    if op == "left":
        v = c.left(step[1], step[2])
        return None if v == step[3] else v
    if op == "periods":
        v = c.sides[step[1]].periods
        return None if v == step[2] else v
    if op == "moves":
        v = c.sides[step[1]].moves
        return None if v == step[2] else v
    if op == "block":
        v = c.sides[step[1]].left
        return None if v == step[2] else v
    if op == "state":
        v = clock.STATE_NAMES[c.state]
        return None if v == step[1] else v
    if op == "run":
        return None if c.run == step[1] else c.run
    if op == "lever":
        v = c.side_of_lever(step[1])
        return None if v == step[2] else v
    if op == "locked":
        v = c.locked()
        return None if v == step[1] else v
    if op == "deadline":
        v = c.next_deadline()
        return None if v == step[1] else v
    if op == "first_flag":
        return None if c.first_flag == step[1] else c.first_flag
    if op == "has":
        for ev in log:
            if ev[0] == step[1] and ev[1] == step[2] and ev[2] == step[3]:
                if step[4] is None or ev[3] == step[4]:
                    return None
        return [ev for ev in log if ev[0] == step[1]]
    if op == "hasnt":
        found = [ev for ev in log if ev[0] == step[1] and (len(step) < 3 or ev[1] == step[2])]
        return found if found else None
    if op == "cues":
        got = [(ev[2], ev[3]) for ev in log if ev[0] == "cue" and ev[1] == step[1]]
        return None if got == list(step[2]) else got
    return "unknown step"
