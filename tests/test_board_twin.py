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
seed. The two firmware images are not the same binary: each is built
against its own SoC's headers (on the board the console goes into the
trace), so the code sits at other addresses, and an arrival may meet the
waiting loop in another instruction: a few interrupts may differ by one
cycle. The test allows that much (MAX_MOVED) and nothing else.

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
from irqlab.boards.twin import run as twinrun, target
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.progress import Progress
from irqlab.suites import latency

BOARD = "ulx3s"
CORE = "clic"
INTERRUPTS = 200
MAX_MOVED = 0.02            # the share of interrupts whose latency may differ by one cycle
# Figures in time rather than cycles: the simulation's nominal clock is not the board's.
CLOCK_KEYS = {"ns", "throughput_hz"}


@pytest.fixture(scope="module")
def twin():
    return target.prepare(BOARD, CORE, Progress())


@pytest.fixture(scope="module")
def host_build(twin, tmp_path_factory):
    root = tmp_path_factory.mktemp("build")
    twinrun.install_headers(twin, str(root))
    return str(root)


def bench_on_twin(twin, host_build, out, timeout=900, **start):
    """`irqlab bench --board ulx3s --only latency` against a freshly started
    twin: (the command's result, its wall seconds, the twin's log)."""
    r = twinrun.start(twin, once=True, log_path=os.path.join(out, "twin.log"), **start)
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "irqlab", "bench", "--board", BOARD, "--cores", CORE,
                            "--port", r.serial_url, "--interrupts", str(INTERRUPTS), "--only", "latency",
                            "--out", os.path.join(out, "res")],
                           env={**os.environ, "IRQLAB_BUILD": host_build}, capture_output=True, text=True,
                           timeout=timeout)
    finally:
        r.stop()
    return p, time.monotonic() - t0, r.log()


def cycles_only(x):
    """A results entry without its figures in time."""
    if isinstance(x, dict):
        return {k: cycles_only(v) for k, v in x.items() if k not in CLOCK_KEYS}
    if isinstance(x, list):
        return [cycles_only(v) for v in x]
    return x


def moved(a, b):
    """Interrupts of histogram a that histogram b has elsewhere, and whether
    every one of them is one cycle off."""
    a, b = {int(k): v for k, v in a.items()}, {int(k): v for k, v in b.items()}
    extra = {k: a[k] - b.get(k, 0) for k in a if a[k] > b.get(k, 0)}
    short = {k: b[k] - a.get(k, 0) for k in b if b[k] > a.get(k, 0)}
    near = all(any(abs(k - j) == 1 for j in short) for k in extra)
    return sum(extra.values()), near


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
    # The simulation of the same firmware configuration (the board's bench settings) and seed.
    config = {**registry.board(BOARD).bench_defaults, "lat_count": INTERRUPTS, "tests": BENCHMARKS["latency"].test_id}
    sim = latency.bench([CORE], "sim", str(tmp_path / "sim"), config, Progress())
    assert got["config"] == sim["config"]
    mine, ref = entry["tests"]["latency"], sim["cores"][CORE]["tests"]["latency"]
    assert mine["onchip_agrees"] and mine["latency"]["count"] == ref["latency"]["count"] == INTERRUPTS
    n, near = moved(ref["histogram"], mine["histogram"])
    assert near and n <= MAX_MOVED * INTERRUPTS, (ref["histogram"], mine["histogram"])
    if n == 0:      # the same latencies: then every figure in cycles is the same
        assert cycles_only(mine) == cycles_only(ref)
    for fig in ("min", "median"):
        for what in ("latency", "latency_b_execute", "latency_sw_event"):
            assert mine[what][fig] == ref[what][fig], (what, fig)


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
