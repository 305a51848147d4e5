"""Bus-stress master: random reads and writes on the SoC's Wishbone bus at a
set intensity, so that the core's own accesses meet contention (test case T7
of the measurement suite; the fast-interrupt core's stress tests).

The master draws from a 32-bit LFSR (x^32 + x^22 + x^2 + x + 1, Galois form)
that steps every cycle while it is enabled, so a run with the same seed and
the same bus timing makes the same traffic. One access is under way at a
time:

    draw d (the LFSR's value in a free cycle t, i.e. no access under way):
        start   when d[0:8] < intensity   (0: never, 255: 255 of 256 free cycles)
        address base + 4 * (d[8:24] & mask)       (a word inside the window)
        write   when d[24:32] < write_share       (0: reads only, 255: nearly all writes)
        data    d (rotated by 16), all four byte lanes

Cycle contract (t = a free cycle whose draw starts an access):
  * cyc = stb = 1 from t+1 until the cycle u in which the slave acks; adr,
    we, dat_w and sel hold their values throughout.
  * at the edge ending u: cyc = stb = 0, `reads` or `writes` counts it; the
    cycles from t+1 to u-1 (the bus made it wait) add to `wait_cycles`.
  * u+1 is a free cycle again: at most one access every two cycles.
  * clearing `enable` lets an access under way finish; none starts after.

CSRs (LiteX CSR bus): enable, intensity, write_share, seed (a write loads
the LFSR; 0 is replaced by 1), base (byte address, word-aligned), mask
(word-offset mask: the window is 4 * (mask + 1) bytes when mask + 1 is a
power of two), and the counters reads, writes, wait_cycles (32 bits,
wrapping), cleared by writing `clear`.
"""

from migen import *

from litex.soc.interconnect import wishbone
from litex.soc.interconnect.csr import AutoCSR, CSR, CSRStatus, CSRStorage

from irqlab.soc.lfsr import step as lfsr_step


def draw_fields(d):
    """(start threshold byte, word offset, write byte, data) of a draw."""
    return d & 0xFF, (d >> 8) & 0xFFFF, (d >> 24) & 0xFF, ((d >> 16) | (d << 16)) & 0xFFFFFFFF


class BusStress(Module, AutoCSR):
    def __init__(self, default_base=0, default_mask=0xFF):
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")

        self._enable = CSRStorage(1, description="1: issue random accesses")
        self._intensity = CSRStorage(8, description="start an access when the draw's low byte is below this")
        self._write_share = CSRStorage(8, description="an access is a write when the draw's top byte is below this")
        self._seed = CSRStorage(32, reset=1, description="write: load the LFSR (0 becomes 1)")
        self._base = CSRStorage(32, reset=default_base, description="byte address of the window")
        self._mask = CSRStorage(16, reset=default_mask, description="word-offset mask of the window")
        self._clear = CSR()          # write: clear the counters
        self._reads = CSRStatus(32, description="reads completed")
        self._writes = CSRStatus(32, description="writes completed")
        self._wait_cycles = CSRStatus(32, description="cycles an access waited for its ack")

        lfsr = Signal(32, reset=1)
        busy = Signal()
        thresh, offset, wbyte = lfsr[0:8], lfsr[8:24], lfsr[24:32]
        start = Signal()
        self.comb += [
            start.eq(self._enable.storage & ~busy & (thresh < self._intensity.storage)),
            bus.cyc.eq(busy),
            bus.stb.eq(busy),
            bus.sel.eq(0xF),
        ]
        self.sync += [
            If(self._seed.re,
                lfsr.eq(Mux(self._seed.storage == 0, 1, self._seed.storage))
            ).Elif(self._enable.storage,
                lfsr.eq(lfsr_step(lfsr))
            ),
            If(start,
                busy.eq(1),
                bus.adr.eq((self._base.storage[2:] + (offset & self._mask.storage))),
                bus.we.eq(wbyte < self._write_share.storage),
                bus.dat_w.eq(Cat(lfsr[16:], lfsr[:16])),
            ).Elif(busy & bus.ack,
                busy.eq(0),
            ),
            If(self._clear.re,
                self._reads.status.eq(0),
                self._writes.status.eq(0),
                self._wait_cycles.status.eq(0),
            ).Else(
                If(busy & bus.ack & ~bus.we, self._reads.status.eq(self._reads.status + 1)),
                If(busy & bus.ack & bus.we, self._writes.status.eq(self._writes.status + 1)),
                If(busy & ~bus.ack, self._wait_cycles.status.eq(self._wait_cycles.status + 1)),
            ),
        ]
        self.busy = busy
