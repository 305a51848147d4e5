"""`irqlab bench --suite digits`: the background workload alone (fw/digits,
bare metal, no interrupts) on each row in simulation: cycles per inference
and accuracy from the trace's CH_DIGITS events (trace/workload.py), and
inferences per second at the clock the row's SoC runs at on the FPGA board
BOARD (the cycles are the simulation's, the same gateware). One results
file: digits.json (configuration, git revision, figures per row) and
digits.md (the table)."""

import os

from irqlab import fwimage, sim
from irqlab.bench import new_results, sim_clock_hz
from irqlab.boards import registry
from irqlab.errors import BenchError
from irqlab.host import report, workload
from irqlab.rows import ROWS, row as row_info

APP = "digits"
RESULTS_FILE = "digits.json"
REPORT_FILE = "digits.md"
MAX_CYCLES = 100_000_000
BOARD = "ulx3s"                # the rates are given at this board's clock for each SoC


def run_row(row, config, out_dir, progress=None):
    """Build (if needed) and run fw/digits on one row; its results entry."""
    model = sim.ensure_model(row, progress)
    fw = sim.build_firmware(model, APP, progress)
    image = sim.load_image(model, fw, **config)
    fw_config = fwimage.read_config(image, model.code_size)
    trace_path = os.path.join(out_dir, f"trace-digits-{row}.bin")
    if progress:
        progress.step(f"{row}: running the digits workload in simulation")
    run = sim.run(model, image, trace_path, max_cycles=MAX_CYCLES, progress=progress, label=row)
    if progress:
        progress.done()
    if run.exit_code != 0 or "digits: ok" not in run.console:
        raise BenchError(f"{row}: the digits workload exited with {run.exit_code}; console:\n{run.console[-800:]}")
    records, stats = run.trace()
    events = workload.inferences(records)
    if len(events) != fw_config["inferences"]:
        raise BenchError(f"{row}: {len(events)} inference events in the trace, "
                         f"the firmware ran {fw_config['inferences']}")
    res = workload.figures(events, sim_clock_hz())
    board_hz = registry.board(BOARD).clock_hz(row_info(row).soc)
    res.update({
        "board": {"name": BOARD, "clock_hz": board_hz,
                  "inferences_per_s": board_hz / res["cycles_per_inference"]["mean"]},
        "description": row_info(row).description,
        "memory": row_info(row).soc_config.memory_label,
        "march": row_info(row).march,
        "trace": {"bytes": stats.bytes, "records": stats.records, "hw_dropped": stats.hw_dropped},
        "trace_file": os.path.relpath(trace_path, out_dir),
        "firmware_config": fw_config,
    })
    return res


def bench(cores=None, out_dir=None, config=None, progress=None):
    """Run fw/digits on every row named in `cores` (default: all); writes
    <out_dir>/digits.json and digits.md and returns the results."""
    from irqlab import digits, paths
    cores = cores or list(ROWS)
    for c in cores:
        row_info(c)
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    model = digits.load(progress)
    results = new_results("sim", sim_clock_hz())
    results["suite"] = APP
    results["network"] = {"shape": f"64-{model.hidden}-10", "held_out_images": len(model.test_y),
                          "float_accuracy": model.float_accuracy, "int8_accuracy": model.accuracy(),
                          "firmware_images": digits.FIRMWARE_IMAGES}
    for c in cores:
        results["cores"][c] = run_row(c, dict(config or {}), out_dir, progress)
        results["config"] = results["cores"][c].pop("firmware_config")
    report.write_json(results, os.path.join(out_dir, RESULTS_FILE))
    report.write_text(os.path.join(out_dir, REPORT_FILE), markdown(results))
    return results


def table(results):
    head = ("row", "memory", "ISA", "inferences", "accuracy", "cycles/inference", "min", "max",
            f"inferences/s at {BOARD} clock")
    lines = [head]
    for name, r in results["cores"].items():
        c, b = r["cycles_per_inference"], r["board"]
        lines.append((name, r["memory"], r["march"], str(r["inferences"]), f"{r['accuracy']:.1%}",
                      f"{c['mean']:.0f}", str(c["min"]), str(c["max"]),
                      f"{b['inferences_per_s']:.0f} ({b['clock_hz'] / 1e6:g} MHz)"))
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    return "\n".join("  ".join(v.rjust(w) if i > 2 else v.ljust(w) for i, (v, w) in enumerate(zip(l, widths))).rstrip()
                     for l in lines)


def _title(results):
    n = results["network"]
    return (f"{results['board']} (cycles), git {results['git']}, network {n['shape']} "
            f"int8 (held-out accuracy {n['int8_accuracy']:.1%} of {n['held_out_images']} images; float "
            f"{n['float_accuracy']:.1%}), {results['config'].get('inferences')} inferences over the firmware's "
            f"{n['firmware_images']} images")


LEGEND = ("cycles/inference: from the first inference event to the last (trace unit stamps), over the "
          f"inferences between; min, max: of the gaps. inferences/s: the SoC's clock on the {BOARD} over the mean.")


def markdown(results):
    return "\n".join(["# The background workload alone: digit recognition", "",
                      _title(results) + ".", "", "```", table(results), "```", "", LEGEND, ""])


def print_results(results, out_dir):
    print()
    print("irqlab digits workload: " + _title(results))
    print(table(results))
    print(LEGEND)
    print(f"\nresults: {os.path.join(out_dir, RESULTS_FILE)}")
