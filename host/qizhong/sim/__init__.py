# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulator: the real firmware on MicroPython's unix port (``simulator``),
scenario files (``scenario``), the terminal clock (``term``), the test jig
(``jig``), and the pictures and sound it makes (``png``, ``audio``)."""

from qizhong.sim.simulator import PowerCut, Sim, SimError, micropython_path, repo_root

__all__ = ["PowerCut", "Sim", "SimError", "micropython_path", "repo_root"]
