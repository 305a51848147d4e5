"""Lets the firmware end a simulation with an exit code (sim target only)."""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStorage


class SimControl(Module, AutoCSR):
    def __init__(self, pads):
        self._exit = CSRStorage(9, description="Write 0x100 | code to end the simulation.")
        self.comb += [pads.done.eq(self._exit.storage[8]), pads.code.eq(self._exit.storage[:8])]
