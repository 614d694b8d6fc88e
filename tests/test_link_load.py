# SPDX-License-Identifier: GPL-3.0-or-later
"""Every request gets its reply under load (#12, docs/protocol.md "Flow").

A host may keep up to ``WINDOW`` requests in flight (sent, not yet
answered) and keeps reading: then every request gets its reply, once, in
order. The clock reads the next request only once the last reply has gone
out, so a full link slows the host down instead of losing replies. Before
#12 a clock that found the link full dropped the reply, and 26-34 % of
5,000 pipelined ``status`` requests went unanswered.
"""

import time

from qizhong.sim import Sim

N = 3000
WINDOW = 32  # docs/protocol.md: what a host may have in flight


def pipeline(link, n, window, verbs=(("status", ""),)):
    """Send ``n`` requests (``verbs`` in turn), ``window`` in flight; their replies in order."""
    ids: list[int] = []
    done = 0
    deadline = time.monotonic() + 60
    while done < n and time.monotonic() < deadline:
        while len(ids) < n and len(ids) - done < window:
            verb, args = verbs[len(ids) % len(verbs)]
            ids.append(link.send(verb, args))
        link.pump(0.01)
        while done < len(ids) and ids[done] in link._replies:
            done += 1
    return [link.reply(rid) for rid in ids]


def test_pipelined_requests_all_answered():
    with Sim() as sim:
        sim.command("config 15m+10s")
        sim.key("start", 0)
        replies = pipeline(sim.link, N, WINDOW)
        missing = sum(1 for r in replies if r is None)
        assert len(replies) == N and not missing, "%d of %d got no reply" % (missing, N)
        assert all(r is not None and r[0] and r[1].startswith("status") for r in replies)
        assert sim.status()["state"] == "running"  # the clock kept going through it


def test_a_full_link_delays_replies_and_loses_none():
    # Every other request is "since 0": a replay of up to 64 events, about
    # 4 KB, so the link to the host is full while requests are in flight.
    # Their replies wait for it (before #12 they were dropped).
    with Sim() as sim:
        sim.command("config 15m+10s")
        sim.key("start", 0)
        for i in range(80):
            sim.press(i % 2, 1000 * (i + 1))
        verbs = (("since", "0"), ("status", ""))
        replies = pipeline(sim.link, 400, WINDOW, verbs)
        missing = sum(1 for r in replies if r is None)
        assert not missing, "%d of %d got no reply" % (missing, len(replies))
        assert all(r is not None and r[0] for r in replies)
