"""The board twin's figures against the simulation's.

The twin runs the board's firmware (built against the board's headers) and
the simulation runs the simulation's: the same source, the same code, the
same cycles. Their benchmarks, given the same firmware configuration and
seed, must then agree in every figure counted in cycles. Figures in time
differ by design (the simulation's nominal clock is not the board's).

A test whose trace lost events on the link (the trace unit's OVERFLOW, as a
board at 3 Mbaud reports it) may differ in its trace-derived figures: such
a test is a `loss`, not a difference, as long as its on-chip statistics
(lossless, counted by the trace unit itself) are equal (`loss, on-chip
equal`) or their record is among the lost events (`loss, on-chip lost`).
On-chip statistics that arrived and differ are a difference.
"""

import json
import os

from irqlab.host import record as rec
from irqlab.host.benchmarks import test_name
from irqlab.host.decode import read_trace
from irqlab.host.protocol import CH_TEST_BEGIN
from irqlab.progress import Progress
from irqlab.suites import latency

# Keys whose values are in time, not cycles.
CLOCK_KEYS = {"ns", "throughput_hz"}
# The on-chip statistics' totals (their histogram records may be lost one by one).
ONCHIP_TOTALS = ("count", "sum", "min", "max")


def cycles_only(x):
    """A results entry without its figures in time."""
    if isinstance(x, dict):
        return {k: cycles_only(v) for k, v in x.items() if k not in CLOCK_KEYS}
    if isinstance(x, list):
        return [cycles_only(v) for v in x]
    return x


def differing(a, b, path=""):
    """The paths (a/b/c) at which two results entries differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}{k}")
            else:
                out += differing(a[k], b[k], f"{path}{k}/")
        return out
    return [] if a == b else [path.rstrip("/")]


def simulate(core, config, out_dir, progress=None):
    """The simulation of `config` (a board bench's recorded firmware
    configuration, magic included) on `core`: its results entry for that row."""
    sim = latency.bench([core], "sim", out_dir, {k: v for k, v in config.items() if k != "magic"},
                        progress or Progress())
    if sim["config"] != config:
        raise ValueError(f"the simulation ran with {sim['config']}, not the twin's {config}")
    return json.loads(json.dumps(sim["cores"][core]))     # as the twin's, read back from its JSON


def lost_per_test(records):
    """Events the trace unit dropped, by the test during which it said so
    (an OVERFLOW record belongs to the last test begun before it: the test's
    own events or its on-chip dump after its end)."""
    lost, current = {}, None
    for r in records:
        if r.type == rec.TYPE_SW and (r.payload >> 32) & 0xFF == CH_TEST_BEGIN:
            current = test_name(r.payload & 0xFFFFFFFF)
        elif r.type == rec.TYPE_OVERFLOW:
            lost[current] = lost.get(current, 0) + (r.payload & 0xFFFFFFFF)
    return lost


def twin_losses(twin_results, core, twin_dir):
    """lost_per_test of the twin's trace (in `twin_dir`, where its results are)."""
    entry = twin_results["cores"][core]
    if not entry["trace"]["hw_dropped"]:
        return {}
    return lost_per_test(read_trace(os.path.join(twin_dir, entry["trace_file"]), allow_problems=True)[0])


def verdicts(twin_results, core, sim_entry, lost=None):
    """Per test: ("equal", []) | ("loss", differing paths) | ("differs",
    paths). `lost`: twin_losses()."""
    entry = twin_results["cores"][core]
    lost = lost or {}
    out = {}
    for test in sorted(set(entry["tests"]) | set(sim_entry["tests"])):
        if test not in entry["tests"] or test not in sim_entry["tests"]:
            out[test] = ("differs", ["(test missing on one side)"])
            continue
        mine, ref = entry["tests"][test], sim_entry["tests"][test]
        d = differing(cycles_only(mine), cycles_only(ref))
        if not d:
            out[test] = ("equal", [])
        elif not lost.get(test):
            out[test] = ("differs", d)
        elif not mine.get("onchip"):
            out[test] = ("loss, on-chip lost", d)
        elif all(mine["onchip"].get(k) == ref.get("onchip", {}).get(k) for k in ONCHIP_TOTALS):
            out[test] = ("loss, on-chip equal", d)
        else:
            out[test] = ("differs", d)
    return out
