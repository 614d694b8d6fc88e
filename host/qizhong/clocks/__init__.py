# SPDX-License-Identifier: GPL-3.0-or-later
"""Talking to clocks: frames and retries (``link``), one clock (``driver``),
many clocks from one thread (``hall``), the arbiter's keys (``auth``) and the
firmware upload (``flash``). The wire format is docs/protocol.md."""

from qizhong.clocks.driver import Clock
from qizhong.clocks.hall import Hall
from qizhong.clocks.link import CommandError, Event, Link, LinkError, decode

__all__ = ["Clock", "CommandError", "Event", "Hall", "Link", "LinkError", "decode"]
