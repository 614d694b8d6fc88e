# SPDX-License-Identifier: GPL-3.0-or-later
"""The tournament at the arbiter's desk (docs/tournament.md): the player list,
rounds from the pairing program's files (TRF-16 for chess; CSV, rounds.py, for
Go and Xiangqi) or a round robin made here from FIDE's Berger tables, byes,
forfeits, late arrivals and withdrawals (rounds.py keeps them), and what goes
out: the standings after every result with each game's tie-breaks (JSON, CSV,
a printable page), TRF-16 with every result, a printable pairing sheet and
result slips. Everything is in the hall's SQLite store (rounds.py's tables).
"""

from __future__ import annotations

import csv
import html
import io
from fractions import Fraction
from typing import Any

from aiohttp import web

from qizhong import timecontrol
from qizhong.server import actions
from qizhong.server.rounds import BYES, Pairing, RoundError, Rounds, clean_text, csv_rows
from qizhong.tournament import berger, trf
from qizhong.tournament.standings import (
    DEFAULTS,
    NAMES,
    RULES,
    Result,
    Row,
    points_of,
    show,
    standings,
)

GAMES = ("chess", "xiangqi", "go")
PLAYER_HEADER = ("no", "name", "rating", "fed", "id", "title", "sex", "birth", "game", "mms0")
MAX_PLAYERS = 2000
KINDS = {v: k for k, v in BYES.items()}  # TRF-16 code to kind


# -- the player list in ---------------------------------------------------------------------


def players_from_csv(text: str) -> list[dict[str, Any]]:
    """A player list: a header naming its columns (``name`` at least; ``no``,
    ``rating``, ``fed`` (federation or club), ``id``, ``title``, ``sex``, ``birth``,
    ``game``, ``mms0`` (a Go McMahon starting score)); numbered in order when ``no`` is
    not given. Every bad line is named; nothing is taken."""
    delimiter = "\t" if "\t" in text else ","
    rows = csv_rows(text.replace("\r\n", "\n"), delimiter)
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise RoundError("no players")
    head = [c.strip().lstrip("\ufeff").lower() for c in rows[0]]
    if "name" not in head or any(h not in PLAYER_HEADER for h in head):
        raise RoundError("line 1: a header of %s (name at least)" % ",".join(PLAYER_HEADER))
    if len(rows) - 1 > MAX_PLAYERS:
        raise RoundError("at most %d players" % MAX_PLAYERS)
    out: list[dict[str, Any]] = []
    errors: list[str] = []
    seen: set[int] = set()
    for n, row in enumerate(rows[1:], start=2):
        cells = dict(zip(head, (c.strip() for c in row), strict=False))
        try:
            out.append(_player(cells, len(out) + 1, seen))
        except RoundError as e:
            errors.append("line %d: %s" % (n, e))
    if errors:
        raise RoundError("; ".join(errors[:20]))
    return out


def _player(cells: dict[str, str], default_no: int, seen: set[int]) -> dict[str, Any]:
    no_s = cells.get("no", "") or str(default_no)
    if not no_s.isdigit() or not 0 < int(no_s) <= 9999:
        raise RoundError("no: a number from 1 to 9999")
    no = int(no_s)
    if no in seen:
        raise RoundError("player %d twice" % no)
    seen.add(no)
    name = clean_text(cells.get("name", ""), "name")
    if not name:
        raise RoundError("a name is needed")
    rating_s = cells.get("rating", "") or "0"
    if not rating_s.isdigit() or int(rating_s) > 4000:
        raise RoundError("rating: 0 to 4000")
    mms_s = cells.get("mms0", "") or "0"
    if not mms_s.lstrip("-").isdigit() or abs(int(mms_s)) > 100:
        raise RoundError("mms0: a McMahon score from -100 to 100")
    game = cells.get("game", "").lower()
    if game not in ("", *GAMES):
        raise RoundError("game: chess, xiangqi or go")
    return {
        "no": no, "name": name, "rating": int(rating_s),
        "fed": clean_text(cells.get("fed", ""), "fed", 40),
        "id": clean_text(cells.get("id", ""), "id", 20),
        "title": clean_text(cells.get("title", ""), "title", 3),
        "sex": clean_text(cells.get("sex", ""), "sex", 1),
        "birth": clean_text(cells.get("birth", ""), "birth", 10),
        "game": game, "mms0": int(mms_s),
    }  # fmt: skip


def players_from_trf(t: trf.Trf) -> list[dict[str, Any]]:
    return [
        {
            "no": p.no,
            "name": clean_text(p.name, "name") or "?",
            "rating": p.rating or 0,
            "fed": p.fed,
            "id": p.fide_id,
            "title": p.title,
            "sex": p.sex.strip(),
            "birth": p.birth,
            "game": "chess",
            "mms0": 0,
        }
        for p in t.players
    ]


def read_trf(text: str) -> trf.Trf:
    if len(text) > 2_000_000:
        raise RoundError("a TRF file of at most 2 MB")
    try:
        return trf.parse(text)
    except trf.TrfError as e:
        raise RoundError("TRF: %s" % e) from None


# -- rounds in --------------------------------------------------------------------------------


def boards_for(rounds: Rounds, game: str, wanted: list[int] | None, n: int) -> list[int]:
    """The hall boards a round of ``n`` games is played on: ``wanted`` in that
    order, else the boards whose game is ``game``, else every board."""
    hall = rounds.hall
    if wanted:
        bad = [b for b in wanted if b not in hall.states]
        if bad:
            raise RoundError("no board %d in this hall" % bad[0])
        if len(set(wanted)) != len(wanted):
            raise RoundError("boards: each once")
        pool = list(wanted)
    else:
        pool = sorted(b for b, st in hall.states.items() if st.board.game == game)
        pool = pool or sorted(hall.states)
    if len(pool) < n:
        raise RoundError("%d games but %d boards for them" % (n, len(pool)))
    return pool[:n]


def round_from_trf(
    rounds: Rounds,
    text: str,
    rnd: int | None,
    boards: list[int] | None,
    date: str,
    control: str = "",
) -> int:
    """A chess round from the pairing program's TRF-16: its players join the
    player list (by starting rank) and round ``rnd`` (default the file's last)
    is paired as the file says, by the players' scores before it (FIDE C.04's
    order of the boards: the higher score, the sum, the higher rank)."""
    t = read_trf(text)
    last = max((len(p.rounds) for p in t.players), default=0)
    rnd = rnd or last
    if not 0 < rnd <= max(last, 1):
        raise RoundError("round %d: the file has rounds 1 to %d" % (rnd, last))
    have = {p["no"]: p for p in rounds.players()}
    incoming = players_from_trf(t)
    for q in incoming:
        old = have.get(q["no"])
        if old is not None and old["name"] != q["name"]:
            raise RoundError("player %d is %s here, %s in the file" % (q["no"], old["name"],
                                                                      q["name"]))  # fmt: skip
        if old is not None:
            q["withdrawn"] = old["withdrawn"]
    rounds.set_players([*incoming, *(p for n, p in have.items() if n not in
                                     {q["no"] for q in incoming})], "trf")  # fmt: skip
    score: dict[int, Fraction] = {}
    games, byes = [], []
    for p in t.players:
        score[p.no] = sum((points_of(r.result, "chess") for r in p.rounds[: rnd - 1]), Fraction(0))
        if len(p.rounds) < rnd:
            continue
        r = p.rounds[rnd - 1]
        if r.opponent and r.colour.lower() == "w":
            games.append((p.no, r.opponent, r.result.upper()))
        elif not r.opponent and r.result.upper() in "HFU":
            byes.append((p.no, KINDS[r.result.upper()], "chess"))
    games.sort(key=lambda g: (-max(score[g[0]], score[g[1]]), -(score[g[0]] + score[g[1]]),
                              min(g[0], g[1])))  # fmt: skip
    chosen = boards_for(rounds, "chess", boards, len(games))
    names = {p.no: p.name for p in t.players}
    pairs = []
    for board, (w, b, code) in zip(chosen, games, strict=True):
        st = rounds.hall.states[board]
        spec = control or (st.board.spec if st.board.game == "chess" else "") or "rapid"
        forfeit = {"+": "second", "-": "first"}.get(code, "")
        pairs.append(Pairing(board, names[w], names[b], "chess", spec, first_no=w, second_no=b,
                             forfeit=forfeit))  # fmt: skip
    return rounds.keep(pairs, [(n, k, g) for n, k, g in byes], rnd, date, "trf")


def round_robin(
    rounds: Rounds,
    players: list[int],
    first: int | None,
    count: int | None,
    boards: list[int] | None,
    game: str,
    spec: str,
    date: str,
) -> list[int]:
    """Rounds ``first`` .. of a round robin among ``players`` (in their drawn
    order: the first is pairing number 1), from FIDE's Berger tables (C.05
    Annex 1); a withdrawn player's games are forfeits; an odd number: whoever
    meets the missing number has no game that round."""
    known = {p["no"]: p for p in rounds.players()}
    if len(set(players)) != len(players) or any(n not in known for n in players):
        raise RoundError("players: numbers from the player list, each once")
    if game not in GAMES:
        raise RoundError("game: chess, xiangqi or go")
    try:
        table = berger.table(len(players))
    except ValueError as e:
        raise RoundError(str(e)) from None
    count = count or len(table)
    if not 0 < count <= len(table):
        raise RoundError("rounds: 1 to %d for %d players" % (len(table), len(players)))
    first = first or max(rounds.numbers(), default=0) + 1
    made = []
    for i in range(count):
        games, _free = berger.pairings(players, i + 1)
        chosen = boards_for(rounds, game, boards, len(games))
        pairs = []
        for board, (w, b) in zip(chosen, games, strict=True):
            gone = [side for side, n in (("first", w), ("second", b))
                    if known[n]["withdrawn"] and known[n]["withdrawn"] <= first + i]  # fmt: skip
            forfeit = "both" if len(gone) == 2 else gone[0] if gone else ""
            pairs.append(Pairing(board, str(known[w]["name"]), str(known[b]["name"]), game,
                                 spec or rounds.hall.states[board].board.spec, first_no=w,
                                 second_no=b, forfeit=forfeit))  # fmt: skip
        made.append(rounds.keep(pairs, [], first + i, date if i == 0 else "", "robin"))
    return made


# -- the standings out ------------------------------------------------------------------------


def results_by_player(
    rounds: Rounds, game: str, upto: int | None = None
) -> tuple[dict[int, list[Result]], list[int]]:
    """Every player's rounds in ``game`` (on the feed's thread: the games' results
    are read from their records), and the rounds counted."""
    out: dict[int, list[Result]] = {}
    done = []
    for no in rounds.numbers():
        if upto is not None and no > upto:
            break
        rows = [r for r in rounds.results_now(no) if r["game"] == game]
        byes = [b for b in rounds.byes(no) if (b.game or game) == game]
        if not rows and not byes:
            continue
        done.append(no)
        for r in rows:
            a, b = r["codes"]
            if r["first_no"]:
                out.setdefault(r["first_no"], []).append(Result(no, r["second_no"], True, a))
            if r["second_no"]:
                out.setdefault(r["second_no"], []).append(Result(no, r["first_no"], False, b))
        for bye in byes:
            out.setdefault(bye.player, []).append(Result(no, 0, False, BYES[bye.kind]))
    return out, done


def tiebreaks(rounds: Rounds, game: str) -> tuple[str, ...]:
    kept = rounds.setting("tiebreaks_" + game)
    return tuple(k for k in kept.split(",") if k) if kept else DEFAULTS[game]


def table(rounds: Rounds, game: str, upto: int | None = None) -> dict[str, Any]:
    """The standings of ``game`` as the API gives them (the feed's thread)."""
    if game not in GAMES:
        raise RoundError("game: chess, xiangqi or go")
    res, done = results_by_player(rounds, game, upto)
    everyone = rounds.players()
    section = {
        int(p["no"]): (str(p["name"]), int(p["rating"]), str(p["fed"]))
        for p in everyone
        if p["game"] == game or p["no"] in res
    }
    mms = {int(p["no"]): int(p["mms0"]) for p in everyone} if game == "go" else None
    order = tiebreaks(rounds, game)
    # FIDE's unplayed rounds (C.07): a chess player not paired in a round played has one
    rows = standings(section, res, game, order, upto, mms, done if game == "chess" else None)
    withdrawn = {int(p["no"]): int(p["withdrawn"]) for p in everyone}
    return {
        "game": game,
        "rounds": done,
        "mcmahon": bool(mms and any(mms.values())),
        "tiebreaks": [
            {"key": k, "name": NAMES[k], "rule": RULES.get("%s/%s" % (k, game), RULES.get(k, ""))}
            for k in order
        ],
        "rows": [_row(r, withdrawn.get(r.no, 0)) for r in rows],
    }


def _row(r: Row, withdrawn: int) -> dict[str, Any]:
    return {"rank": r.rank, "no": r.no, "name": r.name, "rating": r.rating, "fed": r.fed,
            "points": show(r.points), "games": r.games, "withdrawn": withdrawn,
            "tb": {k: show(v) for k, v in r.tb.items()}}  # fmt: skip


def standings_csv(t: dict[str, Any]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    keys = [x["key"] for x in t["tiebreaks"]]
    w.writerow(["rank", "no", "name", "rating", "fed", "points", "games", *keys])
    for r in t["rows"]:
        w.writerow([r["rank"], r["no"], _cell(r["name"]), r["rating"] or "", _cell(r["fed"]),
                    r["points"], r["games"], *(r["tb"][k] for k in keys)])  # fmt: skip
    return out.getvalue()


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def trf_out(rounds: Rounds) -> str:
    """The chess section as TRF-16, every result in (the rating officer's file)."""
    t = table(rounds, "chess")
    res, done = results_by_player(rounds, "chess")
    tour = rounds.tournament()
    players = {int(p["no"]): p for p in rounds.players()}
    rank = {r["no"]: r["rank"] for r in t["rows"]}
    points = {r["no"]: r["points"] for r in t["rows"]}
    last = max(done, default=0)
    specs = [p.spec for no in done for p in rounds.pairings(no) if p.game == "chess"]

    def date(d: str) -> str:  # YYYY-MM-DD as TRF's YYYY/MM/DD
        return d.replace("-", "/")

    head = [
        "012 " + (tour["name"] or "qizhong hall"),
        "022 " + tour["site"],
        "032 " + rounds.setting("federation"),
        "042 " + date(tour["start"]),
        "052 " + date(tour["end"]),
        "062 %d" % len(t["rows"]),
        "072 %d" % sum(1 for r in t["rows"] if r["rating"]),
        "092 " + (rounds.setting("type") or "Individual: Swiss-System"),
        "102 " + rounds.setting("arbiter"),
        "122 " + (specs[0] if specs else ""),
    ]
    dates = "".join(
        "  " + (rounds.date(n)[2:].replace("-", "/") if n in done and rounds.date(n) else "")
        .ljust(8) for n in range(1, last + 1)
    )  # fmt: skip
    head.append(("132" + " " * 86 + dates).rstrip())
    out = trf.Trf(lines=list(head))
    for no in sorted(rank):
        p = players.get(no, {})
        by_round = {r.round: r for r in res.get(no, [])}
        blocks = []
        for n in range(1, last + 1):
            r = by_round.get(n)
            if r is None or not r.code:
                blocks.append(trf.Round(None, " ", " "))
            elif not r.opponent:
                blocks.append(trf.Round(0, "-", r.code))
            else:
                blocks.append(trf.Round(r.opponent, "w" if r.first else "b", r.code))
        pts = Fraction(points[no])
        out.lines.append(
            trf.Player(
                no,
                str(p.get("name", "?"))[:33],
                (str(p.get("sex", "")) or " ")[:1],
                str(p.get("title", ""))[:3],
                int(p.get("rating", 0)) or None,
                str(p.get("fed", ""))[:3],
                str(p.get("id", ""))[:11],
                str(p.get("birth", ""))[:10],
                "%.1f" % float(pts),
                rank[no],
                blocks,
            )
        )
    return out.text()


# -- printable pages --------------------------------------------------------------------------

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(title)s</title>
<style>
body{font:14px/1.35 system-ui,"Noto Sans CJK SC",sans-serif;margin:1.2em;color:#111}
h1{font-size:1.3em;margin:0 0 .2em}p.sub{margin:0 0 1em;color:#444}
table{border-collapse:collapse;width:100%%}th,td{border:1px solid #999;padding:.25em .45em}
th{background:#eee;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.slip{border:1px dashed #444;padding:.6em .8em;margin:0 0 .8em;break-inside:avoid}
.slip b{font-size:1.1em}.box{display:inline-block;border:1px solid #444;width:4em;height:1.3em}
@media print{body{margin:0}a{color:inherit;text-decoration:none}}
</style></head><body>
<h1>%(title)s</h1><p class="sub">%(sub)s</p>
%(body)s
</body></html>
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def standings_page(rounds: Rounds, t: dict[str, Any]) -> str:
    tour = rounds.tournament()
    keys = t["tiebreaks"]
    head = "".join("<th title='%s'>%s</th>" % (_e(k["rule"]), _e(k["key"])) for k in keys)
    rows = "".join(
        "<tr><td class=n>%s</td><td class=n>%s</td><td>%s%s</td><td class=n>%s</td><td>%s</td>"
        "<td class=n>%s</td><td class=n>%s</td>%s</tr>"
        % (
            r["rank"],
            r["no"],
            _e(r["name"]),
            " (withdrew)" if r["withdrawn"] else "",
            r["rating"] or "",
            _e(r["fed"]),
            r["points"],
            r["games"],
            "".join("<td class=n>%s</td>" % r["tb"][k["key"]] for k in keys),
        )
        for r in t["rows"]
    )
    legend = "".join("<li>%s: %s (%s)</li>" % (_e(k["key"]), _e(k["name"]), _e(k["rule"]))
                     for k in keys)  # fmt: skip
    body = ("<table><thead><tr><th>Rank</th><th>No</th><th>Name</th><th>Rating</th>"
            "<th>Fed/club</th><th>Points</th><th>Games</th>%s</tr></thead><tbody>%s</tbody>"
            "</table><ul>%s</ul>") % (head, rows, legend)  # fmt: skip
    sub = "%s standings after round %s%s" % (
        t["game"].capitalize(), t["rounds"][-1] if t["rounds"] else "-",
        "; McMahon scores" if t["mcmahon"] else "")  # fmt: skip
    return PAGE % {"title": _e(tour["name"] or "qizhong hall"), "sub": _e(sub), "body": body}


def pairing_sheet(rounds: Rounds, no: int, rows: list[dict[str, Any]]) -> str:
    tour = rounds.tournament()
    names = {int(p["no"]): str(p["name"]) for p in rounds.players()}
    body = (
        "<table><thead><tr><th>Board</th><th>Game</th><th>No</th><th>First</th>"
        "<th>Result</th><th>No</th><th>Second</th><th>Control</th></tr></thead><tbody>"
    )
    for r in rows:
        res = r["result"] if r["result"] not in ("", "*") else ""
        note = " (forfeit: %s)" % r["forfeit"] if r["forfeit"] else ""
        if r["late"] and not r["forfeit"]:
            side, minutes = r["late"].split()
            note = " (%s came %s min late)" % (side, minutes)
        body += "<tr><td class=n>%s</td><td>%s</td><td class=n>%s</td><td>%s</td><td>%s%s</td>" \
            "<td class=n>%s</td><td>%s</td><td>%s</td></tr>" % (
                r["board"], _e(r["game"]), r["first_no"] or "", _e(r["first"]), _e(res),
                _e(note), r["second_no"] or "", _e(r["second"]), _e(r["spec"]))  # fmt: skip
    body += "</tbody></table>"
    byes = rounds.byes(no)
    if byes:
        body += "<p>Byes: %s</p>" % ", ".join(
            "%s (%d, %s)" % (_e(names.get(b.player, "?")), b.player, b.kind) for b in byes
        )
    sub = "Round %d pairings%s" % (no, ", " + rounds.date(no) if rounds.date(no) else "")
    return PAGE % {"title": _e(tour["name"] or "qizhong hall"), "sub": _e(sub), "body": body}


def result_slips(rounds: Rounds, no: int, rows: list[dict[str, Any]]) -> str:
    tour = rounds.tournament()
    first_word = {"chess": ("White", "Black"), "xiangqi": ("Red", "Black"),
                  "go": ("Black", "White")}  # fmt: skip
    body = ""
    for r in rows:
        a, b = first_word.get(r["game"], ("First", "Second"))
        body += ("<div class=slip><b>Round %d, board %s</b> (%s, %s)<br>%s: %s (%s) &nbsp; "
                 "%s: %s (%s)<br>Result: <span class=box></span> &nbsp; 1-0 &nbsp; ½-½ &nbsp; "
                 "0-1 &nbsp; Signatures: ____________ ____________</div>") % (
            no, r["board"], _e(r["game"]), _e(r["spec"]), a, _e(r["first"]),
            r["first_no"] or "-", b, _e(r["second"]), r["second_no"] or "-")  # fmt: skip
    return PAGE % {"title": _e(tour["name"] or "qizhong hall"),
                   "sub": _e("Round %d result slips" % no), "body": body}  # fmt: skip


# -- the API ----------------------------------------------------------------------------------


def add_routes(app: web.Application, hall: Any) -> None:
    """The tournament's API and pages (docs/tournament.md), on the hall's app."""
    rounds: Rounds = hall.rounds

    def arbiter(request: web.Request) -> None:
        if not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")

    def number(request: web.Request, key: str) -> int:
        text = request.match_info[key]
        if len(text) > 6:
            raise web.HTTPNotFound(text="no such %s" % key)
        return int(text)

    def round_no(request: web.Request) -> int:
        no = number(request, "round")
        if no not in rounds.numbers():
            raise web.HTTPNotFound(text="no round %d" % no)
        return no

    def game_of(request: web.Request) -> str:
        game = request.query.get("game", "chess")
        if game not in GAMES:
            raise web.HTTPBadRequest(text="game: chess, xiangqi or go")
        return game

    def upto_of(request: web.Request) -> int | None:
        text = request.query.get("round", "")
        if not text:
            return None
        if not text.isdigit() or len(text) > 4:
            raise web.HTTPBadRequest(text="round: a round's number")
        return int(text)

    def ints(value: Any, what: str) -> list[int]:
        if value is None:
            return []
        if (
            not isinstance(value, list)
            or len(value) > 1000
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        ):
            raise web.HTTPBadRequest(text="%s: a list of numbers" % what)
        return list(value)

    def opt_int(body: dict[str, Any], key: str) -> int | None:
        v = body.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 10000:
            raise web.HTTPBadRequest(text="%s: a number" % key)
        return v

    def control(body: dict[str, Any]) -> str:
        spec = body.get("control", "")
        if not isinstance(spec, str) or len(spec) > 200:
            raise web.HTTPBadRequest(text="control: a time control")
        if spec:
            try:
                timecontrol.parse(spec)
            except ValueError as e:
                raise web.HTTPBadRequest(text="control %r: %s" % (spec[:40], e)) from None
        return spec

    async def run(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except RoundError as e:
            raise web.HTTPBadRequest(text=str(e)) from None

    async def get_players(request: web.Request) -> web.Response:
        """The player list; a birth date only for the arbiter (the list is public)."""
        players = rounds.players()
        if not hall.is_arbiter(request):
            for p in players:
                p["birth"] = ""
        return web.json_response({"players": players})

    async def post_players(request: web.Request) -> web.Response:
        arbiter(request)
        body = await actions.json_body(request)
        if isinstance(body.get("trf"), str):
            got = await run(lambda: players_from_trf(read_trf(body["trf"])))
            source = "trf"
        elif isinstance(body.get("csv"), str):
            got = await run(players_from_csv, body["csv"])
            source = "csv"
        else:
            raise web.HTTPBadRequest(text="csv or trf: the player list's text")
        n = await run(rounds.set_players, got, source)
        return web.json_response({"players": n})

    async def withdraw(request: web.Request) -> web.Response:
        arbiter(request)
        player = number(request, "no")
        body = await actions.json_body(request)
        rnd = opt_int(body, "round")
        await run(rounds.withdraw, player, rnd or max(rounds.numbers(), default=0) + 1)
        return web.json_response({"ok": True})

    async def post_settings(request: web.Request) -> web.Response:
        """The tournament's settings: ``default_minutes`` (FIDE 6.7.1), ``arbiter``,
        ``federation``, ``type`` (TRF 102, 032, 092), ``tiebreaks_GAME`` (a list)."""
        arbiter(request)
        body = await actions.json_body(request)
        kept = {}
        for key, value in body.items():
            if key == "default_minutes":
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 600:
                    raise web.HTTPBadRequest(text="default_minutes: 0 to 600")
                kept[key] = str(value)
            elif key in ("arbiter", "federation", "type"):
                kept[key] = await run(clean_text, str(value), key, 100)
            elif key.startswith("tiebreaks_") and key[10:] in GAMES:
                if not isinstance(value, list) or any(v not in NAMES for v in value):
                    raise web.HTTPBadRequest(text="%s: a list of %s" % (key, ", ".join(NAMES)))
                kept[key] = ",".join(value)
            else:
                raise web.HTTPBadRequest(text="no setting %r" % key[:40])
        with hall.store.acting(0, "settings", dict(kept), "arbiter"):
            sql = "INSERT OR REPLACE INTO settings (key, value) VALUES (?,?)"
            hall.store._write_all(*((sql, ("tournament." + k, v)) for k, v in kept.items()))
        return web.json_response(await get_settings_now())

    async def get_settings_now() -> dict[str, Any]:
        out: dict[str, Any] = {"default_minutes": int(rounds.setting("default_minutes", "0"))}
        for key in ("arbiter", "federation", "type"):
            out[key] = rounds.setting(key)
        for game in GAMES:
            out["tiebreaks_" + game] = list(tiebreaks(rounds, game))
        return out

    async def get_settings(request: web.Request) -> web.Response:
        return web.json_response(await get_settings_now())

    async def post_trf_round(request: web.Request) -> web.Response:
        arbiter(request)
        body = await actions.json_body(request)
        if not isinstance(body.get("trf"), str):
            raise web.HTTPBadRequest(text="trf: the pairing program's TRF-16 text")
        got = await run(round_from_trf, rounds, body["trf"], opt_int(body, "round"),
                        ints(body.get("boards"), "boards"), str(body.get("date", "")),
                        control(body))  # fmt: skip
        return web.json_response({"round": got, "pairings": len(rounds.pairings(got)),
                                  "byes": len(rounds.byes(got))})  # fmt: skip

    async def post_robin(request: web.Request) -> web.Response:
        arbiter(request)
        body = await actions.json_body(request)
        players = ints(body.get("players"), "players")
        game = str(body.get("game", "xiangqi"))
        spec = control(body)
        made = await run(round_robin, rounds, players, opt_int(body, "first_round"),
                         opt_int(body, "rounds"), ints(body.get("boards"), "boards"), game, spec,
                         str(body.get("date", "")))  # fmt: skip
        return web.json_response({"rounds": made})

    async def incident(request: web.Request) -> web.Response:
        arbiter(request)
        no = round_no(request)
        verb = request.match_info["verb"]
        body = await actions.json_body(request)
        board = opt_int(body, "board")
        if verb == "bye":
            player = opt_int(body, "player")
            if player is None:
                raise web.HTTPBadRequest(text="player: a player's number")
            await run(rounds.bye, no, player, str(body.get("kind", "full")))
            return web.json_response({"ok": True})
        if board is None:
            raise web.HTTPBadRequest(text="board: a board's number")
        if verb == "forfeit":
            await run(rounds.forfeit, no, board, str(body.get("side", "")))
            return web.json_response({"ok": True})
        if verb == "late":
            minutes = opt_int(body, "minutes")
            said = await run(rounds.late, no, board, str(body.get("side", "")), minutes or 0)
            return web.json_response({"ok": True, "outcome": said})
        if verb == "result":
            await run(rounds.set_result, no, board, str(body.get("result", "")))
            return web.json_response({"ok": True})
        raise web.HTTPNotFound(text="no round action %r" % verb)

    async def get_standings(request: web.Request) -> web.Response:
        game, upto = game_of(request), upto_of(request)
        return web.json_response(await hall.feed.run(table, rounds, game, upto))

    async def standings_file(request: web.Request) -> web.Response:
        game, upto = game_of(request), upto_of(request)
        t = await hall.feed.run(table, rounds, game, upto)
        return web.Response(
            text=standings_csv(t), content_type="text/csv", charset="utf-8",
            headers={"Content-Disposition": 'attachment; filename="standings-%s.csv"' % game},
        )  # fmt: skip

    async def standings_html(request: web.Request) -> web.Response:
        game, upto = game_of(request), upto_of(request)
        t = await hall.feed.run(table, rounds, game, upto)
        return web.Response(text=standings_page(rounds, t), content_type="text/html",
                            charset="utf-8")  # fmt: skip

    async def trf_file(request: web.Request) -> web.Response:
        text = await hall.feed.run(trf_out, rounds)
        return web.Response(
            text=text, content_type="text/plain", charset="ascii" if text.isascii() else "utf-8",
            headers={"Content-Disposition": 'attachment; filename="tournament.trf"'},
        )  # fmt: skip

    async def sheet(request: web.Request) -> web.Response:
        no = round_no(request)
        rows = await rounds.results(no)
        return web.Response(text=pairing_sheet(rounds, no, rows), content_type="text/html",
                            charset="utf-8")  # fmt: skip

    async def slips(request: web.Request) -> web.Response:
        no = round_no(request)
        rows = await rounds.results(no)
        return web.Response(text=result_slips(rounds, no, rows), content_type="text/html",
                            charset="utf-8")  # fmt: skip

    r = app.router
    r.add_get("/api/players", get_players)
    r.add_post("/api/players", post_players)
    r.add_post("/api/players/{no:\\d+}/withdraw", withdraw)
    r.add_get("/api/tournament/settings", get_settings)
    r.add_post("/api/tournament/settings", post_settings)
    r.add_post("/api/rounds/trf", post_trf_round)
    r.add_post("/api/rounds/robin", post_robin)
    r.add_post("/api/rounds/{round:\\d+}/{verb:bye|forfeit|late|result}", incident)
    r.add_get("/api/standings", get_standings)
    r.add_get("/standings.csv", standings_file)
    r.add_get("/standings", standings_html)
    r.add_get("/tournament.trf", trf_file)
    r.add_get("/rounds/{round:\\d+}/pairings", sheet)
    r.add_get("/rounds/{round:\\d+}/slips", slips)
