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


def _med_max(t):
    lat = t["latency"]
    return f"{lat['median']:g}/{lat['max']}" if lat.get("count") else None


def _kirq_per_s(t):
    r = t["throughput_hz"]
    return f"{r['median'] / 1e3:.0f}" if r.get("count") else None


@dataclass(frozen=True)
class Benchmark:
    name: str
    test_id: int
    description: str
    columns: tuple
    needs: tuple = ()        # row/SoC features that must be true (irqlab.rows.Row, SocConfig)
    kind: str = "latency"    # "latency": B - A per interrupt; "throughput": handler runs per phase
    stressors: tuple = ()    # names of STRESSORS the firmware switches on around the measured line
    paper: str = ""          # the test case of seed 004 it stands for, and how it differs
    suite: str = "headline"  # "headline": `irqlab bench` runs it; "matrix": only `--suite matrix`

    @property
    def c_name(self):
        return self.name.upper().replace("-", "_")

    @property
    def stressor_mask(self):
        return sum(STRESSORS[s].bit for s in self.stressors)

    @property
    def config(self):
        """The bench configuration fields it reads: its procedure's and its
        stressors' (trace/protocol.py, app "bench")."""
        fields = PROCEDURE_FIELDS[self.kind] + tuple(f for s in self.stressors for f in STRESSORS[s].fields)
        return tuple(dict.fromkeys(fields))


# The configuration fields of each procedure (Benchmark.kind).
PROCEDURE_FIELDS = {
    "latency": ("lat_count", "lat_period", "lat_jitter", "seed"),
    "throughput": ("tp_phases", "tp_high", "tp_low", "seed"),
}


@dataclass(frozen=True)
class Stressor:
    bit: int
    fields: tuple            # the configuration fields it reads
    doc: str


# What a test case can switch on beside the measured line (generator line 0);
# fw/bench/main.c run_case() implements each, the header carries the bits
# (STRESS_<NAME>). Seed 004's T3-T7 are made of these.
STRESSORS = {
    "enabled": Stressor(1, ("stress_gap",), "every interrupt source the controller has is enabled; generator lines 1..7 "
                   "request at random (gap stress_gap + random) at the lowest level, their handlers "
                   "only acknowledge; line 0 at the highest level"),
    "priorities": Stressor(2, ("stress_gap",), "generator lines 1..7 at ascending levels, all below line 0's, requesting with "
                      "gaps of different lengths, so the controller's winner changes as often as it can"),
    "parallel": Stressor(4, ("parallel_lines",), "lines 1..parallel_lines rise in the same cycle as line 0 (same pattern, same seed) "
                    "at its level: the core handles them back to back (tail-chaining where it has it)"),
    "traffic": Stressor(8, ("traffic_intensity",), "the bus-stress master reads and writes main RAM at traffic_intensity/256 of the "
                   "free cycles, and the background loop loads and stores at random in main RAM"),
    "invalidate": Stressor(16, (), "line 0's handler invalidates the instruction and data caches after its work "
                       "(cache_invalidate_all()), so the next interrupt meets cold caches; rows "
                       "without caches skip the case"),
}


BENCHMARKS = {b.name: b for b in [
    Benchmark("latency", 1,
              "interrupt latency B - A over randomized arrival: level requests on generator line 0 "
              "with a random gap, while the core runs a loop of loads, stores, multiplies and branches",
              (Column("irqs", 6, _lat("count")), Column("min", 5, _lat("min")),
               Column("median", 6, _lat("median")), Column("p99", 5, _lat("p99")),
               Column("max", 5, _lat("max")), Column("jitter", 6, _lat("jitter")),
               Column("median ns", 9, _median_ns),
               Column("B-exec min/med/p99/max", 22, b_execute))),
    Benchmark("throughput", 2,
              "back to back: line 0 held for a stimulation phase, each acknowledge raises the next "
              "request; handler runs per phase, and ret->B: cycles from a handler's return "
              "instruction (mret, emret) retiring to B of the next (rows with a retire port)",
              (Column("b2b cyc", 7, _cycles_per_irq), Column("kIRQ/s", 7, _kirq_per_s),
               Column("ret->B", 7, _handoff)),
              kind="throughput"),
    Benchmark("preempt", 4,
              "a higher-level interrupt (line 0, level 0xC0) arriving while a lower-level handler "
              "(line 1, level 0x40) runs with interrupts enabled",
              (Column("preempt med", 11, _lat("median")), Column("preempt max", 11, _lat("max")),
               Column("preempt B-exec med/max", 22, lambda t: b_execute(t, ("median", "max")))),
              needs=("irq_levels",)),
    # The measurement matrix after seed 004 (its T1 is "latency" and "throughput";
    # T2 is every case on a row with caches, e.g. clic-cache: the row dimension,
    # not a stressor). Fewer interrupts per case than the headline latency
    # (lat_count / 4).
    Benchmark("t3-invalidate", 1024,
              "T3: line 0's latency with its handler invalidating the instruction and data caches "
              "each time, so every interrupt meets cold caches",
              (Column("T3 med/max", 10, _med_max),),
              stressors=("invalidate",), needs=("caches",), suite="matrix",
              paper="T3 (caches invalidated): as T2, the handler invalidating the caches each time; "
                    "latency only, as in the paper"),
    Benchmark("t4-enabled", 8,
              "T4: line 0's latency with every source enabled and lines 1..7 requesting at random "
              "at the lowest level",
              (Column("T4 med/max", 10, _med_max),),
              stressors=("enabled",), suite="matrix",
              paper="T4 (enabled interrupts): all sources enabled, the others at the lowest priority "
                    "with empty handlers; here 7 of them also fire (the GIC's 180 were only enabled)"),
    Benchmark("t5-priorities", 16,
              "T5: line 0 at the highest level while lines 1..7 at ascending levels keep changing "
              "the controller's winner",
              (Column("T5 med/max", 10, _med_max),),
              stressors=("priorities",), suite="matrix",
              paper="T5 (order of priorities): 15 sources at ascending priorities; here 8 (the "
                    "generator's lines), the measured one highest"),
    Benchmark("t6-parallel", 32,
              "T6: lines 0..parallel_lines rise in the same cycle at the same level; line 0 is "
              "served in the controller's order",
              (Column("T6 med/max", 10, _med_max),),
              stressors=("parallel",), suite="matrix",
              paper="T6 (parallel handling): one line to up to 4 cores at once; a single-core MCU "
                    "has no parallel handlers, so here several lines at once on one core stand for it"),
    Benchmark("t6-parallel-tp", 64,
              "T6, throughput: lines 0..parallel_lines held together for a stimulation phase; the "
              "handler runs of all of them per phase",
              (Column("T6 kIRQ/s", 9, _kirq_per_s),),
              stressors=("parallel",), kind="throughput", suite="matrix",
              paper="T6 throughput (T6-2 in the paper's figure)"),
    Benchmark("t7-traffic", 128,
              "T7: line 0's latency while a second bus master and the background loop make "
              "random memory traffic",
              (Column("T7 med/max", 10, _med_max),),
              stressors=("traffic",), needs=("bus_stress",), suite="matrix",
              paper="T7 (random memory accesses): 4 cores writing at random into a 96 MB array; "
                    "here one bus-stress master and the CPU's own background loop in main RAM"),
    # Seed 004's benchmarks, chosen from the matrix's measurements
    # (docs/MEASUREMENT.md, "The measurement matrix"). B-Lmin is the headline "latency" (T1): no case is faster
    # on any row. B-Lmax: T6 gives the largest medians (line 0 waits for the
    # lines the controller prefers), T4 and T5 the largest maxima (a stress
    # handler just begun), T7 adds the bus's waits: all three at once. B-Tmax:
    # T6's throughput, every line counted, as in the paper (T6 with T2);
    # where the entry dispatches in software it beats T1 by up to 80 %.
    Benchmark("b-lmax", 256,
              "B-Lmax: the worst-case latency benchmark, T4 + T6 + T7: line 0 rises with "
              "parallel_lines others at its level while lines above them request at random at the "
              "lowest level and the bus is loaded",
              (Column("B-Lmax med/max", 14, _med_max),),
              stressors=("enabled", "parallel", "traffic"),
              paper="B-Lmax (the paper: T4-36 with T6)"),
    Benchmark("b-tmax", 512,
              "B-Tmax: the maximal-throughput benchmark, T6's throughput procedure: lines "
              "0..parallel_lines held together, every handler run counted",
              (Column("B-Tmax kIRQ/s", 13, _kirq_per_s),),
              stressors=("parallel",), kind="throughput",
              paper="B-Tmax (the paper: T6-2 with T2)"),
]}
assert len({b.test_id for b in BENCHMARKS.values()}) == len(BENCHMARKS)
assert all(b.test_id & (b.test_id - 1) == 0 for b in BENCHMARKS.values()), "test ids are single bits"

TEST_NAMES = {b.test_id: b.name for b in BENCHMARKS.values()}
SUITES = ("headline", "matrix")


def suite_mask(suite):
    """The firmware's `tests` mask for a suite: "matrix" is everything."""
    return sum(b.test_id for b in BENCHMARKS.values() if suite == "matrix" or b.suite == suite)


def test_name(test_id):
    return TEST_NAMES.get(test_id, f"test{test_id}")
