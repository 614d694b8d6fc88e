# SPDX-License-Identifier: GPL-3.0-or-later
"""Loading and dropping the setup menu (docs/menu.md): apart from the app, so
that the clock's boot compiles none of it."""

# In this order: each before those that import it.
MENU_MODULES = (
    "menuitems", "menustages", "menuclauses",
    "menulist", "menudraft", "menuview", "menu",
)  # fmt: skip


def load():
    """The setup menu's module (``menu``). From source each of its small modules
    compiles on a collected heap: the compiler's peak is one small module's,
    so the menu opens after a game in the README's heap (``benchmarks/firmware.py``)."""
    import gc
    import sys

    pkg = __name__.rsplit(".", 1)[0]
    for again in (False, True):
        try:
            for name in MENU_MODULES:
                gc.collect()
                __import__(pkg + "." + name)
            return sys.modules[pkg + ".menu"]
        except MemoryError:  # all again, once: the names the first try interned stay
            unload()
            if again:
                raise
    raise MemoryError  # not reached: the second try returns or raises


def unload():
    """Drop the menu's modules: the next game plays in the heap it had
    before the menu opened, and the next opening starts the same way."""
    import gc
    import sys

    pkg = __name__.rsplit(".", 1)[0]
    for name in MENU_MODULES + ("voicemenu",):  # and the voice's menu (qizhong/voicemenu.py)
        if sys.modules.pop(pkg + "." + name, None) is not None:
            try:
                delattr(sys.modules[pkg], name)
            except AttributeError:
                pass
    gc.collect()
