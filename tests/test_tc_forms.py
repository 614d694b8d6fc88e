# SPDX-License-Identifier: GPL-3.0-or-later
"""#24: the specs people type, and `qizhong tc` explaining every form it takes."""

import subprocess

import pytest

from conftest import ROOT
from qizhong import timecontrol


def _examples():
    for texts, about in timecontrol.FORMS:
        for text in texts:
            if not text.endswith("..."):
                yield text.replace("[", "").replace("]", ""), about


@pytest.mark.parametrize("text, about", list(_examples()))
def test_every_form_qizhong_tc_lists_is_read_or_refused_as_it_says(text, about):
    words = text.split()
    if words[0] in ("record", "flag", "black"):  # clauses: after a stage
        text = "10m " + text
    elif words[0] == "20m" and "grace" not in text:
        text += " grace 500ms"
    if about.startswith("refused"):
        with pytest.raises(timecontrol.SpecError):
            timecontrol.parse(text)
    else:
        timecontrol.parse(text)


def test_qizhong_tc_without_a_spec_lists_the_forms_and_explains_a_us_one():
    out = subprocess.run(
        [".venv/bin/qizhong", "tc"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert all(text in out for texts, _ in timecontrol.FORMS for text in texts)
    out = subprocess.run(
        [".venv/bin/qizhong", "tc", "40/90:30 delay 5"], capture_output=True, text=True, cwd=ROOT
    ).stdout
    assert out.splitlines()[:2] == [
        "40/90m:30m delay 5s",
        "  Read as US notation: bare base times are minutes, increments and delays seconds",
    ]
