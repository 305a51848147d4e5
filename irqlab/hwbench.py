"""`irqlab bench --board ulx3s|arty --port DEV`: the benchmark on a board.

The same firmware as in simulation, linked for main RAM, is sent over the
board's serial link to the boot code in ROM (fw/common/boot.c), so a new
firmware needs no new bitstream. The trace comes back on the same link with
the console inside it; the host tool decodes and analyses it exactly as it
does the simulator's.
"""

import os

from irqlab import boardbuild, firmware, fwimage, paths
from irqlab.bench import new_results, row_results, write_outputs
from irqlab.errors import BenchError
from irqlab.host import protocol
from irqlab.host.capture import capture
from irqlab.host.decode import check as check_trace
from irqlab.rows import row as row_info

# A UART carries ~300 kB/s at 3 Mbaud: lean tracing (A, B and the phase
# envelope only) and arrivals far enough apart that the link keeps up. The
# on-chip statistics stay exact whatever the link does.
BOARD_DEFAULTS = {"lat_period": 20000, "lat_jitter": 0xFF, "flags": protocol.FLAG_TRACE_LEAN}


def bench_board(board, core, port, config=None, out_dir=None, progress=None, baudrate=3_000_000,
                max_seconds=600):
    d = boardbuild.board_dir(board, core)
    include = os.path.join(d, "software", "include")
    report_path = os.path.join(boardbuild.BITSTREAMS, f"{board}-{core}.json")
    if not os.path.isdir(include):
        raise BenchError(f"no {board} build for core '{core}': run `irqlab build --board {board} --core {core}` "
                         f"and load its bitstream first")
    ram_size = row_info(core).soc_config.main_ram_size
    if progress:
        progress.step(f"{board}/{core}: building the firmware for main RAM")
    fw = firmware.build(core, "bench", include, os.path.join(d, "fw", f"{core}-bench-ram"), layout="ram")
    image = fwimage.load_image(fw, ram_size)
    fwimage.patch_config(image, ram_size, **{**BOARD_DEFAULTS, **(config or {})})
    fw_config = fwimage.read_config(image, ram_size)
    clock_hz = _board_clock(report_path, board)

    out_dir = out_dir or os.path.join(paths.RESULTS, board)
    os.makedirs(out_dir, exist_ok=True)
    trace_path = os.path.join(out_dir, f"trace-{core}.bin")
    if progress:
        progress.step(f"{board}/{core}: loading the firmware over {port} and capturing the trace")
    records = []
    stats = capture(port, trace_path, baudrate=baudrate, max_seconds=max_seconds, records=records,
                    send=fwimage.load_frame(image), until_console="irqlab: exit",
                    on_progress=(lambda st: progress.update(f"{st.records} records")) if progress else None)
    if "irqlab: exit 0" not in stats.console:
        raise BenchError(f"{board}/{core}: the firmware did not finish (console so far: "
                         f"{stats.console[-300:]!r}); is the bitstream loaded and the port right?")
    results = new_results(board, clock_hz)
    check_trace(records, stats, trace_path)
    results["cores"][core] = row_results(core, records, stats, trace_path, clock_hz, fw_config, out_dir)
    results["config"] = results["cores"][core].pop("firmware_config")
    write_outputs(results, out_dir)
    return results


def _board_clock(report_path, board):
    import json
    try:
        with open(report_path) as f:
            return json.load(f)["sys_clk_mhz"] * 1e6
    except (OSError, KeyError, ValueError):
        return boardbuild.BOARDS[board][2]["sys_clk_freq"]
