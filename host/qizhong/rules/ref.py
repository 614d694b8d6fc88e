# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a printed rule ID is explained: docs/rules.md, with every ID and its source."""

from __future__ import annotations

import re

DOC = "docs/rules.md"
# TC-6a, EQ-5, GO-4, CH-1, XQ-R19 (NT is the notation, cited without a number)
RULE_ID = re.compile(r"\b(?:TC-\d+[ab]?|EQ-\d+|GO-\d+|CH-\d+|XQ-R\d+)\b")


def see_rules(text: str) -> str:
    """``text``, and where its rule IDs are explained if it cites any."""
    if RULE_ID.search(text) and DOC not in text:
        return "%s (see %s)" % (text, DOC)
    return text
