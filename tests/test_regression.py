"""The published figures stay true: `irqlab bench` runs every row of the
registry with the recorded configuration, and each row's figures must match
the recorded results (docs/results/bench.json) within the tolerance below.

The simulation is deterministic, so a difference means the change moved a
figure. If it should, record the new results in the same change
(`make record`: the results, then the README's tables). A row without
recorded results fails too: record it.

Tolerance (cycles, the trace unit's): latency min, median, p99 and max and
the preemption median and max within TOLERANCE_CYCLES, at both B points
where the row has two (B-retire, "latency", and B-execute,
"latency_b_execute": the own core's rows; a row recorded with one must not
gain or lose the other); back-to-back cycles
per interrupt within TOLERANCE_B2B (relative). The on-chip statistics must
equal the trace's, and nothing may be dropped.

The same run also exercises `bench` and the report writers end to end, with
two rows at a time (irqlab/parallel.py): the figures must not depend on it.
"""

import json
import os

import pytest

from irqlab import paths
from irqlab.suites import latency as bench
from irqlab.host import report
from irqlab.progress import Progress
from irqlab.rows import ROWS

RECORDED = os.path.join(paths.ROOT, "docs", "results", "bench.json")
TOLERANCE_CYCLES = 1
TOLERANCE_B2B = 0.01
LATENCY_KEYS = ("min", "median", "p99", "max")


@pytest.fixture(scope="module")
def recorded():
    with open(RECORDED) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def results(recorded, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    config = bench.recorded_config(recorded)
    res = bench.bench(list(ROWS), "sim", str(out), config, Progress(), jobs=2)
    res["_out"] = str(out)
    return res


def test_every_row_is_recorded(recorded):
    missing = [r for r in ROWS if r not in recorded["cores"]]
    assert not missing, f"rows without recorded results: {missing} (irqlab bench --out docs/results)"


@pytest.mark.parametrize("row", list(ROWS))
def test_figures_match_the_recorded_results(row, results, recorded):
    got, want = results["cores"][row], recorded["cores"].get(row)
    if want is None:
        pytest.fail(f"{row}: no recorded results")
    assert got["b_marker_short"] == want["b_marker_short"]
    for test, w in want["tests"].items():
        g = got["tests"].get(test)
        assert g is not None, f"{row}: test '{test}' no longer runs"
        assert ("latency_b_execute" in g) == ("latency_b_execute" in w), f"{row} {test}: B points changed"
        for b in ("latency", "latency_b_execute"):
            if b not in w:
                continue
            for k in LATENCY_KEYS:
                if k in w[b]:
                    assert abs(g[b][k] - w[b][k]) <= TOLERANCE_CYCLES, \
                        f"{row} {test} {b} {k}: {g[b][k]} cycles, recorded {w[b][k]}"
            assert g[b]["count"] == w[b]["count"]
        if w.get("cycles_per_irq", {}).get("count"):
            gm, wm = g["cycles_per_irq"]["median"], w["cycles_per_irq"]["median"]
            assert abs(gm - wm) <= TOLERANCE_B2B * wm, f"{row} {test}: {gm:.1f} cycles/irq, recorded {wm:.1f}"
        if "onchip_agrees" in w:
            assert g["onchip_agrees"] is True
    assert got["trace"]["hw_dropped"] == 0 and got["trace"]["skipped_bytes"] == 0


def test_outputs_are_written(results):
    out = results["_out"]
    with open(os.path.join(out, "bench.json")) as f:
        saved = json.load(f)
    assert set(saved["cores"]) == set(ROWS)
    assert saved["git"] and saved["config"]["lat_count"] > 0
    with open(os.path.join(out, "latency.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    assert report.table({"cores": {k: v for k, v in results["cores"].items()}}) in md
    for row in ROWS:
        assert os.path.getsize(os.path.join(out, f"trace-{row}.bin")) > 0
    assert not [f for f in os.listdir(out) if f.startswith(".tmp")]
