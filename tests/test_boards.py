"""Board builds: the ULX3S bitstream of the project's CLIC core through the open ECP5
flow (timing met at its clock, read back as the right device; marked `fpga`:
place and route takes 25-40 minutes in WebAssembly; `make test` runs it, and
`make test-boards` runs only the board tests). The Arty projects are in
tests/test_arty_board.py (a file of their own, so a second test worker builds
them beside the bitstream)."""

import json
import os
import shutil
import subprocess

import pytest

from irqlab import paths
from irqlab.flows import build as boardbuild
from irqlab.progress import Progress

FPGA_CORE = "clic"      # the newest core; the other reports in bitstreams/ come from `make bitstream CORE=...`


@pytest.fixture(scope="module")
def ulx3s():
    return boardbuild.build("ulx3s", FPGA_CORE, Progress())


@pytest.mark.fpga
def test_ulx3s_bitstream_meets_timing(ulx3s):
    bit = os.path.join(paths.ROOT, ulx3s["bitstream"])
    assert os.path.getsize(bit) > 100_000
    assert os.path.exists(bit[:-4] + ".svf")
    assert ulx3s["timing_met"], ulx3s["clocks"]
    assert all(c["fmax_mhz"] >= ulx3s["sys_clk_mhz"] for c in ulx3s["clocks"].values())
    assert 1000 < ulx3s["luts"] < 40000 and ulx3s["flip_flops"] > 500 and ulx3s["block_ram"] > 4
    with open(bit[:-4] + ".json") as f:
        assert json.load(f)["luts"] == ulx3s["luts"]


@pytest.mark.fpga
def test_ulx3s_bitstream_reads_back_as_the_device(ulx3s, tmp_path):
    env = dict(os.environ, PATH=boardbuild.tools_dir() + os.pathsep + os.environ["PATH"])
    # The WebAssembly ecpunpack cannot open every absolute path (not /tmp, nor
    # one that climbs out of a top-level directory with ".."): it reads a copy
    # by a name relative to its working directory.
    shutil.copy(os.path.join(paths.ROOT, ulx3s["bitstream"]), tmp_path / "readback.bit")
    r = subprocess.run(["ecpunpack", "--input", "readback.bit", "--textcfg", "readback.config"],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    head = (tmp_path / "readback.config").read_text()[:2000]
    assert ".device LFE5U-85F" in head
