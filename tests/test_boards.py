"""Board builds: the ULX3S bitstream of the project's CLIC core through the open ECP5
flow (timing met at its clock, read back as the right device; marked `fpga`:
place and route takes 15-22 minutes in WebAssembly; `make test` runs it, and
`make test-boards` runs only these), and the Arty projects for Vivado and
openXC7 with a yosys utilization estimate. The Arty flows' decisions with
stand-in tools are in tests/test_xilinx_flow.py."""

import json
import os
import subprocess

import pytest

from irqlab import boardbuild, paths
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
    cfg = tmp_path / "readback.config"
    subprocess.run(["ecpunpack", "--input", os.path.join(paths.ROOT, ulx3s["bitstream"]),
                    "--textcfg", str(cfg)], check=True, env=env, capture_output=True)
    head = cfg.read_text()[:2000]
    assert ".device LFE5U-85F" in head


def test_arty_projects_and_estimate():
    r = boardbuild.build("arty", FPGA_CORE, Progress())
    vivado = os.path.join(paths.ROOT, r["projects"]["vivado"])
    openxc7 = os.path.join(paths.ROOT, r["projects"]["openxc7"])
    assert os.path.exists(os.path.join(vivado, "irqlab.tcl"))
    assert os.path.exists(os.path.join(vivado, "irqlab.xdc"))
    # The openXC7 script points at the real chip database and Project X-Ray
    # paths (never at the placeholder LiteX is given while it writes it).
    with open(os.path.join(openxc7, "build_irqlab.sh")) as f:
        script = f.read()
    assert "--chipdb " in script and "placeholder" not in script and "xc7a35ticsg324.bin" in script
    # The descriptor's header pins are in the constraints.
    with open(os.path.join(vivado, "irqlab.xdc")) as f:
        xdc = f.read()
    for ball in ("G13", "K16", "E15", "E16", "D15", "C15", "J17"):    # JA1, JA10, JB1, JB2, JB3, JB4, JB7
        assert f"set_property LOC {ball} " in xdc, ball
    e = r["estimate"]
    assert 1000 < e["luts"] < 30000 and e["flip_flops"] > 500 and e["bram36"] + e["bram18"] > 2
    for tc, fl in r["flows"].items():
        assert fl["run"] or fl["reason"].startswith("missing ")
