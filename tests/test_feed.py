# SPDX-License-Identifier: GPL-3.0-or-later
"""The records built as moves arrive (#20 item 3, qizhong.server.feed).

The store is filled as the server fills it (``add_event``, ``add_action``),
the board's state made from its events; no clock is needed for the records.
The cause of the stalled feed was replaying every game through pyffish on
every request: these tests count pyffish's calls (the library's, wrapped)."""

import asyncio

import pyffish
import pytest
import sgfmill.sgf

from qizhong.clocks.link import Event
from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
from qizhong.rules import xiangqi
from qizhong.server import records
from qizhong.server.board import BoardState
from qizhong.server.feed import Feed, Info
from qizhong.server.start import Start
from qizhong.server.store import Store

XQ = ["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二", "马2进3", "兵七进一", "卒7进1"]


class Hall:
    """A store and board states, kept as the server keeps them."""

    def __init__(self, path, game="xiangqi", spec="xq-rapid"):
        self.store = Store(str(path))
        self.board = self.store.board_for("c1", "/dev/x", game, spec)
        self.store.set_board(1, first="吕钦", second="许银川")
        self.st = BoardState(self.store.boards()[0])
        self.states = {1: self.st}
        self.seq = 0
        self.left = [900000, 900000]
        self.event("config")
        self.event("start", 0)

    def event(self, name, side=-1, arg=0):
        self.seq += 1
        ev = Event(self.seq, 1000 * self.seq, name, side, arg, (self.left[0], self.left[1]))
        self.st.apply(self.store.add_event(1, "b1", ev))

    def move(self, text):
        side = len(self.st.played) % 2
        aid = self.store.add_action(1, "move", {"text": text, "game": self.st.game_no}, "arbiter")
        self.store.action_done(aid, "ok")
        self.st.played.append(text)
        self.left[side] -= 7000 + len(self.st.played)
        self.event("press", side)


@pytest.fixture
def calls(monkeypatch):
    """How many times pyffish was asked for a position's legal moves."""
    n = [0]
    real = pyffish.legal_moves

    def counted(*args):
        n[0] += 1
        return real(*args)

    monkeypatch.setattr(pyffish, "legal_moves", counted)
    return n


def test_the_writer_needs_no_replay_and_writes_the_same(calls):
    game = xiangqi_pgn.Game(headers={"Red": "A", "Black": "B"})
    board = xiangqi.Board()
    for i, text in enumerate(XQ):
        move = board.parse_notation(text)
        board.push(move)
        game.add_move(move, clock_ms=890000 - i * 1000, comment="note" if i == 3 else "")
    before = calls[0]
    fast = xiangqi_pgn.write_game(game)
    assert calls[0] == before  # no legal-move generation to write it
    slow = xiangqi_pgn.write_game(xiangqi_pgn.read_game(fast))  # the reader's game: replayed
    assert fast == slow
    assert xiangqi_pgn.write_game(game, "wxf") == xiangqi_pgn.write_game(
        xiangqi_pgn.read_game(fast), "wxf"
    )


def test_each_move_is_applied_once_and_an_unchanged_record_is_kept(tmp_path, calls):
    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)
    try:
        for text in XQ:
            h.move(text)
            feed.record_now(h.st)
        # 8 moves, each asked for once: one legal-move list per position (and the start's).
        assert calls[0] <= len(XQ) + 3
        again = calls[0]
        data = feed.record_now(h.st)
        assert feed.record_now(h.st) is data and calls[0] == again  # kept, not rebuilt
        assert data.decode() == records.pgn(h.st)  # the same as one built from scratch
        game = xiangqi_pgn.read_game(data)
        assert [game.board().notation(game.moves[0])] == ["炮二平五"]
        assert game.clocks == [p["left"] for p in h.st.presses]
        assert game.headers["Board"] == "1" and game.headers["Red"] == "吕钦"
        # /live.pgn: kept whole until a board changes; a new press changes it.
        live = asyncio.run(feed.live(("xiangqi",)))
        assert asyncio.run(feed.live(("xiangqi",))) is live
        h.move("车二进六")
        after = xiangqi_pgn.read_games(asyncio.run(feed.live(("xiangqi",))))
        assert len(after[0].moves) == len(XQ) + 1
    finally:
        feed.stop()


def test_a_move_check_costs_one_position_not_the_game(tmp_path, calls):
    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)
    try:
        for text in XQ:
            assert feed.check_now(h.st, text) == text
            h.move(text)
        n = calls[0]
        with pytest.raises(ValueError):
            feed.check_now(h.st, "车一进九")
        assert feed.check_now(h.st, "车二进六") == "车二进六"
        assert calls[0] - n <= 2
    finally:
        feed.stop()


def test_a_game_after_new_keeps_its_record_with_the_round_tags(tmp_path):
    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)
    feed.info = lambda no, game_no: (
        Info("xiangqi", "吕钦", "许银川", "xq-rapid", "Open", "Hall 1", "2026-11-25", "3", no)
        if game_no == 1
        else None
    )
    try:
        for text in XQ[:4]:
            h.move(text)
        h.event("finish", 0)
        first = feed.record_now(h.st)
        h.event("config")  # a new game on the same clock
        assert h.st.game_no == 2 and h.st.played == []
        h.move("炮八平五")
        old = asyncio.run(feed.past(1, 1))
        assert old == first  # rebuilt from the store: the same record
        game = xiangqi_pgn.read_game(old)
        assert game.headers["Event"] == "Open" and game.headers["Site"] == "Hall 1"
        assert game.headers["Date"] == "2026.11.25" and game.headers["Round"] == "3"
        assert game.headers["Result"] == "1-0" and len(game.moves) == 4
        now = xiangqi_pgn.read_game(asyncio.run(feed.past(1, 2)))
        assert now.headers["Round"] == "-" and len(now.moves) == 1
        with pytest.raises(KeyError):
            asyncio.run(feed.past(1, 3))
    finally:
        feed.stop()


def test_go_score_and_time_tags_in_the_sgf(tmp_path):
    h = Hall(tmp_path / "h.sqlite", "go", "15m byoyomi 3x30s")
    feed = Feed(h.store, h.states)
    feed.info = lambda no, game_no: Info(
        "go", "Li", "Wang", "15m byoyomi 3x30s", "Open", "", "2026-11-25", "2", no
    )
    try:
        for text in ("D4", "Q16", "pass", "pass"):
            h.move(text)
        h.event("finish", 0)
        assert go_sgf.read(feed.record_now(h.st)).result == "B+"  # counted, no score yet
        feed.scores[(1, 1)] = "B+3.5"
        data = feed.record_now(h.st)
        root = sgfmill.sgf.Sgf_game.from_bytes(data).get_root()
        assert root.get("RE") == "B+3.5" and root.get("EV") == "Open" and root.get("RO") == "2"
        assert root.get("DT") == "2026-11-25" and root.get("TM") == 900
        assert root.get("OT") == "3x30 byo-yomi"
        assert root.get("PB") == "Li" and root.get("PW") == "Wang"
        rec = go_sgf.read(data)
        assert [m.gtp() for m in rec.board.move_stack] == ["D4", "Q16", "pass", "pass"]
        assert [t.left_ms for t in rec.times] == [p["left"] for p in h.st.presses]
        # A game not played out (no two passes): the arbiter's result is a resignation.
        h.event("config")
        h.move("D4")
        h.event("finish", arg=1)  # White wins
        assert go_sgf.read(feed.record_now(h.st)).result == "W+R"
    finally:
        feed.stop()


def test_a_chess_record_with_its_tags(tmp_path):
    h = Hall(tmp_path / "h.sqlite", "chess", "15m+10s")
    feed = Feed(h.store, h.states)
    try:
        for text in ("e4", "e5", "Nf3"):
            h.move(text)
        game = chess_pgn.read(feed.record_now(h.st).decode())
        assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
        assert chess_pgn.clocks_ms(game) == [p["left"] for p in h.st.presses]
        assert game.headers["TimeControl"] == "900+10" and game.headers["Board"] == "1"
        assert game.headers["Event"] == "qizhong hall"
    finally:
        feed.stop()


def test_a_restarted_server_finds_its_records_made(tmp_path, calls):
    """The records made are kept in the store's file: after a restart the
    first broadcast poll needs no game replayed (#20: a feed that never stalls)."""
    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)
    for text in XQ:
        h.move(text)
    made = feed.record_now(h.st)
    feed.stop()
    again = Feed(h.store, h.states)  # a new process: nothing in memory
    try:
        n = calls[0]
        assert again.record_now(h.st) == made and calls[0] == n
        h.move("车二进六")  # then the game goes on, built from its moves once
        grown = xiangqi_pgn.read_game(again.record_now(h.st))
        assert len(grown.moves) == len(XQ) + 1 and grown.clocks[-1] == h.st.presses[-1]["left"]
        # A kept record that no longer fits its game (a name changed) is not served.
        h.store.set_board(1, first="王天一")
        h.st.board = h.store.boards()[0]
        fresh = Feed(h.store, h.states)
        assert xiangqi_pgn.read_game(fresh.record_now(h.st)).headers["Red"] == "王天一"
        fresh.stop()
    finally:
        again.stop()


def test_a_game_whose_moves_are_kept_elsewhere_keeps_its_record_after_new(tmp_path):
    """Moves that reach the board's state without a ``move`` action (a game
    session keeps its own journal): the record made as they arrived keeps them."""
    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)
    try:
        for text in XQ[:3]:
            h.st.played.append(text)
            h.event("press", (len(h.st.played) - 1) % 2)
            feed.on_change(1, {}, None)  # as the hall's notify calls it
        feed.executor.submit(lambda: None).result(10)  # the feed's thread has made it
        h.event("finish", 1)
        feed.on_change(1, {}, None)
        made = feed.executor.submit(lambda: feed.record_now(h.st)).result(10)
        h.event("config")  # a new game
        assert h.st.game_no == 2 and h.st.played == []
        assert asyncio.run(feed.past(1, 1)) == made
        assert len(xiangqi_pgn.read_game(made).moves) == 3
    finally:
        feed.stop()


def test_nothing_is_built_at_start_nor_for_a_press_without_a_move(tmp_path, calls):
    """#32: a start builds no record (before, every board's record was made
    before the first request: 47 % of a 1,000-clock start), nor does a board's
    news that changes no record (its clock coming up, a press with no move
    entered); a record is made when asked for, and a move has it made again
    at once, on the feed's thread."""
    import sqlite3

    h = Hall(tmp_path / "h.sqlite")
    feed = Feed(h.store, h.states)  # a (re)started server: nothing made yet

    def made() -> int:
        feed.executor.submit(lambda: None).result(10)  # the feed's thread has done its work
        with sqlite3.connect(h.store.path) as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name='feed_records'").fetchall():
                return 0
            return db.execute("SELECT count(*) FROM feed_records").fetchone()[0]

    try:
        feed.warm()  # as the app's start calls it
        feed.on_change(1, {}, None)  # the clock up (its first status)
        h.event("press", 0)  # a press the arbiter has not entered a move for
        feed.on_change(1, {}, None)
        assert made() == 0
        record = feed.executor.submit(lambda: feed.record_now(h.st)).result(10)
        assert made() == 1 and xiangqi_pgn.read_game(record).moves == []
        n = calls[0]
        h.move(XQ[0])
        feed.on_change(1, {}, None)
        assert made() == 1 and calls[0] > n  # the move: made again at once
        assert len(xiangqi_pgn.read_game(feed._kept[1].record).moves) == 1
    finally:
        feed.stop()


def test_a_game_from_a_fen_keeps_its_start_after_new_and_a_restart(tmp_path):
    """A game its session began from a FEN (``BoardState.start``): the record
    replays its moves from there and says so (SetUp, FEN); after ``new`` and
    in a new process (nothing in memory) the game's record is made from the
    store with the same start. Before, the moves were replayed from the usual
    start: ValueError (500 at the board's addresses)."""
    fen = "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b - - 0 1"
    h = Hall(tmp_path / "h.sqlite")
    h.st.start = Start(fen=fen)
    feed = Feed(h.store, h.states)
    try:
        for text in ("象5退3", "相七进五"):
            h.st.played.append(text)
            h.event("press", len(h.st.played) % 2)
            feed.on_change(1, {}, None)
        made = feed.executor.submit(lambda: feed.record_now(h.st)).result(10)
        assert '[SetUp "1"]\n[FEN "%s"]' % fen in made.decode()
        assert asyncio.run(feed.position(h.st))["fen"].startswith("2bakab2/9/9")
        h.event("config")  # a new game: the usual start again
        assert h.st.start == Start() and h.st.played == []
        assert asyncio.run(feed.past(1, 1)) == made
    finally:
        feed.stop()
    again = Feed(h.store, h.states)  # a new process: the start from the kept record
    try:
        old = xiangqi_pgn.read_game(asyncio.run(again.past(1, 1)))
        assert old.starting_fen == fen and len(old.moves) == 2
        # pyffish, another engine, takes the moves from the FEN
        assert pyffish.legal_moves("xiangqi", fen, [old.moves[0].uci()])
        assert old.end().fen() == pyffish.get_fen("xiangqi", fen, [m.uci() for m in old.moves])
    finally:
        again.stop()


def test_the_start_module_examples():
    """server/start.py's examples, and a start read back from its words as kept."""
    import doctest

    from qizhong.server import start

    assert doctest.testmod(start).failed == 0
    s = Start(size=9, komi="0.5", black=("C3", "G7"), white_first=True, handicap=2)
    assert Start.from_words(s.words()) == s and not s.usual
    with pytest.raises(ValueError):
        Start.from_words(["x"])
