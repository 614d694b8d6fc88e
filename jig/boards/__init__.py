# SPDX-License-Identifier: GPL-3.0-or-later
"""Jig boards: ``pico`` drives real optocouplers; ``sim`` the simulated clock.

A board provides:
  now()                       jig time in ms (0 at the last ``sync``)
  sync()                      make now() 0
  await until(t)              return at jig time t; returns the clock's next deadline or -1
  await drive(channel, on, t) switch optocoupler ``channel`` (pins.CHANNELS) at t
  poll(core)                  hand new buzzer and audio observations to the core
"""
