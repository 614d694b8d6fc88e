# SPDX-License-Identifier: GPL-3.0-or-later
"""The rule table (cases/core_cases.py) on CPython; tests/mp runs it on MicroPython."""

import pytest

from cases.core_cases import CASES
from cases.runner import run_case
from qizhong.core import clock, tcspec


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_case(case):
    assert run_case(case, clock, tcspec) == []


def test_every_rule_of_section_1_and_2_has_a_case():
    ids = ["TC-%d" % i for i in range(1, 10)] + ["TC-6a", "TC-6b"]
    ids += ["EQ-%d" % i for i in range(1, 8)]
    names = " ".join(c[0] for c in CASES)
    assert [i for i in ids if i + " " not in names] == []


def test_runner_reports_a_wrong_expectation():
    # The runner itself must be able to fail.
    case = ("wrong on purpose", [("new", "5m"), ("start", 0), ("left", 0, 1000, 300000)])
    fails = run_case(case, clock, tcspec)
    assert len(fails) == 1 and "got 299000" in fails[0]
