"""The board path of the host tool, against a stand-in board on a socket:
the firmware goes out as a CRC-checked load frame for main RAM, the trace
comes back with the console inside it, and the bench stops at the firmware's
exit line and reports the same figures as in simulation."""


import pytest

from irqlab.flows import build as boardbuild
from irqlab.errors import BenchError
from irqlab.suites.latency_board import bench_board
from irqlab.host import protocol, record as rec
from irqlab.host.benchmarks import BENCHMARKS
from irqlab.host.protocol import CH_HANDLER_ENTRY, CH_TEST_BEGIN, CH_TEST_END
from irqlab.rows import row

TEST_LATENCY = BENCHMARKS["latency"].test_id
MAIN_RAM_SIZE = row("vexriscv").soc_config.main_ram_size

from standin import StandInBoard
from tracegen import TraceBuilder, console

LATENCIES = [41, 40, 44, 40, 52]


def board_reply(ok=True):
    tb = TraceBuilder().time_hi(0)
    console(tb, 10, f"irqlab boot: loaded {MAIN_RAM_SIZE} bytes\n")
    tb.sw(1000, CH_TEST_BEGIN, TEST_LATENCY)
    t = 2000
    for lat in LATENCIES:
        tb.hw(t, rise=1 << rec.HW_GEN_LINE)
        tb.sw(t + lat, CH_HANDLER_ENTRY)
        t += 20000
    tb.sw(t, CH_TEST_END, TEST_LATENCY)
    console(tb, t + 10, "irqlab: exit 0\n" if ok else "irqlab: exception mcause=2\n")
    return tb.bytes()


class FakeBoard(StandInBoard):
    """Accepts one connection, checks the load frame, answers with a trace."""

    def __init__(self, ok=True):
        super().__init__()
        self.ok = ok

    def run(self):
        c, _ = self.srv.accept()
        with c:
            self.read_load_frame(c, MAIN_RAM_SIZE)
            c.sendall(board_reply(self.ok))
            c.recv(1)   # wait for the host to close


@pytest.fixture(scope="module")
def headers():
    # The board's generated software headers (no FPGA flow needed).
    job = boardbuild.job("ulx3s", "vexriscv")
    boardbuild.generate_headers(job)
    return job.dir


def test_board_bench_over_the_serial_link(headers, tmp_path):
    board = FakeBoard()
    board.start()
    res = bench_board("ulx3s", "vexriscv", board.url(), out_dir=str(tmp_path),
                      max_seconds=30)
    assert board.frame_ok
    s = res["cores"]["vexriscv"]["tests"]["latency"]["latency"]
    assert (s["count"], s["min"], s["median"], s["max"]) == (5, 40, 41, 52)
    assert res["config"]["flags"] & protocol.FLAG_TRACE_LEAN
    assert (tmp_path / "bench.json").exists() and (tmp_path / "trace-vexriscv.bin").exists()


def test_board_that_fails_is_reported(headers, tmp_path):
    board = FakeBoard(ok=False)
    board.start()
    with pytest.raises(BenchError, match="did not finish"):
        bench_board("ulx3s", "vexriscv", board.url(), out_dir=str(tmp_path),
                    max_seconds=3)
