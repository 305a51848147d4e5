"""The whole SoC in Verilator, for each core: the firmware's benchmark runs,
and the trace unit's timestamps equal the cycles at which the RTL signals
changed (zero cycles of error, every event of every kind compared).

The harness logs the RTL probes: each change of a traced hardware line and
each stimulus-port store, with the value of the timestamp counter in that
cycle (boards/sim/harness.cpp). The trace, captured over the simulator's
socket by the host's capture code, must hold exactly the same events.
"""

import os
import re

import pytest

from irqlab.drivers import sim
from irqlab.host import analysis
from irqlab.host import record as rec
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.rows import ROWS, row as row_info

SHORT = dict(lat_count=300, tp_phases=2, tp_high=6000, tp_low=1500)


def has_retire_port(row):
    return row_info(row).soc_config.retire_port


@pytest.fixture(scope="module", params=list(ROWS))
def run(request, tmp_path_factory):
    core = request.param
    d = tmp_path_factory.mktemp(core)
    model = sim.ensure_model(core)
    fw = sim.build_firmware(model)
    image = sim.load_image(model, fw, **SHORT)
    # Cores with a retire port: also probe the port itself at B's address.
    probe_pc = symbol(fw, model.b_symbol) if has_retire_port(core) else None
    r = sim.run(model, image, str(d / "trace.bin"), probe_path=str(d / "probe.txt"), probe_pc=probe_pc)
    records, stats = r.trace()
    r.firmware = fw
    r.model = model
    return core, r, records, stats, d / "probe.txt"


def symbol(bin_path, name):
    """A firmware symbol's address, from the listing beside the image."""
    lst = os.path.splitext(bin_path)[0] + ".lst"
    with open(lst) as f:
        m = re.search(r"^([0-9a-f]+) <" + re.escape(name) + r">:$", f.read(), re.M)
    assert m, f"{name} not in {lst}"
    return int(m.group(1), 16)


def probe_retires(path):
    """(ts, pc) of each cycle the retire port showed the probed pc."""
    with open(path) as f:
        return [(int(p[1]), int(p[2], 16)) for p in (line.split() for line in f) if p[0] == "P"]


def probe_entries(path):
    """ts of each cycle an instruction with the probed pc entered execute."""
    with open(path) as f:
        return [int(p[1]) for p in (line.split() for line in f) if p[0] == "X"]


def probe_events(path):
    hw, sw = [], []
    prev = None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "H":
                ts, val = int(parts[1]), int(parts[2], 16)
                if prev is not None:
                    for bit in range(rec.N_HW_LINES):
                        was, now = prev >> bit & 1, val >> bit & 1
                        if was != now:
                            hw.append((ts, "rise" if now else "fall", bit))
                prev = val
            elif parts[0] == "S":
                sw.append((int(parts[1]), int(parts[2]), int(parts[3], 16)))
    return hw, sw


def trace_events(records):
    hw, sw = [], []
    for e in analysis.events(records):
        if e.kind in ("rise", "fall"):
            hw.append((e.ts, e.kind, e.index))
        elif e.kind == "sw":
            sw.append((e.ts, e.index, e.data))
    return hw, sw


def test_firmware_completes_and_trace_is_whole(run):
    core, r, records, stats, _ = run
    assert r.exit_code == 0, r.console
    assert "irqlab: exit 0" in r.console
    assert stats.intact and stats.hw_dropped == 0
    assert stats.records == r.capture_stats.records


def test_trace_timestamps_equal_rtl_cycles(run):
    core, r, records, stats, probe = run
    p_hw, p_sw = probe_events(probe)
    t_hw, t_sw = trace_events(records)
    # The first probe line only establishes the initial level (its edges are
    # not derivable from the log), so compare from the second line on.
    first_ts = p_hw[0][0] if p_hw else 0
    t_hw = [e for e in t_hw if e[0] >= first_ts]
    p_hw = [e for e in p_hw if e[0] >= first_ts]
    assert len(p_hw) > 1000 and len(p_sw) > 300
    kinds = {(k, b) for _, k, b in p_hw}
    # Edges of the generator line, its phase envelope and the core's input were all seen.
    for line in (rec.HW_GEN_LINE, rec.HW_GEN_PHASE, rec.HW_CPU_IRQ + r.model.gen_irq(0)):
        assert ("rise", line) in kinds and ("fall", line) in kinds
    assert sorted(t_hw) == sorted(p_hw)
    assert sorted(t_sw) == sorted(p_sw)


def test_figures_are_sane(run):
    core, r, records, stats, _ = run
    res = analysis.analyze(records, 100e6)
    lat = res["tests"]["latency"]
    assert lat["latency"]["count"] == SHORT["lat_count"]
    # at least the CLIC's delay and the five stages to retirement (fastirq: 9)
    assert 7 <= lat["latency"]["min"] <= lat["latency"]["median"] <= lat["latency"]["max"] < 2000
    assert lat["onchip_agrees"] is True
    tp = res["tests"]["throughput"]
    assert len(tp["phases"]) == SHORT["tp_phases"]
    assert all(p["cycles"] == SHORT["tp_high"] and p["handled"] > 10 for p in tp["phases"])


def test_b_marker_is_what_the_core_supports(run):
    """Cores with a retire port: B is the PC match on the first instruction
    after the context is saved (comparator 0 on the row's b_symbol), one per
    handled interrupt in the latency test, and it comes strictly before the
    handler's software event for every interrupt. (In the other tests the
    CLIC's mnxti loop serves several interrupts per entry, and the preemption
    test's running handler has an entry of its own.) Other cores: the software event, and
    no core events at all."""
    core, r, records, stats, _ = run
    res = analysis.analyze(records, 100e6)
    windows = analysis.split_tests(analysis.events(records))
    core_events = [e for e in analysis.events(records) if e.kind == "core"]
    if not has_retire_port(core):
        assert res["b_marker"] == analysis.B_SW_EVENT
        assert core_events == []
        return
    assert res["b_marker"] == analysis.B_PC_MATCH
    # Where one entry serves every line, a test with other lines requesting
    # takes B at line 0's software event (fw/bench/matrix.c).
    several = {"enabled", "priorities", "parallel"}
    for name, t in res["tests"].items():
        shared = not row_info(core).b_per_line and several & set(BENCHMARKS[name].stressors)
        assert t["b_marker"] == (analysis.B_SW_EVENT if shared else analysis.B_PC_MATCH), name
    # Comparator 0 on B; comparator 1 on the handler's return (rows with a
    # ret_symbol: the back-to-back hand-over, trace/analysis.handoffs).
    saved = symbol(r.firmware, r.model.b_symbol)
    ret = row_info(core).ret_symbol
    watched = {0: saved}
    if ret:
        watched[analysis.RET_COMPARATOR] = symbol(r.firmware, ret.format(irq=r.model.gen_irq(0)))
    assert core_events and all(any(analysis.is_pc_match(e, k) and e.data & 0xFFFFFFFF == pc
                                   for k, pc in watched.items()) for e in core_events)
    for w in windows:
        if w.test != BENCHMARKS["latency"].test_id:
            continue
        pc, merged_pc = analysis.latencies(w, marker=analysis.B_PC_MATCH)
        sw, merged_sw = analysis.latencies(w, marker=analysis.B_SW_EVENT)
        assert len(pc) == len(sw) > 10 and merged_pc == merged_sw
        n_pc = sum(analysis.is_pc_match(e) for e in w.events)
        n_sw = sum(analysis.is_handler_event(e) for e in w.events)
        assert n_pc == n_sw
        assert all(p < s for p, s in zip(pc, sw)), "PC match not before the software event"
    lat = res["tests"]["latency"]
    assert lat["latency"]["median"] < lat["latency_sw_event"]["median"]


def test_pc_match_timestamps_equal_rtl_cycles(run):
    """Core events (cores with a retire port): every PC match in the trace is
    stamped with the cycle the core's retire port showed that pc, and no
    such cycle is missing from the trace."""
    core, r, records, stats, probe = run
    if not has_retire_port(core):
        pytest.skip(f"{core} has no retire port")
    # Matrix cases whose B is the software event (several lines on a shared
    # entry) switch comparator 0 off: from their TEST_BEGIN to the next test's.
    windows = analysis.split_tests(analysis.events(records))
    off = [(w.begin, nxt.begin if nxt else float("inf"))
           for w, nxt in zip(windows, windows[1:] + [None]) if analysis.b_marker(w) == analysis.B_SW_EVENT]
    on = lambda ts: not any(a <= ts < b for a, b in off)
    rtl = [(ts, pc) for ts, pc in probe_retires(probe) if on(ts)]
    traced = [(e.ts, e.data & 0xFFFFFFFF) for e in analysis.events(records)
              if e.kind == "core" and analysis.is_pc_match(e) and on(e.ts)]
    assert len(rtl) > 300
    assert sorted(traced) == sorted(rtl)


def test_b_execute_equals_rtl_execute_entry(run):
    """B-execute (cores with a retire port): every PC match's execute age
    points at the cycle the core's execute-entry output (exec_valid, the
    harness's X probe) last showed B's pc before that retirement, exactly;
    no age is unknown. And B's instruction never stalls on these rows:
    B-execute = B-retire - 2 (execute, memory, writeBack) for every one;
    behind a data cache (write-through) it may wait for the bus, 2 at least."""
    core, r, records, stats, probe = run
    if not has_retire_port(core):
        pytest.skip(f"{core} has no retire port")
    entries = probe_entries(probe)
    matches = [e for e in analysis.events(records) if e.kind == "core" and analysis.is_pc_match(e)]
    assert len(matches) > 300 and len(entries) >= len(matches)
    for e in matches:
        last = max(t for t in entries if t < e.ts)
        assert analysis.b_execute(e) == last, f"PC match at {e.ts}: B-execute {analysis.b_execute(e)}, RTL {last}"
    ages = {e.ts - analysis.b_execute(e) for e in matches}
    if row_info(core).soc_config.caches:
        assert min(ages) == 2, sorted(ages)
    else:
        assert ages == {2}
    lat = analysis.analyze(records, 100e6)["tests"]["latency"]
    assert lat["b_execute_unknown"] == 0
    assert lat["latency_b_execute"]["count"] == lat["latency"]["count"]
    for k in ("min", "median", "p99", "max"):
        if row_info(core).soc_config.caches:
            assert lat["latency_b_execute"][k] <= lat["latency"][k] - 2, k
        else:
            assert lat["latency_b_execute"][k] == lat["latency"][k] - 2
