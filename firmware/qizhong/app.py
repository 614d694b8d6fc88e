# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware application: board inputs -> clock -> board outputs.

The board owns time and waiting (``board.now()``, ``await board.wait(d)``),
so the same loop runs on the Pico, where it sleeps until the next deadline or
an interrupt, and on the simulated board, where the harness steps virtual
time. Lever edges come stamped by the board (the pin interrupt on the Pico)
and are charged at that stamp.

The serial link speaks the framed protocol of docs/protocol.md: requests in,
one reply each, and every event out with a sequence number; the last
``EventLog.SIZE`` events are kept for a host that reconnects.
"""

from . import VERSION, auth, tcspec, voice
from . import clock as C
from . import proto as P
from .face import TENTHS_MS, Face
from .journal import Journal  # #12: loaded with the rest, before the heap fragments

# Board input kinds.
IN_LEVER_DOWN = 1
IN_LEVER_UP = 2
IN_KEY = 3
IN_TILT = 4
IN_KEY_UP = 5  # a key let go (hold-to-repeat, the lock's long press)

# Arbiter keys.
KEY_START = 1  # start / pause / resume
KEY_MENU = 2
KEY_PLUS = 3  # when knocked over: the left player knocked it
KEY_MINUS = 4  # when knocked over: the right player knocked it
KEY_OK = 5
KEY_NAMES = ("", "start", "menu", "plus", "minus", "ok")

SIDE_NAMES = ("red", "black")
SLOW_FACE = (tcspec.HOURGLASS, tcspec.DELAY)  # faces not simply counting down: refresh often

# The app's own events, after the clock core's (clock.EV_*).
EV_CONFIG = 18  # arg: 0 config, 1 override, 2 new game, 3 the setup menu
EV_LEVERS = 19  # side: whose lever is the left one
EV_VOLUME = 20  # arg: the volume now (0: muted)
EV_TRIM = 21  # arg: ppm
EV_BOOT = 22  # the clock started
EV_PAIR = 23  # #8: arg 1 paired (a new key), 0 unpaired
EV_VOICE = 24  # arg: language * 2 + style (voice.LANGS, voice.STYLES)
EV_KEYS = 25  # arg: 1 the arbiter's keys locked, 0 open again
EVENT_NAMES = C.EVENT_NAMES + (
    "config", "levers", "volume", "trim", "boot", "pair", "voice", "keys",
)  # fmt: skip

# The standalone setup menu (no computer): firmware/qizhong/menu.py, docs/menu.md.
MENU_OFF = 0
MENU_ON = 1
MENU_VOICE = 4  # plus or minus on an idle clock: the voice and its count (docs/voice.md)

# Hold-to-repeat on plus/minus in a menu (docs/menu.md): the first repeat 500 ms
# on (the DGT 3000 repeats a key held "longer than 1 second"), then gaps from
# 250 ms shrinking by a quarter each repeat to 50 ms, as on a DGT clock.


SPEC_MAX = 160  # a time control's canonical text: it fits "r ID ok tc SPEC" and the journal


class App:
    BEEP_MS = 2000  # TC-8: the time-out buzzer sounds this long
    WARN_MS = 300  # TC-15: the low-time warning's beep
    REFRESH_MS = 100  # display refresh while running (tenths under 20 s)
    SINCE_MAX = 64  # events replayed per "since": a burst the USB buffer and the loop can bear
    REBASE_MS = 1 << 29  # #12: now this far from the origin (6.2 days): move the origin
    KEEP_MS = 1 << 27  # to this far before now (37 h): older instants may go negative

    def __init__(self, board, tc):
        self.board = board
        self.clock = C.Clock(tc, board.left_side)
        # #22: a board may bring its own faces (the battery board's segment glass)
        self.faces = getattr(board, "faces", None) or (Face(board.fb[0]), Face(board.fb[1]))
        self.beep_until = -1
        self.drawn = -1  # when the displays were last drawn; -1: a change waits to be drawn
        self.redraw_at = -1  # when the faces change by themselves next (-1: not by themselves)
        self.tenths = getattr(board, "tenths", True)  # #22: False on the battery board
        self.pending = getattr(board, "pending", None)  # #22: an input waits (boards/__init__)
        self.menu = MENU_OFF
        self.setup = None  # the open menu.Menu, loaded when first opened
        self.game = 0  # the menu's game (menu.GAMES), kept for the next opening
        self.slots = None  # type: list[str] | None # the user slots (menu.load_slots)
        self.menu_voice = 0  # MENU_VOICE: language * 2 + style
        self.held = 0  # the key held down (0: none), for its repeat or the unlock
        self.repeat_at = -1  # when the held key acts again (-1: never)
        self.repeat_gap = 250
        self.keylock = False  # the arbiter locked the keys (keys lock, or the menu's lock)
        # The serial link: frames in, replies and events out, the recent events kept.
        self.dec = P.Decoder()
        self.enc = P.Encoder(EVENT_NAMES)
        self.log = P.EventLog()
        self.boot = board.boot_id()
        self.last_body = ""  # the last request, and its reply (for retries)
        self.last_reply = b""
        self.change_body = ""  # the last change and its reply: retried after a query
        self.change_reply = b""
        self.unsent = b""  # a reply the link could not take yet
        self.requests = 0  # frames taken from the host (the simulator's wake lines carry it)
        # #8: the arbiter's key and counter (persist: auth.save/load/on_change)
        self.auth = auth.Guard(board.board_id)
        self.volume = 10
        self.muted = False
        self.trim = 0  # ppm, as the trim command set it
        self.journal = None  # #8: the power-loss journal, if the board has storage

    # -- the loop --------------------------------------------------------------

    async def run(self):
        b = self.board
        restored = 0
        if b.state_dir:  # #8: come back from a power cut or a watchdog reset
            self.journal = Journal(b.state_dir)
            restored = self.journal.start(self)
        self.note(EV_BOOT, -1, b.now(), restored)
        b.start_serial(self)
        while not b.stopped:
            now = b.now()
            while now >= self.REBASE_MS:  # #12: keep every time a small int, for any uptime
                self.rebase(self.REBASE_MS - self.KEEP_MS)  # always this step: hosts add it back
                now = b.now()
            self.step(now)
            b.feed()  # the watchdog: only after a whole pass (a stuck or starved loop resets)
            await b.wait(self.deadline(now))

    def rebase(self, d):
        """Move the time origin ``d`` ms later, everywhere at once: the board's
        count, the clock, the journal, the pairing step, the app's own
        instants. MicroPython's small ints end at 2**30 on the Pico (12.4
        days of ms); past that every sum allocates. So when ``now`` reaches
        REBASE_MS (6.2 days) the loop moves the origin by REBASE_MS - KEEP_MS,
        in any state: durations, and every side's time, are unchanged. The
        host sees the clock's ms (event T, ``status t=``, ``time``) fall by
        ``d``, always that step, so that it can add it back (docs/protocol.md).
        -1 (none) stays -1."""
        self.board.rebase(d)
        self.clock.rebase(d)
        self.auth.rebase(d)
        if self.journal is not None:
            self.journal.rebase(d)
        if self.drawn >= 0:
            self.drawn = max(0, self.drawn - d)
        if self.redraw_at >= 0:
            self.redraw_at = max(0, self.redraw_at - d)
        if self.beep_until >= 0:
            self.beep_until = max(0, self.beep_until - d)
        if self.repeat_at >= 0:
            self.repeat_at = max(0, self.repeat_at - d)

    def step(self, now):
        """Apply inputs stamped up to ``now``, then fire the clock's events."""
        b = self.board
        while True:
            kind = b.pop_input()
            if not kind:
                break
            self.on_input(kind, b.in_arg, b.in_t)
        while 0 <= self.repeat_at <= now:  # a held key, each repeat at its own instant
            self.repeat(self.repeat_at)
        c = self.clock
        while c.tick(now) >= C.Clock.EVENTS:
            self.drain()
        self.drain()
        if self.journal is not None:  # #8: a running side's time, every PERIOD_MS
            self.journal.tick(self, now)
        if 0 <= self.beep_until <= now:
            b.beep(False, self.beep_until)
            self.beep_until = -1
        if b.live_display and (self.drawn < 0 or 0 <= self.redraw_at <= now):
            self.draw(now)

    def deadline(self, now):
        d = self.clock.next_deadline()
        if self.beep_until >= 0 and (d < 0 or self.beep_until < d):
            d = self.beep_until
        if self.repeat_at >= 0 and (d < 0 or self.repeat_at < d):
            d = self.repeat_at
        p = self.auth.deadline()  # the pairing code goes off the displays
        if p >= 0 and (d < 0 or p < d):
            d = p
        if self.journal is not None:
            d = self.journal.deadline(self, d)
        if self.board.live_display:
            r = now if self.drawn < 0 else self.redraw_at  # a change not yet drawn: now
            if r >= 0 and (d < 0 or r < d):
                d = r
        return d

    def next_redraw(self, now):
        """When the faces next change by themselves (-1: not until something
        happens). The digits round down, so a running side's whole seconds
        turn over at ``now + left % 1000 + 1``; under TENTHS_MS, in overtime,
        in the hourglass (the other side's time grows) and under a delay (the
        time stands still, then runs) every REFRESH_MS. Waking only then
        keeps the loop quiet (#17)."""
        c = self.clock
        if self.menu or c.state != C.RUNNING or c.run < 0:
            return -1
        ms = c.left(c.run, now)
        if c.tc.timing == tcspec.UPCOUNT:  # TC-13: counting up
            if ms < TENTHS_MS and self.tenths:
                return now + self.REFRESH_MS
            return now + 1000 - ms % 1000
        s = c.sides[c.run]
        fast = ms < TENTHS_MS + 1000 or s.ot or c.tc.timing_of(s.stage) in SLOW_FACE
        if fast and self.tenths:
            return now + self.REFRESH_MS
        return now + ms % 1000 + 1  # #22: a board without tenths wakes once a second

    def draw(self, now):
        b = self.board
        c = self.clock
        if self.menu:
            self.draw_menu()
            self.drawn = now
            self.redraw_at = -1
            return
        if self.auth.pairing(now) and c.state == C.RUNNING:
            self.auth.cancel()  # #8: a game started meanwhile ends the pairing step
        if self.auth.code:  # #8: the code, on both displays
            for i in (0, 1):
                self.auth.draw(b.fb[i])
                b.show(i)
            self.drawn = now
            self.redraw_at = self.auth.deadline()  # the code goes off by itself
            return
        for i in (0, 1):  # display 0 is the left one
            if i and self.pending is not None and self.pending():
                return  # #22: a press came during the first frame: its event goes out first
            self.faces[i].draw(c, c.side_of_lever(i), now, b.low_battery)
            b.show(i)
        self.drawn = now
        self.redraw_at = self.next_redraw(now)

    # -- inputs ----------------------------------------------------------------

    def on_input(self, kind, arg, t):
        c = self.clock
        try:
            if kind == IN_LEVER_DOWN:
                if self.auth.code:  # a press ends the pairing step
                    self.auth.cancel()
                    self.drawn = -1
                c.press(c.side_of_lever(arg), t)
            elif kind == IN_LEVER_UP:
                c.release(c.side_of_lever(arg), t)
            elif kind == IN_TILT:
                if c.state in (C.RUNNING, C.PAUSED):
                    c.knock(t)
            elif kind == IN_KEY:
                self.held = arg  # held: menu 3 s locks or opens, plus/minus repeat
                self.repeat_at = t + (3000 if arg == KEY_MENU else 500)
                self.repeat_gap = 250
                if not self.keylock:  # locked: the keys do nothing; the levers play on
                    self.on_key(arg, t)
            elif kind == IN_KEY_UP:
                if arg == self.held:
                    self.held = 0
                    self.repeat_at = -1
        except C.ClockError:
            pass  # a key that means nothing now does nothing
        self.drain()

    def on_key(self, key, t):
        c = self.clock
        if self.auth.key_in(key == KEY_OK, t, self.menu != MENU_OFF or c.state == C.RUNNING):
            self.drawn = -1  # #8: pairing took the key (ok x3 starts it, any key ends it)
        elif self.menu:
            self.menu_key(key, t)
        elif key in (KEY_PLUS, KEY_MINUS) and c.state in (C.IDLE, C.FLAGGED, C.FINISHED):
            self.menu = MENU_VOICE  # qizhong/voicemenu.py, loaded while it is open
            self.menu_voice = voice.lang * 2 + voice.style
            self.drawn = -1
        elif key == KEY_MENU and c.state in (C.IDLE, C.FLAGGED, C.FINISHED):
            try:  # loaded when opened: the boot heap stays as it was
                from .menuload import load

                menu = load()

                if self.slots is None:  # the five user slots, from flash (#24)
                    self.slots = menu.load_slots(self.board.state_dir)
                self.setup = menu.Menu(self.slots, self.game)
            except MemoryError:  # no room now: the clock goes on, the key does nothing
                self.close_menu()  # what did load goes again
                return
            self.menu = MENU_ON
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

    def repeat(self, t):
        """The key held at ``t`` (docs/menu.md): menu held 3 s locks the keys
        or opens them; plus or minus steps again in a menu, sooner each time."""
        key = self.held
        self.repeat_at = -1
        if key == KEY_MENU:
            if self.menu:
                self.close_menu()  # nothing changes
            self.keylock = not self.keylock
            self.note(EV_KEYS, -1, t, 1 if self.keylock else 0)
        elif self.menu and key in (KEY_PLUS, KEY_MINUS):
            self.menu_key(key, t)
            if self.menu:
                self.repeat_at = t + self.repeat_gap
                self.repeat_gap = max(50, self.repeat_gap * 3 // 4)

    def menu_key(self, key, t):
        self.drawn = -1
        if self.menu == MENU_VOICE:
            try:
                from .voicemenu import on_key

                on_key(self, key, t)
            except MemoryError:
                self.menu = MENU_OFF
            if not self.menu:
                self.close_menu()
        elif key == KEY_MENU or self.setup is None:  # leave, nothing changed
            self.close_menu()
        else:
            try:
                self.setup.on_key(self, key, t)
            except MemoryError:  # no room for the menu now: it closes, the clock goes on
                self.menu = MENU_OFF
            if self.menu == MENU_OFF:  # applied, or no room
                self.close_menu()

    def draw_menu(self):
        if self.menu == MENU_VOICE:
            try:
                from .voicemenu import draw

                draw(self)
            except MemoryError:
                self.close_menu()
        elif self.setup is not None:
            try:
                self.setup.draw(self.board)
            except MemoryError:
                self.close_menu()

    def close_menu(self):
        self.menu = MENU_OFF
        self.setup = None
        self.drawn = -1
        try:  # its modules go: the next game has the heap it had before
            from .menuload import unload

            unload()
        except MemoryError:  # not even room for that: they stay, the clock goes on
            pass

    # -- the voice (docs/voice.md) ---------------------------------------------

    def set_voice(self, lang, style, t):
        """Speak ``voice.LANGS[lang]``, counting ``voice.STYLES[style]``.
        Between games only: a game in play keeps the count it started with."""
        if self.clock.state in IN_PLAY:
            raise C.ClockError("the voice changes between games, not in play")
        voice.use(lang, style)
        tc = self.clock.tc  # the menu builds its controls afresh, with the voice in use
        if tc.overtime is not None:
            tc.overtime.retable()
        self.board.set_voice(voice.LANGS[lang])
        self.drawn = -1
        self.note(EV_VOICE, -1, t, lang * 2 + style)

    # -- outputs ---------------------------------------------------------------

    def drain(self):
        """Act on the clock's events, log them and send them to the host.
        With a journal (#8) they are committed first: the host never hears
        of a change that a power cut could undo."""
        c = self.clock
        b = self.board
        log = self.log
        jr = self.journal
        first = log.last + 1
        while True:
            kind = c.pop_event()
            if not kind:
                break
            t = c.ev_t
            if kind != C.EV_CUE:
                self.drawn = -1  # #17: every change is drawn by the next pass, not the next refresh
            if kind == C.EV_CUE:
                if not self.muted:
                    b.say(c.ev_arg, t)
            elif kind == C.EV_WARN:
                self.warn(t)
            elif kind == C.EV_FLAG or kind == C.EV_KNOCK:
                if 0 <= self.beep_until <= t:  # the last beep ended before this one
                    b.beep(False, self.beep_until)
                b.beep(True, t)  # TC-8, EQ-5
                self.beep_until = t + self.BEEP_MS
            seq = log.add(kind, c.ev_side, t, c.ev_arg, c.left(0, t), c.left(1, t))
            if jr is None:
                b.write_n(self.enc.buf, log.encode(self.enc, seq))
            else:
                jr.event(kind)
        if jr is not None:
            if jr.dirty or log.last > jr.seq_hi:
                jr.save(self)
            for seq in range(first, log.last + 1):
                b.write_n(self.enc.buf, log.encode(self.enc, seq))

    def warn(self, t):
        """TC-15: the low-time warning, spoken or a short beep (the flag's
        buzzer, when it sounds, wins)."""
        tc = self.clock.tc
        if tc.warn_voice:
            if not self.muted:
                self.board.say(tcspec.warn_cue(tc.warn), t)
        elif self.beep_until < t:
            if self.beep_until >= 0:
                self.board.beep(False, self.beep_until)
            self.board.beep(True, t)
            self.beep_until = t + self.WARN_MS

    # -- the serial link (docs/protocol.md) ----------------------------------------

    def serial_in(self, b):
        """One byte from the host. Complete frames are executed and answered."""
        r = self.dec.push(b)
        if r == P.FRAME:
            self.requests += 1
            try:
                out = self.request(self.dec.body())
            except Exception as e:  # a firmware bug: the host still gets its answer, the link lives
                out = P.reply(0, "err internal %s" % type(e).__name__)
            self.reply(out)
        elif r < 0:
            self.reply(P.frame("r 0 err %s" % P.ERROR_CODES[r]))

    def reply(self, frame):
        """Send a reply, or keep it in ``unsent`` while the link is full (the
        serial reader then reads no further request: every request gets its
        reply, docs/protocol.md)."""
        if not self.board.write(frame):
            self.unsent = frame

    def flush_reply(self):
        """Try the reply that is waiting, if any; True when none waits now."""
        if self.unsent and self.board.write(self.unsent):
            self.unsent = b""
        return not self.unsent

    def request(self, body):
        """One request body ``ID VERB ARGS``; returns the reply frame (bytes).
        A repeated ID with the same body gets the same reply again and runs
        nothing: a host that lost a reply retries safely.

        #12: the body is parsed once (``proto.Request``); authorisation and
        the command see the same verb and arguments. A tagged request's
        counter is committed to the journal before its reply goes out,
        queries included, so no frame is accepted twice across a power cut.
        No reply is longer than a frame (``proto.reply``)."""
        if body and body == self.last_body:
            return self.last_reply
        if body and body == self.change_body:  # a change retried after a query came between
            return self.change_reply
        req = P.Request()
        parsed = False
        try:
            req.parse(body)
            parsed = True
            self.auth.check(req, self.board.now())
            text = self.command(req.verb, req.args)
        except P.BadRequest as e:
            text = "err bad-request %s" % e
        except P.TagForm as e:
            text = "err auth form: %s" % e
        except auth.AuthError as e:
            text = "err auth %s" % e
        if self.auth.authed:  # #12: the counter is on flash before the reply
            self.commit()
        reply = P.reply(req.rid, text)
        if not req.rid:  # not a request: nothing to retry
            return reply
        self.last_body = body
        self.last_reply = reply
        if not parsed or not auth.is_open(req.verb, req.args):
            self.change_body = body
            self.change_reply = reply
        return reply

    def commit(self):
        """Write the journal now if anything is waiting for it."""
        jr = self.journal
        if jr is not None and jr.dirty:
            jr.save(self)

    def command(self, op, args):
        """Run one command (``args``: its words); returns the reply text
        ``ok ...`` or ``err CODE ...``. Every number is checked against its
        range here, at the edge (#12, docs/protocol.md "Ranges")."""
        c = self.clock
        now = self.board.now()
        try:
            if op == "hello":
                return "ok hello proto=%d fw=%s board=%s id=%s boot=%s seq=%d" % (
                    P.PROTOCOL,
                    VERSION,
                    self.board.NAME,
                    self.board.board_id,
                    self.boot,
                    self.log.last,
                ) + " auth=%d ctr=%d authfail=%d" % (  # #8: paired, last counter, refusals
                    0 if self.auth.key is None else 1,
                    self.auth.ctr,
                    self.auth.fails,
                )
            if op == "status":
                return self.status(now)
            if op == "since":  # replay what the host missed, then say what was sent
                log = self.log
                n = number(_arg(args, 0, "since N"), 0, C.MAX_SEQ, "since N")
                if n > log.last:
                    return "err args since %d: the last event is %d" % (n, log.last)
                first = max(n + 1, log.oldest())
                upto = first - 1  # as many as the link takes now, at most SINCE_MAX
                while upto < log.last and upto - first < self.SINCE_MAX - 1:
                    if not self.board.write_n(self.enc.buf, log.encode(self.enc, upto + 1)):
                        break
                    upto += 1
                return "ok since %d %d %d" % (first, upto, log.last)
            if op == "time":
                return "ok time %d" % now
            if op == "journal":  # #8: the power-loss journal's figures (docs/journal.md)
                jr = self.journal
                return "ok journal " + ("off" if jr is None else jr.report(self))
            if op == "tc":
                return "ok tc " + tcspec.format(c.tc)
            if op == "voice" and not args:  # the voice in use (a query; with words, a change)
                return "ok voice %s %s" % (voice.LANGS[voice.lang], voice.STYLES[voice.style])
            if op == "mem":  # heap figures: "mem collect" collects first
                import gc

                how = args[0] if len(args) == 1 else "" if not args else "?"
                if how == "collect":
                    gc.collect()
                elif how == "hold":  # for measuring: a change (auth.is_open)
                    gc.disable()
                elif how == "release":
                    gc.enable()
                elif how:
                    raise ValueError("mem [collect|hold|release]")
                return "ok mem %d %d" % (gc.mem_alloc(), gc.mem_free())
            reply = self.change(op, args, " ".join(args), now)
        except tcspec.SpecError as e:
            reply = "err spec %s" % e
        except C.ClockError as e:
            reply = "err state %s" % e
        except (IndexError, ValueError) as e:
            reply = "err args %s" % e
        self.drain()
        return reply

    def change(self, op, args, rest, now):
        """The commands that change the clock (#8 authenticates these)."""
        c = self.clock
        if op == "pair" or op == "unpair":  # pair: auth.Guard.open checked the code's tag
            if op == "unpair":
                self.auth.unpair()
            self.drawn = -1
            self.note(EV_PAIR, -1, now, 1 if op == "pair" else 0)
            return "ok " + op
        if op == "config" or op == "override":
            tc = tcspec.parse(rest)
            if len(tcspec.format(tc)) > SPEC_MAX:  # it must fit a "tc" reply and the journal
                raise ValueError("the time control is over %d characters written out" % SPEC_MAX)
            c.configure(tc, now, op == "override")
            self.note(EV_CONFIG, -1, now, 1 if op == "override" else 0)
            return "ok " + op
        if op == "start":
            c.start(now, _side(args[0]) if args else 0)
            return "ok start"
        if op == "pause":
            c.pause(now)
            return "ok pause"
        if op == "resume":
            c.resume(now)
            return "ok resume"
        if op == "penalty":  # penalty SIDE MS: |MS| <= MAX_MS, and no side over MAX_MS
            side = _side(_arg(args, 0, "penalty SIDE MS"))
            ms = number(_arg(args, 1, "penalty SIDE MS"), -C.MAX_MS, C.MAX_MS, "penalty MS")
            if ms > 0 and c.left(side, now) + ms > C.MAX_MS:
                raise ValueError("a side holds at most %d ms (100 h)" % C.MAX_MS)
            c.adjust(side, ms, now)
            return "ok penalty"
        if op == "knock":
            c.assign_knock(_side(_arg(args, 0, "knock SIDE")), now)
            return "ok knock"
        if op == "set":  # set SIDE MS [MOVES [PERIODS]] (EQ-7)
            if len(args) > 4:
                raise ValueError("set SIDE MS [MOVES [PERIODS]]")
            side = _side(_arg(args, 0, "set SIDE MS"))
            ms = number(_arg(args, 1, "set SIDE MS"), 0, C.MAX_MS, "set MS")
            moves = number(args[2], -1, C.MAX_MOVES, "MOVES") if len(args) > 2 else -1  # -1: keep
            periods = number(args[3], -1, C.MAX_PERIODS, "PERIODS") if len(args) > 3 else -1
            c.set_side(side, now, ms, moves, periods)
            return "ok set"
        if op == "state":  # state RUN MS0 MOVES0 PERIODS0 MS1 MOVES1 PERIODS1 [running] (EQ-7)
            if len(args) not in (7, 8) or args[7:] not in ([], ["running"], ["paused"]):
                raise ValueError(
                    "state RUN MS0 MOVES0 PERIODS0 MS1 MOVES1 PERIODS1 [running|paused]"
                )
            run = _side(args[0])
            v = []
            for i in (0, 1):  # -1 keeps a value
                v.append(number(args[1 + 3 * i], -1, C.MAX_MS, "state MS"))
                v.append(number(args[2 + 3 * i], -1, C.MAX_MOVES, "state MOVES"))
                v.append(number(args[3 + 3 * i], -1, C.MAX_PERIODS, "state PERIODS"))
            if c.state == C.IDLE:
                c.start(now, run)
                c.pause(now)
            for i in (0, 1):  # -1: keep what the clock has
                ms = v[3 * i]
                c.set_side(i, now, c.sides[i].main if ms < 0 else ms, v[3 * i + 1], v[3 * i + 2])
            running = len(args) > 7 and args[7] == "running"
            c.load(now, run, C.RUNNING if running else C.PAUSED)
            return "ok state"
        if op == "levers":  # levers red|black [override]: whose lever is the left one (EQ-1)
            side = _side(_arg(args, 0, "levers red|black [override]"))
            _unlocked(c, args[1:], "levers")
            c.left_side = side
            self.drawn = -1
            self.note(EV_LEVERS, c.left_side, now, 0)
            return "ok levers " + SIDE_NAMES[c.left_side]
        if op == "new":  # new [override]: a new game under the same control
            if c.state in IN_PLAY:  # the game in play ends here, with no result
                _unlocked(c, args, "new")
                c.finish(now)
            c.configure(c.tc, now, True)
            self.note(EV_CONFIG, -1, now, 2)
            return "ok new"
        if op == "finish":  # finish [red|black|draw]: stop, and show the result
            r = -1
            if args:
                r = C.RESULT_DRAW if args[0] == "draw" else _side(args[0])
            c.finish(now, r)
            return "ok finish"
        if op == "volume":  # volume 0..10
            vol = number(_arg(args, 0, "volume 0..10"), 0, 10, "volume")
            self.volume = vol
            self.board.set_volume(0 if self.muted else vol)
            self.note(EV_VOLUME, -1, now, vol)
            return "ok volume %d" % vol
        if op == "mute":  # mute on|off: the voice only; the time-out buzzer stays (TC-8)
            if not args or args[0] not in ("on", "off"):
                raise ValueError("mute on|off")
            self.muted = args[0] == "on"
            self.board.set_volume(0 if self.muted else self.volume)
            self.note(EV_VOLUME, -1, now, 0 if self.muted else self.volume)
            return "ok mute " + args[0]
        if op == "voice":  # voice [cmn|yue|ja|ko|en] [up|down] (docs/voice.md)
            from .voicemenu import voice_args  # loaded for a change, rare

            return voice_args(self, args, now)
        if op == "keys":  # keys lock|open: the arbiter's keys (docs/menu.md); levers play on
            if len(args) != 1 or args[0] not in ("lock", "open"):
                raise ValueError("keys lock|open")
            self.keylock = args[0] == "lock"
            self.note(EV_KEYS, -1, now, 1 if self.keylock else 0)
            return "ok keys " + args[0]
        if op == "trim":  # trim PPM: the crystal runs this fast (+) or slow (-)
            ppm = number(_arg(args, 0, "trim PPM"), -1000, 1000, "trim PPM")
            self.board.set_trim(ppm)
            self.trim = ppm
            self.note(EV_TRIM, -1, now, ppm)
            return "ok trim %d" % ppm
        return "err unknown command %s" % P.show(op)

    def note(self, kind, side, t, arg):
        """Log and send an event of the app's own (not the clock core's)."""
        self.clock._emit(kind, side, t, arg)

    def status(self, now):
        c = self.clock
        a, b = c.sides
        return (
            "ok status t=%d state=%s run=%d left=%d,%d moves=%d,%d periods=%d,%d flag=%d"
            " result=%d levers=%s locked=%d seq=%d volume=%d mute=%d"
            % (
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
                c.result,
                SIDE_NAMES[c.left_side],
                1 if c.locked() else 0,
                self.log.last,
                self.volume,
                1 if self.muted else 0,
            )
            + " auth=%d" % (0 if self.auth.key is None else 1)  # #8: paired
            + " freeze=%d" % (1 if c.tc.freezes() else 0)  # a flag stops both clocks
            + " kl=%d" % (1 if self.keylock else 0)  # the key lock (the frame has room for 6)
        )


IN_PLAY = (C.RUNNING, C.PAUSED, C.KNOCKED)


def _unlocked(c, args, op):
    """EQ-6: once both sides made three moves, a game in play keeps its
    settings unless the arbiter overrides (``OP ... override``)."""
    if args and args[0] != "override":
        raise ValueError("%s: the last word may only be override" % op)
    if c.locked() and c.state in IN_PLAY and not args:
        raise C.ClockError("settings are locked after three moves each (EQ-6): %s override" % op)


def _side(word):
    if word in SIDE_NAMES:
        return SIDE_NAMES.index(word)
    if word in ("white", "first", "0"):
        return 0
    if word in ("second", "1"):
        return 1
    raise ValueError("no side %s" % P.show(word))


def _arg(args, i, usage):
    if i >= len(args):
        raise ValueError(usage)
    return args[i]


def number(word, lo, hi, what):
    """The decimal integer ``word`` (ASCII digits, an optional ``-``) if it
    is in ``lo..hi``; else ValueError naming the range (#12). Never echoes
    more than a few characters, so the reply fits a frame."""
    d = word[1:] if word[:1] == "-" else word
    if not d or len(d) > 10 or not d.isdigit():
        raise ValueError("%s: %s is not a whole number" % (what, P.show(word, 12)))
    v = int(word)
    if not lo <= v <= hi:
        raise ValueError("%s is %d..%d, not %s" % (what, lo, hi, P.show(word, 12)))
    return v
