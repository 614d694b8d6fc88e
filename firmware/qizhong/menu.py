# SPDX-License-Identifier: GPL-3.0-or-later
"""The standalone setup menu (#24, docs/menu.md): every setting on the clock alone.

Its logic is here; how its text is drawn is the caller's (``lines`` gives each
display's rows, ``current`` the item and its value for a face with room for
little). Keys: plus/minus change the item shown, ok steps to the next one (on
the last it applies), start applies at once from anywhere, menu leaves with
nothing changed.

The menu edits a ``Draft``, a control taken apart into plain numbers, and
builds a spec from it: ``tcspec.parse`` checks the result, so the menu can
never set what a host could not. Other settings (a voice, a language) join
with ``Menu.add(Item(...))``. Nothing here runs while a game runs.
"""

from . import tcformats, tcspec
from .timecontrol import DELAY, FISCHER, HOURGLASS, UPCOUNT

GAMES = ("xiangqi", "go", "chess")
SIDES = (("red", "black"), ("black", "white"), ("white", "black"))  # the first mover first
PRESETS = (
    ("xq-rapid", "xq-rapid-20", "xq-rapid-25", "xq-rapid-30", "xq-blitz", "xq-blitz-10",
     "xq-count", "sudden-death", "armageddon", "armageddon-black", "league", "hourglass",
     "upcount"),
    ("go-byoyomi", "go-byoyomi-30", "go-canadian", "go-can-reset", "fischer-cap",
     "sudden-death", "upcount"),
    ("fide", "fide-delay", "rapid", "blitz", "armageddon-chess", "bronstein", "us-delay",
     "league", "fischer-cap", "hourglass", "sudden-death", "upcount"),
)  # fmt: skip
SLOTS = 5  # user slots kept in flash, as the DGT 3000 keeps five
HOWS = ("fischer", "bronstein", "delay", "hourglass", "upcount")  # a stage's method
OVERTIMES = ("none", "count", "byoyomi", "canadian", "can reset")
MOVES = (0, 1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60)
WARNS = (0, 10000, 20000, 30000, 60000, 120000, 300000)
HANDICAPS = (0, -40, 40, -20, 20, -10, 10)
RECORDS = (180000, 300000, 60000, 0)  # TC-9 thresholds (0: off)
MAX_STAGES = 3


def _step_of(v):
    return 10000 if v < 60000 else 60000 if v < 1200000 else 300000 if v < 7200000 else 900000


def base_step(ms, d):
    """The next base time up (d 1) or down (d -1): 10 s steps under a minute,
    1 min under 20 min, 5 min under 2 h, then 15 min."""
    if d > 0:
        step = _step_of(ms)
        return min(tcspec.MAX_MS, (ms // step + 1) * step)
    step = _step_of(ms - 1)
    return max(0, (ms - 1) // step * step)


def _cycle(values, v, d):
    i = values.index(v) if v in values else 0
    return values[(i + d) % len(values)]


def _clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


class Draft:
    """A control as the menu edits it: plain numbers (ms, counts, indexes)."""

    def __init__(self, tc=None):
        self.stages = [[0, 900000, FISCHER, 10000]]  # moves, base, how, inc or delay
        self.ot = 0  # OVERTIMES index
        self.count = 10000
        self.grace = 500
        self.periods = 3
        self.period = 60000
        self.block_moves = 15
        self.block = 600000
        self.handicap = 0
        self.first = 0
        self.second = 0
        self.cap = 0
        self.warn = 0
        self.voice = False
        self.record = tcspec.RECORD_MS
        self.freeze = None
        if tc is not None:
            self.load(tc)

    def load(self, tc):
        self.stages = []
        for i, st in enumerate(tc.stages):
            how = tc.timing_of(i)
            amount = st.inc if how == FISCHER else tc.delay_of(i)
            self.stages.append([st.moves, st.base, how, amount])
        ot = tc.overtime
        self.ot = 0
        if ot is not None:
            if ot.kind == "count":
                self.ot, self.count, self.grace = 1, ot.period, ot.grace
            elif ot.kind == "byoyomi":
                self.ot, self.periods, self.period = 2, ot.count, ot.period
            else:
                self.ot = 4 if ot.reset_blocks else 3
                self.block_moves, self.block = ot.moves, ot.period
        self.handicap = tc.handicap
        self.first, self.second = tc.first, tc.second
        self.cap, self.warn, self.voice = tc.cap, tc.warn, tc.warn_voice
        self.record, self.freeze = tc.record, tc.freeze

    def spec(self):
        """The spec this draft stands for (``tcspec.parse`` checks it)."""
        fmt = tcspec.fmt_ms
        how0 = self.stages[0][2]
        if how0 == UPCOUNT:
            parts = ["upcount"]
        elif how0 == HOURGLASS:
            parts = [fmt(self.stages[0][1], False) + " hourglass"]
        else:
            hows = [FISCHER if not s[3] else s[2] for s in self.stages]  # a 0 s delay: none
            how0 = hows[0]
            same = all(h == how0 and s[3] == self.stages[0][3] for h, s in zip(hows, self.stages))
            text = []
            for (moves, base, _, amount), how in zip(self.stages, hows):
                s = ("%d/" % moves if moves else "") + fmt(base, False)
                if how == FISCHER and amount:
                    s += "+" + fmt(amount)
                elif how != FISCHER and not same:
                    s += "+" + ("d" if how == DELAY else "b") + fmt(amount)
                text.append(s)
            parts = [":".join(text)]
            if same and how0 != FISCHER:
                parts.append(("delay " if how0 == DELAY else "bronstein ") + fmt(self.stages[0][3]))
        if self.ot == 1:
            parts.append("count " + fmt(self.count) + " grace " + fmt(self.grace))
        elif self.ot == 2:
            parts.append("byoyomi %dx%s" % (self.periods, fmt(self.period)))
        elif self.ot >= 3:
            parts.append("canadian %d/%s" % (self.block_moves, fmt(self.block, False)))
            if self.ot == 4:
                parts.append("reset")
        if self.handicap:
            parts.append(
                "red -%d%%" % -self.handicap if self.handicap < 0 else "black +%d%%" % self.handicap
            )
        for word, v in (("first", self.first), ("second", self.second), ("cap", self.cap)):
            if v:
                parts.append(word + " " + fmt(v, False))
        if self.warn:
            parts.append("warn " + fmt(self.warn, False) + (" voice" if self.voice else ""))
        if self.record != tcspec.RECORD_MS:
            parts.append("record " + (fmt(self.record, False) if self.record else "off"))
        if self.freeze is not None:
            parts.append("flag freeze" if self.freeze else "flag run")
        return " ".join(parts)


class Item:
    """One line of the menu: ``label(menu)``, ``value(menu)`` (text),
    ``step(menu, d)`` (d is +1 or -1), ``shown(menu)``."""

    def __init__(self, label, value, step, shown=None):
        self._label = label
        self.value = value
        self.step = step
        self.shown = shown or (lambda m: True)

    def label(self, m):
        return self._label(m) if callable(self._label) else self._label


def _stage_items(k):
    """The items of stage ``k`` (0-based)."""

    def on(m):
        return k < len(m.d.stages) and (k == 0 or m.d.stages[0][2] < HOURGLASS)

    def timed(m):
        return on(m) and m.d.stages[0][2] != UPCOUNT

    def name(what):
        return lambda m: what if len(m.d.stages) == 1 else "S%d %s" % (k + 1, what)

    def st(m):
        return m.d.stages[k]

    def moves_step(m, d):
        st(m)[0] = _cycle(MOVES, st(m)[0], d)

    def base_set(m, d):
        st(m)[1] = max(1000, base_step(st(m)[1], d))

    def how_set(m, d):
        n = len(HOWS) if len(m.d.stages) == 1 else 3  # hourglass, upcount: one stage
        s = st(m)
        s[2] = (s[2] + d) % n

    def amount_set(m, d):
        s = st(m)
        old = s[3]
        s[3] = _clamp(old + d * 1000, 0, 300000)
        if k == 0:  # stage 1's increment (or delay) carries to the later stages that had it
            for later in m.d.stages[1:]:
                if later[2] == s[2] and later[3] == old:
                    later[3] = s[3]

    def plain(m):
        return timed(m) and m.d.stages[0][2] < HOURGLASS

    return (
        Item(name("moves"), lambda m: "%d" % st(m)[0] if st(m)[0] else "-", moves_step, plain),
        Item(name("base"), lambda m: tcspec.fmt_ms(st(m)[1], False), base_set, timed),
        Item(name("how"), lambda m: HOWS[st(m)[2]], how_set, on),
        Item(
            lambda m: name("inc" if st(m)[2] == FISCHER else "delay")(m),
            lambda m: tcspec.fmt_ms(st(m)[3]),
            amount_set,
            plain,
        ),
    )


def _set(attr, lo, hi, step):
    def f(m, d):
        setattr(m.d, attr, _clamp(getattr(m.d, attr) + d * step, lo, hi))

    return f


def _plain(m):
    return m.d.stages[0][2] < HOURGLASS


def _items():
    d_ = tcspec.fmt_ms

    def game_step(m, d):
        m.game = (m.game + d) % len(GAMES)
        m.pick(0)

    def preset_step(m, d):
        m.pick((m.preset + d) % (len(PRESETS[m.game]) + SLOTS))

    def stages_step(m, d):
        st = m.d.stages
        if d > 0 and len(st) < MAX_STAGES and _plain(m):  # the stage before: to the flag (TC-10)
            st.append([0, st[-1][1] // 3 or 60000, st[-1][2], st[-1][3]])
        elif d < 0 and len(st) > 1:
            st.pop()

    def side_base(i):
        attr = ("first", "second")[i]

        def f(m, d):
            v = max(1000, base_step(getattr(m.d, attr) or m.d.stages[0][1], d))
            setattr(m.d, attr, 0 if v == m.d.stages[0][1] else v)  # 0: the stage's own

        return Item(
            lambda m: SIDES[m.game][i],
            lambda m: d_(getattr(m.d, attr), False) if getattr(m.d, attr) else "same",
            f,
            lambda m: _plain(m) and m.d.stages[0][2] != UPCOUNT,
        )

    def handicap_step(m, d):
        m.d.handicap = _cycle(HANDICAPS, m.d.handicap, d)

    def cap_step(m, d):
        base = max(m.d.stages[0][1], m.d.first, m.d.second)
        m.d.cap = 0 if d < 0 and m.d.cap <= base else max(base, base_step(m.d.cap or base - 1, d))

    def warn_step(m, d):
        m.d.warn = _cycle(WARNS, m.d.warn, d)
        if tcspec.warn_cue(m.d.warn) < 0:
            m.d.voice = False

    def voice_step(m, d):
        m.d.voice = not m.d.voice

    def ot_step(m, d):
        m.d.ot = (m.d.ot + d) % len(OVERTIMES)

    def fischer_inc(m):
        return _plain(m) and any(s[2] == FISCHER and s[3] for s in m.d.stages)

    def record_step(m, d):  # TC-9
        m.d.record = _cycle(RECORDS, m.d.record, d)

    def save_step(m, d):
        m.save = (m.save + d) % (SLOTS + 1)

    stage_items = []
    for k in range(MAX_STAGES):
        stage_items.extend(_stage_items(k))
    return [
        Item("game", lambda m: GAMES[m.game], game_step),
        Item("preset", lambda m: m.preset_name(), preset_step),
        Item("stages", lambda m: "%d" % len(m.d.stages), stages_step, _plain),
    ] + stage_items + [
        Item("overtime", lambda m: OVERTIMES[m.d.ot], ot_step, _plain),
        Item("count", lambda m: d_(m.d.count), _set("count", 1000, 60000, 1000),
             lambda m: _plain(m) and m.d.ot == 1),
        Item("grace", lambda m: d_(m.d.grace), _set("grace", 0, 5000, 100),
             lambda m: _plain(m) and m.d.ot == 1),
        Item("periods", lambda m: "%d" % m.d.periods, _set("periods", 1, 99, 1),
             lambda m: _plain(m) and m.d.ot == 2),
        Item("period", lambda m: d_(m.d.period), _set("period", 5000, 600000, 5000),
             lambda m: _plain(m) and m.d.ot == 2),
        Item("moves", lambda m: "%d" % m.d.block_moves, _set("block_moves", 1, 99, 1),
             lambda m: _plain(m) and m.d.ot >= 3),
        Item("block", lambda m: d_(m.d.block, False), _set("block", 60000, 3600000, 60000),
             lambda m: _plain(m) and m.d.ot >= 3),
        side_base(0),
        side_base(1),
        Item("handicap", lambda m: ("%+d%%" % m.d.handicap) if m.d.handicap else "off",
             handicap_step, lambda m: _plain(m) and m.d.stages[0][2] != UPCOUNT),
        Item("cap", lambda m: d_(m.d.cap, False) if m.d.cap else "off", cap_step, fischer_inc),
        Item("warn", lambda m: d_(m.d.warn, False) if m.d.warn else "off", warn_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("sound", lambda m: "voice" if m.d.voice else "beep", voice_step,
             lambda m: m.d.warn and tcspec.warn_cue(m.d.warn) >= 0),
        Item("record", lambda m: d_(m.d.record, False) if m.d.record else "off", record_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("save", lambda m: "slot %d" % m.save if m.save else "no", save_step),
    ]  # fmt: skip


class Menu:
    """The setup menu over a ``Draft``. ``slots``: the five user slots' specs
    ("" empty), kept by the caller in flash."""

    def __init__(self, slots, game=0):
        self.slots = slots
        self.game = game
        self.preset = 0
        self.save = 0
        self.i = 0  # the item shown
        self.error = ""
        self.items = _items()
        self.d = Draft()
        self.pick(0)

    def add(self, item, before="save"):
        """Another setting (a voice, a language): shown before ``before``."""
        for k, it in enumerate(self.items):
            if it._label == before:
                self.items.insert(k, item)
                return
        self.items.append(item)

    # -- presets and slots --------------------------------------------------------

    def preset_name(self):
        names = PRESETS[self.game]
        if self.preset < len(names):
            return names[self.preset]
        k = self.preset - len(names) + 1
        return "slot %d%s" % (k, "" if self.slots[k - 1] else " -")

    def pick(self, i):
        """Preset (or user slot) ``i`` of this game's list: the draft becomes it."""
        self.preset = i
        names = PRESETS[self.game]
        spec = names[i] if i < len(names) else self.slots[i - len(names)]
        if spec:
            self.d = Draft(tcspec.parse(spec))
        self.error = ""

    # -- keys ------------------------------------------------------------------------

    def visible(self):
        return [k for k, it in enumerate(self.items) if it.shown(self)]

    def key(self, step, ok):
        """plus/minus (``step`` +1/-1) or ok. Returns True when ok on the last
        item asks to apply."""
        self.error = ""
        if step:
            self.items[self.i].step(self, step)
            return False
        if ok:
            later = [k for k in self.visible() if k > self.i]
            if not later:
                return True
            self.i = later[0]
        return False

    def save_slots(self, folder):
        """Write the slots whole to a new file, then put it in place (a power
        cut leaves the old file or the new one). No flash: nothing to write."""
        if not folder:
            return
        import os

        try:
            with open(folder + "/slots.new", "w") as f:
                f.write("\n".join(self.slots) + "\n")
            os.rename(folder + "/slots.new", folder + "/slots")
        except OSError:
            pass  # the clock runs on; the slot is kept until the power goes

    def result(self):
        """The control to apply, or None with ``error`` set (the menu stays)."""
        try:
            tc = tcspec.parse(self.d.spec())
        except tcspec.SpecError as e:
            self.error = e.msg
            return None
        if self.save:
            self.slots[self.save - 1] = tcspec.format(tc)
        return tc

    def on_key(self, app, key, t):
        """A key of the app's (plus 3, minus 4, ok 5, start 1): on ok past the
        last setting, or start, the clock takes the control (EV_CONFIG 3)."""
        step = 1 if key == 3 else -1 if key == 4 else 0
        if self.key(step, key == 5) or key == 1:
            tc = self.result()
            if tc is None:
                return  # the error shows; the menu stays
            app.menu = 0
            app.game = self.game
            if self.save:
                self.save_slots(app.board.state_dir)
            app.clock.configure(tc, t, False)
            app.note(18, -1, t, 3)  # app.EV_CONFIG: from the setup menu

    def draw(self, board):
        """The rows, as text on each of the board's displays."""
        for i in (0, 1):
            fb = board.fb[i]
            fb.fill(0)
            rows = self.lines(i)
            gap = 16 if len(rows) <= 3 else 9  # a long control: a stage a row, never cut
            for row, text in enumerate(rows):
                fb.text(text, 0, (8 if gap == 16 else 0) + gap * row, 1)
            board.show(i)

    # -- what the displays show ---------------------------------------------------------

    def current(self):
        """The item shown, as (label, value)."""
        it = self.items[self.i]
        return it.label(self), it.value(self)

    def lines(self, display):
        """Display 0: SETUP, the game and the control a stage a row (never
        cut); display 1: the item being set and the next ones, or the error."""
        if display == 0:
            try:
                rows = tcformats.format_lines(tcspec.parse(self.d.spec()))
            except tcspec.SpecError:
                rows = ("(not valid)",)
            return ("SETUP " + GAMES[self.game],) + rows
        if self.error:  # the reason, word-wrapped
            out = []
            line = "!"
            for w in self.error.split(" "):
                if len(line) + 1 + len(w) > 16:
                    out.append(line)
                    line = w[:16]
                else:
                    line += " " + w
            out.append(line)
            return tuple(out[:7])
        vis = self.visible()
        at = vis.index(self.i) if self.i in vis else 0
        out = []
        for k in vis[at : at + 3]:
            it = self.items[k]
            label, value = it.label(self), it.value(self)
            mark = "> " if k == self.i else "  "
            if len(label) + 1 + len(value) <= 14:
                out.append(mark + label + " " + value)
            elif k == self.i:  # never cut: the value on a row of its own
                out.append(mark + label)
                out.append(("  " + value)[-16:] if len(value) <= 14 else value)
            else:
                out.append(mark + label)
        return tuple(out[:4])


# -- the user slots, in flash (#24) ----------------------------------------------


def load_slots(folder):
    """The user slots from ``folder/slots`` (a spec a line; empty: none). A
    line that does not parse is an empty slot, never trusted."""
    slots = [""] * SLOTS
    if not folder:
        return slots  # no flash: the slots last until the power goes
    try:
        with open(folder + "/slots") as f:
            lines = f.read().split("\n")
    except OSError:
        return slots
    for i in range(SLOTS):
        text = lines[i].strip() if i < len(lines) else ""
        try:
            slots[i] = tcspec.format(tcspec.parse(text)) if text else ""
        except tcspec.SpecError:
            pass
    return slots
