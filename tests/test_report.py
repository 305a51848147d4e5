"""The report writers on a synthetic results file: the printed table (one
column set per benchmark of trace/benchmarks.py), the Markdown report, the
plot, and atomic writes; how many requests one entry serves, from a trace."""

import json
import os

import pytest

from irqlab.host import atomic, report
from irqlab.host.benchmarks import BENCHMARKS


def latency(lo, med, hi, n=100):
    return {"count": n, "min": lo, "median": med, "mean": med, "p99": hi, "max": hi, "jitter": hi - lo,
            "ns": {"min": lo * 10.0, "median": med * 10.0, "mean": med * 10.0, "p99": hi * 10.0,
                   "max": hi * 10.0, "jitter": (hi - lo) * 10.0}}


def results():
    full = {
        "memory": "TCM",
        "b_marker_short": "pc-match",
        "trace": {"hw_dropped": 0},
        "tests": {
            "latency": {"latency": latency(40, 42, 47), "latency_b_execute": latency(38, 40, 45),
                        "onchip_agrees": True, "histogram": {"40": 10, "42": 80, "47": 10}},
            "throughput": {"latency": latency(30, 31, 33), "onchip_agrees": True,
                           "cycles_per_irq": {"count": 8, "median": 51.25},
                           "throughput_hz": {"count": 8, "median": 1951219.5},
                           "handoff": {"count": 300, "median": 3, "max": 4}},
            "preempt": {"latency": latency(45, 46, 50), "latency_b_execute": latency(43, 44, 48),
                        "onchip_agrees": True},
        },
    }
    no_levels = {
        "b_marker_short": "sw-event",
        "trace": {"hw_dropped": 3},
        "tests": {"latency": {"b_marker": "sw-event", "latency": latency(100, 108, 362), "onchip_agrees": False,
                              "histogram": {"100": 1, "108": 98, "362": 1}}},
    }
    return {"irqlab": "0.1.0", "git": "abc1234", "date": "2026-01-01T00:00:00+00:00", "board": "sim",
            "clock_hz": 100e6, "config": {"magic": 1, "lat_count": 100},
            "cores": {"ours": full, "peer": no_levels}}


def test_table_has_a_column_set_per_benchmark():
    lines = report.table(results()).splitlines()
    header = lines[0]
    for b in BENCHMARKS.values():
        for c in b.columns:
            # The matrix's cases (--suite matrix) only in a run that has them.
            assert (c.header in header) == (b.suite == "headline"), c.header
    assert len(lines) == 4 and set(lines[1]) <= {"-", " "}
    ours, peer = lines[2].split(), lines[3].split()
    # core, memory, B, irqs, min, median, p99, max, jitter, ns, B-exec, b2b, kIRQ/s, ret->B, preempt med,
    # max, preempt B-exec, drops, on-chip
    # B-Lmax, B-Tmax: not in this run ('-')
    assert ours == ["ours", "TCM", "pc-match", "100", "40", "42", "47", "47", "7", "420", "38/40/45/45",
                    "51.2", "1951", "3/4", "46", "50", "44/48", "-", "-", "0", "equal"]
    # A benchmark the row did not run shows '-' (the memory too: results from
    # before the column); B-exec on a row whose B is a software event is
    # 'n/a' (no such point, not a missing figure); a disagreement is shouted.
    assert peer == ["peer", "-", "sw-event", "100", "100", "108", "362", "362", "262", "1080", "n/a", "-",
                    "-", "-", "-", "-", "-", "-", "-", "3", "DIFFER"]


def test_markdown_report_holds_the_table_and_the_configuration():
    r = results()
    md = report.markdown(r, "latency.png")
    assert report.table(r) in md and "![latency](latency.png)" in md
    assert "lat_count=100" in md and "magic" not in md
    assert "git abc1234" in md


def test_json_and_plot_are_written_whole(tmp_path):
    r = results()
    report.write_json(r, str(tmp_path / "bench.json"))
    assert json.loads((tmp_path / "bench.json").read_text())["cores"]["ours"]["tests"]["latency"]["latency"]["max"] == 47
    assert report.plot_latency(r, str(tmp_path / "latency.png"))
    assert (tmp_path / "latency.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(os.listdir(tmp_path)) == ["bench.json", "latency.png"]


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "report.md"
    target.write_text("old")

    class Boom(Exception):
        pass

    def broken_replace(src, dst):
        raise Boom()
    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(Boom):
        report.write_text(str(target), "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["report.md"]


# ---- a service loop: one entry serves several requests ----

def throughput_trace(serves, phases=3, entry_per_request=False):
    """A back-to-back test: per stimulation phase the line is raised again
    after each acknowledge; the handler code is entered (PC match, B) once per
    phase, its loop serving every request (a C handler call each), or, with
    entry_per_request, entered for each request."""
    from irqlab.host import record as rec
    from irqlab.host.protocol import CH_HANDLER_ENTRY, CH_TEST_BEGIN, CH_TEST_END
    from tracegen import TraceBuilder
    test = BENCHMARKS["throughput"].test_id
    line, phase = 1 << rec.HW_GEN_LINE, 1 << rec.HW_GEN_PHASE
    tb = TraceBuilder().time_hi(0).sw(1000, CH_TEST_BEGIN, test)
    t = 1100
    for _ in range(phases):
        tb.hw(t, rise=phase)
        for k in range(serves):
            tb.hw(t + 1, rise=line)
            if k == 0 or entry_per_request:
                tb.core(t + 20, rec.CORE_PC_MATCH, 0x140, 0, exec_age=2)
            tb.sw(t + 25, CH_HANDLER_ENTRY, k)
            tb.hw(t + 28, fall=line)
            t += 30
        tb.hw(t, fall=phase)
        t += 500
    tb.sw(t, CH_TEST_END, test)
    return tb.bytes()


def test_serves_per_entry_from_a_trace():
    from irqlab.host import analysis
    from irqlab.host.decode import decode_bytes
    loop = analysis.analyze(decode_bytes(throughput_trace(40))[0], 100e6)["tests"]["throughput"]
    assert [p["handled"] for p in loop["phases"]] == [40, 40, 40]
    # The last edge of the test is still waiting for its B when the test ends: one short.
    assert analysis.serves_per_entry(loop) == pytest.approx(40, abs=1) and analysis.serves_several_per_entry(loop)
    assert loop["latency"]["max"] > 500          # a pair across phases: no interrupt's latency
    # Negative control: an entry for every request.
    each = analysis.analyze(decode_bytes(throughput_trace(40, entry_per_request=True))[0], 100e6)
    each = each["tests"]["throughput"]
    assert analysis.serves_per_entry(each) == 1.0 and not analysis.serves_several_per_entry(each)
    assert each["latency"]["max"] == 19
    assert analysis.serves_per_entry({"latency": {"count": 0}, "merged_edges": 0}) is None
    assert analysis.serves_per_entry({"latency": latency(1, 2, 3)}) is None     # recorded before merged edges


def test_the_markdown_report_says_which_rows_serve_several_per_entry():
    r = results()
    assert "per entry in" not in report.markdown(r).split("```")[-1]
    r["cores"]["loop"] = {"tests": {"throughput": {"latency": latency(29, 23982, 23982, n=8), "merged_edges": 5511,
                                                   "cycles_per_irq": {"count": 8, "median": 29.0},
                                                   "throughput_hz": {"count": 8, "median": 3445000.0}}}}
    md = report.markdown(r)
    assert "(loop: 690 per entry in throughput)" in md and "shown as n/a" in md
