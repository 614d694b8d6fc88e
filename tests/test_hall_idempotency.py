# SPDX-License-Identifier: GPL-3.0-or-later
"""Idempotency keys (#20 item 4, docs/server.md): the store's kept answers are
bounded (a day's, the newest 10,000), a retry within that is answered from
them; the board page sends a key with every action, the same on each retry of
one click, in real chromium; its questions are the page's own dialog."""

import os
import signal
import threading
import time

from browser import chromium, click, until
from hallserver import PASSWORD, WAIT_S
from selenium.webdriver.common.by import By

from qizhong.server import store as store_mod
from qizhong.server.store import ANSWERS_MAX, ANSWERS_MS, Store


def test_kept_answers_are_bounded_and_a_retry_in_the_window_is_answered(tmp_path, monkeypatch):
    now = [1_700_000_000_000]
    monkeypatch.setattr(store_mod, "host_ms", lambda: now[0])  # the record's wall clock
    s = Store(str(tmp_path / "hall.sqlite"))
    try:
        assert (s.answers_ms, s.answers_max) == (ANSWERS_MS, 10000) == (86400000, ANSWERS_MAX)
        s.answers_max = 40  # the count bound, small enough to pass here
        for i in range(300):
            now[0] += 1000
            s.put_answer("k%d" % i, 1, {"ok": True, "action": i})
            assert s.answers_kept() <= 40
        assert s.answers_kept() == 40
        assert s.answer("k299") == (1, {"ok": True, "action": 299})  # a retry: answered
        assert s.answer("k260") is not None and s.answer("k259") is None  # the 41st newest: gone
        # The age bound: a day later, what is older than a day goes with the next answer.
        now[0] += ANSWERS_MS - 30000
        s.put_answer("late", 1, {"ok": True})
        assert s.answer("k269") is not None and s.answer("k268") is None  # a day old: kept
        assert s.answers_kept() == 32  # k269..k299 (within the day) and "late"
        s.put_answer("late", 1, {"ok": False})  # a key kept once: its first answer stays
        assert s.answer("late") == (1, {"ok": True})
    finally:
        s.close()


# -- the board page, in chromium ------------------------------------------------------

# Every POST the page makes, with its Idempotency-Key; the first answer to a path in
# window.loseOnce is lost on the way back (the server acted; the page hears nothing).
SPY = """
window.sent = [];
window.loseOnce = new Set();
const realFetch = window.fetch;
window.fetch = async (url, opts) => {
  opts = opts || {};
  if (opts.method === "POST") {
    const h = opts.headers || {};
    window.sent.push([String(url), h["Idempotency-Key"] || "", String(opts.body || "")]);
  }
  const r = await realFetch(url, opts);
  const verb = String(url).split("/").pop();
  if (opts.method === "POST" && window.loseOnce.has(verb)) {
    window.loseOnce.delete(verb);
    throw new TypeError("the answer was lost");
  }
  return r;
};
"""


HALL_SERVER = {"n": 1, "up": True}


def asked(browser):
    return browser.execute_script("return !!document.querySelector('#ask[open]')")


def answer(browser, yes):
    until(browser, lambda: asked(browser))
    browser.find_element(By.ID, "ask-yes" if yes else "ask-no").click()
    until(browser, lambda: not asked(browser))


def page(server):
    browser = chromium(1366, 768)
    browser.get(server.url + "/board/1")
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()
    until(browser, lambda: browser.find_element(By.ID, "session-line").is_displayed())
    until(browser, lambda: browser.find_element(By.CSS_SELECTOR, "[data-knock='0']").text)
    browser.execute_script(SPY)
    return browser


def penalties(server):
    return [(e["side"], e["arg"]) for e in server.get("/api/boards/1/events")
            if e["name"] == "penalty"]  # fmt: skip


def test_a_click_whose_answer_is_lost_is_sent_again_with_its_key_and_applied_once(server):
    browser = page(server)
    try:
        browser.find_element(By.CSS_SELECTOR, "[data-act='start']").click()
        until(browser, lambda: server.get("/api/boards/1")["state"] == "running")
        browser.execute_script("window.loseOnce.add('penalty'); window.loseOnce.add('players')")
        box = browser.find_element(By.ID, "pen-s")
        box.clear()
        box.send_keys("-30")
        browser.find_element(By.ID, "penalty").click()
        answer(browser, True)
        until(browser, lambda: len(browser.execute_script("return window.sent")) >= 3)
        until(browser, lambda: not browser.find_element(By.ID, "act-error").text)
        sends = [s for s in browser.execute_script("return window.sent") if "penalty" in s[0]]
        assert len(sends) == 2 and sends[0][1] and sends[0][1] == sends[1][1]  # one key
        assert penalties(server) == [(0, -30000)]  # applied once
        # Players' Save: the same (its answer lost, sent again, kept once).
        p0 = browser.find_element(By.ID, "p0")
        p0.clear()
        p0.send_keys("吕钦")
        browser.find_element(By.ID, "players").click()
        until(browser, lambda: server.get("/api/boards/1")["players"][0] == "吕钦")
        until(browser, lambda: len([s for s in browser.execute_script("return window.sent")
                                    if s[0].endswith("/players")]) == 2)  # fmt: skip
        acts = [a for a in server.get("/api/boards/1/actions") if a["verb"] == "players"]
        assert len(acts) == 1
        # Every POST the page made carried a key; each click its own.
        browser.find_element(By.CSS_SELECTOR, "[data-act='pause']").click()
        until(browser, lambda: server.get("/api/boards/1")["state"] == "paused")
        browser.find_element(By.CSS_SELECTOR, "[data-act='resume']").click()
        until(browser, lambda: server.get("/api/boards/1")["state"] == "running")
        browser.find_element(By.CSS_SELECTOR, "[data-result='2']").click()
        answer(browser, True)
        until(browser, lambda: server.get("/api/boards/1")["state"] == "finished")
        sent = browser.execute_script("return window.sent")
        assert all(key.startswith("page-") for _, key, _ in sent), sent
        clicks = {key for _, key, _ in sent}
        assert len(clicks) == len(sent) - 2  # two sends were retries of their click
    finally:
        browser.quit()


def test_the_sessions_questions_are_the_pages_dialog(server):
    browser = page(server)
    try:
        box = browser.find_element(By.ID, "session-line")
        box.send_keys("start")
        browser.find_element(By.ID, "session-send").click()
        until(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "[data-line='foul red']"))
        click(browser, "[data-line='foul red']")
        assert "a foul for Red" in browser.find_element(By.CSS_SELECTOR, "#ask .question").text
        answer(browser, False)  # Cancel: nothing is sent, nothing changes
        assert not [s for s in browser.execute_script("return window.sent") if "foul" in s[2]]
        assert server.get("/api/boards/1/session")["fouls"] == [0, 0]
        click(browser, "[data-line='foul red']")
        answer(browser, True)
        until(browser, lambda: server.get("/api/boards/1/session")["fouls"] == [1, 0])
        # A typed line that ends the game asks too; New session also.
        box = browser.find_element(By.ID, "session-line")
        box.send_keys("resign black")
        browser.find_element(By.ID, "session-send").click()
        answer(browser, False)
        assert not server.get("/api/boards/1/session")["over"]
        assert box.get_attribute("value") == "resign black"  # kept, to send or change
        before = server.get("/api/boards/1/session")["session"]
        browser.find_element(By.ID, "session-new").click()
        answer(browser, False)
        assert server.get("/api/boards/1/session")["session"] == before
        browser.find_element(By.ID, "session-new").click()
        answer(browser, True)
        until(browser, lambda: server.get("/api/boards/1/session").get("session") == before + 1)
        sent = browser.execute_script("return window.sent")
        assert sent and all(key.startswith("page-") for _, key, _ in sent)
    finally:
        browser.quit()


def test_a_retry_sent_while_the_first_send_waits_for_the_clock_is_applied_once(server):
    """The page resends after a lost answer while the server still waits for the
    clock with the first send: the retry waits for it, and gets its answer."""
    server.post("/api/boards/1/start", {"side": 0})
    clock = server.sim(1)
    body = {"side": 1, "ms": -30000, "key": "page-retry-in-flight"}
    got = []

    def send():
        got.append(server.post("/api/boards/1/penalty", body))

    os.kill(clock.pid, signal.SIGSTOP)  # the clock does not answer yet
    try:
        first = threading.Thread(target=send)
        first.start()
        wait_s = time.monotonic() + WAIT_S
        while not [a for a in server.get("/api/boards/1/actions") if a["verb"] == "penalty"]:
            assert time.monotonic() < wait_s, "the first send never reached the server"
        retry = threading.Thread(target=send)
        retry.start()
        server.get("/api/boards/1")  # answered after the server has read the retry
    finally:
        os.kill(clock.pid, signal.SIGCONT)
    first.join(WAIT_S)
    retry.join(WAIT_S)
    assert sorted(bool(g.get("repeated")) for g in got) == [False, True]
    assert got[0]["action"] == got[1]["action"]
    server.post("/api/boards/1/pause", {})  # its event comes after every penalty's
    wait_s = time.monotonic() + WAIT_S
    while not [e for e in server.get("/api/boards/1/events") if e["name"] == "pause"]:
        assert time.monotonic() < wait_s, "no pause event"
    assert penalties(server) == [(1, -30000)]
    assert [a["outcome"] for a in server.get("/api/boards/1/actions")
            if a["verb"] == "penalty"] == ["ok"]  # fmt: skip
