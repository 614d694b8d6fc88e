# SPDX-License-Identifier: GPL-3.0-or-later
"""The standalone setup menu (#24): every setting on the clock alone.
docs/menu.md is its manual (short here: the menu compiles after a game)."""

from . import menuview, tcspec
from .menudraft import Draft
from .menuitems import GAMES, PRESETS, SLOTS, Item  # noqa: F401 - Item: for Menu.add
from .menulist import items
from .menuview import load_slots  # noqa: F401 - the app's, from here


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
        self.items = items()
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

    def draw(self, board):  # menuview.draw
        menuview.draw(self, board)

    def current(self):  # menuview.current
        return menuview.current(self)

    def lines(self, display):  # menuview.lines
        return menuview.lines(self, display)
