"""`irqlab bench --board ulx3s|arty --port DEV`: the benchmark on a board.

The same firmware as in simulation, linked for main RAM, is sent over the
board's serial link to the boot code in ROM (fw/common/boot.c), so a new
firmware needs no new bitstream. The trace comes back on the same link with
the console inside it; the host tool decodes and analyses it exactly as it
does the simulator's. The board's descriptor gives the link's baud rate and
the firmware settings for a UART link (`bench_defaults`).
"""

import os

from irqlab import boardbuild, boardreport, fwimage, paths, sim
from irqlab.bench import BenchError, core_results, new_results, write_outputs
from irqlab.boards import registry
from irqlab.host.capture import capture
from irqlab.soc.cpus import core_info
from irqlab.soc.soc import MAIN_RAM_SIZE


def bench_board(board, core, port, config=None, out_dir=None, progress=None, baudrate=None,
                max_seconds=600):
    b = registry.fpga_board(board)
    d = boardbuild.board_dir(board, core)
    include = os.path.join(d, "software", "include")
    if not os.path.isdir(include):
        raise BenchError(f"no {board} build for core '{core}': run `irqlab build --board {board} --core {core}` "
                         f"and load its bitstream first")
    model = sim.Model(core, d, None, include, None)
    if progress:
        progress.step(f"{board}/{core}: building the firmware for main RAM")
    fw = sim.build_firmware(model, "bench", layout="ram")
    image = sim.load_image(model, fw, size=MAIN_RAM_SIZE, **{**b.bench_defaults, **(config or {})})
    fw_config = fwimage.read_config(image, MAIN_RAM_SIZE)
    # The clock the bitstream was built for (its report), else the board's default.
    built = boardreport.read(board, core)
    clock_hz = built["sys_clk_mhz"] * 1e6 if built and "sys_clk_mhz" in built else \
        b.clock_hz(core_info(core).soc_core)

    out_dir = out_dir or os.path.join(paths.RESULTS, board)
    os.makedirs(out_dir, exist_ok=True)
    trace_path = os.path.join(out_dir, f"trace-{core}.bin")
    if progress:
        progress.step(f"{board}/{core}: loading the firmware over {port} and capturing the trace")
    stats = capture(port, trace_path, baudrate=baudrate or b.link.baudrate, max_seconds=max_seconds,
                    send=fwimage.load_frame(image), until_console="irqlab: exit",
                    on_progress=(lambda st: progress.update(f"{st.records} records")) if progress else None)
    if "irqlab: exit 0" not in stats.console:
        raise BenchError(f"{board}/{core}: the firmware did not finish (console so far: "
                         f"{stats.console[-300:]!r}); is the bitstream loaded and the port right?")
    results = new_results(board, clock_hz)
    results["cores"][core] = core_results(core, trace_path, clock_hz, fw_config, out_dir)
    results["config"] = results["cores"][core].pop("firmware_config")
    write_outputs(results, out_dir)
    return results
