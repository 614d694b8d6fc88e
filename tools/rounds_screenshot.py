# SPDX-License-Identifier: GPL-3.0-or-later
"""The rounds page, photographed by the real browser for docs/server.md.

    .venv/bin/python tools/rounds_screenshot.py docs/img

Starts ``qizhong serve --sim 4`` on a temporary file, imports a round of
Xiangqi, Go and chess, starts it, plays a few moves, ends two games (a Go
score among them), pastes the next round's lines into the page, and saves
rounds.png. Chinese names need a CJK font for chromium (fonts-wqy-microhei)."""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from browser import chromium  # noqa: E402
from hallserver import PASSWORD, Server  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from qizhong.server import sims  # noqa: E402

ROUND1 = """board,first,second,game,control
1,吕钦,许银川,xiangqi,xq-rapid
2,王天一,郑惟桐,xiangqi,xq-rapid
3,Li Xuanhao,Wang Xinghao,go,15m byoyomi 3x30s
4,Anderssen,Kieseritzky,chess,15m+10s
"""
ROUND2 = "1\t许银川\t王天一\txiangqi\txq-rapid\n2\t郑惟桐\t吕钦\txiangqi\txq-rapid\n"


def main(out: str) -> int:
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "hall.sqlite"), 4)
        browser = None
        try:
            ws = s.socket()
            s.boards_up(ws)
            s.post("/api/tournament", {"name": "全国象棋快棋赛 Hall Open", "site": "Shanghai",
                                       "start": "2026-11-25", "end": "2026-11-26"})  # fmt: skip
            s.post("/api/rounds", {"pairings": ROUND1, "date": "2026-11-25"})
            s.post("/api/rounds/1/start", {})
            games = {1: ["炮二平五", "马8进7", "马二进三"], 3: ["D4", "Q16", "pass", "pass"],
                     4: ["e4", "e5", "Nf3", "Nc6"]}  # fmt: skip
            for no, moves in games.items():
                for i, text in enumerate(moves):  # as a scorekeeper: the press, then the move
                    sims.press(s.sim(no), "left" if i % 2 == 0 else "right", 40, wait_up=True)
                    s.post("/api/boards/%d/move" % no, {"text": text})
            s.post("/api/boards/3/finish", {"result": "black"})
            s.post("/api/boards/3/score", {"score": "B+3.5"})
            s.post("/api/boards/2/finish", {"result": 2})
            browser = chromium(1280, 820)
            until = WebDriverWait(browser, 20, poll_frequency=0.05).until
            browser.get(s.url + "/rounds")
            browser.find_element(By.ID, "password").send_keys(PASSWORD)
            browser.find_element(By.ID, "login").click()
            until(lambda b: b.find_element(By.ID, "import").is_displayed())
            area = browser.find_element(By.ID, "i-text")  # pasted: tabs and all
            browser.execute_script("arguments[0].value = arguments[1]", area, ROUND2)
            until(lambda b: "B+3.5" in b.find_element(By.ID, "results").text)
            until(lambda b: "1/2-1/2" in b.find_element(By.ID, "results").text)
            browser.save_screenshot(os.path.join(out, "rounds.png"))
        finally:
            if browser is not None:
                browser.quit()
            s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
