# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall and a board page, photographed by the real browser for docs/server.md.

    .venv/bin/python tools/hall_screenshots.py docs/img

Starts ``qizhong serve --sim 4`` on a temporary file, plays a few moves,
knocks one clock over and has the arbiter give a penalty, then saves
hall.png, board.png (laptop width) and hall-phone.png (a phone's width).
Chinese names need a CJK font for chromium: Debian's fonts-wqy-microhei."""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from browser import chromium  # noqa: E402
from hallserver import Server  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from qizhong.server import sims  # noqa: E402
from qizhong.sim import headless  # noqa: E402


def main(out: str) -> int:
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "hall.sqlite"), 4)
        try:
            s.boards_up(s.socket())
            names = [
                ("吕钦", "许银川"),
                ("王天一", "郑惟桐"),
                ("赵鑫鑫", "蒋川"),
                ("洪智", "孙勇征"),
            ]
            for no in range(1, 5):
                s.post(
                    "/api/boards/%d/players" % no,
                    {"first": names[no - 1][0], "second": names[no - 1][1]},
                )
                s.post("/api/boards/%d/start" % no, {"side": 0})
                moves = [
                    "炮二平五",
                    "马8进7",
                    "马二进三",
                    "车9平8",
                    "车一平二",
                    "卒7进1",
                    "兵七进一",
                ]
                for k in range(no * 2 - 1):
                    s.post("/api/boards/%d/move" % no, {"text": moves[k]})
                    sims.press(s.sim(no), ("left", "right")[k % 2], 30, wait_up=True)
            headless.request(headless.address(s.sim(3).world, None), "tilt")
            s.post("/api/boards/2/penalty", {"side": 1, "ms": -60000})
            b = chromium(1280, 760)
            try:
                b.get(s.url + "/")
                WebDriverWait(b, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".alert"))
                b.save_screenshot(os.path.join(out, "hall.png"))
                b.get(s.url + "/board/2")
                WebDriverWait(b, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves li"))
                b.save_screenshot(os.path.join(out, "board.png"))
            finally:
                b.quit()
            b = chromium(390, 844)
            try:
                b.get(s.url + "/")
                WebDriverWait(b, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".alert"))
                b.save_screenshot(os.path.join(out, "hall-phone.png"))
            finally:
                b.quit()
        finally:
            s.stop()
    print("hall.png, board.png, hall-phone.png in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
