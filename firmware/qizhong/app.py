# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware application: board inputs -> clock -> board outputs.

The board owns time and waiting (``board.now()``, ``await board.wait(d)``),
so the same loop runs on the Pico, where it sleeps until the next deadline or
an interrupt, and on the simulated board, where the harness steps virtual
time. Lever edges come stamped by the board (the pin interrupt on the Pico)
and are charged at that stamp.

The serial link speaks a small line protocol (docs/sim.md): commands in,
``ok``/``err`` replies and ``ev`` event lines out. Issue #4 replaces it with
the framed protocol.
"""

from . import clock as C
from . import tcspec
from .face import Face

# Board input kinds.
IN_LEVER_DOWN = 1
IN_LEVER_UP = 2
IN_KEY = 3
IN_TILT = 4

# Arbiter keys.
KEY_START = 1  # start / pause / resume
KEY_MENU = 2
KEY_PLUS = 3  # when knocked over: the left player knocked it
KEY_MINUS = 4  # when knocked over: the right player knocked it
KEY_OK = 5
KEY_NAMES = ("", "start", "menu", "plus", "minus", "ok")

SIDE_NAMES = ("red", "black")

# The standalone setup menu (no computer): pick a preset, then edit its first
# stage's base and increment with plus/minus; ok steps on, menu leaves.
MENU_OFF = 0
MENU_PRESET = 1
MENU_BASE = 2
MENU_INC = 3
MENU_PRESETS = (
    "xq-rapid", "xq-rapid-20", "xq-rapid-25", "xq-rapid-30", "xq-blitz", "xq-blitz-10",
    "xq-count", "sudden-death", "armageddon", "armageddon-black", "go-byoyomi",
    "go-byoyomi-30", "go-canadian", "fide", "rapid", "blitz", "bronstein", "us-delay",
    "hourglass",
)  # fmt: skip
BASE_STEP = 60000  # ms per plus/minus on the base
INC_STEP = 1000  # ms per plus/minus on the increment


class App:
    BEEP_MS = 2000  # TC-8: the time-out buzzer sounds this long
    REFRESH_MS = 100  # display refresh while running (tenths under 20 s)

    def __init__(self, board, tc):
        self.board = board
        self.clock = C.Clock(tc, board.left_side)
        self.faces = (Face(board.fb[0]), Face(board.fb[1]))
        self.beep_until = -1
        self.drawn = -1  # when the displays were last drawn
        self.menu = MENU_OFF
        self.menu_i = 0  # index into MENU_PRESETS
        self.menu_tc = tc

    # -- the loop --------------------------------------------------------------

    async def run(self):
        b = self.board
        b.start_serial(self)
        while not b.stopped:
            now = b.now()
            self.step(now)
            await b.wait(self.deadline(now))

    def step(self, now):
        """Apply inputs stamped up to ``now``, then fire the clock's events."""
        b = self.board
        while True:
            kind = b.pop_input()
            if not kind:
                break
            self.on_input(kind, b.in_arg, b.in_t)
        c = self.clock
        while c.tick(now) >= C.Clock.EVENTS:
            self.drain()
        self.drain()
        if 0 <= self.beep_until <= now:
            b.beep(False, self.beep_until)
            self.beep_until = -1
        if b.live_display and (self.drawn < 0 or now - self.drawn >= self.REFRESH_MS):
            self.draw(now)

    def deadline(self, now):
        d = self.clock.next_deadline()
        if self.beep_until >= 0 and (d < 0 or self.beep_until < d):
            d = self.beep_until
        if self.board.live_display and self.clock.state == C.RUNNING:
            r = now + self.REFRESH_MS
            if d < 0 or r < d:
                d = r
        return d

    def draw(self, now):
        b = self.board
        c = self.clock
        if self.menu:
            self.draw_menu()
            self.drawn = now
            return
        for i in (0, 1):  # display 0 is the left one
            self.faces[i].draw(c, c.side_of_lever(i), now, b.low_battery)
            b.show(i)
        self.drawn = now

    # -- inputs ----------------------------------------------------------------

    def on_input(self, kind, arg, t):
        c = self.clock
        try:
            if kind == IN_LEVER_DOWN:
                c.press(c.side_of_lever(arg), t)
            elif kind == IN_LEVER_UP:
                c.release(c.side_of_lever(arg), t)
            elif kind == IN_TILT:
                if c.state in (C.RUNNING, C.PAUSED):
                    c.knock(t)
            elif kind == IN_KEY:
                self.on_key(arg, t)
        except C.ClockError:
            pass  # a key that means nothing now does nothing
        self.drain()

    def on_key(self, key, t):
        c = self.clock
        if self.menu:
            self.menu_key(key, t)
        elif key == KEY_MENU and c.state in (C.IDLE, C.FLAGGED, C.FINISHED):
            self.menu = MENU_PRESET
            self.menu_tc = tcspec.parse(MENU_PRESETS[self.menu_i])
            self.drawn = -1
        elif key == KEY_START:
            if c.state == C.IDLE:
                c.start(t, 0)
            elif c.state == C.RUNNING:
                c.pause(t)
            elif c.state in (C.PAUSED, C.KNOCKED):
                c.resume(t)
            # flagged or finished: the result stays up; the menu starts the next game
        elif c.state == C.KNOCKED and key in (KEY_PLUS, KEY_MINUS):
            c.assign_knock(c.side_of_lever(0 if key == KEY_PLUS else 1), t)

    # -- the standalone setup menu ---------------------------------------------

    def menu_key(self, key, t):
        self.drawn = -1
        if key == KEY_MENU:  # leave, nothing changed
            self.menu = MENU_OFF
            return
        step = 1 if key == KEY_PLUS else -1 if key == KEY_MINUS else 0
        tc = self.menu_tc
        st = tc.stages[0]
        if self.menu == MENU_PRESET and step:
            self.menu_i = (self.menu_i + step) % len(MENU_PRESETS)
            self.menu_tc = tcspec.parse(MENU_PRESETS[self.menu_i])
        elif self.menu == MENU_BASE and step:
            st.base = max(BASE_STEP, st.base + step * BASE_STEP)
        elif self.menu == MENU_INC and step:
            st.inc = max(0, st.inc + step * INC_STEP)
        elif key in (KEY_OK, KEY_START):
            if self.menu == MENU_PRESET:
                self.menu = MENU_BASE
            elif self.menu == MENU_BASE and tc.timing == tcspec.FISCHER:
                self.menu = MENU_INC
            else:  # done: the clock takes the edited control
                self.menu = MENU_OFF
                self.clock.configure(tc, t, False)
                self.board.send_event("config", -1, t, 0)

    def draw_menu(self):
        tc = self.menu_tc
        st = tc.stages[0]
        lines = (
            ("SETUP", MENU_PRESETS[self.menu_i], tcspec.format(tc)[:16]),
            (
                ("> " if self.menu == MENU_PRESET else "  ") + "preset",
                ("> " if self.menu == MENU_BASE else "  ")
                + "base "
                + tcspec.fmt_ms(st.base, False),
                ("> " if self.menu == MENU_INC else "  ") + "inc " + tcspec.fmt_ms(st.inc),
            ),
        )
        for i in (0, 1):
            fb = self.board.fb[i]
            fb.fill(0)
            for row, text in enumerate(lines[i]):
                fb.text(text, 0, 8 + 16 * row, 1)
            self.board.show(i)

    # -- outputs ---------------------------------------------------------------

    def drain(self):
        c = self.clock
        b = self.board
        while True:
            kind = c.pop_event()
            if not kind:
                return
            t = c.ev_t
            if kind == C.EV_CUE:
                b.say(c.ev_arg, t)
            elif kind == C.EV_FLAG or kind == C.EV_KNOCK:
                if 0 <= self.beep_until <= t:  # the last beep ended before this one
                    b.beep(False, self.beep_until)
                b.beep(True, t)  # TC-8, EQ-5
                self.beep_until = t + self.BEEP_MS
            b.send_event(C.EVENT_NAMES[kind], c.ev_side, t, c.ev_arg)

    # -- the serial link ---------------------------------------------------------

    def command(self, line):
        """One command line from the host; returns the reply line."""
        c = self.clock
        now = self.board.now()
        words = line.split()
        if not words:
            return "err empty command"
        op = words[0]
        try:
            if op == "config":
                tc = tcspec.parse(line[len("config") :])
                c.configure(tc, now, False)
                reply = "ok config " + tcspec.format(tc)
            elif op == "override":
                tc = tcspec.parse(line[len("override") :])
                c.configure(tc, now, True)
                reply = "ok override " + tcspec.format(tc)
            elif op == "start":
                c.start(now, _side(words[1]) if len(words) > 1 else 0)
                reply = "ok start"
            elif op == "pause":
                c.pause(now)
                reply = "ok pause"
            elif op == "resume":
                c.resume(now)
                reply = "ok resume"
            elif op == "penalty":
                c.adjust(_side(words[1]), int(words[2]), now)
                reply = "ok penalty"
            elif op == "knock":
                c.assign_knock(_side(words[1]), now)
                reply = "ok knock"
            elif op == "set":  # set SIDE MS [MOVES [PERIODS]] (EQ-7)
                more = [int(w) for w in words[3:5]] + [-1, -1]
                c.set_side(_side(words[1]), now, int(words[2]), more[0], more[1])
                reply = "ok set"
            elif op == "levers":  # levers red|black: whose lever is the left one (EQ-1)
                c.left_side = _side(words[1])
                self.drawn = -1
                reply = "ok levers " + SIDE_NAMES[c.left_side]
            elif op == "new":  # a new game under the same control
                c.configure(c.tc, now, True)
                reply = "ok new"
            elif op == "finish":
                c.finish(now)
                reply = "ok finish"
            elif op == "status":
                reply = self.status(now)
            elif op == "mem":  # heap figures: "mem collect" collects first
                import gc

                if len(words) > 1 and words[1] == "collect":
                    gc.collect()
                elif len(words) > 1 and words[1] in ("hold", "release"):
                    gc.disable() if words[1] == "hold" else gc.enable()  # for measuring
                reply = "ok mem %d %d" % (gc.mem_alloc(), gc.mem_free())
            else:
                reply = "err unknown command %r" % op
        except tcspec.SpecError as e:
            reply = "err bad time control: %s" % e
        except C.ClockError as e:
            reply = "err %s" % e
        except (IndexError, ValueError) as e:
            reply = "err bad arguments: %s" % e
        self.drain()
        return reply

    def status(self, now):
        c = self.clock
        a, b = c.sides
        return "status %d %s %d %d %d %d %d %d %d %d" % (
            now,
            C.STATE_NAMES[c.state],
            c.run,
            c.left(0, now),
            c.left(1, now),
            a.moves,
            b.moves,
            a.periods,
            b.periods,
            c.first_flag,
        )


def _side(word):
    if word in SIDE_NAMES:
        return SIDE_NAMES.index(word)
    if word in ("white", "first", "0"):
        return 0
    if word in ("second", "1"):
        return 1
    raise ValueError("no side %r" % word)
