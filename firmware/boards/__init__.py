# SPDX-License-Identifier: GPL-3.0-or-later
"""Boards: the one interface between the firmware and a world.

A board provides:
  NAME, board_id        "pico" or "sim"; a unique id (the Pico's flash id)
  now()                 monotonic integer ms
  pop_input()           next input kind (app.IN_*), or 0; sets in_arg, in_t
  pending()             optional: True when an input waits (the app then sends no
                        further frame before taking it: #22)
  await wait(deadline)  return by the deadline (ms, -1: none) or on an input;
                        the Pico's takes at most Serial.BUDGET host bytes meanwhile
  fb[0], fb[1]          the left and right framebuffers; show(i) sends one out
  live_display          True when displays refresh by themselves
  tenths                True when the faces show tenths (refreshed every 100 ms);
                        the battery board's do not (#22, docs/power.md)
  beep(on, t), say(cue, t), set_volume(0..10), low_battery
  set_voice(lang)       speak voice.LANGS' lang from the next cue on (docs/voice.md)
  start_serial(app)     feed app.serial_in(byte) from the host's link (usb.Serial),
                        a bounded number of bytes per loop turn
  rebase(d)             the time origin moved d ms later (App.rebase): now() and
                        every stored ms drop by d
  write_n(buf, n), write(data)
                        send bytes if the link takes them now; True if sent
  boot_id()             a new random id at every start
  set_trim(ppm)         correct the crystal's rate (docs/protocol.md)
  state_dir             the journal's folder (None: no journal; docs/journal.md)
  feed(), keep_alive()  the watchdog: fed after each whole loop pass, from nowhere
                        else (keep_alive: no longer called, #12)
  flash_stats()         optional: the journal's flash figures
  stopped, left_side

``sim`` runs on MicroPython's unix port against the host's simulator
(docs/sim.md); ``oled`` and ``battery`` (sharing ``pico``) on the Raspberry
Pi Pico (docs/hardware-build.md). ``find.board()`` builds the one that is
there: main.py's board.
"""
