# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's list of settings, in the order ok steps through them
(docs/menu.md): the game, the preset and the stages here, the rest from
``menuclauses``."""

from . import menuclauses
from .menuitems import (
    GAMES,
    MAX_STAGES,
    PRESETS,
    SLOTS,
    Item,
    _plain,
)  # fmt: skip
from .menustages import _stage_items


def items():
    """Every setting, a new list (``Menu.add`` inserts into it)."""

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

    stage_items = []
    for k in range(MAX_STAGES):
        stage_items.extend(_stage_items(k))
    return [
        Item("game", lambda m: GAMES[m.game], game_step),
        Item("preset", lambda m: m.preset_name(), preset_step),
        Item("stages", lambda m: "%d" % len(m.d.stages), stages_step, _plain),
    ] + stage_items + menuclauses.items()  # fmt: skip
