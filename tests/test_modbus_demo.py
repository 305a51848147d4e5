"""`irqlab demo modbus`: bad input is one line and exit 2 with nothing
written; one short run in simulation (one row, one baud rate) end to end:
pymodbus through the harness's bridge to the firmware's slave, every request
answered correctly, the background rate timed by the trace unit, the
malformed frames of item 8 counted and the slave answering after them."""
import json
import os
import subprocess
import sys

import pytest

from irqlab import modbusdemo
from irqlab.host import modbus as regs

ROW = "clic"


def irqlab(*args, **kw):
    return subprocess.run([sys.executable, "-m", "irqlab", *args], capture_output=True, text=True, **kw)


@pytest.mark.parametrize("args,words", [
    (["--cores", "nosuch"], "unknown row 'nosuch'"),
    (["--cores", "cv32e40p"], "no Modbus UART"),
    (["--bauds", "9600,fast"], "--bauds"),
    (["--bauds", "100"], "--bauds"),
    (["--frames", "0"], "--frames"),
    (["--port", "/dev/ttyUSB0"], "not implemented"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    r = irqlab("demo", "modbus", "--out", str(tmp_path / "out"), *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irqlab: error:") and words in lines[0]
    assert not (tmp_path / "out").exists()


def test_encoder_and_malformed_frames():
    assert modbusdemo.adu(1, bytes([3, 0, 0, 0, 2])).hex() == "010300000002c40b"
    cases = modbusdemo.malformed_frames()
    assert len(cases) == len({name for name, _, _ in cases})
    assert {d for _, _, d in cases if d} <= set(regs.DROPS)


def test_demo_end_to_end_in_simulation(tmp_path):
    """One row at 2 Mbaud: every function code answered, nothing lost, the
    background rate measured in both runs, the robustness checks pass."""
    pytest.importorskip("pymodbus")
    out = tmp_path / "out"
    r = irqlab("demo", "modbus", "--cores", ROW, "--bauds", "2000000", "--frames", "9", "--out", str(out),
               timeout=1500)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads((out / "modbus.json").read_text())
    assert (out / "modbus.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    row = res["rows"][ROW]
    (e,) = row["bauds"]
    assert e["sent"] == e["answered"] == 9 and e["lost"] == e["wrong"] == 0
    assert set(e["by_function"]) == {"1", "2", "3", "4", "5", "6", "15", "16", "23"}
    assert row["sustained_baud"] == 2_000_000
    # the slave's own account agrees: every request of the window (and the
    # sync's and the counters' reads before it) answered, none dropped
    assert e["counters"]["responses"] >= 9 and e["counters"]["exceptions"] == 0
    assert all(v == 0 for k, v in e["drops"].items() if k != "address")
    assert e["counters"]["baud"] == 2_000_000
    # the trace unit's background rate: positive in both runs, the window
    # long enough to hold many units
    assert row["baseline"]["bg_rate"] > 0 and e["bg_rate"] > 0
    assert e["window_cycles"] > 100_000
    rob = res["robustness"][ROW]
    assert rob["ok"], rob
    assert all(rob["drops"][d] >= n for d, n in rob["expected_drops"].items())
