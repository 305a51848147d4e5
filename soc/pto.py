"""Pulse-train output (PTO): a timer whose compare event toggles an output pin
in hardware and raises an interrupt; the handler writes the interval to the
next edge, counted from the last edge (hardware-relative), so an edge is
exact to the cycle whenever the handler writes in time, and a late write is
counted, never silent (the PTO application of seed 002 Sec. 5.4).

    ctrl.enable ─┐        next (write: arm) ──► interval, armed
                 ▼                               │
    t (cycles since the last edge) ── t+1 ≥ interval & armed ──► edge:
        pin toggles, irq set, t restarts, armed cleared, edges += 1,
        late (t+1 > interval) ──► misses += 1

Cycle contract (cycle c counts from the first cycle with enable = 1 as 0;
"in cycle c" = the value seen in that cycle):
  * while enable = 0: pin = 0, irq = 0, t = 0; the stop (the first
    disabled cycle) drops what was armed; a write of `next` while disabled
    arms the first edge of the next train, which stays armed until the
    start (so the first edge comes exactly `next` cycles after the enable,
    never late).
    Counters keep their values until the train starts: they read 0 from
    c = 1.
  * t = 0 in the first enabled cycle and in the cycle after each edge, and
    grows by one per enabled cycle (saturating at 2**INTERVAL_BITS - 1).
  * a write of `next` in cycle w (the CSR's re) arms it: interval = the
    written value and armed = 1 from w + 1; irq = 0 from w + 1.
  * an edge fires in a cycle f with armed and t + 1 >= interval: from f + 1
    the pin shows its other level, irq = 1, t = 0, armed = 0 and `edges` has
    grown by one. With interval = I, the last edge in cycle e (its new
    level first seen) and the write in time (w + 1 <= e + I - 1), the next
    edge's level is first seen in cycle e + I: exact. A later write makes
    the edge fire in w + 1 (level seen in w + 2), t + 1 > I there: `misses`
    grows by one in the same cycle as `edges`.
  * a write in the cycle an edge fires arms the edge after it; the edge's
    irq wins over the write's clear.

CSRs: ctrl (bit 0 enable), next (the interval in cycles, 1..2**24-1;
writing arms the next edge and acknowledges the interrupt; a train starts
with a write of `next`, then of `ctrl`), edges (edges
since the start), misses (edges that came late: the write was after their
due cycle), status (bit 0 armed, bit 1 the pin's level).
"""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStatus, CSRStorage

INTERVAL_BITS = 24     # 335 ms at 50 MHz: the slowest edge a train may have


class PulseTrainOutput(Module, AutoCSR):
    def __init__(self):
        self.pin = Signal()
        self.irq = Signal()

        self._ctrl = CSRStorage(1, description="bit 0: enable. Clearing it stops the train: "
                                               "pin low, nothing armed, interrupt cleared. Write `next` "
                                               "first: it arms the first edge.")
        self._next = CSRStorage(INTERVAL_BITS, description="Cycles from the last edge to the next one; "
                                "writing arms that edge and clears the interrupt.")
        self._edges = CSRStatus(32, description="Edges since the train started (enable set).")
        self._misses = CSRStatus(16, description="Edges that came late: `next` was written after "
                                 "their due cycle (last edge + interval).")
        self._status = CSRStatus(2, description="bit 0: an edge is armed; bit 1: the pin's level.")

        enable = self._ctrl.storage[0]
        was_enabled = Signal()
        t = Signal(INTERVAL_BITS)
        interval = Signal(INTERVAL_BITS)
        armed = Signal()
        edges = self._edges.status
        misses = self._misses.status
        due = Signal()
        late = Signal()
        self.comb += [
            due.eq(armed & (t + 1 >= interval)),
            late.eq(t + 1 > interval),
            self._status.status.eq(Cat(armed, self.pin)),
        ]
        self.sync += [
            was_enabled.eq(enable),
            If(~enable,
                self.pin.eq(0), self.irq.eq(0), t.eq(0),
                If(was_enabled, armed.eq(0)),      # the stop drops what was armed
                If(self._next.re, interval.eq(self._next.storage), armed.eq(1)),
            ).Else(
                If(~was_enabled, edges.eq(0), misses.eq(0)),
                If(due,
                    self.pin.eq(~self.pin), t.eq(0), armed.eq(0),
                    If(was_enabled, edges.eq(edges + 1),
                       If(late, misses.eq(misses + 1))),
                ).Elif(t != 2**INTERVAL_BITS - 1, t.eq(t + 1)),
                If(self._next.re,
                    interval.eq(self._next.storage), armed.eq(1),
                ),
                # The edge's interrupt wins over the write's acknowledgement.
                If(due, self.irq.eq(1)).Elif(self._next.re, self.irq.eq(0)),
            ),
        ]
