"""`make twin`: the host's board paths, unmodified, against the board twin of
every SoC that has a board build (bitstreams/<board>-<core>.json), as the
`irqlab` commands a user runs with a board on a serial port:

    irqlab bench --board B --cores C --port socket://...            every such SoC
        (its board path, irqlab/suites/latency_board.py bench_board, without
        the command's 600 s wall-clock limit: the twin runs about a hundred
        times slower than a board; the headline suite, as the command runs it)
    irqlab demo pto --board B --cores C --port socket://...          those with the PTO
    irqlab demo modbus --board B --cores C --port ... --modbus-port ...   those with the Modbus UART

Results go to results/twin/<board>-<core>/ (bench), .../pto, .../modbus.
Each command is one run of a freshly reset twin. Each bench is then run in
the simulation with the firmware configuration it recorded (.../sim/) and
compared test by test, in cycles (boards/twin/compare.py): equal, a
difference explained by events the trace unit reported lost on the link,
or a difference (a failure). A summary at the end: per command its exit
status, wall time, the trace's loss and the comparison.

    python -m irqlab.boards.twin.suite [--board ulx3s] [--cores a,b] [--interrupts N] [--skip-demos]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import time

from irqlab import paths
from irqlab.boards.twin import compare, run as twinrun, target
from irqlab.progress import Progress
from irqlab.rows import row as row_info

MODBUS_BAUD = 115200
MAX_SECONDS = 6 * 3600  # wall clock of one bench run on the twin

_BENCH = """
import sys, json
from irqlab.host.benchmarks import suite_mask
from irqlab.progress import Progress
from irqlab.suites.latency_board import bench_board
from irqlab.errors import UserError
a = json.loads(sys.argv[1])
config = {"tests": suite_mask("headline"), **({"lat_count": a["interrupts"]} if a["interrupts"] else {})}
try:
    bench_board(a["board"], a["core"], a["port"], config, a["out"], Progress(), max_seconds=a["max_seconds"])
except UserError as e:
    print(f"irqlab: error: {e}")
    sys.exit(2)
"""


def built_cores(board):
    """The rows with a board build report for `board`, in bitstreams/."""
    found = []
    for f in sorted(glob.glob(os.path.join(paths.BITSTREAMS, f"{board}-*.json"))):
        core = os.path.basename(f)[len(board) + 1:-len(".json")]
        try:
            row_info(core)
        except Exception:       # a report of a row that no longer exists
            continue
        found.append(core)
    return found


def one(twin, args, out, progress, modbus=False, interrupts=None):
    """One board path against a freshly started twin: (status, seconds, trace summary)."""
    os.makedirs(out, exist_ok=True)
    r = twinrun.start(twin, once=True, log_path=os.path.join(out, "twin.log"),
                      modbus_baud=MODBUS_BAUD if modbus else None)
    if args[0] == "bench":
        cmd = [sys.executable, "-c", _BENCH, json.dumps({"board": twin.board.name, "core": twin.core, "port": r.serial_url,
                                                         "out": out, "interrupts": interrupts,
                                                         "max_seconds": MAX_SECONDS})]
    else:
        cmd = [sys.executable, "-m", "irqlab", *args, "--port", r.serial_url, "--out", out]
    if modbus:
        cmd += ["--modbus-port", r.modbus_url, "--bauds", str(MODBUS_BAUD)]
    progress.step(f"{twin.name}: irqlab {' '.join(args)}")
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        r.stop()
    with open(os.path.join(out, "irqlab.log"), "w") as f:
        f.write(p.stdout)
    loss = ""
    bench = os.path.join(out, "bench.json")
    if os.path.exists(bench) and args[0] == "bench":
        with open(bench) as f:
            tr = next(iter(json.load(f)["cores"].values()))["trace"]
        loss = f"dropped {tr['hw_dropped']}, skipped bytes {tr['skipped_bytes']}, sequence gaps {tr['seq_lost']}"
    status = p.returncode
    if status:
        loss = (p.stdout.strip().splitlines() or [""])[-1][:150]
    elif args[0] == "bench":
        with open(bench) as f:
            got = json.load(f)
        sim_entry = compare.simulate(twin.core, got["config"], os.path.join(out, "sim"), progress)
        v = compare.verdicts(got, twin.core, sim_entry, compare.twin_losses(got, twin.core, out))
        loss += "; against the simulation: " + ", ".join(f"{t} {what}" for t, (what, _) in v.items())
        for t, (what, paths) in v.items():
            if what == "differs":
                status = 1
                loss += f"\n      {t} differs at {', '.join(paths[:6])}"
    return status, time.monotonic() - t0, loss


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="ulx3s")
    ap.add_argument("--cores", help="rows, comma-separated (default: every row with a board build)")
    ap.add_argument("--interrupts", type=int, help="interrupts in the latency test (default: the firmware's, 10000)")
    ap.add_argument("--skip-demos", action="store_true")
    a = ap.parse_args(argv)
    progress = Progress()
    cores = a.cores.split(",") if a.cores else built_cores(a.board)
    rows = []
    for core in cores:
        cfg = row_info(core).soc_config
        twin = target.prepare(a.board, core, progress)
        twinrun.install_headers(twin)
        base = os.path.join(paths.RESULTS, "twin", f"{a.board}-{core}")
        jobs = [(["bench", "--board", a.board, "--cores", core], base, False)]
        if not a.skip_demos and cfg.pto:
            jobs.append((["demo", "pto", "--board", a.board, "--cores", core], os.path.join(base, "pto"), False))
        if not a.skip_demos and cfg.modbus_uart:
            jobs.append((["demo", "modbus", "--board", a.board, "--cores", core], os.path.join(base, "modbus"), True))
        for args, out, modbus in jobs:
            rows.append((core, " ".join(args[:2] if args[0] == "demo" else args[:1]),
                         *one(twin, args, out, progress, modbus, a.interrupts)))
    print(f"\nboard twin, {a.board}: results in {os.path.relpath(os.path.join(paths.RESULTS, 'twin'), paths.ROOT)}/")
    for core, what, status, seconds, note in rows:
        print(f"  {core:12} {what:12} {'ok' if status == 0 else f'exit {status}':8} {seconds:7.0f} s  {note}")
    return 1 if any(r[2] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
