"""`irqlab demo modbus`: bad input is one line and exit 2 with nothing
written; one short run in simulation (one row, one baud rate) end to end:
pymodbus through the harness's bridge to the firmware's slave, every request
answered correctly, the background rate timed by the trace unit, the
malformed frames of item 8 counted and the slave answering after them."""
import json
import subprocess
import sys

import pytest

from irqlab.demos.modbus import sim as modbusdemo
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
    (["--port", "/dev/ttyUSB0"], "not an FPGA board"),
    (["--modbus-port", "loop://"], "--modbus-port goes with"),
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


def synthetic_results():
    entry = lambda baud, rate, lost: {
        "row": "clic", "baud": baud, "sent": 10, "answered": 10 - lost, "lost": lost, "wrong": 0,
        "bg_rate": rate, "bg_loss": 1 - rate / 5000, "no_loss": lost == 0}
    return {"frames": 10, "bauds": [115200, 2000000], "robustness": {},
            "rows": {"clic": {"baseline": {"bg_rate": 5000.0}, "sustained_baud": 115200,
                              "bauds": [entry(115200, 4900.0, 0), entry(2000000, 4000.0, 2)]}}}


def test_the_benchmark_report_gets_the_demo_section(tmp_path):
    """The demo's results beside bench.json: the report (rewritten by the
    demo) shows its table and plot; without them the page has no such section."""
    from test_htmlreport import results_file
    from irqlab.host import htmlreport, results as resultsfile
    bench = results_file(tmp_path)
    page = htmlreport.write(resultsfile.runs_of(resultsfile.read(bench), str(bench)), str(tmp_path))
    assert "Modbus-RTU demo" not in open(page).read()
    res = synthetic_results()
    modbusdemo.plot(res, str(tmp_path / regs.PLOT_FILE))
    (tmp_path / regs.RESULTS_FILE).write_text(json.dumps(res))
    modbusdemo._update_report(str(tmp_path))
    text = open(page).read()
    assert "Modbus-RTU demo" in text and f'src="{regs.PLOT_FILE}"' in text
    assert "<td>2000000</td><td>8/10</td><td>2</td>" in text and "20.0 %" in text
    assert "clic: 115200" in text
    assert (tmp_path / regs.PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_background_rate_between_unit_marks():
    """Units 2,000 cycles apart, frames around them: the rate is counted
    from the window's first unit mark to its last, whatever the window's edges."""
    from irqlab.host import protocol, record as rec
    from irqlab.host.decode import Record
    ch = protocol.APP_PROTOCOLS["modbus"]

    def sw(ts, channel, data):
        return Record(rec.TYPE_SW, 0, ts, (channel << 32) | data)
    frames = [sw(t, ch.CH_MB_FRAME, 3) for t in (500, 10_900, 30_000, 31_000)]
    units = [sw(1000 + 2000 * k, ch.CH_MB_BG, k + 1) for k in range(20)]
    records = sorted(frames + units, key=lambda r: r.ts)
    rate, cycles = modbusdemo.background_rate(records, 100_000_000, (0, -2))
    assert cycles == 30_000 - 500
    assert rate == pytest.approx(100_000_000 / 2000)
    with pytest.raises(modbusdemo.DemoError):
        modbusdemo.background_rate(records, 100_000_000, (-2, -1))    # no unit inside
