"""On-chip latency statistics for one pair of trace events (start A, stop B).

Fed from the trace unit's capture stage, before any FIFO, so the figures stay
lossless at any interrupt rate. A start arms the unit (a start while armed is
ignored, so the latency runs from the oldest unserved edge); the next stop
records B - A into count, sum, min, max and a histogram in block RAM.

Selectors (8 bits, see trace/record.py): class in [7:6] (hw rise, hw fall,
sw channel, PC match), index in [5:0].
"""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStorage, CSRStatus, CSR

from irqlab.host import record as rec

N_BINS = 64


def _bit(vec, index):
    """vec[index] for a signal index: a shift, one operation for the
    simulator where an Array is a case per bit; an index past the end picks
    the last bit, as an Array does."""
    n = 1 << len(index)
    if n > len(vec):
        vec = Cat(vec, Replicate(vec[-1], n - len(vec)))
    return (vec >> index)[0]


def select(sel, rise, fall, sw_valid, sw_chan, pc_match):
    """One-bit 'this event happened now' for an 8-bit selector."""
    cls, idx = sel[6:8], sel[:6]
    hit = Signal()
    pc_bit = Signal()
    n_pc = len(pc_match)
    # Indexing a signal by a signal: wrap to the vector's width.
    return hit, [
        pc_bit.eq(_bit(pc_match, idx[:max(1, (n_pc - 1).bit_length())])),
        Case(cls, {
            rec.SEL_HW_RISE: hit.eq(_bit(rise, idx[:5])),
            rec.SEL_HW_FALL: hit.eq(_bit(fall, idx[:5])),
            rec.SEL_SW: hit.eq(sw_valid & (sw_chan == idx)),
            rec.SEL_PC_MATCH: hit.eq(pc_bit),
        })
    ]


class LatencyStats(Module, AutoCSR):
    def __init__(self, ts, rise, fall, sw_valid, sw_chan, pc_match):
        self._start_sel = CSRStorage(8, description="Event that starts a measurement (A).")
        self._stop_sel = CSRStorage(8, description="Event that ends it (B).")
        self._hist_shift = CSRStorage(5, description="Histogram bin width = 2**shift cycles.")
        self._hist_offset = CSRStorage(32, description="Latency of the first histogram bin.")
        self._clear = CSR()  # write: clear all figures (takes N_BINS cycles)
        self._count = CSRStatus(32)
        self._sum = CSRStatus(64)
        self._min = CSRStatus(32, reset=2**32 - 1)
        self._max = CSRStatus(32)
        self._hist_index = CSRStorage(6)
        self._hist_data = CSRStatus(32)

        start, start_stmts = select(self._start_sel.storage, rise, fall, sw_valid, sw_chan, pc_match)
        stop, stop_stmts = select(self._stop_sel.storage, rise, fall, sw_valid, sw_chan, pc_match)
        self.comb += start_stmts + stop_stmts
        self.start, self.stop = start, stop

        # Stage 0: the event pair. Stage 1: the figures and the histogram bin,
        # from registered values (short paths: 50 MHz on an ECP5). Stage 2:
        # the histogram's read-modify-write (stops are >= 2 cycles apart).
        armed = Signal()
        t0 = Signal(32)
        done = Signal()
        delta = Signal(32)
        clearing = Signal()
        clear_idx = Signal(max=N_BINS + 1)
        self.sync += [
            done.eq(stop & armed & ~self._clear.re),
            delta.eq(ts[:32] - t0),      # latencies are < 2**32 cycles
            If(self._clear.re,
                armed.eq(0),
            ).Elif(stop & armed,
                armed.eq(0),
            ).Elif(start & ~armed,
                armed.eq(1), t0.eq(ts[:32]),
            )
        ]
        self.sync += [
            If(self._clear.re,
                self._count.status.eq(0), self._sum.status.eq(0),
                self._min.status.eq(2**32 - 1), self._max.status.eq(0),
            ).Elif(done,
                self._count.status.eq(self._count.status + 1),
                self._sum.status.eq(self._sum.status + delta),
                If(delta < self._min.status, self._min.status.eq(delta)),
                If(delta > self._max.status, self._max.status.eq(delta)),
            )
        ]

        mem = Memory(32, N_BINS)
        self.specials += mem
        rport = mem.get_port()
        wport = mem.get_port(write_capable=True)
        cport = mem.get_port()
        self.specials += rport, wport, cport
        above = Signal(32)
        over = Signal(32)
        self.comb += [
            above.eq(Mux(delta > self._hist_offset.storage, delta - self._hist_offset.storage, 0)),
            over.eq(above >> self._hist_shift.storage),
        ]
        bin_ = Signal(6)
        self.comb += bin_.eq(Mux(over >= N_BINS, N_BINS - 1, over))
        update = Signal()
        upd_bin = Signal(6)
        self.sync += [update.eq(done & ~self._clear.re), upd_bin.eq(bin_)]
        self.comb += [
            rport.adr.eq(bin_),
            If(clearing,
                wport.adr.eq(clear_idx), wport.dat_w.eq(0), wport.we.eq(1),
            ).Else(
                wport.adr.eq(upd_bin), wport.dat_w.eq(rport.dat_r + 1), wport.we.eq(update),
            ),
            cport.adr.eq(self._hist_index.storage),
            self._hist_data.status.eq(cport.dat_r),
        ]
        self.sync += [
            If(self._clear.re,
                clearing.eq(1), clear_idx.eq(0)
            ).Elif(clearing,
                If(clear_idx == N_BINS - 1, clearing.eq(0)),
                clear_idx.eq(clear_idx + 1),
            )
        ]
