# SPDX-License-Identifier: GPL-3.0-or-later
"""棋钟 (qizhong): host side of the qizhong game clock.

``qizhong.core`` is the firmware's pure core (the same files that run on the
Pico), so the host parses time controls and models a clock exactly as the
clock itself does. ``Clock`` drives one clock over its serial port, ``Hall``
many at once (docs/protocol.md).
"""

from qizhong.clocks.driver import Clock
from qizhong.clocks.hall import Hall
from qizhong.core import VERSION as __version__

__all__ = ["Clock", "Hall", "__version__"]
