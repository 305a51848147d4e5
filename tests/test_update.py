"""`irqlab bench --update` (irqlab/suites/update.py): rows recorded again
replace theirs, the others stay as recorded, every row keeps the revision it
ran at, and a run with another configuration is refused before anything is
written."""

import json
import subprocess
import sys

import pytest

from irqlab.errors import BenchError
from irqlab.suites import update


def results(git, date, rows, **over):
    r = {"irqlab": "0.1.0", "git": git, "date": date, "board": "sim", "clock_hz": 100e6,
         "config": {"samples": 1000, "seed": 7}, "suite": "ctxsw", "fw_options": [],
         "cores": {name: {"yield": value} for name, value in rows.items()},
         "sim_throughput": {"rows": len(rows)}}
    r.update(over)
    return r


def test_a_row_recorded_again_replaces_its_entry_and_keeps_the_others():
    old = results("aaa", "2026-01-01", {"clic": 161, "fastirq": 136})
    new = results("bbb", "2026-02-02", {"fastirq": 120, "clic-cache": 200})
    m = update.merge(old, new)
    assert list(m["cores"]) == ["clic", "fastirq", "clic-cache"]
    assert m["cores"]["clic"] == {"yield": 161, "git": "aaa", "date": "2026-01-01"}
    assert m["cores"]["fastirq"] == {"yield": 120, "git": "bbb", "date": "2026-02-02"}
    assert m["git"] == "aaa, bbb" and m["date"] == "2026-02-02"
    assert old["cores"]["clic"] == {"yield": 161}          # the recorded dict itself is untouched


def test_every_row_recorded_again_leaves_one_revision():
    m = update.merge(results("aaa", "d1", {"clic": 1}), results("bbb", "d2", {"clic": 2}))
    assert m["git"] == "bbb" and m["cores"]["clic"]["yield"] == 2


@pytest.mark.parametrize("key, value", [("config", {"samples": 10, "seed": 7}), ("suite", None),
                                        ("clock_hz", 50e6), ("fw_options", ["opt-select"]), ("board", "ulx3s")])
def test_another_configuration_is_refused(key, value):
    """The negative control: figures of another configuration are not merged."""
    with pytest.raises(BenchError, match=f"another {key}"):
        update.merge(results("aaa", "d1", {"clic": 1}), results("bbb", "d2", {"clic": 2}, **{key: value}))


def test_a_missing_file_is_the_new_run(tmp_path):
    m = update.merge_file(str(tmp_path / "ctxsw.json"), results("bbb", "d2", {"clic": 2}))
    assert m["cores"]["clic"]["git"] == "bbb"


def test_a_file_that_is_not_results_is_one_line(tmp_path):
    bad = tmp_path / "ctxsw.json"
    bad.write_text("[1, 2]")
    with pytest.raises(BenchError, match="not a results file"):
        update.merge_file(str(bad), results("bbb", "d2", {"clic": 2}))
    bad.write_text("{not json")
    with pytest.raises(BenchError, match="cannot read"):
        update.merge_file(str(bad), results("bbb", "d2", {"clic": 2}))


def test_the_cli_refuses_update_where_it_has_no_meaning():
    r = subprocess.run([sys.executable, "-m", "irqlab", "bench", "--suite", "digits", "--update"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--update" in r.stderr
