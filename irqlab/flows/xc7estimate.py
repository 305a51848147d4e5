"""A utilization estimate of a Xilinx 7-series design by the project's own
yosys (`synth_xilinx`): LUT/FF/BRAM/DSP with no place and route and no
timing. Runs wherever irqlab runs, so every Arty report has figures."""

import json
import os
import re

from irqlab.errors import BoardBuildError
from irqlab.flows import litexgen, logs, own_tools_dir, scriptrun


def estimate(project_dir):
    gw = os.path.join(project_dir, "gateware")
    with open(os.path.join(project_dir, "sources.json")) as f:
        src = json.load(f)
    files = [p for p in src["sources"] if p.endswith((".v", ".sv"))]
    if not any(os.path.basename(p) == litexgen.TOP + ".v" for p in files):
        files.append(os.path.join(gw, litexgen.TOP + ".v"))
    incs = " ".join(f"-I{p}" for p in src["include_paths"])
    script = os.path.join(gw, "estimate.ys")
    with open(script, "w") as f:
        for p in files:
            f.write(f"read_verilog {'-sv ' if p.endswith('.sv') else ''}{incs} {p}\n")
        f.write(f"synth_xilinx -family xc7 -flatten -top {litexgen.TOP}\nstat\n")
    full = os.path.join(gw, "estimate.log.full")
    try:
        scriptrun.run(["yosys", "-q", "-l", full, "-s", script], gw, os.path.join(gw, "estimate.log"),
                      path_first=[own_tools_dir()], what="yosys synth_xilinx (the estimate)")
    except BoardBuildError:
        raise BoardBuildError(f"yosys synth_xilinx failed (log: {full})") from None
    with open(full, errors="replace") as f:
        cells = logs.parse_yosys_stat(f.read(), litexgen.TOP)
    return {
        "tool": "yosys synth_xilinx (no place and route)",
        "luts": sum(n for c, n in cells.items() if re.fullmatch(r"LUT[1-6]", c)),
        "flip_flops": sum(n for c, n in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", c)),
        "bram36": cells.get("RAMB36E1", 0), "bram18": cells.get("RAMB18E1", 0),
        "lutram": sum(n for c, n in cells.items() if c.startswith(("RAM32", "RAM64", "RAM128", "RAM256"))),
        "dsp": cells.get("DSP48E1", 0),
        "cells": cells,
    }


def not_estimated(reason):
    return {"tool": f"none: {reason}", "luts": None, "flip_flops": None, "bram36": None, "bram18": None,
            "lutram": None, "dsp": None}
