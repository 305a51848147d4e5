"""The pulse-train output (soc/pto.py) in Migen simulation, cycle by cycle
against the contract of its docstring: an edge exactly one interval after
the last when the handler writes in time, a late write counted as a miss with
the edge at once, the interrupt set with the edge and cleared by the write,
and a stop that leaves the pin low."""

from migen import run_simulation

from irqlab.soc.pto import PulseTrainOutput


def run(cycles, handler, stop_at=None, preload=None, idle=0):
    """Runs the PTO from enabled cycle 0. `handler(c, irq_rose_at)` returns the
    interval to write in cycle c+1 or None (a write decided in cycle c is seen
    in c+1, as a CSR write). Returns per cycle (pin, irq, edges, misses, armed)
    and the cycles of the writes."""
    dut = PulseTrainOutput()
    out = {"trace": [], "writes": []}

    def bench():
        if preload is not None:                 # a write of `next` while disabled
            yield dut._next.storage.eq(preload)
            yield dut._next.re.eq(1)
            yield
            yield dut._next.re.eq(0)
            for _ in range(idle):               # the firmware's other work before the start
                yield
        yield dut._ctrl.storage.eq(1)
        yield                                   # cycle 0: the first enabled cycle
        for c in range(cycles):
            if c == stop_at:
                yield dut._ctrl.storage.eq(0)
            pin, irq = (yield dut.pin), (yield dut.irq)
            status = (yield dut._status.status)
            out["trace"].append((pin, irq, (yield dut._edges.status), (yield dut._misses.status), status & 1))
            value = handler(c, out["trace"])
            if value is not None:
                out["writes"].append(c + 1)
                yield dut._next.storage.eq(value)
                yield dut._next.re.eq(1)
            else:
                yield dut._next.re.eq(0)
            yield

    run_simulation(dut, bench())
    return out


def edges_of(trace):
    """The cycles in which the pin first shows a new level."""
    return [c for c in range(1, len(trace)) if trace[c][0] != trace[c - 1][0]]


class Handler:
    """Writes `intervals[k]` `delay` cycles after the interrupt of edge k-1
    was first seen (the first one `delay` cycles after the start)."""
    def __init__(self, intervals, delay):
        self.intervals, self.delay, self.k, self.seen = list(intervals), delay, 0, 0

    def __call__(self, c, trace):
        rose = c == 0 or (trace[c][1] and not trace[c - 1][1])
        if rose:
            self.seen = c
            self.pending = True
        if getattr(self, "pending", False) and c + 1 == self.seen + self.delay and self.k < len(self.intervals):
            self.pending = False
            self.k += 1
            return self.intervals[self.k - 1]
        return None


def expected_edges(intervals, delay):
    """The contract's edges: e_{k+1} = max(e_k + I, w + 2) with the write w
    `delay` cycles after the interrupt, first seen with edge e_k."""
    e, out, late = 0, [], 0
    for i in intervals:
        w = e + delay                              # the cycle the write is seen (its re)
        nxt = max(e + i, w + 2)
        late += nxt > e + i
        out.append(nxt)
        e = nxt
    return out, late


def test_in_time_edges_are_exact_and_interrupt_follows_the_edge():
    intervals = [40, 40, 25, 60, 30, 30]
    r = run(300, Handler(intervals, delay=10))
    edges = edges_of(r["trace"])
    assert (edges, 0) == expected_edges(intervals, 10) and edges == [40, 80, 105, 165, 195, 225]
    for e in edges:
        assert r["trace"][e][1] == 1 and r["trace"][e - 1][1] == 0, "irq rises with the edge"
    # The write acknowledges: irq low from the cycle after the write.
    for w in r["writes"][1:]:
        assert r["trace"][w][1] == 1 and r["trace"][w + 1][1] == 0
    assert r["trace"][-1][2] == len(intervals) and r["trace"][-1][3] == 0


def test_deadline_boundary_write_in_the_last_cycle_is_in_time():
    """A write seen in cycle e + I - 2 arms the edge in its fire cycle
    e + I - 1: exact. One cycle later it fires late, seen in e + I + 1."""
    ok = run(200, Handler([50, 20, 20, 20], delay=18))
    assert edges_of(ok["trace"]) == [50, 70, 90, 110]
    assert ok["trace"][-1][3] == 0
    late = run(200, Handler([50, 20, 20, 20], delay=19))
    # The write seen in e + 19 arms from e + 20: the edge fires there, seen in e + 21.
    assert (edges_of(late["trace"]), 3) == expected_edges([50, 20, 20, 20], 19) == ([50, 71, 92, 113], 3)
    assert late["trace"][-1][2:4] == (4, 3)


def test_miss_counted_in_the_same_cycle_as_the_edge():
    r = run(200, Handler([30, 10, 10], delay=15))
    edges = edges_of(r["trace"])
    assert (edges, 2) == expected_edges([30, 10, 10], 15) == ([30, 47, 64], 2)
    for e in edges[1:]:
        prev = r["trace"][e - 1]
        now = r["trace"][e]
        assert now[2] == prev[2] + 1 and now[3] == prev[3] + 1


def test_nothing_armed_no_edge_and_stop_leaves_pin_low():
    r = run(120, Handler([30], delay=5), stop_at=45)   # enable = 0 seen from cycle 46
    assert edges_of(r["trace"]) == [30, 47]        # the rise, and the stop's fall
    assert r["trace"][45][0] == 1 and r["trace"][45][4] == 0   # high, waiting: nothing armed
    assert all(t[0] == 0 and t[1] == 0 for t in r["trace"][47:])
    assert r["trace"][-1][2:4] == (1, 0), "counters keep their values after the stop"


def test_counters_clear_at_start():
    r = run(5, lambda c, t: None)
    assert [t[2:4] for t in r["trace"][1:]] == [(0, 0)] * 4


def test_write_while_disabled_arms_the_first_edge():
    """The firmware's start: `next`, then `ctrl`. The first edge comes exactly
    `next` cycles after the first enabled cycle, however slow the writes."""
    for idle in (0, 1, 20):
        handler = Handler([7, 7], delay=3)
        r = run(60, lambda c, t: None if c == 0 else handler(c, t), preload=5, idle=idle)
        edges = edges_of(r["trace"])
        assert edges[0] == 5 and r["trace"][0][4] == r["trace"][4][4] == 1, "armed before the start"
        assert edges == [5, 12, 19] and r["trace"][-1][2:4] == (3, 0)


def test_stop_drops_what_was_armed():
    """A stop with an edge armed (a handler wrote, then the train was
    stopped): the next train does not start with it."""
    r = run(40, lambda c, t: 50 if c == 1 else None, stop_at=10)
    assert r["trace"][5][4] == 1 and all(t[4] == 0 for t in r["trace"][12:])
    assert edges_of(r["trace"]) == []


def test_write_while_disabled_without_preload_is_not_armed():
    r = run(20, lambda c, t: None)
    assert edges_of(r["trace"]) == [] and all(t[4] == 0 for t in r["trace"])
