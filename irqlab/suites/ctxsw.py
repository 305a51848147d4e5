"""`irqlab bench --suite ctxsw`: the context-switch suite (fw/ctxsw/, cases
in trace/ctxsw.py) on every row in simulation, one results file
(ctxsw.json: configuration, git revision, figures per case per row; ctxsw.md:
the tables) and the table beside the seeds' figures."""

import os

from irqlab import parallel
from irqlab.builders import fwoptions
from irqlab.drivers import sim
from irqlab.suites.latency import new_results, sim_clock_hz
from irqlab.host import ctxsw, protocol, report
from irqlab.host.references import SWITCH_REFERENCES
from irqlab.rows import ROWS, row as row_info

APP = "ctxsw"
RESULTS_FILE = "ctxsw.json"
REPORT_FILE = "ctxsw.md"
MAX_CYCLES = 200_000_000


def run_row(row, config, out_dir, progress=None, options=()):
    """Build (if needed) and run the suite on one row (with the firmware
    build options `options`, irqlab/builders/fwoptions.py); its results entry."""
    trace_path = os.path.join(out_dir, f"trace-ctxsw-{row}.bin")
    run, fw_config = sim.run_application(row, APP, config, trace_path, progress, what="the context-switch suite",
                                         done="ctxsw: ok", options=options, max_cycles=MAX_CYCLES)
    records, stats = run.trace()
    raw = ctxsw.samples(records, protocol.APP_PROTOCOLS[APP], protocol.APP_PROTOCOLS["freertos"],
                        tick_line=ctxsw.tick_line(sim.ensure_model(row).facts))
    res = ctxsw.figures(raw, sim_clock_hz())
    res.update({
        "description": row_info(row).description,
        "memory": row_info(row).soc_config.memory_label,
        "trace": {"bytes": stats.bytes, "records": stats.records, "hw_dropped": stats.hw_dropped},
        "trace_file": os.path.relpath(trace_path, out_dir),
        "firmware_config": fw_config,
        "sim_speed": run.speed,
    })
    return res


def bench(cores=None, out_dir=None, config=None, progress=None, fw_options=(), jobs=1, update=False):
    """Run the suite on every row named in `cores` (default: all), with the
    firmware build options named in `fw_options`; writes <out_dir>/ctxsw.json
    (with `update`, merged into the one already there: irqlab/suites/update.py)
    and returns the results."""
    from irqlab import paths
    cores = cores or [r for r in ROWS if ROWS[r].ctxsw]
    for c in cores:
        row_info(c)
    options = fwoptions.parse(fw_options, "freertos")
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    results = new_results("sim", sim_clock_hz())
    results["suite"] = APP
    results["fw_options"] = [o.name for o in options]
    parallel.run_suite(results, lambda c: run_row(c, dict(config or {}), out_dir, progress, options), cores, jobs)
    if update:
        from irqlab.suites.update import merge_file
        results = merge_file(os.path.join(out_dir, RESULTS_FILE), results)
    report.write_json(results, os.path.join(out_dir, RESULTS_FILE))
    report.write_text(os.path.join(out_dir, REPORT_FILE), markdown(results))
    return results


def markdown(results):
    """ctxsw.md: the table and every case of every row (count, mean, min,
    median, max, jitter, samples left out for a tick)."""
    return "\n".join([
        "# The context-switch suite", "",
        f"{results['board']}, {results['clock_hz'] / 1e6:g} MHz, git {results['git']}, "
        f"{results['config'].get('samples')} samples per case{_options_text(results)} "
        "(trace/ctxsw.py says how a sample is taken).", "",
        "```", table(results), "```", "", *_loaded_block(results), ctxsw.LEGEND, "", "## Every case", "",
        "```", ctxsw.details(results), "```", ""])


def _loaded_title(results):
    n = results["config"].get("background")
    return f"With background load ({n} tasks below the routines' own, each doing work and sleeping now and then):"


def _loaded_block(results):
    if not results["config"].get("background"):
        return []
    return [_loaded_title(results), "", "```", ctxsw.table(results, loaded=True), "```", ""]


def _options_text(results):
    opts = results.get("fw_options")
    return f", firmware options: {', '.join(opts)}" if opts else ""


def table(results):
    return ctxsw.table(results, SWITCH_REFERENCES)


def print_results(results, out_dir):
    print()
    print(f"irqlab context-switch suite: {results['board']}, {results['clock_hz'] / 1e6:.0f} MHz, "
          f"git {results['git']}, {results['config'].get('samples')} samples per case{_options_text(results)}")
    print(table(results))
    print()
    if results["config"].get("background"):
        print(_loaded_title(results))
        print(ctxsw.table(results, loaded=True))
        print()
    print(ctxsw.LEGEND)
    print("REFERENCE rows:")
    for r in SWITCH_REFERENCES:
        print(f"  {r.name}: {r.paper}, {r.where}{'; ' + r.note if r.note else ''}")
    print(f"\nresults: {os.path.join(out_dir, RESULTS_FILE)}, every case: {os.path.join(out_dir, REPORT_FILE)}")
