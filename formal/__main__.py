"""python -m formal [-k SUBSTRING] [--list] [--keep]: run the proofs and their
mutants, one line each (PASS/FAIL), progress on the terminal while a job runs.
Beside the jobs of make test it runs the longer ones (catalog.deep_jobs)."""

import argparse
import sys
import time

from . import sby
from .catalog import all_jobs, deep_jobs


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m formal")
    ap.add_argument("-k", action="append", default=[], help="run only jobs whose name contains this")
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("--keep", action="store_true", help="keep every run's folder under build/formal/")
    args = ap.parse_args(argv)
    jobs = [j for j in all_jobs() + deep_jobs() if not args.k or any(k in j.name for k in args.k)]
    if args.list:
        for j in jobs:
            print(f"{j.name:50s} {j.method:22s} {j.about}")
        return 0
    tty = sys.stdout.isatty()

    def progress(job, text):
        if tty:
            print(f"\r  {job.name}: {text}\033[K", end="", flush=True)

    t0 = time.monotonic()
    bad = 0
    for j in jobs:
        if not tty:
            print(f"  {j.name} ...", flush=True)
        r = sby.run(j, progress=progress, keep=args.keep)
        if tty:
            print("\r\033[K", end="")
        print(r.line(), flush=True)
        bad += not r.ok
    print(f"{len(jobs) - bad} passed, {bad} failed ({time.monotonic() - t0:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
