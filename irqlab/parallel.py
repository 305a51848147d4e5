"""Rows side by side. Each row's simulation is a process of its own and its
trace capture a thread, so a suite runs `jobs` rows at once (the suites'
--jobs, default: one per CPU this process may use). Model, core and
firmware builds already take a lock per output folder, so rows that share
a SoC build its model once and the others wait for it."""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor


def default_jobs():
    """One job per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                  # not Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs):
    from irqlab.errors import BenchError
    if jobs is not None and jobs < 1:
        raise BenchError(f"--jobs must be at least 1, not {jobs}")
    return jobs


def map_rows(fn, rows, jobs=1):
    """{row: fn(row)} in the order of `rows`, at most `jobs` running at once.
    On an error no further row starts; the rows already running end, then
    the first error (in time) is raised."""
    rows = list(rows)
    if jobs <= 1 or len(rows) <= 1:
        return {r: fn(r) for r in rows}
    errors = []
    lock = threading.Lock()

    def one(r):
        if errors:
            return None
        try:
            return fn(r)
        except BaseException as e:
            with lock:
                errors.append(e)
            raise

    with ThreadPoolExecutor(max_workers=min(jobs, len(rows)), thread_name_prefix="row") as ex:
        futures = [(r, ex.submit(one, r)) for r in rows]
    if errors:
        raise errors[0]
    return {r: f.result() for r, f in futures}


def run_suite(results, run_row, rows, jobs=1):
    """A suite's rows, `jobs` at once, into `results`: `cores` (each row's
    entry from run_row(row), without its `firmware_config`), `config` (what
    the firmware ran with: its defaults plus the overrides, the same on every
    row) and `sim_throughput`."""
    t0 = time.monotonic()
    results["cores"] = map_rows(run_row, rows, jobs)
    for entry in results["cores"].values():
        results["config"] = entry.pop("firmware_config")
    results["sim_throughput"] = throughput([e.get("sim_speed") for e in results["cores"].values()],
                                           time.monotonic() - t0, jobs)
    return results


def throughput(speeds, wall, jobs):
    """Simulated cycles per wall-second of a whole suite (all its rows,
    however many ran at once): the figure a user waits on. `speeds`: the
    rows' sim_speed entries (irqlab/drivers/sim.py), `wall`: the suite's seconds."""
    cycles = sum(s["cycles"] for s in speeds if s)
    cpu = sum(s["cpu_seconds"] for s in speeds if s)
    return {"jobs": min(jobs, len(speeds)) or 1, "rows": len(speeds), "cycles": cycles,
            "wall_seconds": round(wall, 1), "sim_cpu_seconds": round(cpu, 1),
            "mcycles_per_wall_s": round(cycles / wall / 1e6, 2) if wall > 0 else None}


def describe(t):
    """One line for the end of a suite."""
    return (f"simulated {t['cycles'] / 1e6:.1f} M cycles on {t['rows']} rows in {t['wall_seconds']:.0f} s "
            f"({t['jobs']} at once): {t['mcycles_per_wall_s']:.2f} Mcycles per wall-second")
