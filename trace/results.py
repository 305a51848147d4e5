"""Benchmark results files (bench.json, as irqlab/suites/latency.py writes them) read
back for `irqlab report` and `irqlab compare`: one Run per core per file,
named uniquely when several files hold the same core."""

import json
import os
from dataclasses import dataclass

from irqlab.errors import ResultsError
from irqlab.host import pto


@dataclass
class Run:
    name: str          # unique among the runs shown together
    core: str          # the row's name in its file
    entry: dict        # results["cores"][core]
    results: dict      # the whole file
    path: str          # the results file (trace_file is relative to its folder)

    def test(self, bench):
        return self.entry.get("tests", {}).get(bench, {})

    @property
    def trace_path(self):
        rel = self.entry.get("trace_file")
        return os.path.join(os.path.dirname(os.path.abspath(self.path)), rel) if rel else None

    @property
    def source(self):
        r = self.results     # a row recorded again (irqlab bench --update) carries its own revision
        return f"{r.get('board', '?')}, {r.get('clock_hz', 0) / 1e6:g} MHz, git {self.entry.get('git') or r.get('git', '?')}"


def read(path):
    try:
        with open(path) as f:
            results = json.load(f)
    except OSError as e:
        raise ResultsError(f"cannot read results '{path}': {e.strerror}") from None
    except ValueError as e:
        raise ResultsError(f"results '{path}' is not JSON: {e}") from None
    if not isinstance(results, dict) or not isinstance(results.get("cores"), dict) \
            or not all(isinstance(c, dict) and isinstance(c.get("tests", {}), dict)
                       for c in results["cores"].values()):
        raise ResultsError(f"'{path}' is not an irqlab results file (no 'cores' with their 'tests')")
    return results


def runs_of(results, path):
    return [Run(core, core, entry, results, path) for core, entry in results["cores"].items()]


def load(paths):
    """The runs of every file, in order; a core found in several files is
    named 'core (folder)' or, if the folders agree, 'core (#k)'."""
    runs = []
    for p in paths:
        runs += runs_of(read(p), p)
    counts = {}
    for r in runs:
        counts[r.core] = counts.get(r.core, 0) + 1
    seen = set()
    for k, r in enumerate(runs):
        if counts[r.core] > 1:
            r.name = f"{r.core} ({os.path.basename(os.path.dirname(os.path.abspath(r.path))) or r.path})"
            if r.name in seen:
                r.name = f"{r.core} (#{k + 1})"
        seen.add(r.name)
    if not runs:
        raise ResultsError(f"no core in {', '.join(paths)}")
    return runs


# The results files one report page shows together when they share a folder:
# the benchmarks (irqlab bench) and the demos (irqlab demo).
REPORTED_FILES = ("bench.json", pto.RESULTS_FILE)


def reported_in(out_dir):
    """The results files of REPORTED_FILES present in out_dir, in that order."""
    return [os.path.join(out_dir, f) for f in REPORTED_FILES if os.path.exists(os.path.join(out_dir, f))]
