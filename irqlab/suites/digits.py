"""`irqlab bench --suite digits`: the background workload on each row in
simulation, two ways: alone (fw/digits: bare metal, no interrupts) and as a
FreeRTOS task with the kernel's tick its only interruption
(fw/digits-rtos). Cycles per inference and accuracy come from the trace's
CH_DIGITS events (trace/workload.py), the tick's period from its CH_TICK
events; inferences per second alone at the clock the row's SoC runs at on
the FPGA board BOARD (the cycles are the simulation's: the same gateware).
The tick's period is set in time (configTICK_RATE_HZ) and so in cycles by
the clock the firmware is built for: the FreeRTOS figure is given in
cycles, with the tick's period in cycles beside it. One results file:
digits.json (configuration, git revision, figures per row and run) and
digits.md (the table)."""

import os
import statistics

from irqlab.drivers import sim
from irqlab.suites.latency import new_results, sim_clock_hz
from irqlab.boards import registry
from irqlab.errors import BenchError
from irqlab.host import record as rec
from irqlab.host import report, workload
from irqlab.host.protocol import APP_PROTOCOLS
from irqlab.rows import ROWS, row as row_info

RUNS = {"alone": "digits", "rtos": "digits-rtos"}     # run -> firmware application
RESULTS_FILE = "digits.json"
REPORT_FILE = "digits.md"
MAX_CYCLES = 100_000_000
BOARD = "ulx3s"                # the rates are given at this board's clock for each SoC
CH_TICK = APP_PROTOCOLS["freertos"].CH_TICK


def _ticks(records, first, last):
    """The kernel's tick events from `first` to `last` (stamps)."""
    return [r.ts for r in records if r.type == rec.TYPE_SW and (r.payload >> 32) & 0xFF == CH_TICK
            and first <= r.ts <= last]


def run_app(row, app, config, out_dir, progress=None):
    """Build (if needed) and run one of the workload's applications on one
    row; its figures, the firmware's configuration included."""
    trace_path = os.path.join(out_dir, f"trace-{app}-{row}.bin")
    run, fw_config = sim.run_application(row, app, config, trace_path, progress, done=f"{app}: ok",
                                         max_cycles=MAX_CYCLES)
    records, stats = run.trace()
    events = workload.inferences(records)
    if len(events) != fw_config["inferences"]:
        raise BenchError(f"{row}: {len(events)} inference events in the trace of {app}, "
                         f"the firmware ran {fw_config['inferences']}")
    res = workload.figures(events, sim_clock_hz())
    ticks = _ticks(records, events[0].ts, events[-1].ts)
    res["ticks"] = len(ticks)
    if len(ticks) >= 2:
        res["tick_period"] = statistics.median(b - a for a, b in zip(ticks, ticks[1:]))
    res.update({"trace": {"bytes": stats.bytes, "records": stats.records, "hw_dropped": stats.hw_dropped},
                "trace_file": os.path.relpath(trace_path, out_dir), "firmware_config": fw_config})
    return res


def run_row(row, config, out_dir, progress=None):
    """Both runs on one row (`config`: the configuration block's values for
    both); its results entry."""
    r = row_info(row)
    board_hz = registry.board(BOARD).clock_hz(r.soc)
    out = {"description": r.description, "memory": r.soc_config.memory_label, "march": r.march}
    for run, app in RUNS.items():
        out[run] = run_app(row, app, config, out_dir, progress)
    alone = out["alone"]["cycles_per_inference"]["mean"]
    out["board"] = {"name": BOARD, "clock_hz": board_hz, "inferences_per_s": board_hz / alone}
    out["rtos_slowdown"] = out["rtos"]["cycles_per_inference"]["mean"] / alone - 1
    return out


def bench(cores=None, out_dir=None, config=None, progress=None):
    """Both runs on every row named in `cores` (default: all); writes
    <out_dir>/digits.json and digits.md and returns the results."""
    from irqlab import paths
    from irqlab.builders import digits_net as digits
    cores = cores or list(ROWS)
    for c in cores:
        row_info(c)
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    model = digits.load(progress)
    results = new_results("sim", sim_clock_hz())
    results["suite"] = "digits"
    results["network"] = {"shape": f"64-{model.hidden}-10", "held_out_images": len(model.test_y),
                          "float_accuracy": model.float_accuracy, "int8_accuracy": model.accuracy(),
                          "firmware_images": digits.FIRMWARE_IMAGES}
    for c in cores:
        res = run_row(c, dict(config or {}), out_dir, progress)
        results["config"] = {run: res[run].pop("firmware_config") for run in RUNS}
        results["cores"][c] = res
    report.write_json(results, os.path.join(out_dir, RESULTS_FILE))
    report.write_text(os.path.join(out_dir, REPORT_FILE), markdown(results))
    return results


def table(results):
    head = ("row", "memory", "ISA", "accuracy", "alone: cycles/inference", "min", "max",
            f"inferences/s at {BOARD} clock", "FreeRTOS: cycles/inference", "tick every", "slower by")
    lines = [head]
    for name, r in results["cores"].items():
        a, t, b = r["alone"], r["rtos"], r["board"]
        ca = a["cycles_per_inference"]
        lines.append((name, r["memory"], r["march"], f"{a['accuracy']:.1%}", f"{ca['mean']:.0f}",
                      str(ca["min"]), str(ca["max"]), f"{b['inferences_per_s']:.0f} ({b['clock_hz'] / 1e6:g} MHz)",
                      f"{t['cycles_per_inference']['mean']:.0f}",
                      f"{t['tick_period']:.0f}" if "tick_period" in t else "-", f"{r['rtos_slowdown']:.1%}"))
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    return "\n".join("  ".join(v.rjust(w) if i > 2 else v.ljust(w) for i, (v, w) in enumerate(zip(l, widths))).rstrip()
                     for l in lines)


def _title(results):
    n = results["network"]
    return (f"{results['board']} (cycles), git {results['git']}, network {n['shape']} int8 (held-out accuracy "
            f"{n['int8_accuracy']:.1%} of {n['held_out_images']} images; float {n['float_accuracy']:.1%}), "
            f"{results['config']['alone'].get('inferences')} inferences over the firmware's "
            f"{n['firmware_images']} images")


LEGEND = ("alone: fw/digits, bare metal, no interrupts; FreeRTOS: fw/digits-rtos, one task above idle, the "
          "kernel's tick (cycles between ticks: `tick every`) its only interruption. cycles/inference: from the "
          "first inference event to the last (trace unit stamps), over the inferences between; min, max: of the "
          f"gaps. inferences/s: the SoC's clock on the {BOARD} over the mean alone.")


def markdown(results):
    return "\n".join(["# The background workload: digit recognition", "",
                      _title(results) + ".", "", "```", table(results), "```", "", LEGEND, ""])


def print_results(results, out_dir):
    print()
    print("irqlab digits workload: " + _title(results))
    print(table(results))
    print(LEGEND)
    print(f"\nresults: {os.path.join(out_dir, RESULTS_FILE)}")
