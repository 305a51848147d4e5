"""The board twin (boards/twin/): the ULX3S SoC as `irqlab build --board
ulx3s` generates it, in Verilator at the board's clock, its serial link
bridged to a socket at bit level; the host's board path, unmodified (the
`irqlab bench --board ulx3s --port socket://...` command), runs against it.

One row (clic) and a short benchmark: the latency test (`--only latency`)
with INTERRUPTS interrupts. It suffices because every figure is a count of
cycles from the on-chip statistics and the trace of the same firmware
configuration and seed: a longer run repeats the same arrivals with other
jitter values and tests nothing else. The throughput and seed-004 cases are
left out here: over a 3 Mbaud link their per-interrupt events overflow the
trace unit's FIFO on a board, and the twin shows that too (`make twin`).
What costs time is the load, the 64 KiB ITCM image over the link.

The bridge sends the host's characters back to back at 3 Mbaud, as a USB
UART does: the ITCM loader (fw/common/itcm_loader.S) keeps up because it
only stores while it receives and checks the CRC after the last byte.

The figures are compared with a simulation of the same configuration and
seed (boards/twin/compare.py), and must be equal in every figure counted in
cycles. The two firmware images are not the same binary (each is built
against its own SoC's headers; on the board the console goes into the
trace), but their code takes the same cycles: the board's handler GPIO is
made by the gateware, not by the handler. When the handler drove it, the
board's handler was two stores longer, its arrivals met the waiting loop
elsewhere and 2 of 200 latencies differed by a cycle; this test fails on
that.

The host's board path reads the SoC's headers from the board build's folder
(build/boards/ulx3s-clic): the test gives the command a build tree of its own
(IRQLAB_BUILD) with the twin's headers in it, so a board build running beside
it (make test's FPGA lane rebuilds that folder) cannot pull them away.
"""

import json
import os
import subprocess
import sys
import time

import pytest

from irqlab.boards import registry
from irqlab.boards.twin import compare, run as twinrun, target
from irqlab.host import record as rec
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.host.decode import Record
from irqlab.host.protocol import CH_TEST_BEGIN
from irqlab.progress import Progress

BOARD = "ulx3s"
CORE = "clic"
INTERRUPTS = 200


@pytest.fixture(scope="module")
def twin():
    return target.prepare(BOARD, CORE, Progress())


@pytest.fixture(scope="module")
def host_build(twin, tmp_path_factory):
    root = tmp_path_factory.mktemp("build")
    twinrun.install_headers(twin, str(root))
    return str(root)


def bench(url, host_build, out, timeout=900, interrupts=INTERRUPTS):
    """`irqlab bench --board ulx3s --only latency` on the twin at `url`."""
    return subprocess.run([sys.executable, "-m", "irqlab", "bench", "--board", BOARD, "--cores", CORE,
                           "--port", url, "--interrupts", str(interrupts), "--only", "latency",
                           "--out", os.path.join(out, "res")],
                          env={**os.environ, "IRQLAB_BUILD": host_build}, capture_output=True, text=True,
                          timeout=timeout)


def bench_on_twin(twin, host_build, out, timeout=900, **start):
    """bench() against a freshly started twin: (the command's result, its
    wall seconds, the twin's log)."""
    r = twinrun.start(twin, once=True, log_path=os.path.join(out, "twin.log"), **start)
    t0 = time.monotonic()
    try:
        p = bench(r.serial_url, host_build, out, timeout)
    finally:
        r.stop()
    return p, time.monotonic() - t0, r.log()


def test_twin_figures_equal_the_simulation(twin, host_build, tmp_path):
    p, _, log = bench_on_twin(twin, host_build, str(tmp_path))
    assert p.returncode == 0, p.stderr[-2000:] + log
    with open(tmp_path / "res" / "bench.json") as f:
        got = json.load(f)
    assert got["board"] == BOARD and got["clock_hz"] == 50e6
    entry = got["cores"][CORE]
    # The trace is complete: nothing dropped by the trace unit, nothing lost or garbled on the link.
    assert entry["trace"]["hw_dropped"] == 0 and entry["trace"]["skipped_bytes"] == 0 \
        and entry["trace"]["seq_lost"] == 0, entry["trace"]
    # The board's bench settings ran, and the simulation runs them too (same seed).
    wanted = {**registry.board(BOARD).bench_defaults, "lat_count": INTERRUPTS,
              "tests": BENCHMARKS["latency"].test_id}
    assert {k: got["config"][k] for k in wanted} == wanted
    sim = compare.simulate(CORE, got["config"], str(tmp_path / "sim"), Progress())
    mine, ref = entry["tests"]["latency"], sim["tests"]["latency"]
    assert mine["onchip_agrees"] and mine["latency"]["count"] == INTERRUPTS
    assert compare.verdicts(got, CORE, sim) == {"latency": ("equal", [])}, (ref["histogram"], mine["histogram"])


def test_the_comparison_sees_one_cycle():
    # The checker's negative control: one interrupt's latency a cycle longer
    # on the twin is a difference; in a test that lost events it is a loss
    # unless the on-chip statistics differ too.
    sim = {"tests": {"latency": {"latency": {"max": 24, "ns": {"max": 480}}, "histogram": {"24": 200}}}}
    twin = {"cores": {CORE: {"trace": {"hw_dropped": 0},
                             "tests": {"latency": {"latency": {"max": 25, "ns": {"max": 500}},
                                                   "histogram": {"24": 199, "25": 1}}}}}}
    moved = {"latency": ("differs", ["histogram/24", "histogram/25", "latency/max"])}
    assert compare.verdicts(twin, CORE, sim) == moved
    # Events the trace unit dropped during another test explain nothing here.
    begin = [Record(rec.TYPE_SW, 0, 10, CH_TEST_BEGIN << 32 | t.test_id) for t in
             (BENCHMARKS["latency"], BENCHMARKS["throughput"])]
    lost = compare.lost_per_test([begin[0], begin[1], Record(rec.TYPE_OVERFLOW, 0, 20, 7)])
    assert lost == {"throughput": 7}
    assert compare.verdicts(twin, CORE, sim, lost) == moved
    lost = compare.lost_per_test([begin[0], Record(rec.TYPE_OVERFLOW, 0, 20, 7), begin[1]])
    assert compare.verdicts(twin, CORE, sim, lost) == {"latency": ("loss, on-chip lost", moved["latency"][1])}
    # Lost trace events excuse the trace's figures, not the on-chip statistics.
    sim["tests"]["latency"]["onchip"] = {"count": 200, "sum": 4800, "min": 24, "max": 24}
    twin["cores"][CORE]["tests"]["latency"]["onchip"] = {"count": 200, "sum": 4800, "min": 24, "max": 24}
    assert compare.verdicts(twin, CORE, sim, lost)["latency"][0] == "loss, on-chip equal"
    twin["cores"][CORE]["tests"]["latency"]["onchip"] = {"count": 200, "sum": 4801, "min": 24, "max": 25}
    assert compare.verdicts(twin, CORE, sim, lost)["latency"][0] == "differs"
    twin["cores"][CORE]["tests"]["latency"] = {**sim["tests"]["latency"], "latency": {"max": 24, "ns": {"max": 500}}}
    assert compare.verdicts(twin, CORE, sim) == {"latency": ("equal", [])}


def test_a_bridge_at_the_wrong_rate_fails_in_one_line(twin, host_build, tmp_path):
    # The bridge samples the SoC's TX at 2 Mbaud, the SoC sends at 3: the
    # first character's stop bit is wrong, the twin ends the session, and
    # the board path says in one line that the firmware did not finish.
    p, seconds, log = bench_on_twin(twin, host_build, str(tmp_path), timeout=300, baud=2_000_000)
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("irqlab: error:") and "did not finish" in last, p.stderr
    assert [line for line in p.stderr.splitlines() if line.startswith("irqlab:")] == [last]
    assert "framing error" in log
    assert seconds < 60


def test_after_a_reset_the_boot_code_waits_for_the_next_load(twin, host_build, tmp_path):
    # One twin, two runs (connections), the board reset between them. The ITCM keeps
    # the first run's image across the reset and the reset vector is its
    # base; the image must wait for the host's next load (the loader's mark
    # in the scratch register is gone) instead of running again. Without
    # that, the second run started the first image, which ignored the load.
    r = twinrun.start(twin, once=False, log_path=str(tmp_path / "twin.log"))
    try:
        for n in (20, 30):
            out = tmp_path / str(n)
            p = bench(r.serial_url, host_build, str(out), timeout=600, interrupts=n)
            assert p.returncode == 0, p.stderr[-2000:] + r.log()
            with open(out / "res" / "bench.json") as f:
                assert json.load(f)["cores"][CORE]["tests"]["latency"]["latency"]["count"] == n
    finally:
        r.stop()

