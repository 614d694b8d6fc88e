# SPDX-License-Identifier: GPL-3.0-or-later
"""Table-driven cases for the clock core, one or more per rule ID of RULES §1-2.

Every expected time is computed by hand in the comment beside it. The same
table runs under pytest on CPython and under the MicroPython interpreter
(tests/mp/run_core.py). Step syntax: see runner.py.

Voice cue ids: 1..10 count digits, 100+s "s秒", 200 "1分", 300+k "还剩 k 分".
"""

CASES = [
    (
        "TC-1 Xiangqi rapid: +10 s after every move",
        [
            ("new", "15m+10s"),
            ("start", 0),
            ("left", 0, 0, 900000),
            ("press", 0, 30000),  # 900000 - 30000 + 10000
            ("left", 0, 30000, 880000),
            ("run", 1),
            ("press", 1, 75000),  # 900000 - 45000 + 10000
            ("left", 1, 75000, 865000),
            ("left", 0, 100000, 855000),  # 880000 - 25000 while Red thinks
            ("left", 1, 100000, 865000),  # Black's time stands still
            ("moves", 0, 1),
            ("moves", 1, 1),
        ],
    ),
    (
        "TC-2 Xiangqi blitz: +5 s after every move",
        [
            ("new", "5m+5s"),
            ("start", 0),
            ("press", 0, 12345),  # 300000 - 12345 + 5000
            ("left", 0, 12345, 292655),
            ("press", 1, 12345),  # an instant move: 300000 + 5000
            ("left", 1, 12345, 305000),
        ],
    ),
    (
        "TC-3 sudden death: flag at exactly the base, play may go on",
        [
            ("new", "30m"),
            ("start", 0),
            ("deadline", 1620001),  # TC-9 first: below 3 min at 1800000 - 180000 + 1
            ("tick", 1799999),
            ("left", 0, 1799999, 1),
            ("hasnt", "flag"),
            ("tick", 1800000),
            ("has", "flag", 0, 1800000, 1),
            ("left", 0, 1800000, 0),
            ("state", "running"),  # no increment: the clock does not freeze
            ("press", 0, 1810000),  # the flagged side moves on, no credit
            ("left", 0, 1810000, 0),
            ("run", 1),
            ("press", 1, 1810500),
            ("left", 1, 1810500, 1799500),
            ("first_flag", 0),
        ],
    ),
    (
        "TC-3 sudden death with flag freeze: both clocks stop",
        [
            ("new", "1m flag freeze"),
            ("start", 0),
            ("tick", 60000),
            ("state", "flagged"),
            ("error", ("pause", 61000)),
            ("press", 0, 61000),
            ("has", "wrong", 0, 61000, 4),  # 4: the FLAGGED state
            ("left", 1, 90000, 60000),
        ],
    ),
    (
        "TC-4 Red time handicap: Red's base cut by 40 %",
        [
            ("new", "10m+5s red -40%"),
            ("left", 0, 0, 360000),  # 600000 - 40 % of 600000
            ("left", 1, 0, 600000),
            ("start", 0),
            ("press", 0, 10000),  # 360000 - 10000 + 5000
            ("left", 0, 10000, 355000),
        ],
    ),
    (
        "TC-4 variant: Black's base raised by 40 %",
        [
            ("new", "10m+5s black +40%"),
            ("left", 0, 0, 600000),
            ("left", 1, 0, 840000),  # 600000 + 240000
        ],
    ),
    (
        "TC-5 Xiangqi count: 1..10 spoken, grace - 1 ms is in time",
        [
            ("new", "1m count 10s"),
            ("start", 0),
            ("tick", 60000),
            ("has", "overtime", 0, 60000, 0),
            ("left", 0, 65000, 5000),
            ("press", 0, 70499),  # 60000 + 10000 + 500 - 1
            ("state", "running"),
            ("hasnt", "flag"),
            (
                "cues",
                0,
                [
                    (61000, 1),
                    (62000, 2),
                    (63000, 3),
                    (64000, 4),
                    (65000, 5),
                    (66000, 6),
                    (67000, 7),
                    (68000, 8),
                    (69000, 9),
                    (70000, 10),
                ],
            ),
            ("left", 0, 70499, 10000),  # the period restarts; it is never consumed
            ("press", 1, 80499),  # Black: 60000 - 10000
            ("left", 1, 80499, 50000),
            ("press", 0, 80499 + 3000),  # the next move's count starts afresh
            ("left", 0, 90000, 10000),
            (
                "cues",
                0,
                [
                    (61000, 1),
                    (62000, 2),
                    (63000, 3),
                    (64000, 4),
                    (65000, 5),
                    (66000, 6),
                    (67000, 7),
                    (68000, 8),
                    (69000, 9),
                    (70000, 10),
                    (81499, 1),
                    (82499, 2),
                    (83499, 3),
                ],
            ),  # "3" is due at the press
        ],
    ),
    (
        "TC-5 Xiangqi count: a press at 10 000 + grace flags",
        [
            ("new", "1m count 10s"),
            ("start", 0),
            ("has", "record", 0, 0, 60000),  # TC-9 at once: 60 s is below 3 min
            ("deadline", 60000),  # then the count begins
            ("press", 0, 70500),  # 60000 + 10000 + 500
            ("has", "flag", 0, 70500, 1),
            ("state", "flagged"),
            ("has", "wrong", 0, 70500, 4),
            ("run", 0),
        ],
    ),
    (
        "TC-5 count with a custom grace of 1 s",
        [
            ("new", "1m count 10s grace 1s"),
            ("start", 0),
            ("press", 0, 70999),
            ("state", "running"),
            ("press", 1, 70999 + 60000 + 11000),
            ("has", "flag", 1, 70999 + 71000, 1),
        ],
    ),
    (
        "TC-5 count while main time is left: no cues, main time charged",
        [
            ("new", "1m count 10s"),
            ("start", 0),
            ("press", 0, 30000),
            ("left", 0, 30000, 30000),
            ("cues", 0, []),
        ],
    ),
    (
        "TC-6 byo-yomi: 59 999 ms consumes no period, 60 000 ms consumes one",
        [
            ("new", "10s byoyomi 3x60s"),
            ("start", 0),
            ("tick", 10000),
            ("has", "overtime", 0, 10000, 0),
            ("press", 0, 69999),  # 10000 + 59999
            ("periods", 0, 3),
            ("left", 0, 69999, 60000),
            ("press", 1, 80000),
            ("press", 0, 140000),  # exactly 60000 in overtime
            ("periods", 0, 2),
            ("has", "period", 0, 140000, 2),
            ("left", 0, 140000, 60000),
        ],
    ),
    (
        "TC-6 byo-yomi: the last period flags at exactly 60 000 ms, no grace",
        [
            ("new", "10s byoyomi 1x60s"),
            ("start", 0),
            ("press", 0, 70000),  # 10000 + 60000: the stone lands on the flag instant
            ("has", "flag", 0, 70000, 1),
            ("state", "flagged"),
        ],
    ),
    (
        "TC-6 byo-yomi: main time first, then the periods",
        [
            ("new", "1m byoyomi 2x30s"),
            ("start", 0),
            ("press", 0, 50000),
            ("left", 0, 50000, 10000),
            ("periods", 0, 2),
            ("press", 1, 50000),
            ("press", 0, 50000 + 10000 + 35000),  # main 10 s, then 35 s: one period used
            ("periods", 0, 1),
            ("left", 0, 95000, 30000),
        ],
    ),
    (
        "TC-6a byo-yomi readings in 60 s periods",
        [
            ("new", "1s byoyomi 2x60s"),
            ("start", 0),
            ("tick", 200000),
            (
                "cues",
                0,
                [
                    (31000, 130),
                    (41000, 140),
                    (51000, 150),
                    (56000, 155),
                    (59000, 158),
                    (61000, 200),
                    (61000, 301),  # "1分", "还剩 1 分"
                    (91000, 130),
                    (101000, 140),
                    (111000, 150),  # the last period
                    (112000, 1),
                    (113000, 2),
                    (114000, 3),
                    (115000, 4),
                    (116000, 5),
                    (117000, 6),
                    (118000, 7),
                    (119000, 8),
                    (120000, 9),
                    (121000, 10),
                ],
            ),
            ("has", "period", 0, 61000, 1),
            ("has", "flag", 0, 121000, 1),
        ],
    ),
    (
        "TC-6b short byo-yomi: 30 s periods",
        [
            ("new", "1s byoyomi 2x30s"),
            ("start", 0),
            ("tick", 100000),
            (
                "cues",
                0,
                [
                    (11000, 110),  # "10秒": 20 s remain
                    (22000, 1),
                    (23000, 2),
                    (24000, 3),
                    (25000, 4),
                    (26000, 5),
                    (27000, 6),
                    (28000, 7),
                    (29000, 8),
                    (30000, 9),
                    (31000, 10),
                    (41000, 110),
                    (42000 + 10000, 1),
                    (53000, 2),
                    (54000, 3),
                    (55000, 4),
                    (56000, 5),
                    (57000, 6),
                    (58000, 7),
                    (59000, 8),
                    (60000, 9),
                    (61000, 10),
                ],
            ),
            ("has", "flag", 0, 61000, 1),
        ],
    ),
    (
        "TC-6b short byo-yomi: 10 s periods count only",
        [
            ("new", "1s byoyomi 1x10s"),
            ("start", 0),
            ("tick", 20000),
            (
                "cues",
                0,
                [
                    (2000, 1),
                    (3000, 2),
                    (4000, 3),
                    (5000, 4),
                    (6000, 5),
                    (7000, 6),
                    (8000, 7),
                    (9000, 8),
                    (10000, 9),
                    (11000, 10),
                ],
            ),
            ("has", "flag", 0, 11000, 1),
        ],
    ),
    (
        "TC-7 Canadian: 3 moves in 30 s, unused time carries over",
        [
            ("new", "1m canadian 3/30s"),
            ("start", 0),
            ("press", 0, 65000),  # main out at 60000, 5000 of the block used
            ("left", 0, 65000, 25000),
            ("block", 0, 2),
            ("press", 1, 66000),
            ("press", 0, 76000),  # 10000 more
            ("left", 0, 76000, 15000),
            ("block", 0, 1),
            ("press", 1, 77000),
            ("press", 0, 82000),  # third move: 10000 left + a fresh 30000
            ("left", 0, 82000, 40000),
            ("block", 0, 3),
            ("moves", 0, 3),
            ("press", 1, 83000),
            ("tick", 123000),  # 83000 + 40000
            ("has", "flag", 0, 123000, 1),
        ],
    ),
    (
        "TC-8 flag: the buzzer's event at the instant, no increment for the flagging move",
        [
            ("new", "1m+10s"),
            ("start", 0),
            ("has", "record", 0, 0, 60000),  # TC-9: 60 s is already below 3 min
            ("deadline", 60000),
            ("press", 0, 60000),
            ("has", "flag", 0, 60000, 1),
            ("left", 0, 60000, 0),
            ("state", "flagged"),  # increment mode: both freeze
            ("left", 1, 70000, 60000),
            ("hasnt", "press"),
        ],
    ),
    (
        "TC-9 recording threshold: shown below 3 min, once",
        [
            ("new", "4m+2s"),
            ("start", 0),
            ("deadline", 60001),  # 240000 - 180000 + 1
            ("tick", 60000),
            ("hasnt", "record"),
            ("tick", 60001),
            ("has", "record", 0, 60001, 179999),
            ("press", 0, 61000),  # back above 3 min with the increment: stays latched
            ("left", 0, 61000, 181000),
            ("adjust", 1, -70000, 62000),  # a penalty crosses it for Black at once
            ("has", "record", 1, 62000, 169000),
            ("press", 1, 62000),
        ],
    ),
    (
        "TC-9 a control under the threshold marks both sides at the start",
        [
            ("new", "2m+1s"),
            ("start", 500),
            ("has", "record", 0, 500, 120000),
            ("has", "record", 1, 500, 120000),
            ("adjust", 1, 60000, 1000),  # a gain later does not mark again
            ("press", 0, 2000),
            ("tick", 10000),
        ],
    ),
    (
        "EQ-1 lever mapping is configuration",
        [
            ("new", "5m", 1),
            ("lever", 0, 1),
            ("lever", 1, 0),
            ("new", "5m", 0),
            ("lever", 0, 0),
            ("lever", 1, 1),
        ],
    ),
    (
        "EQ-2 a press by the side not to move is reported and never switches",
        [
            ("new", "5m"),
            ("start", 0),
            ("press", 1, 1000),
            ("has", "wrong", 1, 1000, 1),  # 1: RUNNING, not its turn
            ("run", 0),
            ("left", 1, 5000, 300000),
            ("left", 0, 5000, 295000),
        ],
    ),
    (
        "EQ-2 pressing one's own lever before the start starts the opponent",
        [
            ("new", "5m"),
            ("press", 1, 500),
            ("state", "running"),
            ("run", 0),
            ("has", "start", 0, 500, 0),
            ("left", 0, 1500, 299000),
        ],
    ),
    (
        "EQ-3 a lever held 2 s is reported once; a quick release is not",
        [
            ("new", "5m"),
            ("start", 0),
            ("press", 0, 1000),
            ("release", 0, 2999),
            ("press", 1, 4000),
            ("deadline", 6000),
            ("tick", 5999),
            ("hasnt", "held"),
            ("tick", 6000),
            ("has", "held", 1, 6000, 2000),
            ("tick", 20000),
            ("release", 1, 20000),
            ("hasnt", "held", 0),
        ],
    ),
    (
        "EQ-4 touching the clock while paused changes nothing",
        [
            ("new", "5m"),
            ("start", 0),
            ("pause", 10000),
            ("press", 0, 11000),
            ("has", "wrong", 0, 11000, 2),  # 2: PAUSED
            ("left", 0, 50000, 290000),
            ("resume", 50000),
            ("left", 0, 60000, 280000),  # the paused 40 s were not charged
        ],
    ),
    (
        "EQ-5 knocked clock: both freeze, the knocker's opponent gets 60 s",
        [
            ("new", "5m+3s"),
            ("start", 0),
            ("press", 0, 10000),  # Red 293000
            ("knock", 15000),  # Black ran 5000: 295000
            ("state", "knocked"),
            ("left", 1, 40000, 295000),
            ("press", 1, 41000),
            ("has", "wrong", 1, 41000, 3),
            ("assign", 0, 42000),  # Red knocked it: Black +60 s
            ("left", 1, 42000, 355000),
            ("left", 0, 42000, 293000),
            ("error", ("assign", 0, 43000)),
            ("resume", 50000),
            ("run", 1),
            ("left", 1, 60000, 345000),
        ],
    ),
    (
        "EQ-5 assigning without a knock is refused",
        [
            ("new", "5m"),
            ("start", 0),
            ("error", ("assign", 1, 1000)),
            ("left", 0, 1000, 299000),
        ],
    ),
    (
        "EQ-6 settings lock after three moves each, unless overridden",
        [
            ("new", "5m+3s"),
            ("start", 0),
            ("press", 0, 1000),
            ("press", 1, 2000),
            ("press", 0, 3000),
            ("press", 1, 4000),
            ("press", 0, 5000),
            ("locked", False),
            ("config", "5m+5s", 5500),  # 5 moves: still open
            ("press", 1, 6000),  # now three each
            ("locked", True),
            ("error", ("config", "10m", 7000)),
            ("config", "5m+10s", 7000, True),  # the arbiter's override
            ("press", 0, 8000),  # the new increment, times kept
            ("left", 0, 8000, 314000),  # 3 x (-1000 + 3000), then -2000 + 10000
        ],
    ),
    (
        "EQ-7 a replacement clock takes the whole state",
        [
            ("new", "40/90m+30s:30m+30s"),
            ("set", 0, 0, 600000, 39),
            ("set", 1, 0, 700000, 39),
            ("load", 0, 0, "running"),
            ("state", "running"),
            ("press", 0, 10000),  # move 40: 600000 - 10000 + 30000 + 1800000
            ("left", 0, 10000, 2420000),
            ("has", "stage", 0, 10000, 1),
            ("moves", 0, 40),
        ],
    ),
    (
        "EQ-7 a replacement clock in byo-yomi's last period",
        [
            ("new", "60m byoyomi 5x60s"),
            ("set", 0, 0, 0, 120, 1),
            ("set", 1, 0, 300000, 120, 5),
            ("load", 0, 0),
            ("state", "paused"),
            ("resume", 1000),
            ("tick", 61000),
            ("has", "flag", 0, 61000, 1),
        ],
    ),
    (
        "Multi-stage: the next stage's base arrives with the move count",
        [
            ("new", "2/1m+10s:30s+10s"),
            ("start", 0),
            ("press", 0, 5000),  # 60000 - 5000 + 10000
            ("left", 0, 5000, 65000),
            ("press", 1, 5000),
            ("press", 0, 10000),  # 65000 - 5000 + 10000 + 30000
            ("left", 0, 10000, 100000),
            ("has", "stage", 0, 10000, 1),
            ("press", 1, 10000),
            ("press", 0, 20000),  # the last stage has no move count: no more bases
            ("left", 0, 20000, 100000),
        ],
    ),
    (
        "Multi-stage: a last stage with a move count repeats",
        [
            ("new", "2/1m"),
            ("start", 0),
            ("press", 0, 1000),
            ("press", 1, 1000),
            ("press", 0, 2000),  # 60000 - 2000 + 60000
            ("left", 0, 2000, 118000),
        ],
    ),
    (
        "Bronstein delay: the time used is credited back, at most the delay",
        [
            ("new", "1m bronstein 3s"),
            ("start", 0),
            ("press", 0, 2000),  # 2000 used, 2000 back
            ("left", 0, 2000, 60000),
            ("press", 1, 2000),
            ("left", 1, 2000, 60000),
            ("press", 0, 7000),  # 5000 used, 3000 back
            ("left", 0, 7000, 58000),
        ],
    ),
    (
        "Simple (US) delay: main time runs only after the delay",
        [
            ("new", "1m delay 3s"),
            ("start", 0),
            ("left", 0, 2999, 60000),
            ("left", 0, 4000, 59000),
            ("press", 0, 5000),
            ("left", 0, 5000, 58000),
            ("tick", 5000 + 63000 - 1),
            ("hasnt", "flag"),
            ("tick", 5000 + 63000),  # Black: the delay plus all of main time
            ("has", "flag", 1, 68000, 1),
        ],
    ),
    (
        "Hourglass: what the mover uses, the opponent gains",
        [
            ("new", "1m hourglass"),
            ("start", 0),
            ("left", 0, 10000, 50000),
            ("left", 1, 10000, 70000),
            ("press", 0, 10000),
            ("left", 1, 25000, 55000),
            ("left", 0, 25000, 65000),
            ("pause", 25000),
            ("left", 0, 99000, 65000),
        ],
    ),
    (
        "Pause and resume: paused time is never charged",
        [
            ("new", "1m"),
            ("start", 0),
            ("pause", 10000),
            ("state", "paused"),
            ("deadline", -1),
            ("resume", 50000),
            ("left", 0, 60000, 40000),
            ("deadline", 100000),  # the flag: 50 s left at 50000
        ],
    ),
    (
        "Penalty: taking more time than a side has flags it",
        [
            ("new", "5m+3s"),
            ("start", 0),
            ("press", 0, 10000),
            ("adjust", 0, -120000, 20000),  # XQ-R20-style: 2 min taken
            ("left", 0, 20000, 173000),
            ("adjust", 0, -173000, 21000),
            ("has", "flag", 0, 21000, 1),
            ("state", "flagged"),
        ],
    ),
    (
        "Penalty in the count: a gift is main time, a cut flags",
        [
            ("new", "10s count 10s"),
            ("start", 0),
            ("tick", 15000),
            ("adjust", 0, 60000, 15000),  # back in main time with 60 s
            ("left", 0, 15000, 60000),
            ("tick", 75000),
            ("has", "overtime", 0, 75000, 0),
            ("adjust", 0, -1000, 76000),
            ("has", "flag", 0, 76000, 1),
        ],
    ),
    (
        "Finish: the arbiter stops the game",
        [
            ("new", "5m"),
            ("start", 0),
            ("finish", 1000),
            ("state", "finished"),
            ("left", 0, 9000, 299000),
            ("error", ("adjust", 0, 1000, 9000)),
        ],
    ),
    (
        "Penalty of 0 ms changes nothing, even with no main time",
        [
            ("new", "0s byoyomi 3x30s"),
            ("start", 0),
            ("adjust", 1, 0, 1000),
            ("hasnt", "flag"),
            ("state", "running"),
        ],
    ),
    (
        "TC-9 where main time ends: the overtime display counts",
        [
            ("new", "1m byoyomi 2x40s record 1m"),
            ("start", 0),
            ("tick", 60000),
            ("has", "record", 0, 1, 59999),  # main time shows under 1 min at once
            ("has", "overtime", 0, 60000, 0),
            ("new", "0s byoyomi 2x60s record 30s"),
            ("start", 1000),
            ("hasnt", "record", 0),  # a full 60 s period shows
            ("tick", 31000),  # "30秒" is due here; the mark is not yet
            ("hasnt", "record", 0),
            ("tick", 31001),
            ("has", "record", 0, 31001, 29999),
            ("has", "overtime", 0, 1000, 0),
        ],
    ),
    (
        "TC-10 the first flag brings both sides the next stage",
        [
            ("new", "1m:30s"),
            ("start", 0),
            ("press", 0, 10000),  # Red 60000 - 10000
            ("release", 0, 10080),
            ("deadline", 70000),  # Black's 60 s run out at 10000 + 60000
            ("tick", 69999),
            ("hasnt", "stage"),
            ("tick", 70000),
            ("has", "stage", 1, 70000, 1),
            ("has", "stage", 0, 70000, 1),
            ("hasnt", "flag"),
            ("left", 1, 70000, 30000),  # 0 + 30000
            ("left", 0, 70000, 80000),  # 50000 + 30000, though Red did not run out
            ("state", "running"),
            ("run", 1),
            ("tick", 100000),  # the last stage's 30 s: a flag
            ("has", "flag", 1, 100000, 1),
        ],
    ),
    (
        "TC-11 a method per stage: a delay in the last stage only",
        [
            ("new", "1/1m:30s+d5s"),
            ("start", 0),
            ("press", 0, 10000),  # 60000 - 10000 + 30000 (stage 2 at move 1)
            ("has", "stage", 0, 10000, 1),
            ("left", 0, 10000, 80000),
            ("press", 1, 20000),  # 60000 - 10000 + 30000
            ("left", 0, 24000, 80000),  # stage 2: 4 s inside the 5 s delay
            ("left", 0, 30000, 75000),  # 10 s used, 5 s of it free
            ("press", 0, 30000),  # no increment in stage 2
            ("left", 0, 30000, 75000),
            ("press", 1, 33000),  # 3 s < the delay
            ("left", 1, 33000, 80000),
        ],
    ),
    (
        "TC-12 Canadian with the block reset: no time carries over",
        [
            ("new", "10s canadian 2/20s reset"),
            ("start", 0),
            ("press", 0, 5000),  # main 5000
            ("press", 1, 6000),  # main 9000
            ("tick", 11000),  # Red's 5 s run out at 6000 + 5000
            ("has", "overtime", 0, 11000, 0),
            ("press", 0, 15000),  # block 20000 - 4000, 1 move left
            ("left", 0, 15000, 16000),
            ("block", 0, 1),
            ("press", 1, 16000),  # main 9000 - 1000
            ("press", 0, 20000),  # 16000 - 4000 = 12000 left: the block resets to 20000
            ("left", 0, 20000, 20000),  # (TC-7's carry-over would make it 32000)
            ("block", 0, 2),
        ],
    ),
    (
        "TC-13 upcount: the clocks count up from 0 and never flag",
        [
            ("new", "upcount"),
            ("start", 0),
            ("left", 0, 5000, 5000),
            ("press", 0, 5000),
            ("left", 0, 5000, 5000),
            ("left", 1, 8000, 3000),
            ("press", 1, 8000),
            ("left", 0, 10000, 7000),  # 5000 + 2000
            ("hasnt", "record"),  # TC-9 has no meaning here
            ("tick", 3600000),
            ("hasnt", "flag"),
            ("left", 0, 3600000, 3597000),  # 5000 + 3600000 - 8000
        ],
    ),
    (
        "#31 upcount as a stage: after main time the time over counts up, no flag",
        [
            ("new", "1m upcount"),
            ("start", 0),
            ("press", 0, 10000),  # Red 60000 - 10000
            ("left", 0, 10000, 50000),
            ("press", 1, 70000),  # Black 60000 - 60000 = 0: out at 70000, on the press
            ("press", 0, 120000),  # Red 50000 - 50000: main time out at 120000 exactly
            ("left", 0, 120000, 0),
            ("left", 1, 125000, 5000),  # Black from 120000: main time was 0, 5000 over
            ("has", "overtime", 1, 70000, None),  # Black ran out first, at its press
            ("press", 1, 130000),  # 10000 over
            ("left", 1, 130000, 10000),
            ("left", 0, 135000, 5000),  # Red over since 130000
            ("press", 0, 135000),
            ("press", 1, 137000),  # the time over adds up: 10000 + 2000
            ("left", 1, 137000, 12000),
            ("tick", 3600000),
            ("hasnt", "flag"),
            ("has", "record", 0, 0, 60000),  # TC-9: 1 min is under 3 min from the start
            ("left", 0, 3600000, 5000 + 3600000 - 137000),
            ("adjust", 0, 1000000, 3600000),  # a gift takes from the time over
            ("left", 0, 3600000, 3468000 - 1000000),
            ("adjust", 1, -3000, 3600000),  # a penalty adds to it
            ("left", 1, 3600000, 15000),
        ],
    ),
    (
        "#31 upcount after stages: out in stage 1, the next stage's time ends the count-up",
        [
            ("new", "1/10s:1/10s upcount"),
            ("start", 0),
            ("press", 0, 2000),  # stage 2 at move 1: 8000 + 10000
            ("left", 0, 2000, 18000),
            ("tick", 21000),
            ("left", 1, 20000, 8000),  # Black out at 12000: 8000 over, counting up
            ("has", "overtime", 1, 12000, None),
            ("press", 1, 21000),  # move 1: stage 2's fresh 10000, as after any overtime
            ("left", 1, 21000, 10000),
            ("tick", 40000),  # Red: 18000 run out at 39000, 1000 over
            ("left", 0, 40000, 1000),
            ("has", "overtime", 0, 39000, None),
            ("hasnt", "flag"),
        ],
    ),
    (
        "#31 per-side increments: each side its own base and increment (first 5m+3s second 4m+2s)",
        [
            ("new", "5m+3s second 4m+2s"),
            ("start", 0),
            ("left", 1, 0, 240000),
            ("press", 0, 10000),  # 300000 - 10000 + 3000
            ("left", 0, 10000, 293000),
            ("press", 1, 25000),  # 240000 - 15000 + 2000
            ("left", 1, 25000, 227000),
            ("press", 0, 26000),  # 293000 - 1000 + 3000
            ("left", 0, 26000, 295000),
        ],
    ),
    (
        "#31 a side's own increment where the stage has none; stage 2 takes its own",
        [
            ("new", "1/5m:10m+10s second 5m+5s"),
            ("start", 0),
            ("press", 0, 10000),  # Red: 300000 - 10000, no increment; stage 2: + 600000
            ("left", 0, 10000, 890000),
            ("press", 1, 20000),  # Black: 300000 - 10000 + 5000 (its own); stage 2: + 600000
            ("left", 1, 20000, 895000),
            ("press", 0, 21000),  # Red in stage 2: 890000 - 1000 + 10000
            ("left", 0, 21000, 899000),
            ("press", 1, 22000),  # Black in stage 2: the stage's 10 s, not its own 5 s
            ("left", 1, 22000, 904000),
        ],
    ),
    (
        "#31 progressive Canadian: each block has step moves more (BGA: 10 in 5, 20 in 5 ...)",
        [
            ("new", "10s canadian 2/60s step 1"),
            ("start", 0),
            ("press", 0, 1000),  # main 9000
            ("press", 1, 2000),  # Black main 9000
            ("press", 0, 12000),  # Red: 9000 from 2000 out at 11000, 1000 into block 1 (2 moves)
            ("block", 0, 1),
            ("left", 0, 12000, 59000),
            ("press", 1, 13000),
            ("press", 0, 14000),  # block 1 done with 58000 left: block 2 of 3 moves
            ("block", 0, 3),
            ("periods", 0, 1),
            ("left", 0, 14000, 118000),  # 58000 + 60000: carried over (TC-7)
            ("press", 1, 15000),
            ("press", 0, 16000),
            ("press", 1, 17000),
            ("press", 0, 18000),
            ("press", 1, 19000),
            ("press", 0, 20000),  # block 2's third move: block 3 of 4 moves
            ("block", 0, 4),
            ("periods", 0, 2),
            ("left", 0, 20000, 175000),  # 118000 - 3 x 1000 + 60000
        ],
    ),
    (
        "TC-14 Fischer with a cap: an increment never goes above it",
        [
            ("new", "1m+10s cap 65s"),
            ("start", 0),
            ("press", 0, 2000),  # 60000 - 2000 + 10000 = 68000, capped
            ("left", 0, 2000, 65000),
            ("press", 1, 2000),  # 60000 + 10000, capped
            ("left", 1, 2000, 65000),
            ("press", 0, 32000),  # 65000 - 30000 + 10000, under the cap
            ("left", 0, 32000, 45000),
        ],
    ),
    (
        "TC-15 the low-time warning: once, when main time shows under it",
        [
            ("new", "2m warn 1m"),
            ("start", 0),
            ("deadline", 60001),  # 120000 - 60000 + 1: shows 59999
            ("tick", 60000),
            ("hasnt", "warn"),
            ("tick", 60001),
            ("has", "warn", 0, 60001, 59999),
            ("press", 0, 70000),
            ("tick", 130001),  # Black: 120000 - 60000 + 1 after 70000
            ("has", "warn", 1, 130001, 59999),
        ],
    ),
    (
        "TC-16 a time per side: chess Armageddon, White 5 min, Black 4 min",
        [
            ("new", "armageddon-chess"),
            ("left", 0, 0, 300000),
            ("left", 1, 0, 240000),
            ("start", 0),
            ("press", 0, 10000),  # 300000 - 10000 + 2000
            ("left", 0, 10000, 292000),
            ("press", 1, 15000),  # 240000 - 5000 + 2000
            ("left", 1, 15000, 237000),
        ],
    ),
    (
        "Finish before the start is refused",
        [
            ("new", "5m"),
            ("error", ("finish", 0)),
            ("state", "idle"),
        ],
    ),
]
