# SPDX-License-Identifier: GPL-3.0-or-later
"""棋钟 (qizhong): host side of the qizhong game clock.

``qizhong.core`` is the firmware's pure core (the same files that run on the
Pico), so the host parses time controls and models a clock exactly as the
clock itself does.
"""

from .core import VERSION as __version__

__all__ = ["__version__"]
