"""`irqlab build --board B` and `irqlab load`: a bitstream (or complete
projects) and its report, for any FPGA board of boards/registry.py.

Steps for one board and core:
  1. generate the SoC once for its software headers and build the firmware
     against them (the same fw/ as in simulation);
  2. hand over to the board's flow (irqlab/flows/: ecp5, xilinx), which
     generates the SoC again with the firmware in ROM, runs its tools and
     writes bitstreams/<board>-<core>.json (irqlab/flows/report.py).
"""

import os
import shutil
import subprocess

from irqlab import paths
from irqlab.flows import report as boardreport
from irqlab.builders import firmware
from irqlab.boards import registry
from irqlab.errors import BoardBuildError
from irqlab.flows import BuildJob, flow, litexgen, own_tools_dir
from irqlab.rows import row as row_info

BITSTREAMS = boardreport.BITSTREAMS
summary = boardreport.summary
tools_dir = own_tools_dir

__all__ = ["BoardBuildError", "board_dir", "build", "load", "summary", "tools_dir", "BITSTREAMS"]


def board_dir(board, core):
    return os.path.join(paths.BUILD, "boards", f"{board}-{core}")


def job(board, core, progress=None, **overrides):
    """The checked options of one build (defaults from the board's descriptor)."""
    b = registry.fpga_board(board)
    r = row_info(core)
    if b.flow == "ecp5" and not r.soc_config.open_flow:
        raise BoardBuildError(f"core '{core}' cannot go through the open ECP5 flow: yosys cannot read its "
                              f"SystemVerilog; build it for the Arty with Vivado")
    return BuildJob(board=b, core=core, dir=board_dir(board, core), options=b.options(r.soc, **overrides),
                    firmware=None, progress=progress, toolchain_asked=overrides.get("toolchain"))


def generate_headers(j):
    """The SoC's software headers (no firmware, no flow): what the firmware builds against."""
    return litexgen.generate(j, j.dir)


def build(board, core, progress=None, **overrides):
    """Build one board/core; returns the report dict (also written as JSON)."""
    j = job(board, core, progress, **overrides)
    if os.path.exists(j.dir):
        shutil.rmtree(j.dir)
    j.step("generating the SoC for its software headers")
    generate_headers(j)
    j.step("building the firmware")
    j.firmware = firmware.build(core, "bench", os.path.join(j.dir, "software", "include"),
                                os.path.join(j.dir, "fw", f"{core}-bench-rom"))
    return flow(j.board.flow).build(j)


def default_bitstream(board, core):
    """The bitstream the last build wrote, as its report names it."""
    r = boardreport.read(board, core)
    if r is None:
        raise BoardBuildError(f"no build report bitstreams/{board}-{core}.json: "
                              f"run irqlab build --board {board} --core {core}")
    if not r.get("bitstream"):
        raise BoardBuildError(f"the last {board}/{core} build wrote no bitstream (bitstreams/{board}-{core}.json"
                              f" says why); build it again or pass --bitstream")
    return os.path.normpath(os.path.join(paths.ROOT, r["bitstream"])), r


def load(board, core, bitstream=None, flash=False):
    b = registry.fpga_board(board)
    tool = shutil.which("openFPGALoader")
    if not tool:
        raise BoardBuildError("openFPGALoader not found: apt-get install openfpgaloader")
    report = boardreport.read(board, core) or {}
    if bitstream is None:
        bitstream, report = default_bitstream(board, core)
    if not os.path.exists(bitstream):
        raise BoardBuildError(f"no bitstream at {bitstream}: run irqlab build --board {board} --core {core}")
    choice = report.get(b.option, b.choices[0])
    cmd = [tool, *b.programmer.command(choice)] + (["-f"] if flash else []) + [bitstream]
    if subprocess.run(cmd).returncode != 0:
        raise BoardBuildError(f"openFPGALoader failed: {' '.join(cmd)}")
