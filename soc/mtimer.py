"""Machine timer in the style of the RISC-V mtime/mtimecmp pair (the RTOS tick).

mtime counts cycles; the interrupt is high while mtime >= mtimecmp. Both are
CSRs here (not the CLINT memory map) so they work with every core.
"""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR


class MachineTimer(Module, AutoCSR):
    def __init__(self):
        self.irq = Signal()
        self._latch = CSR()  # write: latch mtime into time
        self._time = CSRStatus(64)
        self._mtimecmp = CSRStorage(64, reset=2**64 - 1)
        mtime = Signal(64)
        self.sync += mtime.eq(mtime + 1)
        self.sync += If(self._latch.re, self._time.status.eq(mtime))
        # Registered: a 64-bit compare is a long path into the core's interrupt logic.
        self.sync += self.irq.eq(mtime >= self._mtimecmp.storage)
