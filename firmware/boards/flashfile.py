# SPDX-License-Identifier: GPL-3.0-or-later
"""A NOR flash chip in a file (or in RAM), for littlefs on the unix port.

``Flash`` is a block device with littlefs's extended interface
(``readblocks``/``writeblocks`` with an offset, ``ioctl`` erase), shaped like
the Pico's filesystem: 4096-byte erase blocks, and ``mount`` uses the same
littlefs prog size (256, from rp2's _boot.py). An erased byte is 0xFF.

A power cut can be put inside a write: ``cut_after(n)`` lets ``n`` more
bytes reach the chip (a program counts its length, an erase its block), then
tears the program or erase it is in at that byte and drops every later
write. So the chip holds exactly what a cut at that instant would leave.
``on_cut`` (the sim board's) then ends the process. The file is written with
plain writes, never buffered, so a SIGKILL leaves it as the chip would be.

Counters for the wear budget: ``progs``, ``prog_bytes``, ``erases`` and the
erases of each block (``wear``).
"""

import vfs

BLOCK = 4096  # the W25Q16's erase sector; rp2's littlefs block
BLOCKS = 64  # 256 KB: the journal needs a few blocks; the Pico's has ~240 free
PROG = 256  # littlefs prog size on rp2 (flash page)


class Flash:
    """``blocks`` erase blocks of ``block`` bytes in file ``path`` (created
    erased if missing), or in RAM when ``path`` is None (``data``: an image
    to start from)."""

    def __init__(self, path=None, blocks=BLOCKS, block=BLOCK, data=None):
        self.path = path or "RAM"
        self.blocks = blocks
        self.block = block
        self._ff = b"\xff" * block
        self.fresh = False  # the chip was blank when it was opened
        if path is None:  # RAM: a bytes file, so reads and writes allocate nothing
            import io

            self._f = io.BytesIO(data if data is not None else self._ff * blocks)
            self.fresh = data is None
        else:
            try:
                self._f = open(path, "r+b")
            except OSError:
                self._f = open(path, "w+b")
                for _ in range(blocks):
                    self._f.write(self._ff)
                self.fresh = True
        self.progs = 0
        self.prog_bytes = 0
        self.erases = 0
        self.wear = [0] * blocks
        self.budget = -1  # bytes until the power cut, -1: none
        self.dead = False  # the power is off: nothing more is written
        self.on_cut = None

    def image(self):
        """The whole chip, as bytes."""
        self._f.seek(0)
        return self._f.read()

    def cut_after(self, nbytes, on_cut=None):
        """Cut the power once ``nbytes`` more bytes have been written."""
        self.budget = nbytes
        self.on_cut = on_cut

    def _spend(self, n):
        # How many of the next n bytes reach the chip; at the cut, the power goes.
        if self.dead:
            return 0
        if self.budget < 0 or n < self.budget:
            if self.budget >= 0:
                self.budget -= n
            return n
        k = self.budget
        self.budget = -1
        self.dead = True
        return k

    def _put(self, at, data, n):
        self._f.seek(at)
        self._f.write(data if n == len(data) else memoryview(data)[:n])

    def _after(self):
        if self.dead and self.on_cut is not None:
            cb = self.on_cut
            self.on_cut = None
            cb()

    # -- the block device protocol ---------------------------------------------

    def readblocks(self, n, buf, off=0):
        self._f.seek(n * self.block + off)
        self._f.readinto(buf)

    def writeblocks(self, n, buf, off=None):
        if off is None:  # the simple interface: erase, then program
            self.ioctl(6, n)
            off = 0
        k = self._spend(len(buf))
        if k:
            self._put(n * self.block + off, buf, k)
        self.progs += 1
        self.prog_bytes += len(buf)
        self._after()

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return self.block
        if op == 6:  # erase
            k = self._spend(self.block)
            if k:
                self._put(arg * self.block, self._ff, k)
            self.erases += 1
            self.wear[arg] += 1
            self._after()
            return 0
        return 0  # init, deinit, sync

    def stats(self):
        """``progs,bytes,erases,most erases of one block``."""
        return "%d,%d,%d,%d" % (self.progs, self.prog_bytes, self.erases, max(self.wear))


def mount(flash, where, progsize=PROG):
    """Mount littlefs on ``flash`` at ``where``; a blank chip is formatted
    first. A chip that holds something but does not mount is an error: it
    is never formatted over."""
    try:
        fs = vfs.VfsLfs2(flash, progsize=progsize)  # type: ignore[abstract]  # stub's flaw
    except OSError as e:
        if not flash.fresh:
            raise ValueError("%s: not a littlefs image (%s); left as it is" % (flash.path, e))
        vfs.VfsLfs2.mkfs(flash, progsize=progsize)
        fs = vfs.VfsLfs2(flash, progsize=progsize)  # type: ignore[abstract]
    vfs.mount(fs, where)
    return fs
