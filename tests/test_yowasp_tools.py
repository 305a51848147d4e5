"""The WebAssembly tools see the real folders a build names: a file that a
test or a user passes under /tmp (a pytest tmp_path, a CI clone) is written
where it was asked for, not into the tool's private /tmp."""

import os
import subprocess

import pytest

from irqlab.boards import yowasp_tools


def test_named_tmp_folders_are_mounted(tmp_path):
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip("tmp_path is not under /tmp here")
    top = os.sep.join(str(tmp_path).split(os.sep)[:3])
    assert top in yowasp_tools._real_dirs_under_tmp(["--textcfg", str(tmp_path / "x.config")])
    assert top in yowasp_tools._real_dirs_under_tmp([f"--out={tmp_path}/a.bit"])
    # A file right in /tmp has no folder of its own to mount.
    assert "/tmp/x.config" not in yowasp_tools._real_dirs_under_tmp(["/tmp/x.config"])


def test_a_tool_writes_where_it_is_told(tmp_path):
    tools = yowasp_tools.write_wrappers(str(tmp_path / "bin"))
    src, out = tmp_path / "m.v", tmp_path / "out.v"
    src.write_text("module m(input a, output b); assign b = a; endmodule\n")
    r = subprocess.run([os.path.join(tools, "yosys"), "-q", "-o", str(out), str(src)],
                       capture_output=True, text=True, cwd="/", timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert str(src) in out.read_text()        # yosys read the file and wrote where told
