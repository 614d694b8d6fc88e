# SPDX-License-Identifier: GPL-3.0-or-later
"""棋钟 (qizhong): host side of the qizhong game clock.

``qizhong.core`` is the firmware's pure core (the same files that run on the
Pico), so the host parses time controls and models a clock exactly as the
clock itself does. ``Clock`` drives one clock over its serial port, ``Hall``
many at once (docs/protocol.md).
"""

from .core import VERSION as __version__
from .driver import Clock
from .hall import Hall

__all__ = ["Clock", "Hall", "__version__"]
