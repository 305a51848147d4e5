"""`irqlab bench --board ulx3s|arty --port DEV`: the benchmark on a board.

The same firmware as in simulation is sent over the board's serial link to
the boot code of the bitstream's image (fw/common/boot.c), so a new firmware
needs no new bitstream: linked for main RAM, or on a SoC with TCMs linked for
the TCMs (as in simulation) and loaded into the ITCM. The trace comes back on the same link with
the console inside it; the host tool decodes and analyses it exactly as it
does the simulator's. The board's descriptor gives the link's baud rate and
the firmware settings for a UART link (`bench_defaults`).
"""

import os

from irqlab import boardbuild, boardreport, firmware, fwimage, paths
from irqlab.bench import new_results, row_results, write_outputs
from irqlab.boards import registry
from irqlab.errors import BenchError
from irqlab.host.capture import capture
from irqlab.host.decode import check as check_trace
from irqlab.rows import row as row_info


def load_target(cfg):
    """(firmware layout, image size) of what the boot code loads on this SoC:
    the TCM image into the ITCM, else a main-RAM image."""
    return (cfg.firmware_layout, cfg.code_size) if cfg.tcm else ("ram", cfg.main_ram_size)


def bench_board(board, core, port, config=None, out_dir=None, progress=None, baudrate=None,
                max_seconds=600):
    b = registry.fpga_board(board)
    d = boardbuild.board_dir(board, core)
    include = os.path.join(d, "software", "include")
    if not os.path.isdir(include):
        raise BenchError(f"no {board} build for core '{core}': run `irqlab build --board {board} --core {core}` "
                         f"and load its bitstream first")
    layout, size = load_target(row_info(core).soc_config)
    if progress:
        progress.step(f"{board}/{core}: building the firmware ({layout} layout)")
    fw = firmware.build(core, "bench", include, os.path.join(d, "fw", f"{core}-bench-{layout}"), layout=layout)
    image = fwimage.load_image(fw, size)
    fwimage.patch_config(image, size, **{**b.bench_defaults, **(config or {})})
    fw_config = fwimage.read_config(image, size)
    # The clock the bitstream was built for (its report), else the board's default.
    built = boardreport.read(board, core)
    clock_hz = built["sys_clk_mhz"] * 1e6 if built and "sys_clk_mhz" in built else \
        b.clock_hz(row_info(core).soc)

    out_dir = out_dir or os.path.join(paths.RESULTS, board)
    os.makedirs(out_dir, exist_ok=True)
    trace_path = os.path.join(out_dir, f"trace-{core}.bin")
    if progress:
        progress.step(f"{board}/{core}: loading the firmware over {port} and capturing the trace")
    records = []
    stats = capture(port, trace_path, baudrate=baudrate or b.link.baudrate, max_seconds=max_seconds,
                    records=records,
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
