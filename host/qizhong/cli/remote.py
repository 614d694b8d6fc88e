# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter`` on a clock the hall server owns: a client of that board's session.

The server runs the board's game (``qizhong.server.session``: the console's
own session, kept in its store). This console sends each typed line there
with an idempotency key, and sends it again with the same key while the
server is away (a restart), so it is applied once. It shows what the other
consoles and the board page did meanwhile (the session's log), and the
clocks as the server reports them. ``save PATH`` writes the server's record
here; ``quit`` leaves (the game goes on in the server).
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from typing import Any

from qizhong.clocks.link import LinkError
from qizhong.server.client import ServerLink

RETRY_S = 60.0  # how long a line is sent again while the server is away
# What a server (or its clock) away for a restart answers: the line is sent again.
_AWAY = ("Connection refused", "Connection reset", "Remote end closed", "timed out",
         "not connected")  # fmt: skip
_PREFIX = {"end": "== ", "foul": "!! ", "warn": "!  ", "rule": "*  ", "move": "", "info": "   "}
_OPTIONS = ("game", "spec", "left", "red", "black", "white", "event", "site", "round", "fen",
            "knockout", "late_entry", "size", "komi", "lang", "chess960", "emt",
            "repetition")  # fmt: skip


def _fmt(ms: int) -> str:
    s = max(0, ms) // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else "%d:%02d" % (
        s // 60, s % 60)  # fmt: skip


class RemoteConsole:
    """The console's face (``handle``, ``poll``, ``status``, ``hint``...) over
    the hall server's session of one board."""

    def __init__(self, link: ServerLink, retry_s: float = RETRY_S) -> None:
        self.link = link
        self.board = link.board
        self.retry_s = retry_s
        self.done = False
        self.seen = 0  # the session log's notices shown here
        self.view: dict[str, Any] = {}
        self.out: str | None = None

    # -- the server ------------------------------------------------------------------

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """One API call; while the server is away (a restart) it is tried again,
        a POST with its idempotency key unchanged."""
        deadline = time.monotonic() + self.retry_s
        while True:
            try:
                return self.link._api(path, body)
            except LinkError as e:
                gone = any(w in str(e) for w in _AWAY)
                if not gone or time.monotonic() >= deadline:
                    raise
                time.sleep(0.5)  # the server restarting: its port comes back

    def open(self, args: argparse.Namespace | None = None) -> list[str]:
        """Attach to the board's game, or start one with ``args``'s options
        (on a clock between games it is set up; in a hall game, the session
        takes that game as it is)."""
        view = self._call("/api/boards/%d/session" % self.board)
        lines = []
        if not view.get("active") or (args is not None and view.get("over")):
            opts = {k: getattr(args, k) for k in _OPTIONS if args is not None and
                    getattr(args, k, None) not in (None, False)}  # fmt: skip
            b = self._call("/api/boards/%d" % self.board)
            if args is not None:
                if args.game == "xiangqi" and b["game"] != "xiangqi":  # --game left out
                    opts["game"] = b["game"]
                opts["late_entry"] = bool(args.late_entry)  # as at the table: XQ-R19 at once
            configure = b["state"] in ("idle", "finished") and bool(opts.get("spec"))
            got = self._call("/api/boards/%d/session/new" % self.board,
                             {"options": opts, "configure": configure,
                              "key": "console-" + secrets.token_hex(8)})  # fmt: skip
            view = got["session"]
            lines.append("   a new game on board %d (%s)" % (self.board, view["spec"]))
        else:
            lines.append("   board %d's game in the hall server: %d moves, fouls %d-%d%s" % (
                self.board, len(view["moves"]), view["fouls"][0], view["fouls"][1],
                "; " + view["result"] if view["over"] else ""))  # fmt: skip
        self.view = view
        self.seen = int(view.get("log_n", 0))
        return lines

    # -- the console's face -----------------------------------------------------------

    def handle(self, line: str) -> list[str]:
        text = line.strip()
        if not text:
            return [self.status()]
        verb = text.split()[0].lower()
        if verb == "quit":
            self.done = True
            return []
        if verb == "save":
            return self._save(text.split()[1:])
        return self.send(text, "console-" + secrets.token_hex(12))

    def send(self, text: str, key: str) -> list[str]:
        """``text`` on the board's session with idempotency ``key``."""
        try:
            got = self._call("/api/boards/%d/session" % self.board, {"line": text, "key": key})
        except LinkError as e:
            return ["?  %s" % e]
        out: list[str] = list(got.get("lines", []))
        if got.get("repeated"):
            out.append("   (the server had this already: applied once)")
        view = got.get("session")
        if view:
            self.view = view
            self.seen = max(self.seen, int(view.get("log_n", 0)))
        return out

    def poll(self, timeout: float = 0.0) -> list[str]:
        """What the others (the page, another console, the clock) did since."""
        try:
            view = self.link._api("/api/boards/%d/session" % self.board)
        except LinkError:
            return []
        if not view.get("active"):
            return []
        if view.get("session") != self.view.get("session"):
            self.seen = 0
        self.view = view
        n = int(view.get("log_n", 0))
        log = view.get("log", [])
        first = n - len(log)
        out = []
        for i in range(max(self.seen, first), n):
            e = log[i - first]
            if e["kind"] != "cue":
                out.append(_PREFIX.get(e["kind"], "   ") + e["text"])
        self.seen = n
        return out

    def status(self) -> str:
        try:
            b = self.link._api("/api/boards/%d" % self.board)
        except LinkError as e:
            return "(the server: %s)" % e
        sides = self.view.get("sides") or ["first", "second"]
        parts = []
        for i in (0, 1):
            mark = ">" if b["run"] == i and b["state"] == "running" else " "
            parts.append("%s%s %s" % (mark, sides[i], _fmt(b["left"][i])))
        tail = "" if b["state"] == "running" else b["state"]
        if self.view.get("over"):
            tail = self.view.get("result", "")
        return "%s | %s  %s" % (parts[0], parts[1], tail)

    def hint(self, text: str) -> str:
        return ""

    def complete(self, text: str) -> str:
        return text

    def close(self) -> list[str]:
        out = self.poll()
        if not self.view.get("over"):
            out.append("   the game goes on in the hall server (board %d)" % self.board)
        return out

    def _save(self, args: list[str]) -> list[str]:
        if not args:
            return ["?  save PATH (the server keeps the record; this writes a copy here)"]
        game = self.view.get("game", "xiangqi")
        path = "/boards/%d.%s" % (self.board, "sgf" if game == "go" else "pgn")
        import urllib.request

        try:
            with urllib.request.urlopen(self.link.url + path, timeout=10) as r:
                data = r.read()
            with open(args[0], "xb") as f:
                f.write(data)
        except OSError as e:
            return ["?  cannot save %s: %s" % (args[0], getattr(e, "strerror", None) or e)]
        return ["   record written to %s" % os.path.abspath(args[0])]
