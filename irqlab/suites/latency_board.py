"""`irqlab bench --board ulx3s|arty --port DEV`: the benchmark on a board.

The same firmware as in simulation, loaded and run through the board path
of irqlab/drivers/board.py (built against the board build's headers, sent to the
bitstream's boot code, the trace with the console inside it back on the same
link); the host tool decodes and analyses it exactly as it does the
simulator's. The board's descriptor gives the link's baud rate and the
firmware settings for a UART link (`bench_defaults`).
"""

import os

from irqlab import paths
from irqlab.drivers import board as boardrun
from irqlab.suites.latency import new_results, row_results, write_outputs
from irqlab.host.decode import check as check_trace

load_target = boardrun.load_target


def bench_board(board, core, port, config=None, out_dir=None, progress=None, baudrate=None,
                max_seconds=600):
    t = boardrun.target(board, core)
    image, fw_config = boardrun.build_image(t, "bench", {**t.board.bench_defaults, **(config or {})}, progress)
    out_dir = out_dir or os.path.join(paths.RESULTS, board)
    os.makedirs(out_dir, exist_ok=True)
    trace_path = os.path.join(out_dir, f"trace-{core}.bin")
    records, stats = boardrun.load_and_capture(t, port, image, trace_path, baudrate, max_seconds, progress)
    results = new_results(board, t.clock_hz)
    check_trace(records, stats, trace_path)
    results["cores"][core] = row_results(core, records, stats, trace_path, t.clock_hz, fw_config, out_dir)
    results["config"] = results["cores"][core].pop("firmware_config")
    write_outputs(results, out_dir)
    return results
