# SPDX-License-Identifier: GPL-3.0-or-later
"""Boards: the one interface between the firmware and a world.

A board provides:
  now()                 monotonic integer ms
  pop_input()           next input kind (app.IN_*), or 0; sets in_arg, in_t
  await wait(deadline)  return by the deadline (ms, -1: none) or on an input
  fb[0], fb[1]          the left and right framebuffers; show(i) sends one out
  live_display          True when displays refresh by themselves
  beep(on, t), say(cue, t), low_battery
  start_serial(app), send_event(name, side, t, arg), stopped, left_side

``sim`` runs on MicroPython's unix port against the host's simulator;
``pico`` (issue #3, in progress) on the Raspberry Pi Pico.
"""
