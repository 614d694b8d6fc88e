# SPDX-License-Identifier: GPL-3.0-or-later
"""Run the core rule table on the MicroPython interpreter.

    micropython tests/mp/run_core.py

Prints each failure and a closing "N passed, M failed" line; exit 1 on failure.
"""

import sys

import _path

_path.setup(__file__)

from core_cases import CASES  # noqa: E402
from qizhong import clock, tcspec  # noqa: E402
from runner import run_case  # noqa: E402


def main():
    passed = failed = 0
    for case in CASES:
        fails = run_case(case, clock, tcspec)
        if fails:
            failed += 1
            for f in fails:
                print("FAIL", f)
        else:
            passed += 1
    for name in tcspec.PRESETS:  # the syntax runs on the clock too
        spec = tcspec.PRESETS[name]
        text = tcspec.format(tcspec.parse(name))
        if tcspec.parse(text) == tcspec.parse(spec):
            passed += 1
        else:
            failed += 1
            print("FAIL preset %s: %r" % (name, text))
    for bad in ("", "15x", "10m count", "40/", "5m+5s black -40%"):
        try:
            tcspec.parse(bad)
            failed += 1
            print("FAIL bad spec accepted: %r" % bad)
        except tcspec.SpecError:
            passed += 1
    print("%s: %d passed, %d failed" % (sys.implementation.name, passed, failed))
    return 1 if failed else 0


sys.exit(main())
