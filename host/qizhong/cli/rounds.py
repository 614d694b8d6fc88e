# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong round``: a tournament's rounds on a running hall server (docs/server.md).

    qizhong round --server http://127.0.0.1:8080 tournament --name "Hall Open" --site Shanghai
    qizhong round import pairings.csv --date 2026-11-25     # the next round; prints its number
    qizhong round start 1                                   # every board set up and started
    qizhong round results 1 --csv                           # the results table
    qizhong round score 7 B+3.5                             # a Go board's score
    qizhong round zip 1 round1.zip                          # every record of the round
    qizhong round players players.csv                       # the player list (CSV or .trf)
    qizhong round trf pairing.trf --boards 11,12            # a chess round from a TRF file
    qizhong round robin 1,2,3,4,5,6 --game xiangqi          # a round robin (Berger tables)
    qizhong round bye 3 5 half | forfeit 3 2 second | late 3 1 first 10 | withdraw 4 --from 3
    qizhong round standings --game chess [--csv]            # the standings, tie-breaks
    qizhong round trf-out tournament.trf                    # TRF-16 with every result

Changes need the arbiter's password in ``$QIZHONG_ARBITER_PASSWORD``; the
server is ``--server`` or ``$QIZHONG_SERVER`` (default http://127.0.0.1:8080).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from typing import Any

from qizhong.records import files

DEFAULT = "http://127.0.0.1:8080"


class Failed(Exception):
    """The server's refusal, or no server: the message says which."""


def _call(args: argparse.Namespace, path: str, body: dict[str, Any] | None = None) -> bytes:
    url = args.server.rstrip("/") + path
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/json")
        password = os.environ.get("QIZHONG_ARBITER_PASSWORD", "")
        if not password:
            raise Failed("set QIZHONG_ARBITER_PASSWORD to the arbiter's password")
        req.add_header("Authorization", "Bearer " + password)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return bytes(r.read())
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read()).get("error", e.reason)
        except ValueError:
            why = e.reason
        raise Failed("%s: %s" % (e.code, why)) from None
    except OSError as e:
        raise Failed("no server at %s: %s" % (args.server, e)) from None


def _json(args: argparse.Namespace, path: str, body: dict[str, Any] | None = None) -> Any:
    return json.loads(_call(args, path, body))


def cmd_tournament(args: argparse.Namespace) -> int:
    body = {k: v for k in ("name", "site", "start", "end") if (v := getattr(args, k)) is not None}
    t = _json(args, "/api/tournament", body) if body else _json(args, "/api/tournament")
    print("%s, %s, %s to %s" % (t["name"] or "?", t["site"] or "?", t["start"] or "?",
                                t["end"] or "?"))  # fmt: skip
    return 0


def _wait_boards(args: argparse.Namespace, text: str) -> None:
    """Until every board the pairings name has its clock connected (bounded)."""
    wanted = set()
    for line in text.splitlines():
        cell = line.replace("\t", ",").split(",", 1)[0].strip().lstrip("\ufeff")
        if cell.isdigit():
            wanted.add(int(cell))
    deadline = time.monotonic() + args.wait
    while True:
        up = {b["no"] for b in _json(args, "/api/boards") if b["link"] == "up"}
        if wanted <= up or time.monotonic() >= deadline:
            return
        time.sleep(0.5)  # polling another process, bounded by --wait


def cmd_import(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8-sig") as f:
            text = f.read()
    if args.wait:
        _wait_boards(args, text)
    body: dict[str, Any] = {"pairings": text, "date": args.date or ""}
    if args.round is not None:
        body["round"] = args.round
    got = _json(args, "/api/rounds", body)
    print("round %d: %d boards" % (got["round"], got["pairings"]))
    return 0


def _act(args: argparse.Namespace, verb: str) -> int:
    got = _json(args, "/api/rounds/%d/%s" % (args.round, verb), {"force": args.force})
    bad = 0
    for b in got["boards"]:
        print("board %d: %s" % (b["board"], b["outcome"]))
        bad += b["outcome"] != "ok"
    return 1 if bad else 0


def cmd_setup(args: argparse.Namespace) -> int:
    return _act(args, "setup")


def cmd_start(args: argparse.Namespace) -> int:
    return _act(args, "start")


def cmd_results(args: argparse.Namespace) -> int:
    if args.csv:
        sys.stdout.write(_call(args, "/rounds/%d/results.csv" % args.round).decode())
        return 0
    got = _json(args, "/api/rounds/%d" % args.round)
    for line in results_lines(got["boards"]):
        print(line)
    return 0


def width(text: str) -> int:
    """``text``'s width in a terminal's columns: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch)
               else 1 for ch in text)  # fmt: skip


def pad(text: str, columns: int) -> str:
    """``text`` filled with spaces to ``columns`` terminal columns (王五 is 4 wide, not 2)."""
    return text + " " * max(0, columns - width(text))


def results_lines(boards: list[dict[str, Any]]) -> list[str]:
    """A round's results as a table, its columns aligned in a terminal also for names in
    Chinese, Japanese or Korean: each column as wide as its widest cell."""
    cells = [[str(r["board"]), str(r["first"]), str(r["second"]), str(r["game"]),
              str(r["result"] or "-"), str(r["score"] or "")] for r in boards]  # fmt: skip
    if not cells:
        return []
    widths = [max(width(row[i]) for row in cells) for i in range(len(cells[0]))]
    out = []
    for row in cells:
        line = " " * (widths[0] - width(row[0])) + row[0] + "  "
        line += " ".join(pad(c, w) for c, w in zip(row[1:], widths[1:], strict=True))
        out.append(line.rstrip())
    return out


def cmd_score(args: argparse.Namespace) -> int:
    got = _json(args, "/api/boards/%d/score" % args.board, {"score": args.score})
    print("board %d, game %d: %s" % (args.board, got["game"], args.score))
    return 0


def cmd_zip(args: argparse.Namespace) -> int:
    data = _call(args, "/rounds/%d.zip" % args.round)
    files.replace(args.file, data)
    print("%s: %d bytes" % (args.file, len(data)))
    return 0


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8-sig") as f:
        return f.read()


def _numbers(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise Failed("%r: numbers separated by commas" % text) from None


def cmd_players(args: argparse.Namespace) -> int:
    text = _read(args.file)
    kind = (
        "trf"
        if args.file.lower().endswith((".trf", ".txt")) or text[:3] in ("012", "001")
        else "csv"
    )
    got = _json(args, "/api/players", {kind: text})
    print("%d players" % got["players"])
    return 0


def cmd_trf(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"trf": _read(args.file), "date": args.date or ""}
    if args.round is not None:
        body["round"] = args.round
    if args.boards:
        body["boards"] = _numbers(args.boards)
    if args.control:
        body["control"] = args.control
    got = _json(args, "/api/rounds/trf", body)
    print("round %d: %d boards, %d byes" % (got["round"], got["pairings"], got["byes"]))
    return 0


def cmd_robin(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"players": _numbers(args.players), "game": args.game,
                            "date": args.date or ""}  # fmt: skip
    for key, value in (("first_round", args.first), ("rounds", args.rounds)):
        if value is not None:
            body[key] = value
    if args.boards:
        body["boards"] = _numbers(args.boards)
    if args.control:
        body["control"] = args.control
    got = _json(args, "/api/rounds/robin", body)
    print("rounds %s" % ", ".join(map(str, got["rounds"])))
    return 0


def cmd_incident(args: argparse.Namespace) -> int:
    verb = args.round_op
    if verb == "bye":
        body: dict[str, Any] = {"player": args.player, "kind": args.kind}
    elif verb == "forfeit":
        body = {"board": args.board, "side": args.side}
    else:
        body = {"board": args.board, "side": args.side, "minutes": args.minutes}
    got = _json(args, "/api/rounds/%d/%s" % (args.round, verb), body)
    print(got.get("outcome", "ok"))
    return 0


def cmd_withdraw(args: argparse.Namespace) -> int:
    _json(args, "/api/players/%d/withdraw" % args.player, {"round": args.start})
    print("player %d withdrawn from round %d" % (args.player, args.start))
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    query = "?game=%s" % args.game + ("&round=%d" % args.after if args.after else "")
    if args.csv:
        sys.stdout.write(_call(args, "/standings.csv" + query).decode())
        return 0
    got = _json(args, "/api/standings" + query)
    keys = [t["key"] for t in got["tiebreaks"]]
    cells = [["#", "no", "name", "points", *keys]]
    cells += [[str(r["rank"]), str(r["no"]), r["name"], r["points"], *(r["tb"][k] for k in keys)]
              for r in got["rows"]]  # fmt: skip
    widths = [max(width(row[i]) for row in cells) for i in range(len(cells[0]))]
    for row in cells:
        print(" ".join(pad(c, w) for c, w in zip(row, widths, strict=True)).rstrip())
    return 0


def cmd_trf_out(args: argparse.Namespace) -> int:
    data = _call(args, "/tournament.trf")
    with open(args.file, "wb") as f:
        f.write(data)
    print("%s: %d bytes" % (args.file, len(data)))
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return int(args.round_func(args))
    except Failed as e:
        print("qizhong round: %s" % e, file=sys.stderr)
        return 1


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "round",
        help="a tournament's rounds on the hall server: import pairings, start, results",
        description="A tournament's rounds on a running hall server (docs/server.md). Changes"
        " need the arbiter's password in $QIZHONG_ARBITER_PASSWORD.",
    )
    p.add_argument("--server", default=os.environ.get("QIZHONG_SERVER", DEFAULT),
                   help="the hall server (default $QIZHONG_SERVER or %s)" % DEFAULT)  # fmt: skip
    p.set_defaults(func=run)
    ops = p.add_subparsers(dest="round_op", metavar="ACTION", required=True)
    a = ops.add_parser("tournament", help="show or set the tournament's name, site and dates")
    a.add_argument("--name")
    a.add_argument("--site")
    a.add_argument("--start", metavar="YYYY-MM-DD")
    a.add_argument("--end", metavar="YYYY-MM-DD")
    a.set_defaults(round_func=cmd_tournament)
    a = ops.add_parser("import", help="a round's pairings from a CSV file (- : stdin)")
    a.add_argument("file")
    a.add_argument("--round", type=int, help="its number (default: the next)")
    a.add_argument("--date", metavar="YYYY-MM-DD", help="the round's date")
    a.add_argument("--wait", type=float, default=0.0, metavar="S",
                   help="first wait up to S seconds for its boards' clocks")  # fmt: skip
    a.set_defaults(round_func=cmd_import)
    both = (
        ("setup", cmd_setup, "set every board of the round up"),
        ("start", cmd_start, "set the round up and start every clock"),
    )
    for name, fn, what in both:
        a = ops.add_parser(name, help=what)
        a.add_argument("round", type=int)
        a.add_argument("--force", action="store_true", help="even over games still going")
        a.set_defaults(round_func=fn)
    a = ops.add_parser("results", help="the round's results table")
    a.add_argument("round", type=int)
    a.add_argument("--csv", action="store_true", help="as the CSV file")
    a.set_defaults(round_func=cmd_results)
    a = ops.add_parser("score", help="a Go board's score (B+3.5, W+R, 0...)")
    a.add_argument("board", type=int)
    a.add_argument("score")
    a.set_defaults(round_func=cmd_score)
    a = ops.add_parser("zip", help="every record of the round and its results, as a zip")
    a.add_argument("round", type=int)
    a.add_argument("file")
    a.set_defaults(round_func=cmd_zip)
    a = ops.add_parser("players", help="the player list from a CSV or TRF file (- : stdin)")
    a.add_argument("file")
    a.set_defaults(round_func=cmd_players)
    a = ops.add_parser("trf", help="a chess round from the pairing program's TRF-16 file")
    a.add_argument("file")
    a.add_argument("--round", type=int, help="the file's round to take (default its last)")
    a.add_argument("--boards", help="the boards, in order (default the chess boards)")
    a.add_argument("--control", help="the time control (default the boards')")
    a.add_argument("--date", metavar="YYYY-MM-DD")
    a.set_defaults(round_func=cmd_trf)
    a = ops.add_parser("robin", help="a round robin's rounds, from FIDE's Berger tables")
    a.add_argument("players", help="the players' numbers in their drawn order: 3,1,2,...")
    a.add_argument("--game", default="xiangqi", choices=["xiangqi", "go", "chess"])
    a.add_argument("--first", type=int, help="its first round's number (default the next)")
    a.add_argument("--rounds", type=int, help="how many of its rounds (default all)")
    a.add_argument("--boards", help="the boards, in order")
    a.add_argument("--control", help="the time control (default the boards')")
    a.add_argument("--date", metavar="YYYY-MM-DD")
    a.set_defaults(round_func=cmd_robin)
    a = ops.add_parser("bye", help="a bye in a round: full, half or zero points")
    a.add_argument("round", type=int)
    a.add_argument("player", type=int)
    a.add_argument("kind", nargs="?", default="full", choices=["full", "half", "zero", "pab"])
    a.set_defaults(round_func=cmd_incident)
    a = ops.add_parser("forfeit", help="who did not come to a board (first, second, both)")
    a.add_argument("round", type=int)
    a.add_argument("board", type=int)
    a.add_argument("side", choices=["first", "second", "both", ""])
    a.set_defaults(round_func=cmd_incident)
    a = ops.add_parser(
        "late", help="a late arrival: within the default time, noted; else a forfeit"
    )
    a.add_argument("round", type=int)
    a.add_argument("board", type=int)
    a.add_argument("side", choices=["first", "second"])
    a.add_argument("minutes", type=int)
    a.set_defaults(round_func=cmd_incident)
    a = ops.add_parser("withdraw", help="a player withdraws (from a round on)")
    a.add_argument("player", type=int)
    a.add_argument("--from", dest="start", type=int, required=True, metavar="ROUND")
    a.set_defaults(round_func=cmd_withdraw)
    a = ops.add_parser("standings", help="the standings with the game's tie-breaks")
    a.add_argument("--game", default="xiangqi", choices=["xiangqi", "go", "chess"])
    a.add_argument("--after", type=int, metavar="ROUND", help="after this round")
    a.add_argument("--csv", action="store_true", help="as the CSV file")
    a.set_defaults(round_func=cmd_standings)
    a = ops.add_parser("trf-out", help="the chess section as TRF-16, every result in")
    a.add_argument("file")
    a.set_defaults(round_func=cmd_trf_out)
