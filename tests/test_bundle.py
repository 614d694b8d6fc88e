# SPDX-License-Identifier: GPL-3.0-or-later
"""The flash bundle (issue #7): it builds, it loads on the unix port, it fits the Pico.

The bundle is built with mpy-cross for the RP2040 (-march=armv6m) and again for
the host's own architecture; both are imported on MicroPython's unix port, the
Pico's Board and the App are built on a stand-in `machine`, and the heap in use
is measured with gc.mem_alloc().
"""

import os
import shutil

import pytest

from conftest import ROOT
from qizhong.clocks import flash
from qizhong.core import voice

FIRMWARE = os.path.join(ROOT, "firmware")
PROBE_HEAP = flash.PICO_HEAP_BYTES  # objects are bigger on the 64-bit unix port: a safe bound


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("bundle")
    arm = flash.build(str(base / "arm"))
    host = flash.build(str(base / "host"), arch=None)
    return base, arm, host


def _py(folder):
    return sorted(n for n in os.listdir(os.path.join(FIRMWARE, folder)) if n.endswith(".py"))


def test_the_bundle_holds_every_pico_module_compiled_and_main_as_source(built):
    base, arm, _ = built
    paths = [e.path for e in arm.entries]
    want = ["qizhong/%s.mpy" % n[:-3] for n in _py("qizhong")]
    want += ["boards/%s.mpy" % n[:-3] for n in _py("boards") if n not in ("sim.py", "flashfile.py")]
    assert [p for p in paths if p.endswith(".mpy")] == want
    assert "main.py" in paths
    assert sorted(p for p in paths if p.endswith(".py")) == ["boot.py", "main.py"]  # as source
    assert not os.path.exists(base / "arm" / "boards" / "sim.mpy")  # unix only
    with open(base / "arm" / "qizhong" / "app.mpy", "rb") as f:
        assert f.read(2) == b"M\x06"  # .mpy version 6, as MicroPython 1.29 loads


def test_every_languages_cue_bank_is_copied_byte_for_byte(built):
    base, arm, _ = built
    src = os.path.join(FIRMWARE, "assets", "voice")
    assert arm.count("assets/voice/") == len(voice.LANGS) == 5
    for lang in voice.LANGS:
        rel = os.path.join(lang, voice.BANK)
        with (
            open(os.path.join(src, rel), "rb") as a,
            open(base / "arm/assets/voice" / rel, "rb") as b,
        ):
            assert a.read() == b.read(), rel


def test_compiled_code_is_smaller_than_its_source(built):
    _, arm, _ = built
    code = [e for e in arm.entries if e.path.endswith(".mpy")]
    assert sum(e.size for e in code) < sum(e.source_size for e in code) // 2
    print(arm.report())


def test_the_bundle_fits_the_picos_flash_filesystem(built):
    _, arm, _ = built
    assert flash.PICO_FS_BYTES == 1408 * 1024
    assert arm.fs_bytes() >= arm.total()  # whole blocks never take less than the bytes
    assert flash.check_budget(arm) == []
    assert "on LittleFS (4 KB blocks): %d of 1441792 bytes" % arm.fs_bytes() in arm.report()


def test_the_budget_check_refuses_a_bundle_too_big():
    big = flash.Bundle("x", [flash.Entry("assets/voice/long.pcm", flash.PICO_FS_BYTES, 0)])
    assert "the Pico has 1441792" in flash.check_budget(big)[0]


@pytest.mark.parametrize("which", ["arm", "host"])
def test_the_bundle_loads_and_builds_the_clock_on_the_unix_port(built, which, tmp_path):
    base = built[0]
    h = flash.heap(str(base / which), str(tmp_path), heapsize="%dk" % (PROBE_HEAP // 1024))
    assert h.files["qizhong.app"] == str(base / which / "qizhong" / "app.mpy")
    assert h.files["boards.pico"] == str(base / which / "boards" / "pico.mpy")
    assert "qizhong.timecontrol" in h.modules and "boards.ssd1306" in h.modules
    assert 0 < h.imported < h.built < PROBE_HEAP
    print("%s: heap after import %d, with Board and App %d" % (which, h.imported, h.built))


def test_the_armv6m_bundle_has_no_native_code_so_the_host_build_is_the_same(built):
    # mpy-cross marks an .mpy with its arch only when it carries native code;
    # the firmware has none, so the Pico's bundle is the one tested on the unix port.
    base, arm, _ = built
    for e in arm.entries:
        if e.path.endswith(".mpy"):
            with open(base / "arm" / e.path, "rb") as a, open(base / "host" / e.path, "rb") as b:
                assert a.read() == b.read(), e.path


def test_a_bundle_missing_a_module_fails_to_load(built, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(built[0] / "arm", broken)
    os.remove(broken / "boards" / "pins.mpy")
    with pytest.raises(flash.FlashError, match="pins"):
        flash.heap(str(broken), str(tmp_path))


def test_main_flash_builds_only_and_needs_a_port_to_upload(tmp_path, capsys):
    out = str(tmp_path / "fw")
    assert flash.main_flash(None, build_only=True, out_dir=out) == 0
    assert os.path.isfile(os.path.join(out, "main.py"))
    assert "on LittleFS" in capsys.readouterr().out
    assert flash.main_flash(None, build_only=False, out_dir=out) == 2
    assert "no port" in capsys.readouterr().err


def test_upload_refuses_a_folder_that_is_not_a_bundle(tmp_path):
    with pytest.raises(flash.FlashError, match="not a bundle"):
        flash.upload("/dev/null", str(tmp_path))


def test_build_refuses_a_firmware_folder_without_main(tmp_path):
    with pytest.raises(flash.FlashError, match="no main"):
        flash.build(str(tmp_path / "out"), firmware=str(tmp_path))
