# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall and a board page, photographed by the real browser for docs/server.md.

    .venv/bin/python tools/hall_screenshots.py docs/img

Starts ``qizhong serve --sim 50`` on a temporary file (50 simulated clocks,
each the real firmware), names the players, starts the games, plays a few
moves, knocks two clocks over, has the arbiter name one knocker and give a
penalty on the page, then saves, at a 1366x768 laptop's window: hall.png
(the hall scrolled to its last board, the alerts panel still in view),
hall-compact.png (all 50 boards), board.png (a board page with its action
log), board-confirm.png (a penalty asked first); at a phone's width
hall-phone.png; and last, the server killed, hall-offline.png. The names
in Chinese, Japanese and Korean need Debian's fonts-noto-cjk."""

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
from qizhong.sim import headless  # noqa: E402

N = 50
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹"
GIVEN = [
    "天一",
    "惟桐",
    "银川",
    "鑫鑫",
    "川",
    "智",
    "勇征",
    "强",
    "磊",
    "明",
    "杰",
    "涛",
    "平",
    "刚",
]
NAMES = {2: ("羽生善治", "藤井聡太"), 3: ("이세돌", "박정환")}  # Japanese, Korean
MOVES = ["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二", "卒7进1", "兵七进一"]


def name(i: int) -> str:
    return SURNAMES[i * 7 % len(SURNAMES)] + GIVEN[i * 5 % len(GIVEN)]


def wait(b, fn):
    return WebDriverWait(b, 30, poll_frequency=0.05).until(lambda _: fn())


def main(out: str) -> int:
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "hall.sqlite"), N)
        try:
            s.boards_up(s.socket())
            for no in range(1, N + 1):
                first, second = NAMES.get(no, (name(2 * no), name(2 * no + 1)))
                s.post("/api/boards/%d/players" % no, {"first": first, "second": second})
                s.post("/api/boards/%d/start" % no, {"side": 0})
            for no in (1, 2, 4, 7):
                for k in range(no % 4 + 3):
                    s.post("/api/boards/%d/move" % no, {"text": MOVES[k]})
                    sims.press(s.sim(no), ("left", "right")[k % 2], 30, wait_up=True)
            for no in (7, 12):
                headless.request(headless.address(s.sim(no).world, None), "tilt")
            b = chromium(1366, 768)
            try:
                b.get(s.url + "/board/7")
                b.find_element(By.ID, "password").send_keys(PASSWORD)
                b.find_element(By.ID, "login").click()
                wait(b, lambda: b.find_element(By.ID, "controls").is_displayed())
                wait(b, lambda: b.find_element(By.CSS_SELECTOR, "[data-knock='1']").text)
                b.find_element(By.CSS_SELECTOR, "[data-knock='1']").click()
                b.find_element(By.ID, "ask-yes").click()
                wait(b, lambda: "Black knocked" in b.find_element(By.ID, "alerts").text)
                b.find_element(By.CSS_SELECTOR, "#pen-side option[value='0']").click()
                box = b.find_element(By.ID, "pen-s")
                box.clear()
                box.send_keys("-30")
                b.find_element(By.ID, "penalty").click()
                b.save_screenshot(os.path.join(out, "board-confirm.png"))
                b.find_element(By.ID, "ask-yes").click()
                wait(b, lambda: "Red −30 s" in b.find_element(By.ID, "log").text)
                b.execute_script("document.getElementById('log').scrollIntoView({block: 'end'})")
                b.save_screenshot(os.path.join(out, "board.png"))
                b.get(s.url + "/")
                wait(b, lambda: len(b.find_elements(By.CSS_SELECTOR, ".alert")) == 2)
                last = b.find_element(By.ID, "board-%d" % N)
                b.execute_script("arguments[0].scrollIntoView({block: 'end'})", last)
                b.save_screenshot(os.path.join(out, "hall.png"))
                b.find_element(By.ID, "compact").click()
                b.execute_script("scrollTo(0, 0)")
                b.save_screenshot(os.path.join(out, "hall-compact.png"))
                b.find_element(By.ID, "compact").click()
                b.set_window_size(390, 844)
                b.refresh()
                wait(b, lambda: len(b.find_elements(By.CSS_SELECTOR, ".alert")) == 2)
                last = b.find_element(By.ID, "board-%d" % N)
                b.execute_script("arguments[0].scrollIntoView({block: 'end'})", last)
                b.save_screenshot(os.path.join(out, "hall-phone.png"))
                b.set_window_size(1366, 768)
                b.find_element(By.ID, "compact").click()
                b.refresh()
                wait(b, lambda: len(b.find_elements(By.CSS_SELECTOR, ".alert")) == 2)
                s.kill()
                wait(b, lambda: b.find_element(By.ID, "offline").is_displayed())
                b.save_screenshot(os.path.join(out, "hall-offline.png"))
                b.execute_script("localStorage.clear()")
            finally:
                b.quit()
        finally:
            s.stop()
    print("board-confirm.png, board.png, hall.png, hall-compact.png, hall-phone.png,")
    print("hall-offline.png in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
