"""`irqlab bench`: build, run and report the latency/throughput benchmark for
every core, in one run, on one SoC, with one firmware and one trace path."""

import datetime
import os

from irqlab import parallel, paths
from irqlab.drivers import sim
from irqlab.boards import registry
from irqlab.host import analysis, htmlreport, report, results as resultsfile
from irqlab.rows import ROWS, row as row_info


def paper_scale(clock_hz):
    """Seed 004's phase sizes (Sec. 3.2) in cycles at `clock_hz`: latency
    phases of a 1 ms trigger and a 4 ms pause, 2,400 per matrix case (which
    runs lat_count / 4); throughput phases of 9.75 s held and 0.25 s paused,
    12 of them (a 120 s trace)."""
    ms = int(clock_hz // 1000)
    return {"lat_count": 4 * 2400, "lat_period": 5 * ms - 1, "lat_jitter": 0xFFFF,
            "tp_phases": 12, "tp_high": 9750 * ms, "tp_low": 250 * ms}


def run_row(row, config, out_dir, progress, probe_path=None):
    """Build (if needed) and run one row; returns its results entry."""
    trace_path = os.path.join(out_dir, f"trace-{row}.bin")
    run, fw_config = sim.run_application(row, "bench", config, trace_path, progress, what="the benchmark",
                                         probe_path=probe_path)
    records, stats = run.trace()
    res = row_results(row, records, stats, trace_path, sim_clock_hz(), fw_config, out_dir)
    res["sim"] = run.sim_log.strip().splitlines()[-1] if run.sim_log.strip() else ""
    res["sim_speed"] = run.speed
    return res


def row_results(row, records, stats, trace_path, clock_hz, fw_config, out_dir):
    """The results entry of one row from its decoded trace (simulation or board)."""
    info = row_info(row)
    res = analysis.analyze(records, clock_hz)
    for name, t in res["tests"].items():
        t["histogram"] = report.histogram(t.pop("_values"))
    # B as measured (what the trace holds), not what the core is said to support.
    marker = res.pop("b_marker")
    res.update({
        "description": info.description,
        "memory": info.soc_config.memory_label,
        "b_marker": analysis.B_DESCRIPTIONS.get(marker, "the tests used different markers" if marker
                                                else "no test in the trace"),
        "b_marker_short": marker or "none",
        "trace": {"bytes": stats.bytes, "records": stats.records, "hw_dropped": stats.hw_dropped,
                  "skipped_bytes": stats.skipped_bytes, "seq_lost": stats.seq_lost},
        "trace_file": os.path.relpath(trace_path, out_dir),
        "firmware_config": fw_config,
    })
    return res


def recorded_config(results):
    """A results file's bench parameters that the firmware still has (not
    its magic, flags or test mask): to run that configuration again."""
    from irqlab.host.protocol import CONFIGS
    fields = set(CONFIGS["bench"].names) - {"magic", "flags", "tests"}
    return {k: v for k, v in results["config"].items() if k in fields}


def sim_clock_hz():
    return registry.board("sim").default_clock_hz


def new_results(board, clock_hz):
    return {
        "irqlab": "0.1.0",
        "git": paths.git_revision(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "board": board,
        "clock_hz": clock_hz,
        "config": {},
        "cores": {},
    }


def write_outputs(results, out_dir):
    report.write_json(results, os.path.join(out_dir, "bench.json"))
    plotted = report.plot_latency(results, os.path.join(out_dir, "latency.png"))
    report.write_text(os.path.join(out_dir, "report.md"),
                      report.markdown(results, "latency.png" if plotted else None))
    # One page with whatever else the folder holds (a demo's results).
    htmlreport.write(resultsfile.load(resultsfile.reported_in(out_dir)), out_dir)


def bench(cores=None, board="sim", out_dir=None, config=None, progress=None, jobs=1, update=False):
    """Run every row named in `cores` (default: all), `jobs` at once, and
    write the results; with `update`, merged into the results already in
    `out_dir` (irqlab/suites/update.py)."""
    registry.board(board)
    cores = cores or list(ROWS)
    for c in cores:
        row_info(c)
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    config = dict(config or {})
    results = parallel.run_suite(new_results(board, sim_clock_hz()),
                                 lambda c: run_row(c, config, out_dir, progress), cores, jobs)
    if update:
        from irqlab.suites.update import merge_file
        results = merge_file(os.path.join(out_dir, "bench.json"), results)
    write_outputs(results, out_dir)
    return results
