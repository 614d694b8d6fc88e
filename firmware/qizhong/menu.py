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

The settings are in ``menuitems``, ``menulist`` and ``menuclauses``, the draft in
``menudraft``, the rows and the slots in ``menuview``: small modules, each
compiled on its own (``menuload``), so that the menu opens after a game in
the simulator's heap.
"""

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
        self.lock = False  # lock the keys once applied
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
            if self.lock:
                app.set_keylock(True, t)

    def draw(self, board):
        """The rows, as text on each of the board's displays."""
        menuview.draw(self, board)

    def current(self):
        """The item shown, as (label, value)."""
        return menuview.current(self)

    def lines(self, display):
        """Display 0: SETUP, the game and the control a stage a row (never
        cut); display 1: the item being set and the next ones, or the error."""
        return menuview.lines(self, display)
