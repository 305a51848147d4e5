"""The ECP5 flow (ULX3S): yosys synth_ecp5, nextpnr-ecp5 and ecppack, all
the project's own PyPI builds (boards/yowasp_tools.py), run from LiteX's
generated build script. Fails, with the report written and no bitstream
copied, when timing is not met at the requested clock."""

import os
import re

from irqlab.flows import report as boardreport
from irqlab.errors import BoardBuildError
from irqlab.flows import litexgen, logs, own_tools_dir, scriptrun
from irqlab.progress import LogSteps

# Which step the tools are in, from their output (yosys, then nextpnr, then ecppack).
STEPS = [
    (re.compile(r"Executing SYNTH_ECP5|^Yosys \d"), "synthesis (yosys)"),
    (re.compile(r"Info: Packing"), "packing (nextpnr-ecp5)"),
    (re.compile(r"Info: (Running|Creating initial) .*plac|Info: Placed \d"), "placement (nextpnr-ecp5)"),
    (re.compile(r"Info: Routing|Info: Running router"), "routing (nextpnr-ecp5)"),
    (re.compile(r"Info: Program finished normally"), "bitstream (ecppack)"),
]


def project(job):
    """The LiteX project the flow synthesizes, the firmware (job.firmware) in
    ROM: its gateware folder. The board twin (boards/twin/) simulates this
    same Verilog."""
    return litexgen.generate(job, job.dir, rom=True)


def build(job):
    step_prefix = f"{job.board.name}/{job.core}"
    job.step("generating the project with the firmware in ROM")
    gw = project(job)
    log = os.path.join(job.dir, "flow.log")
    job.step("synthesis, place and route (yosys + nextpnr-ecp5 in WebAssembly; 15-22 minutes)")
    steps = LogSteps(job.progress, step_prefix, STEPS, first=STEPS[0][1])
    scriptrun.run(["bash", f"build_{litexgen.TOP}.sh"], gw, log, steps,
                  path_first=[own_tools_dir()], what=f"{step_prefix}: the ECP5 flow")
    with open(log, errors="replace") as f:
        util, clocks = logs.parse_nextpnr(f.read())
    report = {"board": job.board.name, "core": job.core, "device": job.options["device"],
              "git": boardreport.git_revision(), "sys_clk_mhz": job.options["sys_clk_freq"] / 1e6,
              **logs.ecp5_resources(util), "clocks": clocks,
              "timing_met": bool(clocks) and all(c["met"] for c in clocks.values()),
              "utilization": util, "bitstream": None}
    if not report["timing_met"]:
        boardreport.write(report)
        raise BoardBuildError(boardreport.timing_failure(step_prefix, job.options["sys_clk_freq"], clocks, job.name))
    report["bitstream"] = boardreport.copy_bitstream(os.path.join(gw, litexgen.TOP), job.name, log,
                                                     exts=(".bit", ".svf"))
    boardreport.write(report)
    return report
