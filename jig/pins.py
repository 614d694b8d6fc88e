# SPDX-License-Identifier: GPL-3.0-or-later
"""The test jig's pin map (GPn of the jig's own Pico). hardware/schematic.py reads it.

Each output drives one optocoupler whose transistor sits across a clock input
(CHANNELS names the clock's signal in hardware/pinout.csv). The listening
inputs are wired to the clock's lines through 1 kOhm resistors.
"""

CHANNELS = (
    "lever_left",
    "lever_right",
    "key_start",
    "key_menu",
    "key_plus",
    "key_minus",
    "key_ok",
    "tilt",
)
OPTO = (2, 3, 4, 5, 6, 7, 8, 9)  # one per channel; high lights the LED: the switch is closed

BUZZER = 10  # the clock's buzzer line (GP16): PWM while it sounds
AMP_SD = 11  # the clock's amplifier enable (GP21): high while a cue plays
I2S_DIN = 12  # PIO capture: DIN, then BCLK = DIN + 1, LRCLK = DIN + 2
I2S_BCLK = 13
I2S_LRCLK = 14

LISTEN = (
    ("buzzer", BUZZER),
    ("amp_sd", AMP_SD),
    ("i2s_din", I2S_DIN),
    ("i2s_bclk", I2S_BCLK),
    ("i2s_lrclk", I2S_LRCLK),
)
