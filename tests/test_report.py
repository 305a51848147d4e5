"""The report writers on a synthetic results file: the printed table (one
column set per benchmark of trace/benchmarks.py), the Markdown report, the
plot, and atomic writes."""

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
