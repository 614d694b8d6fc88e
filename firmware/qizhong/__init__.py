# SPDX-License-Identifier: GPL-3.0-or-later
"""棋钟 (qizhong) firmware core: pure logic, no hardware, no I/O.

Runs unchanged on MicroPython and CPython (the host imports it as
``qizhong.core``). Modules: timecontrol (RULES §1 policies), clock (the
two-sided state machine), voice (announcement schedules), tcspec (the text
syntax), monotonic (ticks to a monotonic ms count).
"""

VERSION = "0.1.0"
