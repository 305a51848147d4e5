"""Task delays: the RTOS tick's countdown for the tasks that own a task context.

A core with task contexts (cores/README.md "Task contexts") holds a task per
context; a task that delays itself waits here, not in the kernel's delayed
list. One channel per context but context 0 (shared by the tasks without a
context of their own, which keep the kernel's delayed list). A channel is a
down counter of ticks; a tick is the rise of the machine timer's interrupt
line (the RTOS tick, soc/mtimer.py). A channel that counts down to zero
pulses its interrupt line, a CLIC source the port binds to the channel's
context: the core then switches straight into the delayed task (cores/README.md
"Bound interrupts"), and no tick handler walks a list for it.

    tick ─► rise ─► every counting channel: count - 1; at 0: irq[i] for a cycle
    load (write: channel, ticks) ─► count

Cycle contract (tests/test_taskdelay.py; "in cycle c" = the value seen then):
  * the tick line is low in cycle t-1 and high in t: every channel whose count
    is n > 0 in t holds n-1 from t+1; a channel whose count goes 1 -> 0 has
    irq = 1 in cycle t+1 only (a pulse: the CLIC source is edge-triggered).
  * a write of `load` in cycle w (the CSR's re) with channel c and ticks n:
    channel c holds n from w+1 (n = 0 stops it, nothing fires). A write in the
    cycle of a rise wins over that rise's count for its channel: the n ticks
    count from the next rise.
  * a channel counts the rises after its write: written between a tick's rise
    and the kernel's tick handler (a task in a critical section), it wakes its
    task one tick later than the kernel's delayed list would.

CSRs: load (write: bits 31:28 the context, bits 27:0 the ticks; a context
without a channel is ignored), armed (read: bit c set while context c's
channel counts).
"""

from migen import *

from litex.soc.interconnect.csr import AutoCSR, CSRStatus, CSRStorage

TICK_BITS = 28           # longer delays stay in the kernel's delayed list
CONTEXT_SHIFT = 28


class TaskDelays(Module, AutoCSR):
    def __init__(self, contexts):
        """contexts: the core's task contexts; channels for contexts 1..contexts-1."""
        assert 2 <= contexts <= 16
        self.channels = n = contexts - 1
        self.tick = Signal()
        self.irq = Signal(n)

        self._load = CSRStorage(32, description="Bits 31:28 a task context (1 and up), bits 27:0 "
                                "ticks: that context's channel counts them from the next tick; 0 stops it.")
        self._armed = CSRStatus(contexts, description="Bit c: context c's channel counts.")

        tick_before = Signal()
        rise = Signal()
        self.sync += tick_before.eq(self.tick)
        self.comb += rise.eq(self.tick_event(tick_before))
        load_context = self._load.storage[CONTEXT_SHIFT:]
        load_ticks = self._load.storage[:TICK_BITS]
        for i in range(n):
            count = Signal(TICK_BITS, name=f"count{i + 1}")
            self.sync += [
                self.irq[i].eq(0),
                If(self._load.re & (load_context == i + 1),
                    count.eq(load_ticks)
                ).Elif(rise & (count != 0),
                    count.eq(count - 1),
                    self.irq[i].eq(count == 1),
                ),
            ]
            self.comb += self._armed.status[i + 1].eq(count != 0)

    def tick_event(self, tick_before):
        """What counts as a tick: the line's rise (a level held over many
        cycles, while the tick's handler runs, is one tick)."""
        return self.tick & ~tick_before
