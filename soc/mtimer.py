"""Machine timer: the RISC-V mtime/mtimecmp pair (the RTOS tick).

mtime counts cycles; the interrupt is high while mtime >= mtimecmp (from the
cycle after, registered). Two views of the same registers:

  bus    the CLINT memory layout that FreeRTOS's stock RISC-V port expects
         (configMTIME_BASE_ADDRESS / configMTIMECMP_BASE_ADDRESS), 32-bit words:
           base + MTIMECMP (0x4000)  mtimecmp low, +4 high   (read/write)
           base + MTIME    (0xBFF8)  mtime low,    +4 high   (read-only)
         Reads and writes take one cycle (ack in the next). On RV32, read
         mtime high, low, high again (the carry may ripple between the reads);
         write mtimecmp high to all ones first, then low, then high.
  CSRs   latch (write: copy mtime into `time`), time, mtimecmp: the view
         any core reaches through LiteX's CSR bus.

The SoC routes `irq` to the core's machine-timer interrupt (mip.MTIP, cause
7) where the core has that input, and to the interrupt line or CLIC source
IRQLAB_IRQ_MTIMER.
"""

from migen import *

from litex.soc.interconnect import wishbone
from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR

MTIMECMP = 0x4000
MTIME = 0xBFF8
SIZE = 0x10000


class MachineTimer(Module, AutoCSR):
    def __init__(self):
        self.irq = Signal()
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self._latch = CSR()  # write: latch mtime into time
        self._time = CSRStatus(64)
        self._mtimecmp = CSRStorage(64, reset=2**64 - 1)
        self.mtime = mtime = Signal(64)
        self.mtimecmp = cmp = Signal(64, reset=2**64 - 1)
        self.sync += mtime.eq(mtime + 1)
        self.sync += If(self._latch.re, self._time.status.eq(mtime))

        # The bus view: word address within the 64 KiB window.
        word = Signal(14)
        access = Signal()
        self.comb += [word.eq(bus.adr[:14]), access.eq(bus.cyc & bus.stb & ~bus.ack)]
        self.sync += bus.ack.eq(access)
        cases_w = {
            MTIMECMP // 4:     cmp[:32].eq(bus.dat_w),
            MTIMECMP // 4 + 1: cmp[32:].eq(bus.dat_w),
        }
        self.sync += [
            If(self._mtimecmp.re, cmp.eq(self._mtimecmp.storage)
            ).Elif(access & bus.we, Case(word, cases_w)),
            If(access, Case(word, {
                MTIMECMP // 4:     bus.dat_r.eq(cmp[:32]),
                MTIMECMP // 4 + 1: bus.dat_r.eq(cmp[32:]),
                MTIME // 4:        bus.dat_r.eq(mtime[:32]),
                MTIME // 4 + 1:    bus.dat_r.eq(mtime[32:]),
                "default":         bus.dat_r.eq(0),
            })),
        ]
        # Registered: a 64-bit compare is a long path into the core's interrupt logic.
        self.sync += self.irq.eq(mtime >= cmp)
