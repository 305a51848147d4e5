"""The PTO demo (fw/pto/, trace/pto.py, irqlab/demos/pto/sim.py): the host's
model of the motion profile, its figures on synthetic traces, and short
trains in simulation on two rows (a CLIC row and the stock VexRiscv on
FreeRTOS's own port): every interval of a ramp exactly as programmed, a
too-fast train's late edges counted alike by the firmware (the timer's
count) and by the host (the trace), the report's PTO section, and the
CLI's one-line errors."""

import json
import os

import pytest

from irqlab.demos.pto import sim as demo
from irqlab.host import htmlreport, pto, results as resultsfile
from irqlab.host import record as rec
from irqlab.host.decode import decode_bytes

from clitool import assert_one_line_error, irqlab
from tracegen import TraceBuilder

SIM_ROWS = ["clic", "vexriscv"]
RAMP = pto.Spec(pulses=200, start_interval=1200, cruise_interval=600, delta_q8=8 * 256)


def test_every_row_with_the_pto_is_recorded():
    """docs/results/pto.json (the recorded PTO table): every row, its figures
    consistent (record: irqlab demo pto --out DIR, then copy pto.json, pto.md
    and report-pto-jitter.png as pto-jitter.png into docs/results)."""
    from irqlab import paths
    with open(os.path.join(paths.ROOT, "docs", "results", pto.RESULTS_FILE)) as f:
        recorded = json.load(f)
    assert set(demo.rows_with_pto()) <= set(recorded["cores"])
    for row, e in recorded["cores"].items():
        t = e["pto"]
        assert t["max_khz"] == pytest.approx(recorded["clock_hz"] / (2 * t["max_half_period"]) / 1e3)
        assert t["max_khz"] >= 20, f"{row}: below what actuation needs"
        for p in t["points"]:
            assert p["late_trace"] == p["late_firmware"] and p["early_trace"] == 0
            if p["half_period"] >= t["max_half_period"]:
                assert p["jitter"] == 0, f"{row}: a sustained frequency has no jitter"


def test_profile_is_a_trapezoid():
    p = pto.profile(RAMP)
    assert len(p) == 200 and p[0] == 1200 and min(p) == 600
    up = p.index(600)
    assert all(a - b == 8 for a, b in zip(p[:up], p[1:up + 1])), "8 cycles shorter per pulse"
    down = len(p) - 1 - p[::-1].index(600)
    assert all(b - a == 8 for a, b in zip(p[down:], p[down + 1:])), "as many pulses to decelerate"
    assert len(p) - 1 - down == up
    assert pto.profile(pto.Spec(5, 300)) == [300] * 5, "no delta: a square wave"
    # A train too short to reach the cruise: a triangle.
    tri = pto.profile(pto.Spec(10, 100, 10, 256 * 10))
    assert tri == [100, 90, 80, 70, 60, 60, 70, 80, 90, 100]


def synthetic(spec, late=(), t0=1000, misses=None):
    """A train's trace as the firmware and the timer make it; edges in `late`
    (1-based edge numbers) come `late[k]` cycles late."""
    tb = TraceBuilder().time_hi(0).sw(t0, pto.PROTO.CH_TRAIN, spec.pulses)
    t, level = t0 + 50, 0
    late = dict(late)
    for k, iv in enumerate(pto.programmed_intervals(spec), 1):
        t += iv + late.get(k, 0)
        bit = 1 << rec.HW_PTO
        tb.hw(t, rise=bit if not level else 0, fall=bit if level else 0)
        level ^= 1
    n = len(late) if misses is None else misses
    tb.sw(t + 10, pto.PROTO.CH_DONE, 2 * spec.pulses).sw(t + 11, pto.PROTO.CH_MISSES, n).sw(t + 12, pto.PROTO.CH_WORK, 7)
    return decode_bytes(tb.bytes())[0]


def test_figures_of_an_exact_square_wave():
    spec = pto.Spec(50, 250)
    (train,) = pto.trains(synthetic(spec))
    f = pto.figures(train, spec)
    assert f["sustained"] and f["late_trace"] == 0 and f["jitter"] == 0
    assert f["khz"] == 100 and f["edges"] == 100 and f["period_min"] == f["period_max"] == 500
    assert f["background_work"] == 7


def test_a_late_edge_is_found_and_its_jitter_normalized():
    spec = pto.Spec(50, 250)
    (train,) = pto.trains(synthetic(spec, late={40: 30}))
    f = pto.figures(train, spec)
    assert not f["sustained"] and f["late_trace"] == 1 and f["late_firmware"] == 1
    # The late edge stretches one period by 30 (500 -> 530); the next period
    # is 500 again: the timer counts from the edge, so nothing shortens.
    assert f["period_max"] == 530 and f["period_min"] == 500
    assert f["jitter"] == pytest.approx(30 / 500)
    assert f["early_trace"] == 0


def test_firmware_count_alone_also_fails_the_train():
    spec = pto.Spec(20, 250)
    (train,) = pto.trains(synthetic(spec, misses=1))
    assert not pto.figures(train, spec)["sustained"]


def test_response_from_the_fastest_half_late_train():
    pts = [{"edges": 100, "late_trace": 0, "half_period": 200, "late_interval_median": None},
           {"edges": 100, "late_trace": 50, "half_period": 60, "late_interval_median": 72},
           {"edges": 100, "late_trace": 99, "half_period": 50, "late_interval_median": 70},
           {"edges": 100, "late_trace": 10, "half_period": 40, "late_interval_median": 90}]
    assert pto.response(pts) == 70
    assert pto.response(pts[:1]) is None


def test_report_has_the_pto_section(tmp_path):
    spec = pto.Spec(50, 250)
    pts = []
    for hp in (2500, 250, 100):
        s = pto.Spec(50, hp)
        (train,) = pto.trains(synthetic(s, late={10: 40} if hp == 100 else {}))
        pts.append(pto.figures(train, s))
    results = {"board": "sim", "clock_hz": 50e6, "git": "x", "date": "d", "demo": "pto", "config": {},
               "cores": {r: {"memory": "TCM", "pto": {"max_half_period": 250, "max_khz": 100.0, "points": pts}}
                         for r in ("clic", "vexriscv")}}
    path = tmp_path / "pto.json"
    path.write_text(json.dumps(results))
    page = htmlreport.write(resultsfile.load([str(path)]), str(tmp_path / "out"))
    text = open(page).read()
    assert "PTO demo" in text and "report-pto-jitter.png" in text and "Headline" not in text
    assert os.path.getsize(tmp_path / "out" / "report-pto-jitter.png") > 1000
    assert "100.0" in pto.table(results) and "0.00 %" in pto.table(results)
    del spec


def test_demo_and_bench_share_one_page(tmp_path):
    """`irqlab demo pto` into a folder with the benchmarks' results writes
    one page with both (and the benchmarks' writer keeps the demo's)."""
    import shutil
    from irqlab import paths
    shutil.copy(os.path.join(paths.ROOT, "docs", "results", "bench.json"), tmp_path / "bench.json")
    spec = pto.Spec(50, 250)
    (train,) = pto.trains(synthetic(spec))
    results = {"board": "sim", "clock_hz": 50e6, "git": "x", "date": "d", "demo": "pto", "config": {},
               "cores": {"clic": {"memory": "TCM", "pto": {"max_half_period": 250, "max_khz": 100.0,
                                                           "points": [pto.figures(train, spec)]}}}}
    demo.write_outputs(results, str(tmp_path))
    text = open(tmp_path / "report.html").read()
    assert "Headline" in text and "PTO demo" in text
    assert json.load(open(tmp_path / "pto.json"))["demo"] == "pto"


def test_cli_errors():
    assert_one_line_error(irqlab("demo", "pto", "--cores", "nope"), "nope")
    assert_one_line_error(irqlab("demo", "pto", "--port", "/dev/null"), "not an FPGA board")


@pytest.fixture(scope="module", params=SIM_ROWS)
def runner(request, tmp_path_factory):
    return demo.Runner(request.param, str(tmp_path_factory.mktemp("pto")))


def test_ramp_every_interval_as_programmed(runner):
    f = runner.train(RAMP)
    assert f["edges"] == 2 * RAMP.pulses and f["complete"]
    assert f["late_trace"] == 0 and f["early_trace"] == 0 and f["late_firmware"] == 0
    assert f["sustained"] and f["background_work"] > 0
    # Exact to the cycle: the trace's intervals are the profile's.
    records, _ = decode_bytes(open(os.path.join(runner.out_dir, f"trace-pto-{runner.row}.bin"), "rb").read())
    (train,) = pto.trains(records)
    got = [b - a for a, b in zip(train.edges, train.edges[1:])]
    assert got == pto.programmed_intervals(RAMP)[1:]


def test_too_fast_train_counted_late_by_firmware_and_host(runner):
    spec = pto.Spec(pulses=100, start_interval=20)      # 1.25 MHz: no handler answers in 20 cycles
    f = runner.train(spec)
    assert f["complete"], "a late train still makes every edge"
    assert f["late_trace"] > 0 and f["late_trace"] == f["late_firmware"]
    assert not f["sustained"] and f["early_trace"] == 0
    assert f["late_interval_median"] > spec.start_interval
