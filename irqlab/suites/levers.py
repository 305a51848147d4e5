"""The pipeline levers, each measured alone: `python -m irqlab.suites.levers`
(`make levers`).

A lever is one change of the own core's pipeline (cores/, Variants.levers),
applied to a row as `<row>+<lever>` (irqlab/rows.py). For the row and each
lever this runs the context-switch suite and the digits workload in
simulation and, unless `--board none`, a board build for its resources and
clock. It writes levers.json (configuration, git revision, every figure) and
levers.md (the table cores/README.md quotes) into `--out`; the suites' own
results and traces, and the build reports, stay under build/levers/.

    python -m irqlab.suites.levers                       # fastctx, every lever, ULX3S builds (1-2 h)
    python -m irqlab.suites.levers --levers predict --board none
"""

import argparse
import json
import os
import subprocess
import sys

from irqlab import paths
from irqlab.rows import LEVER_SEPARATOR, row as row_info
from irqlab.host import ctxsw as ctxswcases, report

RESULTS_FILE = "levers.json"
REPORT_FILE = "levers.md"
# (header, ctxsw case): the ctxsw table's columns of means (trace/ctxsw.py),
# over the samples without background load
CTXSW_COLUMNS = [(h.replace(" mean", ""), case) for h, case, stat in ctxswcases.TABLE_COLUMNS
                 if stat == "mean" and case != ctxswcases.WORST]
BUILD_FIELDS = ("luts", "flip_flops", "block_ram", "dsp", "timing_met")


def measure(base, levers, board, out_dir, work_dir, jobs, progress, builds_from=None):
    """Every figure of `base` and of `base+<lever>` for each lever; a row
    whose build report is in `builds_from` is not built again."""
    from irqlab.suites import ctxsw, digits
    rows = [base] + [f"{base}{LEVER_SEPARATOR}{l}" for l in levers]
    for r in rows:
        row_info(r)
    switch = ctxsw.bench(rows, os.path.join(work_dir, "ctxsw"), progress=progress, jobs=jobs)
    work = digits.bench(rows, os.path.join(work_dir, "digits"), progress=progress)
    results = {"irqlab": "levers", "git": paths.git_revision(), "base": base, "board": board,
               "clock_hz": switch["clock_hz"],
               "config": {"ctxsw": switch["config"], "digits": work["config"]}, "rows": {}}
    builds = {}
    if board != "none":
        from concurrent.futures import ThreadPoolExecutor
        def one(r):
            if builds_from and os.path.isfile(os.path.join(builds_from, f"{board}-{r}.json")):
                return build_figures(board, r, builds_from)
            return board_build(board, r, os.path.join(work_dir, "bitstreams"), progress)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            builds = dict(zip(rows, pool.map(one, rows)))
    for r in rows:
        cases = switch["cores"][r]["cases"]
        entry = {
            "lever": r.partition(LEVER_SEPARATOR)[2] or None,
            "ctxsw": {case: ctxswcases.cell(cases, case, "mean") for _, case in CTXSW_COLUMNS},
            "ctxsw_worst": ctxswcases.cell(cases, ctxswcases.WORST, "max"),
            "digits": work["cores"][r]["alone"]["cycles_per_inference"]["mean"],
        }
        if r in builds:
            entry["build"] = builds[r]
        results["rows"][r] = entry
    os.makedirs(out_dir, exist_ok=True)
    report.write_json(results, os.path.join(out_dir, RESULTS_FILE))
    report.write_text(os.path.join(out_dir, REPORT_FILE), markdown(results))
    return results


def board_build(board, row, bitstreams, progress):
    """The board build of `row` (irqlab build, its reports into `bitstreams`):
    resources and the clock reached; a build that misses timing is a figure
    too, not a failure."""
    if progress:
        progress.step(f"{board}/{row}: board build for resources and clock")
    stale = os.path.join(bitstreams, f"{board}-{row}.json")
    if os.path.exists(stale):
        os.remove(stale)                    # a build that fails before its report must not read an old one
    env = dict(os.environ, IRQLAB_BITSTREAMS=bitstreams)
    subprocess.run([sys.executable, "-m", "irqlab", "build", "--board", board, "--core", row], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return build_figures(board, row, bitstreams)


def build_figures(board, row, bitstreams):
    """The figures of the build report <bitstreams>/<board>-<row>.json, with
    the revision it was built at."""
    from irqlab.flows import report as boardreport
    try:
        with open(os.path.join(bitstreams, f"{board}-{row}.json")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return {"error": f"the build wrote no report (irqlab build --board {board} --core {row})"}
    out = {k: r.get(k) for k in BUILD_FIELDS}
    out["fmax_mhz"] = boardreport.fmax(r.get("clocks", {}))
    out["target_mhz"] = r.get("sys_clk_mhz")
    out["git"] = r.get("git")
    return out


def _cycles(v):
    return "-" if v is None else f"{v:.1f}"


def table(results):
    head = ["row"] + [h for h, _ in CTXSW_COLUMNS] + ["worst", "digits"]
    if results["board"] != "none":
        head += ["LUT4", "FF", "DSP", "MHz", "built at"]
    base = results["rows"][results["base"]]
    lines = [head]
    for name, r in results["rows"].items():
        # "-": a study recorded before the ctxsw table had that case
        cells = [name] + [_cycles(r["ctxsw"].get(c)) for _, c in CTXSW_COLUMNS] + [str(r["ctxsw_worst"])]
        d = r["digits"]
        cells.append(f"{d:.0f}" + ("" if r is base else f" ({d / base['digits'] - 1:+.1%})"))
        b = r.get("build")
        if b is not None:
            if "error" in b:
                cells += ["-", "-", "-", "failed", "-"]
            else:
                mark = "" if b["timing_met"] else " (missed)"
                cells += [str(b["luts"]), str(b["flip_flops"]), str(b["dsp"]), f"{b['fmax_mhz']:.1f}{mark}",
                          b.get("git") or "-"]
        lines.append(cells)
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    return "\n".join("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(l, widths)))
                     .rstrip() for l in lines)


LEGEND = ("cycles (simulation, trace unit): the context-switch suite's cases, mean over the samples without "
          "background load (marks' cost subtracted; " + "; ".join(f"{h} = {c}" for h, c in CTXSW_COLUMNS) +
          "); worst = the largest max of every case, as in the ctxsw table; digits = the digits workload alone, cycles per inference "
          "(the change against the first row). LUT4, FF, DSP, MHz: the whole SoC's board build (nextpnr's "
          "Fmax of the system clock; missed = below the board's clock), built at that git revision.")


def markdown(results):
    return "\n".join([
        "# The pipeline levers, each alone", "",
        f"On `{results['base']}`, git {results['git']}, board builds: {results['board']}. "
        "Written by `make levers` (python -m irqlab.suites.levers).", "",
        "```", table(results), "```", "", LEGEND, ""])


def main(argv=None):
    from irqlab.builders import core as corebuild
    from irqlab.errors import UserError, unknown
    from irqlab.progress import Progress
    ap = argparse.ArgumentParser(prog="python -m irqlab.suites.levers", description=__doc__.split("\n\n")[0])
    ap.add_argument("--core", default="fastctx", help="the row the levers are applied to (default fastctx)")
    ap.add_argument("--levers", help="comma-separated (default: every lever cores/ defines)")
    ap.add_argument("--board", default="ulx3s", help="board of the builds, or none (default ulx3s)")
    ap.add_argument("--out", default=os.path.join(paths.RESULTS, "levers"), help="where levers.json/.md go")
    ap.add_argument("--jobs", type=int, default=2, help="rows simulated or built at once (default 2)")
    ap.add_argument("--builds-from", help="a directory of build reports (<board>-<row>.json, as irqlab build "
                    "writes them): a row found there is not built again; each build's git revision is kept")
    args = ap.parse_args(argv)
    progress = Progress()
    try:
        known = corebuild.levers(progress=progress)
        levers = [l for l in args.levers.split(",") if l] if args.levers else known
        for l in levers:
            if l not in known:
                raise unknown("pipeline lever", l, known)
        if args.board != "none":
            from irqlab.boards import registry
            registry.fpga_board(args.board)
        results = measure(args.core, levers, args.board, args.out, os.path.join(paths.BUILD, "levers"),
                          args.jobs, progress, args.builds_from)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print()
    print(table(results))
    print(LEGEND)
    print(f"\nresults: {os.path.join(args.out, RESULTS_FILE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
