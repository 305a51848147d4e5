"""Benchmark output: the printed table, the JSON results file, the Markdown
report and the latency plot. Files are written whole or not at all."""

import json

from irqlab.host.atomic import atomic_open
from irqlab.host.benchmarks import BENCHMARKS, Column


def _onchip(r):
    agrees = [t.get("onchip_agrees") for t in r["tests"].values() if "onchip_agrees" in t]
    return "equal" if agrees and all(agrees) else ("DIFFER" if agrees else "-")


# (column, benchmark whose results entry it reads, or None for the row's own)
_HEAD = [(Column("core", 10, None), None), (Column("memory", 6, lambda r: r.get("memory", "-")), None),
         (Column("B marker", 9, lambda r: r.get("b_marker_short", "?")), None)]
_TAIL = [(Column("drops", 5, lambda r: r.get("trace", {}).get("hw_dropped", 0)), None),
         (Column("on-chip", 7, _onchip), None)]
COLUMNS = _HEAD + [(c, b.name) for b in BENCHMARKS.values() for c in b.columns] + _TAIL


def _row(core, r, columns):
    cells = [core]
    for col, bench in columns[1:]:
        cells.append(col.cell(r["tests"].get(bench, {}) if bench else r))
    return cells


def columns_of(results):
    """The columns of the benchmarks some row ran: a matrix-only test case
    (trace/benchmarks.py, suite "matrix") appears only in a run that has it."""
    ran = {name for r in results["cores"].values() for name in r.get("tests", {})}
    return [(c, b) for c, b in COLUMNS
            if b is None or b in ran or BENCHMARKS[b].suite == "headline"]


def table(results):
    """The per-core table as text; latency columns are cycles. Each column is
    as wide as its header's nominal width or its widest cell."""
    columns = columns_of(results)
    rows = [_row(core, r, columns) for core, r in results["cores"].items()]
    widths = [max([c.width, len(c.header)] + [len(str(row[i])) for row in rows])
              for i, (c, _) in enumerate(columns)]
    lines = ["  ".join(c.header.rjust(w) for (c, _), w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(v).rjust(w) for v, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


LEGEND = """\
min/median/p99/max/jitter: interrupt latency in cycles, B - A over randomized arrival phases
  A = rising edge of the generator line at the core's interrupt input (trace unit, hardware event)
  B = handler entry: 'sw-event' = the stimulus-port store that is the first statement of the
      C handler (stock cores have no retire port); 'pc-match' = the first handler instruction
      after the caller-saved context is stored (cores with a retire port), when it RETIRES
B-exec: the same interrupts with B = the cycle that pc-match instruction ENTERS EXECUTE (the
      point the seeds count to); n/a = the core has no such point (sw-event rows)
memory: where code and data live; TCM = the own core's single-cycle ITCM + DTCM, bus = LiteX's
      Wishbone ROM/SRAM (2-3 cycles an access), +cache = the stock CPU's caches in front of it
b2b cyc: cycles per handled interrupt while the line is held (throughput test), kIRQ/s at the clock
preempt: latency (same A and B; B-exec as above) of a higher-level interrupt arriving while a
      lower-level handler runs with interrupts enabled (cores with interrupt levels: the CLIC rows)
B-Lmax, B-Tmax: seed 004's worst-case latency (median/max) and maximal throughput benchmarks
T4..T7 (--suite matrix): median/max latency (T6 kIRQ/s: throughput) of line 0 in seed 004's test
      cases, with the stressors of trace/benchmarks.py around it (README, "Test cases")
drops: events the trace unit dropped (FIFO full); on-chip: on-chip statistics equal the trace's"""


def write_json(results, path):
    write_text(path, json.dumps(results, indent=1, sort_keys=False) + "\n")


def write_text(path, text):
    with atomic_open(path) as f:
        f.write(text)


def histogram(values):
    h = {}
    for v in values:
        h[v] = h.get(v, 0) + 1
    return dict(sorted(h.items()))


def plot_latency(results, path):
    """Latency distribution per core (one panel, log count axis). Returns False
    when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1]})
    names = []
    b2b = []
    for core, r in results["cores"].items():
        h = r["tests"].get("latency", {}).get("histogram", {})
        if h:
            xs = [int(k) for k in h]
            ax1.bar(xs, list(h.values()), width=1.0, alpha=0.6, label=f"{core} (median {r['tests']['latency']['latency']['median']})")
        cpi = r["tests"].get("throughput", {}).get("cycles_per_irq", {})
        names.append(core)
        b2b.append(cpi.get("median", 0))
    ax1.set_yscale("log")
    ax1.set_xlabel("interrupt latency B - A [cycles]")
    ax1.set_ylabel("interrupts")
    ax1.set_title("Interrupt latency, randomized arrival phase")
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    ax2.bar(names, b2b, color="tab:gray")
    ax2.set_ylabel("cycles per interrupt")
    ax2.set_title("Back-to-back (throughput)")
    ax2.tick_params(axis="x", labelrotation=35, labelsize=8)
    for i, v in enumerate(b2b):
        ax2.text(i, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
    fig.tight_layout()
    with atomic_open(path, binary=True) as f:
        fig.savefig(f, format="png", dpi=110)
    plt.close(fig)
    return True


# The matrix table: T1 beside seed 004's other cases and the benchmarks,
# latency cases first, then throughput (the preemption test is not a case).
MATRIX_ORDER = [b.name for kind in ("latency", "throughput") for b in BENCHMARKS.values()
                if b.kind == kind and (b.stressors or b.name == kind)]
MATRIX_HEADS = {"latency": "T1 = B-Lmin", "throughput": "T1 kIRQ/s", "t6-parallel-tp": "T6 kIRQ/s",
                "b-tmax": "B-Tmax kIRQ/s", "b-lmax": "B-Lmax"}


def matrix_markdown(results):
    """The matrix's figures as a Markdown table (latency median/max, cycles;
    throughput kIRQ/s), or None if the run has no matrix case."""
    ran = [n for n in MATRIX_ORDER if any(n in r["tests"] for r in results["cores"].values())]
    if not any(BENCHMARKS[n].suite == "matrix" for n in ran):
        return None
    heads = [MATRIX_HEADS.get(n, n.split("-")[0].upper()) for n in ran]
    out = ["| row | " + " | ".join(heads) + " |", "|---|" + "---|" * len(ran)]
    for core, r in results["cores"].items():
        cells = []
        for n in ran:
            t = r["tests"].get(n, {})
            if BENCHMARKS[n].kind == "throughput":
                hz = t.get("throughput_hz", {})
                cells.append(f"{hz['median'] / 1e3:.0f}" if hz.get("count") else "-")
            else:
                lat = t.get("latency", {})
                cells.append(f"{lat['median']:g}/{lat['max']}" if lat.get("count") else "-")
        out.append(f"| `{core}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


def markdown(results, plot_name=None):
    out = [f"# irqlab benchmark ({results['board']}, {results['clock_hz'] / 1e6:.0f} MHz)", "",
           f"git {results['git']} · {results['date']}", "", "```", table(results), "```", "", "```",
           LEGEND, "```", ""]
    if plot_name:
        out += [f"![latency]({plot_name})", ""]
    matrix = matrix_markdown(results)
    if matrix:
        out += ["## The measurement matrix (seed 004's test cases)", "",
                "Latency median/max in cycles, throughput in kIRQ/s (README, \"The measurement matrix\").",
                "", matrix, ""]
    cfg = results.get("config", {})
    if cfg:
        out += ["Firmware configuration: " + ", ".join(f"{k}={v}" for k, v in cfg.items() if k != "magic"), ""]
    return "\n".join(out)
