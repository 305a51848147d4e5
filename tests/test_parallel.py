"""irqlab/parallel.py: rows side by side keep their order, run at once,
and stop at the first error; the shared progress line stays whole."""

import io
import threading
import time

import pytest

from irqlab import parallel
from irqlab.errors import BenchError
from irqlab.progress import Progress


def test_results_keep_the_rows_order_whatever_ends_first():
    delays = {"a": 0.2, "b": 0.0, "c": 0.1}

    def run(r):
        time.sleep(delays[r])
        return r.upper()

    out = parallel.map_rows(run, ["a", "b", "c"], jobs=3)
    assert list(out) == ["a", "b", "c"] and out == {"a": "A", "b": "B", "c": "C"}


def test_jobs_rows_run_at_once_and_no_more():
    running, peak, lock = [0], [0], threading.Lock()

    def run(r):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return r

    parallel.map_rows(run, range(6), jobs=2)
    assert peak[0] == 2
    peak[0] = 0
    parallel.map_rows(run, range(6), jobs=1)
    assert peak[0] == 1


def test_an_error_stops_new_rows_and_is_raised_after_the_running_ones_end():
    started, ended = [], []

    def run(r):
        started.append(r)
        if r == 0:
            time.sleep(0.05)                   # row 1 has started by then
            raise BenchError("row 0 failed")
        time.sleep(0.1)
        ended.append(r)
        return r

    with pytest.raises(BenchError, match="row 0 failed"):
        parallel.map_rows(run, range(5), jobs=2)
    assert sorted(started) == [0, 1] and ended == [1]


def test_jobs_below_one_is_an_error():
    with pytest.raises(BenchError, match="--jobs must be at least 1"):
        parallel.check_jobs(0)
    assert parallel.check_jobs(None) is None and parallel.default_jobs() >= 1


def test_throughput_adds_the_rows_cycles_over_the_wall_time():
    f = parallel.throughput([{"cycles": 15_000_000, "cpu_seconds": 9.0}, {"cycles": 5_000_000, "cpu_seconds": 4.0},
                             None], wall=10.0, jobs=2)    # the suite took 10 s of wall time
    assert f["cycles"] == 20_000_000 and f["rows"] == 3 and f["jobs"] == 2
    assert abs(f["mcycles_per_wall_s"] - 2.0) < 0.01 and f["sim_cpu_seconds"] == 13.0
    assert "2.00 Mcycles per wall-second" in parallel.describe(f)
    assert parallel.throughput([None], wall=1.0, jobs=2)["jobs"] == 1   # one row: one at once


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_from_threads_keeps_whole_step_lines_and_one_live_detail_each():
    out = _Tty()
    p = Progress(out)

    def row(name):
        for i in range(50):
            p.update(f"{name}: {i}")
        p.step(f"{name}: done")
        p.done()

    ts = [threading.Thread(target=row, args=(n,)) for n in ("clic", "clint")]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    steps = [line.rsplit("\r", 1)[-1] for line in out.getvalue().split("\n") if "done" in line]
    assert sorted(s.split("] ", 1)[1] for s in steps) == ["clic: done", "clint: done"]
    assert p.live == {}


def test_ports_for_rows_side_by_side_are_never_the_same():
    from irqlab.drivers import sim
    got = []
    ts = [threading.Thread(target=lambda: got.extend(sim.free_port() for _ in range(50))) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(got) == len(set(got)) == 200
