"""Recording some rows again without running the others: the rows just run
replace theirs in the results file already in the folder (`irqlab bench
--update`), and every row keeps the revision and date it ran at.

A results file holds one configuration: the rows of a merge must have run
with the same firmware configuration, build options, suite, board and clock
as the file's, or the figures would not be comparable; then nothing is
written and the command ends with one line.
"""

import json
import os

from irqlab.errors import BenchError

# What must agree between the file and the new run (the rest describes a run).
SAME = ("suite", "board", "clock_hz", "config", "fw_options")


def stamp_rows(results):
    """Give every row its run's revision and date (kept when it has them)."""
    for entry in results["cores"].values():
        entry.setdefault("git", results.get("git"))
        entry.setdefault("date", results.get("date"))
    return results


def revisions(results):
    """The revisions the rows ran at, in row order, each once."""
    seen = []
    for entry in results["cores"].values():
        if entry.get("git") and entry["git"] not in seen:
            seen.append(entry["git"])
    return ", ".join(seen) or results.get("git", "?")


def merge(recorded, new, path="the results file"):
    """`recorded` with the rows of `new` in place of theirs (new rows at the
    end), every row stamped with its own revision and date; the file's `git`
    lists the revisions, its `date` is the newest run's."""
    for key in SAME:
        if recorded.get(key) != new.get(key):
            raise BenchError(f"--update: {path} was recorded with another {key} "
                             f"({_short(recorded.get(key))} against {_short(new.get(key))}): "
                             "record every row without --update")
    merged = dict(recorded)
    merged["cores"] = dict(stamp_rows(json.loads(json.dumps(recorded)))["cores"])
    for row, entry in stamp_rows(new)["cores"].items():
        merged["cores"][row] = entry
    merged["git"] = revisions(merged)
    merged["date"] = new["date"]
    merged["sim_throughput"] = new.get("sim_throughput")
    return merged


def merge_file(path, new):
    """merge() with the file at `path`; a missing file is the new run alone."""
    if not os.path.exists(path):
        return stamp_rows(new)
    try:
        with open(path) as f:
            recorded = json.load(f)
    except (OSError, ValueError) as e:
        raise BenchError(f"--update: cannot read {path}: {e}") from None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("cores"), dict):
        raise BenchError(f"--update: {path} is not a results file (no 'cores')")
    return merge(recorded, new, path)


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."
