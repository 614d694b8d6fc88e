# SPDX-License-Identifier: GPL-3.0-or-later
"""The press path's serial half allocates nothing on the MicroPython heap.

    micropython tests/mp/proto_check.py

An event is logged (``proto.EventLog.add``) and framed into the encoder's
buffer (``EventLog.encode``) 2,000 times with the heap locked, as the
firmware does for every press. The frames are then decoded back with
``proto.Decoder`` and compared. Prints "proto: N passed, M failed".
"""

import gc
import sys

import micropython

import _path

_path.setup(__file__)

from qizhong import clock, proto  # noqa: E402


def main():
    enc = proto.Encoder(clock.EVENT_NAMES)
    log = proto.EventLog()
    log.encode(enc, log.add(2, 1, 5, -120000, 0, 1234567))  # warm up
    gc.collect()
    before = gc.mem_alloc()
    total = 0
    err = None
    micropython.heap_lock()
    try:
        for i in range(2000):
            seq = log.add(i % 16 + 1, i & 1, 3600000 + i * 977, -i, 600000 - i, i * 31)
            total += log.encode(enc, seq)
    except MemoryError as e:
        err = e
    micropython.heap_unlock()
    grew = gc.mem_alloc() - before
    passed = failed = 0
    if err is None and grew == 0 and total > 2000 * 40:
        passed += 1
        print("ok    2000 events logged and framed, %d bytes, 0 allocated" % total)
    else:
        failed += 1
        print("FAIL  %r, heap grew %d bytes" % (err, grew))
    # The last frames decode back to what was logged.
    dec = proto.Decoder()
    good = 0
    for seq in range(log.oldest(), log.last + 1):
        n = log.encode(enc, seq)
        for j in range(n):
            if dec.push(enc.buf[j]) == proto.FRAME:
                w = dec.body().split()
                i = seq - 2
                if int(w[1]) == seq and int(w[2]) == 3600000 + i * 977 and int(w[6]) == 600000 - i:
                    good += 1
    if good == proto.EventLog.SIZE:
        passed += 1
        print("ok    the last %d frames decode back" % good)
    else:
        failed += 1
        print("FAIL  %d of %d frames decode back" % (good, proto.EventLog.SIZE))
    print("proto: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
