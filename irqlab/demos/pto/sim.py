"""`irqlab demo pto`: the PTO demo (fw/pto/, soc/pto.py, trace/pto.py) on
every row with the PTO, in simulation: per row the highest PTO frequency it
sustains over a long train with no late edge, and the period jitter against
frequency, with the background task running. Writes pto.json (atomically),
pto.md and the HTML report's PTO section with the plot (jitter against
frequency, one curve per row). Frequencies are at 50 MHz, the ULX3S build's
clock (trace/pto.py ASSUMED_CLOCK_HZ): the runs count cycles."""

import os

from irqlab.builders import fwimage
from irqlab.drivers import sim
from irqlab.suites.latency import new_results
from irqlab.errors import BenchError
from irqlab.host import pto, report
from irqlab.rows import ROWS, row as row_info

APP = "pto"
RESULTS_FILE = pto.RESULTS_FILE
REPORT_FILE = "pto.md"
SWEEP_KHZ = (10, 20, 50, 100, 150, 200, 250, 300, 400, 500)
LONG_TRAIN = 2000            # pulses of the trains that decide "sustained"
MAX_TRAIN_CYCLES = 1_000_000   # shorter trains at low frequencies (at least MIN_PULSES)
MIN_PULSES = 200
MAX_CYCLES = 50_000_000


def rows_with_pto():
    return [r for r, info in ROWS.items() if info.soc_config.pto]


def half_period(khz, clock_hz=pto.ASSUMED_CLOCK_HZ):
    return max(2, round(clock_hz / (2 * khz * 1e3)))


def pulses_for(interval, long=False):
    if long:
        return LONG_TRAIN
    return max(MIN_PULSES, min(LONG_TRAIN, MAX_TRAIN_CYCLES // (2 * interval)))


class Runner:
    """Runs trains on one row in simulation, one run a train: the model and
    the firmware built once. Every figure is the trace's, checked against
    the timer's counts. (On a board: irqlab/demos/pto/board.py.)"""
    clock_hz = pto.ASSUMED_CLOCK_HZ
    figures_from = {"max_khz": "trace and timer: long trains with no late edge in the trace and none "
                               "counted by the timer",
                    "jitter": "trace: every edge of every train"}

    def __init__(self, row, out_dir, progress=None, background=1):
        self.row, self.out_dir, self.progress, self.background = row, out_dir, progress, background
        self.model = sim.ensure_model(row, progress)
        self.fw = sim.build_firmware(self.model, APP, progress)
        self.runs = 0

    def square(self, interval, long=False):
        return square(interval, long)

    def finish(self):
        pass

    def train(self, spec, label=""):
        """One run of one train; its figures (trace/pto.py)."""
        image = sim.load_image(self.model, self.fw, trains=1, pulses=spec.pulses,
                               start_interval=spec.start_interval, cruise_interval=spec.cruise_interval,
                               delta_q8=spec.delta_q8, background=self.background)
        self.config = fwimage.read_config(image, self.model.code_size)
        trace_path = os.path.join(self.out_dir, f"trace-pto-{self.row}.bin")
        if self.progress:
            self.progress.step(f"{self.row}: {label or ''}half-period {spec.start_interval} cycles, "
                               f"{spec.pulses} pulses")
        run = sim.run(self.model, image, trace_path, max_cycles=MAX_CYCLES, progress=self.progress,
                      label=self.row)
        if self.progress:
            self.progress.done()
        self.runs += 1
        if run.exit_code != 0 or "pto: ok" not in run.console:
            raise BenchError(f"{self.row}: the PTO demo exited with {run.exit_code}; console: "
                             f"{run.console[-300:].strip()}")
        records, _ = run.trace()
        trains = pto.trains(records)
        if len(trains) != 1:
            raise BenchError(f"{self.row}: {len(trains)} trains in the trace, 1 expected")
        return pto.figures(trains[0], spec)


def square(interval, long=False):
    return pto.Spec(pulses_for(interval, long), interval, interval)


def max_sustained(runner, sustained, failed):
    """The smallest half-period (highest frequency) whose long train has no
    late edge, by bisection between a sustained and a failed half-period."""
    while failed + 1 < sustained:
        mid = (sustained + failed) // 2
        f = runner.train(runner.square(mid, long=True), "search: ")
        if f["sustained"]:
            sustained = mid
        else:
            failed = mid
    return sustained


def run_row(row, out_dir, progress=None, sweep_khz=SWEEP_KHZ, runner=None):
    """The sweep and the bisection on one row, with `runner` (default: a
    simulation); the runner's own clock gives the frequencies."""
    runner = runner or Runner(row, out_dir, progress)
    try:
        entry = _sweep_and_search(runner, row, sweep_khz)
    finally:
        runner.finish()
    return entry


def _sweep_and_search(runner, row, sweep_khz):
    points = []
    for khz in sweep_khz:
        f = runner.train(runner.square(half_period(khz, runner.clock_hz)), f"{khz} kHz: ")
        points.append(f)
        if not f["complete"]:
            break
    ok = sorted(p["half_period"] for p in points if p["sustained"])
    bad = [p["half_period"] for p in points if not p["sustained"]]
    if not ok:
        raise BenchError(f"{row}: no train of the sweep was sustained, not even at {sweep_khz[0]} kHz")
    # The fastest point the short trains sustained that a long train sustains too.
    failed = max([b for b in bad if b < ok[0]], default=1)
    for hp in ok:
        if runner.train(runner.square(hp, long=True), "long train: ")["sustained"]:
            sustained = hp
            break
        failed = hp
    else:
        raise BenchError(f"{row}: no long train was sustained, not even at {sweep_khz[0]} kHz")
    best = max_sustained(runner, sustained, failed)
    info = row_info(row)
    return {
        "description": info.description,
        "memory": info.soc_config.memory_label,
        "pto": {
            "max_half_period": best,
            "max_khz": runner.clock_hz / (2 * best) / 1e3,
            "long_train": LONG_TRAIN,
            "response": pto.response([p for p in points if p["late_trace"] is not None]),
            "points": points,
            "runs": runner.runs,
            "figures_from": runner.figures_from,
        },
        "firmware_config": runner.config,
    }


def demo(cores=None, out_dir=None, progress=None, sweep_khz=SWEEP_KHZ):
    """The demo on every row named in `cores` (default: every row with the
    PTO); writes pto.json, pto.md and report.html into out_dir."""
    from irqlab import paths
    from irqlab.suites.latency import sim_clock_hz
    cores = cores or rows_with_pto()
    for c in cores:
        if not row_info(c).soc_config.pto:
            raise BenchError(f"row '{c}' has no PTO (its SoC '{row_info(c).soc}' has no free interrupt input)")
    out_dir = out_dir or paths.RESULTS
    os.makedirs(out_dir, exist_ok=True)
    results = new_results("sim", pto.ASSUMED_CLOCK_HZ)
    results.update({"demo": APP, "sim_clock_hz": sim_clock_hz(), "definitions": pto.__doc__.strip()})
    for c in cores:
        results["cores"][c] = run_row(c, out_dir, progress, sweep_khz)
        results["config"] = results["cores"][c].pop("firmware_config")
    write_outputs(results, out_dir)
    return results


def write_outputs(results, out_dir):
    from irqlab.host import htmlreport, results as resultsfile
    report.write_json(results, os.path.join(out_dir, RESULTS_FILE))
    report.write_text(os.path.join(out_dir, REPORT_FILE), markdown(results))
    # The same page as the benchmarks' when the folder holds their results.
    htmlreport.write(resultsfile.load(resultsfile.reported_in(out_dir)), out_dir)


def figures_from(results):
    """Lines saying where each row's figures come from (trace or timer)."""
    return [f"{row}: {what} from the {src}" for row, e in results["cores"].items()
            for what, src in e.get("pto", {}).get("figures_from", {}).items()]


def markdown(results):
    return "\n".join(["# The PTO demo", "", f"{results['board']}, figures at "
                      f"{results['clock_hz'] / 1e6:g} MHz, git {results['git']}.", "",
                      "```", pto.table(results), "```", "", pto.LEGEND, "", *figures_from(results), ""])


def print_results(results, out_dir):
    print()
    print(f"irqlab PTO demo: {results['board']}, at {results['clock_hz'] / 1e6:g} MHz, git {results['git']}")
    print(pto.table(results))
    print()
    print(pto.LEGEND)
    for line in figures_from(results):
        print(line)
    print(f"\nresults: {os.path.join(out_dir, RESULTS_FILE)}, report: {os.path.join(out_dir, 'report.html')}")
