"""The `irqlab` command: one entry point for building, running, capturing and
analysing. Bad input ends with one line on stderr and exit status 2."""

import argparse
import json
import os
import sys


def _cores(text):
    return [c for c in text.split(",") if c] if text else None


def _number(text):
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: '{text}'") from None


def cmd_cores(args):
    """The benchmark rows: each a SoC (CPU, interrupt controller) plus a firmware build."""
    from irqlab.rows import ROWS
    rows = [(r.name, r.soc, f"{r.soc_config.cpu_type}/{r.soc_config.cpu_variant}", r.soc_config.irq_model,
             r.soc_config.memory, r.mabi, r.description) for r in ROWS.values()]
    head = ("row", "SoC", "CPU", "interrupts", "memory", "ABI", "description")
    widths = [max(len(x[i]) for x in rows + [head]) for i in range(len(head) - 1)]
    for line in [head] + rows:
        print(" ".join(f"{v:{w}}" for v, w in zip(line, widths)) + " " + line[-1])


def cmd_bench(args):
    if args.samples is not None and args.suite in ("latency", "matrix", "digits"):
        from irqlab.errors import BenchError
        raise BenchError("--samples is the context-switch suite's: use it with --suite ctxsw or all")
    if args.inferences is not None and args.suite != "digits":
        from irqlab.errors import BenchError
        raise BenchError("--inferences is the digits workload's: use it with --suite digits")
    if args.fw_option and args.suite != "ctxsw":
        from irqlab.errors import BenchError
        raise BenchError("--fw-option is the context-switch suite's: use it with --suite ctxsw")
    if args.update and (args.suite == "digits" or args.port):
        from irqlab.errors import BenchError
        raise BenchError("--update records rows again in simulation: the latency, matrix and ctxsw suites")
    if args.suite in ("latency", "matrix", "all"):
        _bench_latency(args)
    if args.suite in ("ctxsw", "all"):
        _bench_ctxsw(args)
    if args.suite == "digits":
        _bench_digits(args)


def _simulation_only(args, what):
    """One line and exit 2 when a command that runs in simulation only is
    given a board (--board other than sim, or --port)."""
    from irqlab.errors import BenchError
    if getattr(args, "board", "sim") != "sim" or args.port:
        raise BenchError(f"{what} runs in simulation only (leave out --board/--port)")


def _on_board(args):
    """(board, the loaded bitstream's row, results folder) when a command is
    to run on a board (--board other than sim, or --port), else None; one
    line and exit 2 for an unknown board or a missing --port or --cores."""
    from irqlab import paths
    from irqlab.boards import registry
    from irqlab.errors import BenchError
    if args.board == "sim" and not args.port:
        return None
    registry.fpga_board(args.board)
    if not args.port:
        raise BenchError(f"--board {args.board} needs --port (the board's serial device)")
    cores = _cores(args.cores) or []
    if len(cores) != 1:
        raise BenchError("on a board, name the core of the loaded bitstream: --cores NAME")
    from irqlab.drivers import board as boardrun
    from irqlab.rows import row
    row(cores[0])                                      # an unknown row, a missing board build: one line
    boardrun.target(args.board, cores[0])
    boardrun.check_port(args.port, args.baud)
    return args.board, cores[0], args.out or os.path.join(paths.RESULTS, args.board)


def cmd_demo_pto(args):
    """`irqlab demo pto` (irqlab/demos/pto/sim.py), on a board irqlab/demos/pto/board.py."""
    from irqlab import paths
    from irqlab.demos.pto import sim as pto
    from irqlab.progress import Progress
    board = _on_board(args)
    if board:
        from irqlab.demos.pto import board as pto_board
        results = pto_board.demo(*board[:2], args.port, board[2], Progress(), args.baud)
        pto.print_results(results, board[2])
        return
    results = pto.demo(_cores(args.cores), args.out, Progress())
    pto.print_results(results, args.out or paths.RESULTS)


def _fw_option_arg(p, prefix=""):
    from irqlab.builders.fwoptions import OPTIONS
    p.add_argument("--fw-option", action="append", metavar="NAME",
                   help=prefix + "a firmware build option (repeatable): " +
                   "; ".join(f"{o.name}: {o.help}" for o in OPTIONS.values()))


def _bench_ctxsw(args):
    """The context-switch suite (irqlab/suites/ctxsw.py), simulation only."""
    from irqlab import paths
    from irqlab.suites import ctxsw as ctxswbench
    from irqlab.errors import BenchError
    from irqlab.progress import Progress
    _simulation_only(args, "the context-switch suite")
    config = {}
    if args.samples is not None:
        if args.samples < 1:
            raise BenchError(f"--samples must be at least 1, not {args.samples}")
        config["samples"] = args.samples
    if args.seed is not None:
        config["seed"] = args.seed
    results = ctxswbench.bench(_cores(args.cores), args.out, config, Progress(), args.fw_option, _jobs(args),
                               update=args.update)
    ctxswbench.print_results(results, args.out or paths.RESULTS)
    _print_throughput(results)


def _bench_digits(args):
    """The background workload alone (irqlab/suites/digits.py), simulation only."""
    from irqlab import paths
    from irqlab.suites import digits as digitsbench
    from irqlab.errors import BenchError
    from irqlab.progress import Progress
    _simulation_only(args, "the digits workload")
    config = {}
    if args.inferences is not None:
        if args.inferences < 2:
            raise BenchError(f"--inferences must be at least 2 (a rate needs two), not {args.inferences}")
        config["inferences"] = args.inferences
    results = digitsbench.bench(_cores(args.cores), args.out, config, Progress())
    digitsbench.print_results(results, args.out or paths.RESULTS)


def _bench_latency(args):
    from irqlab.suites.latency import bench
    from irqlab.host import report
    from irqlab.progress import Progress
    config = {}
    if args.interrupts is not None:
        config["lat_count"] = args.interrupts
    if args.seed is not None:
        config["seed"] = args.seed
    if args.phases is not None:
        config["tp_phases"] = args.phases
    from irqlab.host.benchmarks import BENCHMARKS, suite_mask
    config["tests"] = suite_mask("matrix" if args.suite == "matrix" else "headline")
    if args.only:
        config["tests"] = BENCHMARKS[args.only].test_id
    from irqlab import paths
    from irqlab.boards import registry
    board = registry.board(args.board)
    if args.paper_scale:
        from irqlab.suites.latency import paper_scale
        config.update(paper_scale(board.default_clock_hz))
    if args.port:
        from irqlab.suites.latency_board import bench_board
        from irqlab.errors import BenchError
        cores = _cores(args.cores) or []
        if len(cores) != 1:
            raise BenchError("on a board, name the core of the loaded bitstream: --cores NAME")
        out = args.out or os.path.join(paths.RESULTS, args.board)
        results = bench_board(args.board, cores[0], args.port, config, out, Progress(), baudrate=args.baud)
    else:
        if args.board != "sim":
            from irqlab.errors import BenchError
            raise BenchError(f"--board {args.board} needs --port (the board's serial device)")
        results = bench(_cores(args.cores), args.board, args.out, config, Progress(), _jobs(args), update=args.update)
        out = args.out or paths.RESULTS
    print()
    print(f"irqlab benchmark: {results['board']}, {results['clock_hz'] / 1e6:.0f} MHz, git {results['git']}")
    print(report.table(results))
    print()
    print(report.LEGEND)
    # The headline beside the seeds' and Cortex-M's published figures (marked REFERENCE).
    from irqlab.host import compare, results as resultsfile
    print()
    print(compare.table(resultsfile.runs_of(results, os.path.join(out, "bench.json"))))
    print(f"\nresults: {os.path.join(out, 'bench.json')}, report: {os.path.join(out, 'report.md')}")
    from irqlab.host import htmlreport
    print(f"HTML report: {os.path.join(out, htmlreport.PAGE)}")
    _print_throughput(results)


def _jobs(args):
    """Rows run at once (--jobs; default one per CPU)."""
    from irqlab import parallel
    return parallel.check_jobs(args.jobs) or parallel.default_jobs()


def _print_throughput(results):
    from irqlab import parallel
    if results.get("sim_throughput"):
        print(parallel.describe(results["sim_throughput"]))


def cmd_build(args):
    from irqlab.drivers import sim
    from irqlab.progress import Progress
    p = Progress()
    from irqlab.boards import registry
    if registry.board(args.board).is_fpga:
        from irqlab.flows import build as boardbuild
        r = boardbuild.build(args.board, args.core, p, device=args.device, variant=args.variant,
                             toolchain=args.toolchain,
                             sys_clk_freq=args.sys_clk_mhz * 1e6 if args.sys_clk_mhz else None)
        print(boardbuild.summary(r))
        return
    m = sim.ensure_model(args.core, p)
    fw = sim.build_firmware(m, args.app, p)
    print(f"model: {m.binary}\nfirmware: {fw}")


def cmd_twin(args):
    """`irqlab twin`: the board twin (boards/twin/) serving until interrupted."""
    from irqlab.boards.twin import run as twin
    from irqlab.progress import Progress
    return twin.serve(args.board, args.core, args.port, args.baud, args.modbus_port, args.modbus_baud, Progress(),
                      rx_gap=args.rx_gap)


def cmd_load(args):
    from irqlab.flows import build as boardbuild
    boardbuild.load(args.board, args.core, args.bitstream, args.flash)


def cmd_run(args):
    from irqlab.drivers import sim
    from irqlab.boards import registry
    from irqlab.errors import BenchError
    from irqlab.progress import Progress
    if registry.board(args.board).is_fpga:
        raise BenchError("`irqlab run` simulates; on a board use `irqlab bench --board B --port DEV`")
    dumping = args.dump_symbols or args.dump_range or args.dump_file
    if dumping and not args.elf:
        raise BenchError("--dump-symbols/--dump-range/--dump-file go with --elf FILE")
    if args.elf and (args.app or args.probe or args.fw_option):
        raise BenchError("--elf runs a program of its own: leave out --app, --probe and --fw-option")
    options = ()
    if args.fw_option:
        from irqlab.builders import firmware
        from irqlab.builders import fwoptions
        options = fwoptions.parse(args.fw_option, firmware.app_kernel(args.app or "bench"))
    if args.elf:   # the program's own faults first, before any model is built
        from irqlab.drivers import elfimage
        from irqlab.drivers import userprog
        from irqlab.rows import row
        elf = elfimage.read(args.elf)
        userprog.check_request(elf, row(args.core), args.dump_symbols, args.dump_range, args.dump_file)
    p = Progress()
    m = sim.ensure_model(args.core, p)
    if args.elf:
        r, rng = userprog.run_elf(m, elf, args.trace, dump_symbols=args.dump_symbols,
                                  dump_addr=args.dump_range, dump_file=args.dump_file,
                                  max_cycles=args.max_cycles, progress=p)
    else:
        image = sim.load_image(m, sim.build_firmware(m, args.app or "bench", p, options=options))
        r = sim.run(m, image, args.trace, probe_path=args.probe, max_cycles=args.max_cycles, progress=p)
        rng = None
    p.done()
    sys.stdout.write(r.console)
    sys.stdout.flush()
    print(r.sim_log.strip(), file=sys.stderr)
    print(f"trace: {args.trace} ({r.capture_stats.records} records)", file=sys.stderr)
    if rng:
        print(f"dump: {args.dump_file} ({rng.length} bytes of {rng.memory.name} from 0x{rng.start:08x})",
              file=sys.stderr)
    if not r.finished:
        print(f"irqlab: the program did not end within --max-cycles {args.max_cycles} (exit status 3)",
              file=sys.stderr)
    return r.exit_code


def cmd_memmap(args):
    """The addresses a program of its own needs on the row's SoC (docs/USER_PROGRAMS.md)."""
    from irqlab.drivers import memmap
    from irqlab.drivers import sim
    from irqlab.drivers import userprog
    from irqlab.progress import Progress
    p = Progress()
    m = sim.ensure_model(args.core, p)
    p.done()
    if args.ld:
        sys.stdout.write(userprog.linker_script(m))
        return
    print(f"SoC '{m.soc}' (row '{m.row}')")
    for mem in memmap.memories(m.facts):
        print(f"  {mem}")
    for name, value in userprog.program_facts(m):
        print(f"  {name:20} 0x{value:08x}")


def cmd_capture(args):
    from irqlab.host.capture import capture
    from irqlab.progress import Progress
    p = Progress()
    st = capture(args.url, args.output, idle_timeout=args.idle_timeout, max_seconds=args.seconds,
                 baudrate=args.baud, connect_timeout=args.connect_timeout, on_progress=lambda s: p.update(f"{s.records} records, {s.bytes} bytes"))
    p.done()
    print(f"{args.output}: {st.bytes} bytes, {st.records} records")
    for line in st.problems():
        print(f"warning: {line}", file=sys.stderr)


def cmd_decode(args):
    from irqlab.host.decode import read_trace
    from irqlab.host import describe
    records, stats = read_trace(args.trace, allow_problems=args.allow_gaps)
    shown = records if args.limit is None else records[:args.limit]
    fmt = describe.raw_line if args.raw else describe.line
    for r in shown:
        print(fmt(r))
    print(f"# {stats.records} records, {stats.bytes} bytes; " +
          ("; ".join(stats.problems()) or "no gaps"), file=sys.stderr)


def cmd_analyze(args):
    from irqlab.host.decode import read_trace
    from irqlab.host import analysis
    records, stats = read_trace(args.trace, allow_problems=args.allow_gaps)
    res = analysis.analyze(records, args.clock_mhz * 1e6)
    for t in res["tests"].values():
        t.pop("_values")
    res["trace"] = {"records": stats.records, "problems": stats.problems()}
    if args.json:
        print(json.dumps(res, indent=1))
        return
    for name, t in res["tests"].items():
        s = t["latency"]
        print(f"{name}: {s.get('count', 0)} interrupts, latency min {s.get('min')} median {s.get('median')} "
              f"p99 {s.get('p99')} max {s.get('max')} jitter {s.get('jitter')} cycles")
        if "cycles_per_irq" in t and t["cycles_per_irq"].get("count"):
            print(f"  throughput: {t['cycles_per_irq']['median']:.1f} cycles per interrupt")
    for p in stats.problems():
        print(f"warning: {p}", file=sys.stderr)


def cmd_export(args):
    from irqlab.host import export
    from irqlab.host.decode import read_trace
    export.get(args.format)                    # an unknown format fails before the trace is read
    records, stats = read_trace(args.trace, allow_problems=args.allow_gaps)
    out = args.output or export.default_output(args.trace, args.format, args.table)
    summary = export.export(records, args.format, out, args.clock_mhz * 1e6, source=os.path.basename(args.trace),
                            table=args.table, start=args.start, max_samples=args.max_samples)
    print(f"{'stdout' if out == '-' else out}: {summary}", file=sys.stderr)
    for p in stats.problems():
        print(f"warning: {p}", file=sys.stderr)


def cmd_timeline(args):
    """FreeRTOS's trace hooks as a timeline (trace/rtos.py): a table per task,
    and with --output a PNG of a window of it."""
    from irqlab.errors import ExportError, TraceError
    from irqlab.host import rtos
    from irqlab.host.decode import read_trace
    if args.start is not None and args.end is not None and args.end <= args.start:
        raise ExportError(f"--to {args.end} must be after --from {args.start}")
    if args.output and os.path.isdir(args.output):
        raise ExportError(f"output '{args.output}' is a folder")
    symbols = None
    if args.elf:
        from irqlab.drivers import elfimage
        symbols = rtos.Symbols(elfimage.read(args.elf).symbols)
    records, stats = read_trace(args.trace, allow_problems=args.allow_gaps)
    tl = rtos.timeline(records)
    if not tl.has_rtos:
        raise TraceError(f"trace '{args.trace}' holds no FreeRTOS trace-hook event (protocol freertos: "
                         "firmware built with configIRQLAB_TRACE 1?)")
    if args.start is not None and args.start >= tl.end:
        raise ExportError(f"--from {args.start} is not before the trace's end (cycles {tl.start}..{tl.end})")
    if args.end is not None and args.end <= tl.start:
        raise ExportError(f"--to {args.end} is not after the trace's start (cycles {tl.start}..{tl.end})")
    lo, hi = rtos.window(tl, args.start, args.end)
    if hi <= lo:
        raise ExportError(f"the window (cycles {lo}..{hi}) is empty: give --from before {hi}")
    summary = rtos.summary(tl, lo, hi)
    if args.output:
        from irqlab.host import plots
        end = args.end if args.end is not None else min(lo + rtos.PLOT_SPAN, tl.end)
        try:
            drawn = plots.rtos_timeline(tl, args.output, lo, end, symbols,
                                        title=f"{os.path.basename(args.trace)}: FreeRTOS, cycles {lo}..{end}")
        except ImportError:
            raise ExportError("the plot needs matplotlib (pip install matplotlib)") from None
        except OSError as e:
            raise ExportError(f"cannot write '{args.output}': {e.strerror}") from None
        if not drawn:
            raise ExportError(f"no task, ISR or handler runs in cycles {lo}..{end}: nothing to draw")
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(rtos.table(summary))
    if args.output:
        print(f"{args.output}: cycles {lo}..{end}", file=sys.stderr)
    for p in stats.problems():
        print(f"warning: {p}", file=sys.stderr)


def cmd_demo_modbus(args):
    """The Modbus-RTU demo (irqlab/demos/modbus/sim.py) in simulation."""
    from irqlab import paths
    from irqlab.demos.modbus import sim as modbusdemo
    from irqlab.progress import Progress
    from irqlab.rows import ROWS, row as row_info
    DemoError = modbusdemo.DemoError
    if args.modbus_port and not args.port:
        raise DemoError("--modbus-port goes with --board B --port DEV (in simulation the master uses the "
                        "simulator's bridge)")
    board = _on_board(args)
    if board:
        return _demo_modbus_board(args, board)
    rows = _cores(args.cores) or [r for r in ROWS if row_info(r).soc_config.modbus_uart]
    for r in rows:
        if not row_info(r).soc_config.modbus_uart:   # unknown names raise here too
            raise DemoError(f"row '{r}': its SoC has no Modbus UART (soc/configs.py modbus_uart)")
    try:
        bauds = [int(b) for b in args.bauds.split(",") if b] if args.bauds else list(modbusdemo.BAUDS)
    except ValueError:
        raise DemoError(f"--bauds: not a comma-separated list of numbers: '{args.bauds}'") from None
    bad = [b for b in bauds if not 1200 <= b <= 10_000_000]
    if not bauds or bad:
        raise DemoError(f"--bauds: each from 1200 to 10000000 (got {args.bauds})")
    if args.frames < 1:
        raise DemoError(f"--frames: at least 1 (got {args.frames})")
    out = args.out or paths.RESULTS
    progress = Progress()
    results = modbusdemo.run_demo(rows, bauds, args.frames, out, progress, with_robustness=not args.no_robustness)
    progress.done()
    print(modbusdemo.summary(results))
    print(f"results: {os.path.join(out, 'modbus.json')}, plot: {os.path.join(out, 'modbus.png')}")
    failed = any(not r["ok"] for r in results["robustness"].values())
    return 1 if failed else 0


def _demo_modbus_board(args, board):
    """The Modbus demo on a board (irqlab/demos/modbus/board.py): one baud rate a load."""
    from irqlab.drivers import board as boardrun
    from irqlab.demos.modbus import board as modbus_board
    from irqlab.progress import Progress
    from irqlab.rows import row as row_info
    DemoError = modbus_board.DemoError
    name, core, out = board
    if not row_info(core).soc_config.modbus_uart:
        raise DemoError(f"row '{core}': its SoC has no Modbus UART (soc/configs.py modbus_uart)")
    if not args.modbus_port:
        raise DemoError("on a board the master needs --modbus-port DEV2: a serial device wired to the "
                        "board's Modbus UART pins (docs/DEMOS.md, Modbus wiring)")
    try:
        bauds = [int(b) for b in args.bauds.split(",") if b] if args.bauds else [115200]
    except ValueError:
        raise DemoError(f"--bauds: not a number: '{args.bauds}'") from None
    if len(bauds) != 1 or not 1200 <= bauds[0] <= 10_000_000:
        raise DemoError(f"--bauds: on a board one rate a run, from 1200 to 10000000 (the boot code takes one "
                        f"load per reset; got {args.bauds})")
    if args.frames < 1:
        raise DemoError(f"--frames: at least 1 (got {args.frames})")
    boardrun.check_port(args.modbus_port, bauds[0])
    progress = Progress()
    results = modbus_board.demo(name, core, args.port, args.modbus_port, bauds[0], args.frames, out, progress,
                                with_robustness=not args.no_robustness, baudrate=args.baud)
    progress.done()
    from irqlab.demos.modbus import sim as modbusdemo
    print(modbusdemo.summary(results))
    print(f"results: {os.path.join(out, 'modbus.json')}, plot: {os.path.join(out, 'modbus.png')}")
    return 1 if any(not r["ok"] for r in results["robustness"].values()) else 0


def cmd_report(args):
    from irqlab.host import htmlreport, results as resultsfile
    runs = resultsfile.load(args.results)
    page = htmlreport.write(runs, args.output, warn=lambda m: print(f"warning: {m}", file=sys.stderr))
    print(page)


def cmd_compare(args):
    from irqlab.host import compare, results as resultsfile
    print(compare.table(resultsfile.load(args.results)))


def _benchmark_names():
    from irqlab.host.benchmarks import BENCHMARKS
    return list(BENCHMARKS)


def _plot_span():
    from irqlab.host.rtos import PLOT_SPAN
    return PLOT_SPAN


def board_names():
    from irqlab.boards.registry import names
    return names()


def parser():
    ap = argparse.ArgumentParser(prog="irqlab", description="Interrupt latency and throughput, measured to the cycle.")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("cores", help="list the benchmark rows (core, interrupt controller, firmware build)")
    p.set_defaults(fn=cmd_cores)

    p = sub.add_parser("bench", help="build, run and report the benchmarks for every core")
    p.add_argument("--board", default="sim")
    p.add_argument("--cores", help="comma-separated (default: all)")
    p.add_argument("--out", help="results folder (default: results/)")
    p.add_argument("--update", action="store_true",
                   help="merge the rows run into the results already in --out (each row keeps the revision it "
                        "ran at; the configuration must be the same): record some rows again")
    p.add_argument("--interrupts", type=int, help="interrupts in the latency test (default 10000)")
    p.add_argument("--phases", type=int, help="stimulation phases in the throughput test (default 8)")
    p.add_argument("--seed", type=lambda s: int(s, 0), help="arrival-jitter seed")
    p.add_argument("--only", choices=_benchmark_names(), help="run one benchmark")
    p.add_argument("--suite", choices=("latency", "matrix", "ctxsw", "all", "digits"), default="latency",
                   help="latency (the interrupt benchmarks, default), matrix (those and seed 004's test "
                        "cases T4-T7), ctxsw (the FreeRTOS context-switch suite, simulation only), all "
                        "(latency and ctxsw, `make bench`) or digits (the background workload: inferences "
                        "per second alone and under FreeRTOS, simulation only)")
    p.add_argument("--paper-scale", action="store_true",
                   help="seed 004's sizes: 2,400 latency phases of 1 ms + 4 ms per matrix case (9,600 in the "
                        "headline latency test), 12 throughput phases of 9.75 s + 0.25 s (120 s), at the "
                        "board's clock: for boards (hours in simulation)")
    p.add_argument("--jobs", "-j", type=int, help="simulation: rows run at once (default: one per CPU)")
    p.add_argument("--samples", type=int, help="ctxsw: samples per case (default 1000)")
    p.add_argument("--inferences", type=int, help="digits: inferences to run (default 128: twice each of the firmware's images)")
    p.add_argument("--port", help="board: its serial device or pyserial URL (e.g. /dev/ttyUSB0)")
    p.add_argument("--baud", type=int, help="board: the link's baud rate (default: the board's, 3000000)")
    _fw_option_arg(p, "ctxsw: ")
    p.set_defaults(fn=cmd_bench)

    p = sub.add_parser("demo", help="the demos: pulse-train output (pto) and a Modbus-RTU slave (modbus)")
    demos = p.add_subparsers(dest="demo", required=True)
    d = demos.add_parser("pto", help="pulse-train output: max sustained frequency and period jitter per row")
    d.add_argument("--cores", help="rows, comma-separated (default: every row whose SoC has the PTO)")
    d.add_argument("--out", help="results folder (default: results/): pto.json, pto.md, report.html")
    d.add_argument("--board", default="sim", help="sim (default), or the board whose bitstream is loaded: "
                                                  "then --port and the bitstream's core in --cores")
    d.add_argument("--port", help="board: its serial device or pyserial URL (e.g. /dev/ttyUSB0)")
    d.add_argument("--baud", type=int, help="board: the link's baud rate (default: the board's, 3000000)")
    d.set_defaults(fn=cmd_demo_pto)

    p = sub.add_parser("build", help="build the simulation model, or a board's bitstream and report")
    p.add_argument("--board", default="sim", help=f"{', '.join(board_names())} (default sim)")
    p.add_argument("--core", required=True)
    p.add_argument("--app", default="bench")
    p.add_argument("--device", help="ULX3S: LFE5U-12F/25F/45F/85F (default 85F)")
    p.add_argument("--variant", help="Arty: a7-35 or a7-100 (default a7-35)")
    p.add_argument("--toolchain", help="Arty: vivado or openxc7: that flow must run (default: each flow "
                                       "whose tools are installed)")
    p.add_argument("--sys-clk-mhz", type=float, help="system clock (default: the board's for the core's SoC; "
                                                     "docs/BOARDS.md)")
    p.set_defaults(fn=cmd_build)

    p = sub.add_parser("twin", help="a board's SoC as its bitstream is generated, in Verilator, its serial "
                                    "link (and Modbus UART pins) on sockets for --port (docs/BOARDS.md)")
    p.add_argument("--board", required=True, help="an FPGA board whose flow has stand-ins: ulx3s")
    p.add_argument("--core", required=True)
    p.add_argument("--port", type=int, default=0, help="TCP port of the serial link (default: a free one)")
    p.add_argument("--baud", type=int, help="the serial bridge's baud rate (default: the board's link, 3000000)")
    p.add_argument("--modbus-port", type=int, default=0, help="TCP port of the Modbus UART (default: a free one)")
    p.add_argument("--modbus-baud", type=int, help="the Modbus bridge's baud rate: the demo's --bauds (default "
                                                   "115200)")
    p.add_argument("--rx-gap", type=int, default=0, help="idle cycles after each character the bridge sends the "
                                                         "board (default 0: back to back, as a USB bridge)")
    p.set_defaults(fn=cmd_twin)

    p = sub.add_parser("load", help="program a board with its bitstream (openFPGALoader)")
    p.add_argument("--board", required=True, help="an FPGA board: " + ", ".join(n for n in board_names() if n != "sim"))
    p.add_argument("--core", default="vexriscv")
    p.add_argument("--bitstream", help="default: the bitstream the last build wrote, as named in "
                                       "bitstreams/<board>-<core>.json (ULX3S: <board>-<core>.bit; "
                                       "Arty: <board>-<core>-<toolchain>.bit)")
    p.add_argument("--flash", action="store_true", help="write the SPI flash instead of SRAM")
    p.set_defaults(fn=cmd_load)

    p = sub.add_parser("run", help="run the firmware (or a program of your own) in simulation, capture the trace")
    p.add_argument("--board", default="sim")
    p.add_argument("--core", required=True)
    p.add_argument("--app", help="a firmware application of fw/ (default: bench)")
    p.add_argument("--elf", help="run this statically linked RV32 ELF instead (docs/USER_PROGRAMS.md)")
    p.add_argument("--dump-symbols", nargs=2, metavar=("START", "END"),
                   help="with --elf: dump memory from symbol START up to symbol END")
    p.add_argument("--dump-range", nargs=2, metavar=("ADDR", "LEN"), type=_number,
                   help="with --elf: dump LEN bytes of memory from ADDR")
    p.add_argument("--dump-file", metavar="OUT", help="where the dump goes (raw little-endian bytes)")
    p.add_argument("--trace", default="trace.bin", help="where to write the captured trace")
    p.add_argument("--probe", help="also write the RTL probe log here")
    p.add_argument("--max-cycles", type=int, default=400_000_000)
    _fw_option_arg(p)
    p.set_defaults(fn=cmd_run)

    p = sub.add_parser("memmap", help="the addresses a program of your own needs on a core's SoC")
    p.add_argument("--core", required=True)
    p.add_argument("--ld", action="store_true", help="print a linker-script fragment (MEMORY and the symbols) instead")
    p.set_defaults(fn=cmd_memmap)

    p = sub.add_parser("capture", help="capture a trace from socket://host:port or a serial port")
    p.add_argument("url")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--baud", type=int, default=3_000_000)
    p.add_argument("--idle-timeout", type=float, default=None, help="stop after this many seconds without data")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--connect-timeout", type=float, default=10.0, help="seconds to wait for a socket:// peer")
    p.set_defaults(fn=cmd_capture)

    p = sub.add_parser("decode", help="print the records of a trace file")
    p.add_argument("trace")
    p.add_argument("--limit", type=int)
    p.add_argument("--raw", action="store_true", help="the records' fields in hex (type, seq, payload)")
    p.add_argument("--allow-gaps", action="store_true", help="decode past corruption instead of failing")
    p.set_defaults(fn=cmd_decode)

    p = sub.add_parser("export", help="a trace for other tools: perfetto, vcd, sigrok, csv or json")
    p.add_argument("trace")
    p.add_argument("--format", required=True, metavar="FORMAT",
                   help="perfetto (ui.perfetto.dev), vcd (GTKWave), sigrok (.sr: PulseView, sigrok-cli), "
                        "csv or json (tables)")
    p.add_argument("-o", "--output", help="output file, '-' for stdout (default: the trace's name with "
                                          "the format's suffix)")
    p.add_argument("--clock-mhz", type=float, default=100.0, help="the trace's clock (default 100)")
    p.add_argument("--table", default="latencies", metavar="TABLE",
                   help="csv/json: latencies (one row per interrupt, default) or events (one row per event)")
    p.add_argument("--start", type=_number, help="sigrok: first cycle of the window (default: the first event)")
    p.add_argument("--max-samples", type=_number, help="sigrok: window length in cycles (default 2^25)")
    p.add_argument("--allow-gaps", action="store_true", help="export past corruption instead of failing")
    p.set_defaults(fn=cmd_export)

    p = sub.add_parser("timeline", help="FreeRTOS's trace hooks as a timeline: per task its run time and "
                                        "switches; with -o a PNG of tasks and ISRs")
    p.add_argument("trace")
    p.add_argument("-o", "--output", "--out", dest="output", help="write the timeline as a PNG here")
    p.add_argument("--from", dest="start", type=_number, metavar="CYCLE",
                   help="the window's first cycle (default: the scheduler's start, the first TASK_IN)")
    p.add_argument("--to", dest="end", type=_number, metavar="CYCLE",
                   help="the window's end (default: the table to the trace's end, the plot "
                        f"{_plot_span():,} cycles from --from)")
    p.add_argument("--elf", help="the firmware's ELF: name trap handlers by their symbols")
    p.add_argument("--json", action="store_true", help="the table as JSON")
    p.add_argument("--allow-gaps", action="store_true", help="read past corruption instead of failing")
    p.set_defaults(fn=cmd_timeline)

    d = demos.add_parser("modbus", help="a Modbus-RTU slave beside a background task; pymodbus as the master")
    d.add_argument("--cores", help="rows, comma-separated (default: every row whose SoC has the Modbus UART)")
    d.add_argument("--bauds", help="baud rates, comma-separated (default: 115200,230400,500000,1000000,2000000)")
    d.add_argument("--frames", type=int, default=20, help="requests per baud rate (default 20)")
    d.add_argument("--no-robustness", action="store_true", help="leave out the malformed-frames run")
    d.add_argument("--out", help="results folder (default: results/): modbus.json, modbus.png")
    d.add_argument("--board", default="sim", help="sim (default), or the board whose bitstream is loaded: "
                                                  "then --port, --modbus-port and the bitstream's core in --cores")
    d.add_argument("--port", help="board: its serial device or pyserial URL: firmware, trace and console")
    d.add_argument("--modbus-port", help="board: the master's serial device (or pyserial URL), wired to the "
                                         "board's Modbus UART pins")
    d.add_argument("--baud", type=int, help="board: the trace link's baud rate (default: the board's, 3000000)")
    d.set_defaults(fn=cmd_demo_modbus)

    p = sub.add_parser("report", help="an HTML page with tables and plots of one or more results files")
    p.add_argument("results", nargs="+", help="bench.json files (irqlab bench)")
    p.add_argument("-o", "--output", required=True, help="folder for report.html and its images")
    p.set_defaults(fn=cmd_report)

    p = sub.add_parser("compare", help="the headline table of results files, with the published references")
    p.add_argument("results", nargs="+", help="bench.json files (irqlab bench)")
    p.set_defaults(fn=cmd_compare)

    p = sub.add_parser("analyze", help="latency and throughput figures of a trace file")
    p.add_argument("trace")
    p.add_argument("--clock-mhz", type=float, default=100.0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--allow-gaps", action="store_true")
    p.set_defaults(fn=cmd_analyze)
    return ap


def main(argv=None):
    from irqlab.errors import UserError
    args = parser().parse_args(argv)
    try:
        rc = args.fn(args)
    except UserError as e:
        print(f"irqlab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("irqlab: interrupted", file=sys.stderr)
        return 130
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
