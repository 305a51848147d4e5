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


class Throughput:
    """Simulated cycles per wall-second of a whole suite (all its rows,
    however many ran at once): the figure a user waits on."""

    def __init__(self, jobs):
        self.jobs = jobs
        self.t0 = time.monotonic()

    def figures(self, speeds):
        """From the rows' sim_speed entries (irqlab/sim.py), at the suite's end."""
        wall = time.monotonic() - self.t0
        cycles = sum(s["cycles"] for s in speeds if s)
        cpu = sum(s["cpu_seconds"] for s in speeds if s)
        return {"jobs": min(self.jobs, len(speeds)) or 1, "rows": len(speeds), "cycles": cycles, "wall_seconds": round(wall, 1),
                "sim_cpu_seconds": round(cpu, 1),
                "mcycles_per_wall_s": round(cycles / wall / 1e6, 2) if wall > 0 else None}


def describe(t):
    """One line for the end of a suite."""
    return (f"simulated {t['cycles'] / 1e6:.1f} M cycles on {t['rows']} rows in {t['wall_seconds']:.0f} s "
            f"({t['jobs']} at once): {t['mcycles_per_wall_s']:.2f} Mcycles per wall-second")
