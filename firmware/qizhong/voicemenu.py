# SPDX-License-Identifier: GPL-3.0-or-later
"""The voice's own small menu (docs/voice.md): plus or minus on an idle clock
opens it; plus and minus step through language and count, ok (or start)
takes it, menu leaves. Loaded while it is open and dropped when it closes
(``menuload.unload``), as the setup menu is: the clock plays in the heap it
had. Keys are the app's numbers (start 1, menu 2, plus 3, minus 4, ok 5).
The host's ``voice`` change is read here too (``voice_args``)."""

from . import voice
from .proto import show


def on_key(app, key, t):
    n = 2 * len(voice.LANGS)
    if key == 2:
        app.menu = 0  # app.MENU_OFF
    elif key in (3, 4):
        app.menu_voice = (app.menu_voice + (1 if key == 3 else -1)) % n
    elif key in (5, 1):
        app.menu = 0
        app.set_voice(app.menu_voice // 2, app.menu_voice % 2, t)


def draw(app):
    v = app.menu_voice
    lines = (
        ("VOICE", voice.LANGS[v // 2], "count " + voice.STYLES[v % 2]),
        ("now " + voice.LANGS[voice.lang], voice.STYLES[voice.style], "+/- ok"),
    )
    for i in (0, 1):
        fb = app.board.fb[i]
        fb.fill(0)
        for row, text in enumerate(lines[i]):
            fb.text(text, 0, 8 + 16 * row, 1)
        app.board.show(i)


def voice_args(app, args, now):
    """The host's ``voice [LANG] [up|down]``: either word, or both, in any order."""
    lang, style = voice.lang, voice.style
    if len(args) > 2 or (len(args) == 2 and (args[0] in voice.STYLES) == (args[1] in voice.STYLES)):
        raise ValueError("voice [%s] [up|down]" % "|".join(voice.LANGS))
    for w in args:
        if w in voice.LANGS:
            lang = voice.LANGS.index(w)
        elif w in voice.STYLES:
            style = voice.STYLES.index(w)
        else:
            raise ValueError("voice %s|up|down, not %s" % ("|".join(voice.LANGS), show(w)))
    app.set_voice(lang, style, now)
    return "ok voice %s %s" % (voice.LANGS[lang], voice.STYLES[style])
