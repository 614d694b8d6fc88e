# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot the firmware on the simulated RP2040 (rp2040sim.py), as rp2 boots:
/boot.py, then /main.py as __main__, both unchanged.

    micropython run.py CONFIG.json

MICROPYPATH puts this folder first (its machine, rp2, time and select), then
the firmware's folder, then the port's frozen modules. CONFIG: board, until_ms,
firmware, trace, pins [[ms, gpio, level]...], world {gpio: level}, adc
{channel: u16}, usb, costs, flash (the littlefs image mounted at /state, where
the journal lives; None: in RAM). The run ends at until_ms, a reset or the board's
power-off; the trace (rp2040sim.py) is then closed. Exit 0 for those ends.
"""

import json
import sys

import rp2040sim as C


def _mount(image):
    """The Pico's littlefs holds /state (the journal): a flash image mounted
    there, its erases and page programs taking their time (W25Q16JV: 45 ms a
    sector erase, 0.7 ms a page, typical)."""
    from boards import flashfile

    class Timed(flashfile.Flash):
        timed = False  # formatting a fresh image is the factory's, not a boot's

        def writeblocks(self, n, buf, off=None):
            if self.timed:
                C.busy(700 * ((len(buf) + 255) // 256))
            return super().writeblocks(n, buf, off)

        def ioctl(self, op, arg):
            if op == 6 and self.timed:  # erase a block
                C.busy(45_000)
            return super().ioctl(op, arg)

    flash = Timed(image)
    flashfile.mount(flash, "/state")
    flash.timed = True


def _assets(fw):
    """/assets on the Pico's root (the voice's cue banks): the firmware's own."""
    import vfs

    vfs.mount(vfs.VfsPosix(fw + "/assets"), "/assets")


def run(path):
    with open(path) as f:
        cfg = json.load(f)
    C.configure(cfg)
    fw = cfg["firmware"]
    _mount(cfg.get("flash"))
    _assets(fw)
    end = "error"
    try:
        for name in ("boot", "__main__"):
            src = fw + ("/boot.py" if name == "boot" else "/main.py")
            with open(src) as f:
                code = f.read()
            exec(code, {"__name__": name, "__file__": src})
        end = "returned"
        C.line("end %d returned" % C.now)
    except C.End:
        end = "end"
    except C.Reset:
        end = "reset"
    except C.Off:
        end = "off"
    except C.Held:
        end = "held"
    finally:
        C.finish()
    return end


if __name__ == "__main__":
    print("chip:", run(sys.argv[1]))
