"""The benchmarks: one entry per test case of the benchmark firmware.

Each declares its test id (the bit in the firmware's `tests` mask and the
payload of its TEST_BEGIN/TEST_END events), what a row needs to run it, the
configuration fields it reads (trace/protocol.py, app "bench") and its columns
in the printed table. A new test case is one entry here plus its firmware.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    header: str
    width: int
    value: object            # fn(test entry of the results) -> printable value

    def cell(self, entry):
        try:
            v = self.value(entry) if entry else None
        except (KeyError, TypeError, ZeroDivisionError):
            v = None
        return "-" if v is None else v


def _lat(key):
    return lambda t: t["latency"].get(key)


NA = "n/a"   # the row's B has no such point (no retire port), not a missing figure


def b_execute(t, keys=("min", "median", "p99", "max")):
    """A latency test's B-execute figures as "a/b/..." (trace/analysis.py:
    the PC match's instruction entering execute); NA where B is the software
    event (stock cores: only that B exists), None without figures (results
    recorded before B-execute existed)."""
    from irqlab.host.analysis import B_SW_EVENT     # analysis imports this module
    s = t.get("latency_b_execute")
    if s is None:
        return NA if t.get("b_marker") == B_SW_EVENT else None
    return "/".join(str(s[k]) for k in keys) if s.get("count") else None


def _median_ns(t):
    ns = t["latency"].get("ns")
    return f"{ns['median']:.0f}" if ns else None


def _cycles_per_irq(t):
    c = t["cycles_per_irq"]
    return f"{c['median']:.1f}" if c.get("count") else None


def _handoff(t):
    h = t.get("handoff")
    return f"{h['median']:.0f}/{h['max']:.0f}" if h and h.get("count") else None


def _kirq_per_s(t):
    r = t["throughput_hz"]
    return f"{r['median'] / 1e3:.0f}" if r.get("count") else None


@dataclass(frozen=True)
class Benchmark:
    name: str
    test_id: int
    description: str
    config: tuple            # the bench configuration fields it reads
    columns: tuple
    needs: tuple = ()        # row/SoC features that must be true (irqlab.rows.Row, SocConfig)
    kind: str = "latency"    # "latency": B - A per interrupt; "throughput": handler runs per phase


BENCHMARKS = {b.name: b for b in [
    Benchmark("latency", 1,
              "interrupt latency B - A over randomized arrival: level requests on generator line 0 "
              "with a random gap, while the core runs a loop of loads, stores, multiplies and branches",
              ("lat_count", "lat_period", "lat_jitter", "seed"),
              (Column("irqs", 6, _lat("count")), Column("min", 5, _lat("min")),
               Column("median", 6, _lat("median")), Column("p99", 5, _lat("p99")),
               Column("max", 5, _lat("max")), Column("jitter", 6, _lat("jitter")),
               Column("median ns", 9, _median_ns),
               Column("B-exec min/med/p99/max", 22, b_execute))),
    Benchmark("throughput", 2,
              "back to back: line 0 held for a stimulation phase, each acknowledge raises the next "
              "request; handler runs per phase, and ret->B: cycles from a handler's return "
              "instruction (mret, emret) retiring to B of the next (rows with a retire port)",
              ("tp_phases", "tp_high", "tp_low", "seed"),
              (Column("b2b cyc", 7, _cycles_per_irq), Column("kIRQ/s", 7, _kirq_per_s),
               Column("ret->B", 7, _handoff)),
              kind="throughput"),
    Benchmark("preempt", 4,
              "a higher-level interrupt (line 0, level 0xC0) arriving while a lower-level handler "
              "(line 1, level 0x40) runs with interrupts enabled",
              ("lat_count", "lat_period", "lat_jitter", "seed"),
              (Column("preempt med", 11, _lat("median")), Column("preempt max", 11, _lat("max")),
               Column("preempt B-exec med/max", 22, lambda t: b_execute(t, ("median", "max")))),
              needs=("irq_levels",)),
]}
assert len({b.test_id for b in BENCHMARKS.values()}) == len(BENCHMARKS)
assert all(b.test_id & (b.test_id - 1) == 0 for b in BENCHMARKS.values()), "test ids are single bits"

TEST_NAMES = {b.test_id: b.name for b in BENCHMARKS.values()}


def test_name(test_id):
    return TEST_NAMES.get(test_id, f"test{test_id}")
