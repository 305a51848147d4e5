"""Board builds: the Arty A7 projects of the project's CLIC core for Vivado
and openXC7, with a yosys utilization estimate. The Arty flows' decisions
with stand-in tools are in tests/test_xilinx_flow.py."""

import os

from irqlab import paths
from irqlab.flows import build as boardbuild
from irqlab.progress import Progress
from test_boards import FPGA_CORE


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
