"""FPGA flows: from a board's generated LiteX project to a bitstream and the
figures of its report. One module per flow (the board descriptor names it):

    ecp5.py      yosys + nextpnr-ecp5 + ecppack (the PyPI builds, boards/yowasp_tools.py)
    xilinx.py    Vivado and openXC7 (nextpnr-xilinx): what each needs, running, reading the results
    xc7estimate.py  the yosys utilization estimate in every Arty report
    litexgen.py  the LiteX generation step both share
    scriptrun.py runs a flow's build script with its log and progress
    logs.py      reads nextpnr, Vivado and yosys logs

Beside them, what every flow shares:
    build.py     `irqlab build --board B` and `irqlab load`: firmware, the flow, the report
    report.py    the build reports (bitstreams/<board>-<core>.json) and bitstream copies
"""

import importlib
from dataclasses import dataclass
from typing import Optional

FLOWS = {"ecp5": "irqlab.flows.ecp5", "xilinx": "irqlab.flows.xilinx"}


@dataclass
class BuildJob:
    """One board build: what every flow gets."""
    board: object                       # its BoardDescriptor
    core: str
    dir: str                            # build/boards/<board>-<core>
    options: dict                       # checked by the descriptor: part, toolchain, sys_clk_freq
    firmware: str                       # the ROM image
    progress: object = None             # irqlab.progress.Progress, or None
    toolchain_asked: Optional[str] = None   # --toolchain: that flow must run

    @property
    def name(self):
        return f"{self.board.name}-{self.core}"

    def step(self, msg):
        if self.progress:
            self.progress.step(f"{self.board.name}/{self.core}: {msg}")


def flow(name):
    return importlib.import_module(FLOWS[name])


def own_tools_dir():
    """A folder of `yosys`, `nextpnr-ecp5`, `ecppack`... commands that run the
    project's own (PyPI, WebAssembly) builds; flows put it first on PATH."""
    import os
    from irqlab import paths
    from irqlab.boards.yowasp_tools import write_wrappers
    return write_wrappers(os.path.join(paths.BUILD, "tools", "bin"))
