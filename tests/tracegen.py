"""Synthetic traces for the host-side tests: records as the trace unit sends them."""

from irqlab.host import record as rec
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.host.protocol import CH_HANDLER_ENTRY, CH_TEST_BEGIN, CH_TEST_END

TEST_LATENCY = BENCHMARKS["latency"].test_id


class TraceBuilder:
    def __init__(self):
        self.seq = 0
        self.chunks = []

    def add(self, rtype, ts, payload):
        self.chunks.append(rec.pack(rtype, self.seq, ts, payload))
        self.seq = (self.seq + 1) & 0xFF
        return self

    def time_hi(self, ts):
        return self.add(rec.TYPE_TIME_HI, ts, ts >> 48)

    def hw(self, ts, rise=0, fall=0):
        return self.add(rec.TYPE_HW, ts, rise | fall << 32)

    def sw(self, ts, chan, data=0):
        return self.add(rec.TYPE_SW, ts, data | chan << 32)

    def core(self, ts, kind, pc=0, arg=0, exec_age=0):
        return self.add(rec.TYPE_CORE, ts, pc | kind << 32 | arg << 40 | exec_age << rec.EXEC_AGE_SHIFT)

    def bytes(self):
        return b"".join(self.chunks)


def latency_trace(latencies, gap=500, t0=1000):
    """A latency test: generator line 0 rises, the handler marks entry `lat` cycles later."""
    tb = TraceBuilder().time_hi(0).sw(t0, CH_TEST_BEGIN, TEST_LATENCY)
    t = t0 + 100
    for lat in latencies:
        line0 = 1 << rec.HW_GEN_LINE
        tb.hw(t, rise=line0 | 1 << rec.HW_GEN_PHASE)
        tb.hw(t + 1, fall=1 << rec.HW_GEN_PHASE)
        tb.sw(t + lat, CH_HANDLER_ENTRY)
        tb.hw(t + lat + 3, fall=line0)
        t += gap
    tb.sw(t, CH_TEST_END, TEST_LATENCY)
    return tb.bytes()


def console(tb, ts, text):
    for i, ch in enumerate(text):
        tb.add(rec.TYPE_CONSOLE, ts + i, ord(ch))
    return tb


IRQ8 = rec.HW_CPU_IRQ + 8        # the core input that generator line 0 drives
MEI = 0x80 | 11                  # mcause byte of a machine external interrupt


EXEC_AGE = 2                     # B's instruction entered execute this many cycles before it retired


def handler_trace(latencies, gap=400, t0=1000, handler_pc=0x100):
    """A latency test on a core with a retire port: line 0 (and the core input
    it drives) rises, the trap enters the handler, comparator 0 matches `lat`
    cycles after the edge (B-retire; B-execute EXEC_AGE cycles earlier), the
    C handler's store follows, the line falls
    when it is acknowledged, mret returns. Plus console text and an OVERFLOW."""
    tb = TraceBuilder().time_hi(0)
    console(tb, 10, "hi\n")
    tb.sw(t0, CH_TEST_BEGIN, TEST_LATENCY)
    t = t0 + 100
    for k, lat in enumerate(latencies):
        line = 1 << rec.HW_GEN_LINE | 1 << IRQ8
        tb.hw(t, rise=line | 1 << rec.HW_GEN_PHASE)
        tb.hw(t + 1, fall=1 << rec.HW_GEN_PHASE)
        tb.core(t + 4, rec.CORE_TRAP, handler_pc, MEI)
        tb.core(t + lat, rec.CORE_PC_MATCH, handler_pc + 0x40, 0, exec_age=EXEC_AGE)
        tb.sw(t + lat + 20, CH_HANDLER_ENTRY, k)
        tb.hw(t + lat + 25, fall=line)
        tb.core(t + lat + 60, rec.CORE_MRET, 0x180)
        t += gap
    tb.add(rec.TYPE_OVERFLOW, t, 2)
    tb.sw(t + 10, CH_TEST_END, TEST_LATENCY)
    return tb.bytes()
