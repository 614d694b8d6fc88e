# SPDX-License-Identifier: GPL-3.0-or-later
"""The flash bundle: the firmware as the Pico's filesystem holds it, and its upload.

    build(out_dir)           compile the firmware to .mpy for the RP2040, copy the voice
    upload(port, out_dir)    copy a bundle onto a Pico with mpremote, then reset it
    main_flash(port, build_only)   `qizhong flash` / `make flash`

The bundle's root is the Pico's root::

    boot.py, main.py         kept as source (MicroPython runs /boot.py, then /main.py)
    qizhong/*.mpy            the core (firmware/qizhong), mpy-cross -march=armv6m
    boards/*.mpy             the boards (not sim: unix only)
    assets/voice/LANG/cues.bin   each language's voice cues (boards/pico.py reads
                             /assets/voice; docs/voice.md), all five languages

The budgets: the Pico's LittleFS (``PICO_FS_BYTES``, from MicroPython's rp2
board RPI_PICO: ``MICROPY_HW_FLASH_STORAGE_BYTES = 1408 * 1024``) and its heap
(``PICO_HEAP_BYTES``). ``heap(bundle)`` imports the bundle on the unix port and
measures ``gc.mem_alloc()``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from qizhong.core import voice
from qizhong.sim.simulator import micropython_path, repo_root

PICO_FS_BYTES = 1408 * 1024  # rp2 RPI_PICO: MICROPY_HW_FLASH_STORAGE_BYTES
FS_BLOCK = 4096  # LittleFS block on the rp2 port (the flash's erase sector)
PICO_HEAP_BYTES = 245_888  # the GC heap of MicroPython 1.28's rp2 RPI_PICO, as measured (#17)
HEAP_SHARE = 2  # the firmware at rest may use at most 1/HEAP_SHARE of the heap
ARCH = "armv6m"  # the RP2040's Cortex-M0+

PACKAGES = ("qizhong", "boards")
HOST_ONLY = {"boards/sim.py", "boards/flashfile.py"}  # the simulated board and its flash file
SOURCE = ("boot.py", "main.py")  # MicroPython runs /boot.py, then /main.py
VOICE = os.path.join("assets", "voice")


class FlashError(RuntimeError):
    """The bundle could not be built or uploaded; the message says why."""


@dataclass
class Entry:
    path: str  # in the bundle, with /
    size: int
    source_size: int  # the .py it came from (the file itself for assets)


@dataclass
class Bundle:
    root: str
    entries: list[Entry] = field(default_factory=list)

    def total(self, prefix: str = "") -> int:
        return sum(e.size for e in self.entries if e.path.startswith(prefix))

    def source_total(self, prefix: str = "") -> int:
        return sum(e.source_size for e in self.entries if e.path.startswith(prefix))

    def fs_bytes(self) -> int:
        """A bound on what the files take on LittleFS: each file in whole blocks,
        plus two metadata blocks per directory (and the root)."""
        blocks = sum(max(1, -(-e.size // FS_BLOCK)) for e in self.entries)
        dirs = {e.path.rsplit("/", 1)[0] for e in self.entries if "/" in e.path}
        parents = {"/".join(d.split("/")[:i]) for d in dirs for i in range(1, d.count("/") + 1)}
        return (blocks + 2 * (len(dirs | parents) + 1)) * FS_BLOCK

    def report(self) -> str:
        code = [e for e in self.entries if not e.path.startswith("assets/")]
        lines = ["%-32s %8s %8s" % ("file", "bytes", "source")]
        lines += ["%-32s %8d %8d" % (e.path, e.size, e.source_size) for e in code]
        lines.append(
            "%-32s %8d %8d" % ("code", sum(e.size for e in code), sum(e.source_size for e in code))
        )
        for e in self.entries:
            if e.path.startswith("assets/"):
                lines.append("%-32s %8d" % (e.path, e.size))
        voice_files = "assets/voice (%d languages)" % self.count("assets/")
        lines.append("%-32s %8d" % (voice_files, self.total("assets/")))
        lines.append("%-32s %8d" % ("total", self.total()))
        lines.append(
            "on LittleFS (4 KB blocks): %d of %d bytes (%d%%)"
            % (self.fs_bytes(), PICO_FS_BYTES, 100 * self.fs_bytes() // PICO_FS_BYTES)
        )
        return "\n".join(lines)

    def count(self, prefix: str) -> int:
        return sum(1 for e in self.entries if e.path.startswith(prefix))


def mpy_cross_path() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if os.path.exists(exe):
        return exe
    found = shutil.which("mpy-cross")
    if not found:
        raise FlashError("mpy-cross is missing: run `make venv`")
    return found


def firmware_dir() -> str:
    return os.path.join(repo_root(), "firmware")


def sources(firmware: str) -> list[str]:
    """The firmware's modules for the Pico, as paths under ``firmware``."""
    out: list[str] = []
    for pkg in PACKAGES:
        for name in sorted(os.listdir(os.path.join(firmware, pkg))):
            rel = pkg + "/" + name
            if name.endswith(".py") and rel not in HOST_ONLY:
                out.append(rel)
    return out


def build(out_dir: str, firmware: str | None = None, arch: str | None = ARCH) -> Bundle:
    """Build the bundle into ``out_dir`` (emptied first). ``arch=None``: mpy-cross's
    default, the host's own architecture (for loading on the unix port)."""
    firmware = firmware or firmware_dir()
    if not os.path.isfile(os.path.join(firmware, "main.py")):
        raise FlashError("%s has no main.py" % firmware)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    bundle = Bundle(out_dir)
    mpy_cross = mpy_cross_path()
    for rel in sources(firmware):
        src = os.path.join(firmware, rel)
        target = rel[:-3] + ".mpy"
        os.makedirs(os.path.join(out_dir, os.path.dirname(target)), exist_ok=True)
        cmd = [mpy_cross, *(["-march=" + arch] if arch else []), "-s", rel, "-o"]
        r = subprocess.run(
            [*cmd, os.path.join(out_dir, target), src], capture_output=True, text=True
        )
        if r.returncode:
            raise FlashError("mpy-cross %s: %s" % (rel, r.stderr.strip() or r.stdout.strip()))
        bundle.entries.append(
            Entry(target, os.path.getsize(os.path.join(out_dir, target)), os.path.getsize(src))
        )
    for rel in SOURCE:
        shutil.copyfile(os.path.join(firmware, rel), os.path.join(out_dir, rel))
        size = os.path.getsize(os.path.join(out_dir, rel))
        bundle.entries.append(Entry(rel, size, size))
    for lang in voice.LANGS:
        src = os.path.join(firmware, VOICE, lang, voice.BANK)
        if not os.path.isfile(src):
            raise FlashError("%s is missing (make voice)" % src)
        os.makedirs(os.path.join(out_dir, VOICE, lang))
        shutil.copyfile(src, os.path.join(out_dir, VOICE, lang, voice.BANK))
        size = os.path.getsize(src)
        bundle.entries.append(Entry("assets/voice/%s/%s" % (lang, voice.BANK), size, size))
    return bundle


def check_budget(bundle: Bundle) -> list[str]:
    """What does not fit the Pico's flash filesystem (empty: it fits)."""
    if bundle.fs_bytes() > PICO_FS_BYTES:
        return [
            "the bundle takes %d bytes on LittleFS; the Pico has %d"
            % (bundle.fs_bytes(), PICO_FS_BYTES)
        ]
    return []


# The heap probe runs on the unix port with the bundle first on sys.path. A
# minimal stand-in for `machine` and `rp2` lets boards.oled import and build its Board;
# it is written beside the probe, never into the bundle.
_FAKE_MACHINE = """
class Pin:
    IN = 0; OUT = 1; PULL_UP = 1; IRQ_FALLING = 4; IRQ_RISING = 8
    def __init__(self, n, mode=0, pull=0, value=None): self.v = 1
    def value(self, v=None): return self.v if v is None else None
    def irq(self, handler=None, trigger=0, hard=False): pass
class I2C:
    def __init__(self, n, scl=None, sda=None, freq=0, timeout=50000): pass
    def writeto(self, addr, buf, stop=True): return len(buf)
    def writevto(self, addr, vector, stop=True): return 1
class PWM:
    def __init__(self, pin, freq=0, duty_u16=0): pass
    def duty_u16(self, d=None): pass
class I2S:
    TX = 0; MONO = 0
    def __init__(self, n, **kw): pass
    def irq(self, cb): pass
    def write(self, buf): return len(buf)
class ADC:
    def __init__(self, n): pass
    def read_u16(self): return 30000
def disable_irq(): return 0
def enable_irq(state): pass
def unique_id(): return b"\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08"
"""

_FAKE_RP2 = """
def asm_pio(**kw):
    return lambda f: f
class StateMachine:
    def __init__(self, n, prog=None, **kw): pass
    def irq(self, handler=None, trigger=0, hard=False): pass
    def active(self, v=None): return 1
"""

_PROBE = """
import gc, sys
sys.path.insert(0, %(bundle)r)
sys.path.insert(1, %(fake)r)
gc.collect()
base = gc.mem_alloc()
import micropython
from qizhong import app, clock, face, lever, monotonic, tcspec, voice
from qizhong import timecontrol
import boards.pico, boards.oled
gc.collect()
imported = gc.mem_alloc() - base
from boards.oled import Board  # the larger heap of the two boards (two 1 KB frames)
clk = app.App(Board(%(voice)r), tcspec.parse("xq-rapid"))
gc.collect()
built = gc.mem_alloc() - base
print("heap", imported, built, [m for m in sys.modules if m.startswith(("qizhong", "boards"))])
for name in ("qizhong.app", "boards.pico", "boards.oled"):
    print("file", name, sys.modules[name].__file__)
"""


@dataclass
class Heap:
    imported: int  # bytes in use after importing every module of the bundle
    built: int  # ... and after building the Board and the App
    modules: list[str]
    files: dict[str, str]


def heap(bundle_dir: str, work_dir: str, heapsize: str = "256k") -> Heap:
    """Import the bundle on the unix port (in a heap of ``heapsize``) and measure."""
    fake = os.path.join(work_dir, "fake")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "machine.py"), "w", encoding="utf-8") as f:
        f.write(_FAKE_MACHINE)
    with open(os.path.join(fake, "rp2.py"), "w", encoding="utf-8") as f:
        f.write(_FAKE_RP2)
    probe = os.path.join(work_dir, "probe.py")
    voice = os.path.join(os.path.abspath(bundle_dir), VOICE)
    with open(probe, "w", encoding="utf-8") as f:
        f.write(_PROBE % {"bundle": os.path.abspath(bundle_dir), "fake": fake, "voice": voice})
    r = subprocess.run(
        [micropython_path(), "-X", "heapsize=" + heapsize, probe],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=work_dir,
    )
    if r.returncode:
        raise FlashError("the bundle does not load on the unix port:\n" + r.stderr + r.stdout)
    out = Heap(0, 0, [], {})
    for line in r.stdout.splitlines():
        words = line.split(" ", 3)
        if words[0] == "heap":
            out.imported, out.built = int(words[1]), int(words[2])
            out.modules = sorted(eval_list(words[3]))
        elif words[0] == "file":
            out.files[words[1]] = words[2]
    return out


def eval_list(text: str) -> list[str]:
    """A printed MicroPython list of strings, e.g. ``['a', 'b']``."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise FlashError("unexpected probe output %r" % text)
    return [w.strip().strip("'\"") for w in text[1:-1].split(",") if w.strip()]


SERVICE_HINT = (
    "put the clock in service mode: switch it off, hold menu and ok, switch it on "
    "(the displays say SERVICE), then run this again. In play the clock's USB port "
    "has no REPL (docs/security.md)"
)


def upload(port: str, bundle: str) -> None:
    """Copy the bundle onto the Pico at ``port`` with mpremote, then reset it.

    The clock must be in service mode (menu and ok held at power-on,
    firmware/boards/service.py): in play its USB port has no REPL for
    mpremote. Service mode never starts the watchdog, so nothing needs
    feeding while the files go over. The old ``qizhong/``, ``boards/`` and
    ``assets/`` go first, so no stale ``.py`` shadows a new ``.mpy``
    (MicroPython prefers .py). The final reset boots into play."""
    if not os.path.isfile(os.path.join(bundle, "main.py")):
        raise FlashError("%s is not a bundle (no main.py): run `make firmware`" % bundle)
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    if not os.path.exists(mpremote):
        mpremote = shutil.which("mpremote") or ""
    if not mpremote:
        raise FlashError("mpremote is missing: run `make venv`")
    parts = ["connect", port]
    for top in ("qizhong", "boards", "assets"):
        parts += ["+", "exec", _RMTREE % top]
    names = sorted(os.listdir(bundle))
    parts += ["+", "fs", "cp", "-r", *names, ":", "+", "reset"]
    r = subprocess.run([mpremote, *parts], cwd=bundle, capture_output=True, text=True)
    if r.returncode:
        why = r.stderr.strip() or r.stdout.strip()
        if "raw repl" in why.lower():  # mpremote could not interrupt the clock: it is in play
            raise FlashError("mpremote: %s; %s" % (why, SERVICE_HINT))
        raise FlashError("mpremote: %s" % why)


_RMTREE = (
    "import os\n"
    "def rm(p):\n"
    " try:\n"
    "  for e in os.ilistdir(p):\n"
    "   q=p+'/'+e[0]\n"
    "   rm(q) if e[1]==0x4000 else os.remove(q)\n"
    "  os.rmdir(p)\n"
    " except OSError:\n"
    "  pass\n"
    "rm('/%s')"
)


def default_out() -> str:
    return os.path.join(repo_root(), "build", "firmware")


def main_flash(port: str | None, build_only: bool = False, out_dir: str | None = None) -> int:
    """`qizhong flash [--build-only] [PORT]`: build the bundle, check it fits, upload it.

    Exit codes as the CLI's: 0 done, 1 failed, 2 bad input (no port)."""
    out = out_dir or default_out()
    try:
        bundle = build(out)
    except FlashError as e:
        print("qizhong flash: %s" % e, file=sys.stderr)
        return 1
    print(bundle.report())
    problems = check_budget(bundle)
    for p in problems:
        print("qizhong flash: %s" % p, file=sys.stderr)
    if problems:
        return 1
    print("bundle in %s" % out)
    if build_only:
        return 0
    if not port:
        print("qizhong flash: no port (e.g. /dev/ttyACM0)", file=sys.stderr)
        return 2
    print("uploading to %s: the clock must be in service mode (menu, ok held at power-on)" % port)
    try:
        upload(port, out)
    except FlashError as e:
        print("qizhong flash: %s" % e, file=sys.stderr)
        return 1
    print("flashed %s" % port)
    return 0
