"""The context-switch suite (fw/ctxsw/, trace/ctxsw.py, irqlab/suites/ctxsw.py)
and the FreeRTOS trace hooks (fw/freertos/irqlab_trace.h).

Per row, a short run of the suite (SAMPLES per case): every routine passes
its own checks, every case yields its samples (those with a tick inside left
out and counted), the marker is the PC match exactly where the row's SoC has
a retire port, and the figures are sane. The same run is the regression
check against the recorded full run (docs/results/ctxsw.json, 1000 samples
per case): the simulation is deterministic and most cases take the same
path every time, so each case's median must stay within TOLERANCE_CYCLES,
or TOLERANCE_REL of the recorded value, or TOLERANCE_SPREAD of the recorded
spread (p99 - min: a case whose samples spread, behind caches and under
background load, has a median that moves with the samples' count),
whichever is larger; where the median misses, the mean within the same
tolerance will do (a case of two values, about as frequent each) (min and max depend on where the ticks and the caches
fall in a shorter run: not compared). If a change should move them, record the new results in the same
change (`irqlab bench --suite ctxsw --out docs/results`) and the README's
table.
"""

import json
import os

import pytest

from irqlab import paths
from irqlab.suites import ctxsw as ctxswbench
from irqlab.drivers import sim
from irqlab.host import ctxsw, describe, protocol
from irqlab.host import record as rec
from irqlab.host.decode import read_trace
from irqlab.rows import ROWS as ALL_ROWS

# The rows the suite runs on (irqlab/rows.py `ctxsw`).
ROWS = [r for r, info in ALL_ROWS.items() if info.ctxsw]

from clitool import assert_one_line_error, irqlab
from fwexpect import expected_lines
from tracegen import TraceBuilder

SAMPLES = 200
RECORDED = os.path.join(paths.ROOT, "docs", "results", ctxswbench.RESULTS_FILE)
TOLERANCE_CYCLES = 3
TOLERANCE_REL = 0.02
TOLERANCE_SPREAD = 0.1
CTX = protocol.APP_PROTOCOLS["ctxsw"]
RTOS = protocol.APP_PROTOCOLS["freertos"]


@pytest.fixture(scope="module")
def recorded():
    with open(RECORDED) as f:
        return json.load(f)


def test_every_row_is_recorded(recorded):
    assert set(ROWS) <= set(recorded["cores"]), "record: irqlab bench --suite ctxsw --out docs/results"
    assert recorded["config"]["samples"] >= 1000
    n = recorded["config"]["samples"]
    for entry in recorded["cores"].values():
        for name, s in entry["cases"].items():
            # Every start is a sample or a left-out one (trace/ctxsw.py); the
            # last start of a routine may stay open, and the yield's first
            # round has two starts before its first end (both tasks mark);
            # in a time-sliced case a tick between a task's mark B and its
            # next mark A makes one more (the other task marks B and A in
            # between).
            extra = 2 if ctxsw.CASES[name].time_sliced else 1
            assert n - 1 <= s["count"] + s["ticked"] <= n + extra, name


@pytest.mark.parametrize("row", list(ROWS))
def test_suite_runs_and_matches_the_recorded_figures(row, tmp_path, recorded):
    model = sim.ensure_model(row)
    res = ctxswbench.run_row(row, {"samples": SAMPLES}, str(tmp_path))
    res.pop("firmware_config")
    # Where the row's SoC drives the retire port, the marks are PC matches.
    assert res["marker"] == ("pc-match" if model.facts["trace"]["retire_port"] else "sw-event")
    assert 0 < res["overhead"] < 40
    for name, s in res["cases"].items():
        extra = 2 if ctxsw.CASES[name].time_sliced else 1
        assert SAMPLES - 1 <= s["count"] + s["ticked"] <= SAMPLES + extra, (row, name, s)   # as above
        assert s["count"] >= 0.95 * SAMPLES, (row, name, s)
        # A switch saves and restores ~30 registers, unless the core keeps
        # task contexts (a yield is then a CSR read, a check and tswitch; a
        # bound interrupt the CLIC's latency and the core's switch).
        contexts = ALL_ROWS[row].soc_config.task_contexts
        floor = 0 if ctxsw.CASES[name].routine == "calib" else 10 if contexts else 50
        assert floor < s["min"] <= s["median"] <= s["max"] < 5000, (row, name, s)
        want = recorded["cores"][row]["cases"][name]
        tol = max(TOLERANCE_CYCLES, TOLERANCE_REL * want["median"],
                  TOLERANCE_SPREAD * (want["p99"] - want["min"]))
        # A case whose samples take two values about as often each (the
        # yields of a pair where one task shares context 0: the fallback
        # and the hardware's switch alternate) has a median that flips
        # between them with the samples' count; its mean does not.
        assert abs(s["median"] - want["median"]) <= tol or abs(s["mean"] - want["mean"]) <= tol, \
            f"{row} {name} median: {s['median']} cycles, recorded {want['median']} (mean {s['mean']:.1f}, " \
            f"recorded {want['mean']:.1f})"
        # To the switch's mret (PC-match rows): inside the sample, and short
        # of it wherever a return enters the next task.
        if res["marker"] == "pc-match" and ctxsw.CASES[name].routine != "calib":
            assert 0 < s["return_max"] <= s["max"] + s["corrected_by"], (row, name, s)
            if name == "sem-signal":
                assert s["return_mean"] < s["mean"], (row, name, s)


def test_the_suite_states_its_output():
    # The routines' lines in the registry's order (trace/ctxsw.py ROUTINES),
    # then again with background load (the default configuration) those
    # whose cases are measured there too.
    loaded = [r for r in ctxsw.ROUTINES if any(c.routine == r and c.loaded_too for c in ctxsw.CASES.values())]
    assert loaded != list(ctxsw.ROUTINES)          # the delay routine runs once
    assert expected_lines("ctxsw") == [f"ctxsw: {r}: ok" for r in ctxsw.ROUTINES] + \
        [f"ctxsw: {r}{ctxsw.BACKGROUND_SUFFIX}: ok" for r in loaded] + ["ctxsw: ok"]


def _figures(t, tmp_path):
    """The suite's figures from a TraceBuilder's records, through a trace file."""
    path = tmp_path / "ctxsw.bin"
    path.write_bytes(b"".join(t.chunks))
    records, _ = read_trace(str(path))
    return ctxsw.figures(ctxsw.samples(records, CTX, RTOS))


def test_samples_from_a_synthetic_trace(tmp_path):
    a, b, tick = CTX.CH_MARK_A, CTX.CH_MARK_B, RTOS.CH_TICK
    cid = {n: c.case_id for n, c in ctxsw.CASES.items()}
    t = TraceBuilder().time_hi(0)
    t.sw(100, a, cid["overhead"]).sw(110, b, cid["overhead"])      # marks cost 10
    t.sw(200, a, cid["yield"]).sw(400, b, cid["yield"])            # 200 raw
    t.sw(500, a, cid["yield"]).sw(600, tick).sw(700, b, cid["yield"])   # a tick inside: left out
    t.sw(800, b, cid["yield"])                                     # no start: ignored
    t.hw(1000, rise=1).sw(1050, a, cid["isr-give"]).sw(1300, b, cid["isr-give"])
    f = _figures(t, tmp_path)
    assert f["marker"] == "sw-event" and f["overhead"] == 10
    assert f["cases"]["yield"]["count"] == 1 and f["cases"]["yield"]["min"] == 190
    assert f["cases"]["yield"]["ticked"] == 1
    assert f["cases"]["isr-give"]["min"] == 240                    # corrected
    assert f["cases"]["irq-to-task"]["min"] == 300                 # from the edge, not corrected


def test_pc_matches_place_the_marks(tmp_path):
    a, b = CTX.CH_MARK_A, CTX.CH_MARK_B
    cid = ctxsw.CASES["yield"].case_id
    t = TraceBuilder().time_hi(0)
    # The match and the store may share a timestamp (the store is sent first).
    t.sw(100, a, ctxsw.CASES["overhead"].case_id).core(100, 0, 0x100, ctxsw.PC_A)
    t.core(108, 0, 0x200, ctxsw.PC_B).sw(109, b, ctxsw.CASES["overhead"].case_id)
    t.core(200, 0, 0x100, ctxsw.PC_A).sw(203, a, cid)
    t.core(350, 0, 0x200, ctxsw.PC_B).sw(353, b, cid)
    f = _figures(t, tmp_path)
    assert f["marker"] == "pc-match" and f["overhead"] == 8
    assert f["cases"]["yield"]["min"] == 150 - 8


def test_a_mark_interrupted_inside_leaves_the_open_sample_out(tmp_path):
    """A task switched out between mark A's first instruction and its store
    (a tick) stores its mark only when switched back in, inside another
    task's sample, with no PC match of its own: that sample holds two
    switches and is left out, not measured."""
    a, b = CTX.CH_MARK_A, CTX.CH_MARK_B
    y = ctxsw.CASES["yield"].case_id
    t = TraceBuilder().time_hi(0)
    t.core(100, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A)                    # task 1: its store waits
    t.core(200, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(201, a, y)       # task 2 yields
    t.sw(260, a, y)                                                       # task 1's store, no match
    t.core(350, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(351, b, y)       # task 2 again
    t.core(400, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(401, a, y)       # a clean sample
    t.core(500, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(501, b, y)
    f = _figures(t, tmp_path)["cases"]["yield"]
    assert (f["count"], f["ticked"], f["max"]) == (1, 1, 100)


def test_a_tick_inside_a_mark_leaves_its_sample_out(tmp_path):
    """A tick whose handler runs between mark A's PC match and its store is
    inside the sample that starts at the match."""
    a, b, tick = CTX.CH_MARK_A, CTX.CH_MARK_B, RTOS.CH_TICK
    s = ctxsw.CASES["sem-signal"].case_id
    t = TraceBuilder().time_hi(0)
    t.core(100, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(150, tick).sw(300, a, s)
    t.core(400, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(401, b, s)
    t.core(500, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(501, a, s)
    t.core(600, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(601, b, s)
    f = _figures(t, tmp_path)["cases"]["sem-signal"]
    assert (f["count"], f["ticked"], f["max"]) == (1, 1, 100)


def test_to_mret_ends_at_the_last_return_before_the_next_task(tmp_path):
    """Seed 003's metric beside each sample (trace/ctxsw.py): from the start
    to the last mret inside the sample; without one, to the next task."""
    a, b = CTX.CH_MARK_A, CTX.CH_MARK_B
    ov, y, sig = (ctxsw.CASES[n].case_id for n in ("overhead", "yield", "sem-signal"))
    t = TraceBuilder().time_hi(0)
    t.core(100, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(101, a, ov)
    t.core(108, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(109, b, ov)
    t.core(150, rec.CORE_MRET, 0x300)                      # before the sample: not its return
    t.core(200, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(201, a, y)
    t.core(260, rec.CORE_MRET, 0x300).core(300, rec.CORE_MRET, 0x300)     # the last one counts
    t.core(350, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(351, b, y)
    t.core(400, rec.CORE_PC_MATCH, 0x100, ctxsw.PC_A).sw(401, a, sig)     # no return: to the task
    t.core(440, rec.CORE_PC_MATCH, 0x200, ctxsw.PC_B).sw(441, b, sig)
    f = _figures(t, tmp_path)
    assert f["cases"]["yield"]["min"] == 150 - 8
    assert f["cases"]["yield"]["return_max"] == 100                       # not corrected
    assert f["cases"]["sem-signal"]["return_max"] == 40
    # Rows without a retire port have no such figure.
    t = TraceBuilder().time_hi(0)
    t.sw(200, a, y).sw(400, b, y)
    assert "return_max" not in _figures(t, tmp_path)["cases"]["yield"]


def test_table_has_every_row_and_the_references(recorded):
    text = ctxswbench.table(recorded)
    lines = text.splitlines()
    for row in ROWS:
        assert any(ln.split()[0] == row for ln in lines[2:]), row
    from irqlab.host.references import SWITCH_REFERENCES
    for ref in SWITCH_REFERENCES:
        line = next(ln for ln in lines if ln.lstrip().startswith(ref.name))
        assert "REFERENCE" in line
    assert "162" in text and "104-114" in text and "1649" in text


def test_trace_hook_channels_are_named():
    # irqlab decode names the kernel's events (one protocol, trace/protocol.py).
    assert describe.channel_name(RTOS.CH_TASK_IN) == "freertos.TASK_IN"
    assert describe.channel_name(CTX.CH_MARK_A) == "ctxsw.MARK_A"
    header = protocol.c_header("ctxsw", kernel="freertos")
    assert f"#define CH_TASK_IN 0x{RTOS.CH_TASK_IN:02x}u" in header
    assert "#define CASE_IRQ_TO_TASK" in header and "#define ROUTINE_ISR" in header
    # The hooks use the generated names only: no channel number written by hand.
    with open(os.path.join(paths.FW, "freertos", "irqlab_trace.h")) as f:
        hooks = f.read()
    for name in RTOS.channels:
        if f"CH_{name}" in hooks:
            assert f"CH_{name}, " in hooks or f"CH_{name}," in hooks
    assert "0x3" not in hooks


def test_bad_arguments_are_one_line_errors():
    assert_one_line_error(irqlab("bench", "--suite", "ctxsw", "--samples", "0"), "--samples")
    assert_one_line_error(irqlab("bench", "--samples", "5"), "--samples", "ctxsw")
    assert_one_line_error(irqlab("bench", "--suite", "ctxsw", "--board", "ulx3s"), "simulation")
    assert_one_line_error(irqlab("bench", "--suite", "ctxsw", "--cores", "nope"), "nope")


def test_report_lists_every_case(recorded):
    text = ctxswbench.markdown(recorded)
    for row in ROWS:
        for case in ctxsw.CASES:
            assert any(ln.split()[:2] == [row, case] for ln in text.splitlines()), (row, case)
