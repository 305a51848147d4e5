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
