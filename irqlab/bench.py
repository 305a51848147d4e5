"""`irqlab bench`: build, run and report the latency/throughput benchmark for
every core, in one run, on one SoC, with one firmware and one trace path."""

import datetime
import os
import subprocess

from irqlab import fwimage, paths, sim
from irqlab.boards import registry
from irqlab.host import analysis, report
from irqlab.host.decode import read_trace
from irqlab.soc.cpus import CORES, core_info
from irqlab.soc.soc import ROM_SIZE


class BenchError(Exception):
    pass


def git_revision():
    try:
        rev = subprocess.run(["git", "-C", paths.ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", paths.ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_core(core, config, out_dir, progress, probe_path=None):
    """Build (if needed) and run one core; returns its results entry."""
    model = sim.ensure_model(core, progress)
    fw = sim.build_firmware(model, "bench", progress)
    image = sim.load_image(model, fw, **config)
    fw_config = fwimage.read_config(image, ROM_SIZE)
    trace_path = os.path.join(out_dir, f"trace-{core}.bin")
    progress.step(f"{core}: running the benchmark in simulation")
    run = sim.run(model, image, trace_path, probe_path=probe_path, progress=progress, label=core)
    progress.done()
    if run.exit_code != 0:
        raise BenchError(f"{core}: firmware exited with {run.exit_code}; console:\n{run.console[-800:]}")
    res = core_results(core, trace_path, sim_clock_hz(), fw_config, out_dir)
    res["sim"] = run.sim_log.strip().splitlines()[-1] if run.sim_log.strip() else ""
    return res


def core_results(core, trace_path, clock_hz, fw_config, out_dir):
    """The results entry of one core from its trace (simulation or board)."""
    info = core_info(core)
    records, stats = read_trace(trace_path)
    res = analysis.analyze(records, clock_hz)
    for name, t in res["tests"].items():
        t["histogram"] = report.histogram(t.pop("_values"))
    # B as measured (what the trace holds), not what the core is said to support.
    marker = res.pop("b_marker")
    res.update({
        "description": info.description,
        "b_marker": analysis.B_DESCRIPTIONS.get(marker, "the tests used different markers" if marker
                                                else "no test in the trace"),
        "b_marker_short": marker or "none",
        "trace": {"bytes": stats.bytes, "records": stats.records, "hw_dropped": stats.hw_dropped,
                  "skipped_bytes": stats.skipped_bytes, "seq_lost": stats.seq_lost},
        "trace_file": os.path.relpath(trace_path, out_dir),
        "firmware_config": fw_config,
    })
    return res


def sim_clock_hz():
    return registry.board("sim").default_clock_hz


def new_results(board, clock_hz):
    return {
        "irqlab": "0.1.0",
        "git": git_revision(),
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


def bench(cores=None, board="sim", out_dir=None, config=None, progress=None):
    registry.board(board)
    cores = cores or list(CORES)
    for c in cores:
        core_info(c)
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    config = dict(config or {})
    results = new_results(board, sim_clock_hz())
    for c in cores:
        results["cores"][c] = run_core(c, config, out_dir, progress)
        # What the firmware ran with: its defaults plus the overrides.
        results["config"] = results["cores"][c].pop("firmware_config")
    write_outputs(results, out_dir)
    return results
