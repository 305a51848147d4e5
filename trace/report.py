"""Benchmark output: the printed table, the JSON results file, the Markdown
report and the latency plot. Files are written whole or not at all."""

import json

from irqlab.host.analysis import serves_per_entry, serves_several_per_entry
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


# What every column of the report's tables means, by its header: the text and
# Markdown tables' legends and the HTML page's header tooltips and legends are
# made from this one dictionary (the headline's, the matrix's and the demos'
# tables included), so a column is explained the same way wherever it appears.
COLUMN_NOTES = {
    # The benchmark tables (irqlab bench's table, report.md, the HTML page's per-benchmark tables)
    "core": "the benchmark row (irqlab/rows.py): a SoC and how its firmware is built",
    "memory": "where code and data live: TCM = the own core's single-cycle ITCM + DTCM, bus = LiteX's "
              "Wishbone ROM/SRAM (2-3 cycles an access), +cache = the stock CPU's caches in front of it",
    "B marker": "which event B (the handler entry) is: 'pc-match' = the first handler instruction after the "
                "caller-saved context is stored, when it RETIRES (cores with a retire port); 'sw-event' = the "
                "stimulus-port store that is the first statement of the C handler (stock cores)",
    "irqs": "interrupts measured: A-B pairs (A = rising edge of the generator line at the core's interrupt "
            "input, from the trace unit; B = the handler entry of 'B marker')",
    "min": "smallest latency B - A, cycles, over randomized arrival phases",
    "median": "median latency B - A, cycles",
    "p99": "99th percentile of the latency B - A, cycles",
    "max": "largest latency B - A, cycles",
    "jitter": "max - min of the latency B - A, cycles",
    "median ns": "the median latency in nanoseconds at the run's clock",
    "B-exec min/med/p99/max": "the same interrupts with B = the cycle the pc-match instruction ENTERS EXECUTE "
                              "(the point the seeds count to), cycles; n/a = the core has no such point "
                              "(sw-event rows)",
    "b2b cyc": "back to back: cycles per handled interrupt while the line is held (throughput test: phase "
               "length / handler runs)",
    "kIRQ/s": "back to back: handled interrupts per second at the clock while the line is held, in thousands",
    "ret->B": "back to back: cycles from a handler's return instruction (mret, emret) retiring to B of the "
              "next, median/max (rows with a retire port whose handlers each have their own return)",
    "handled": "handler runs (C handler calls) counted inside the stimulation phases",
    "serves/entry": "requests served per entry into the handler code: the line's rising edges per B event; "
                    "1.0 = an entry per interrupt, more = a service loop (mnxti) that takes the next "
                    "request without leaving",
    "preempt med": "median latency (same A and B) of a higher-level interrupt arriving while a lower-level "
                   "handler runs with interrupts enabled (cores with interrupt levels: the CLIC rows)",
    "preempt max": "largest latency of that preempting interrupt, cycles",
    "preempt B-exec med/max": "the preempting interrupt's latency to B-exec (as 'B-exec'), median/max",
    "T3 med/max": "seed 004's T3 (--suite matrix): line 0's latency, median/max cycles, its handler "
                  "invalidating the caches each time (rows with caches)",
    "T4 med/max": "seed 004's T4 (--suite matrix): line 0's latency, median/max cycles, every source "
                  "enabled and lines 1..7 requesting at random at the lowest level",
    "T5 med/max": "seed 004's T5 (--suite matrix): line 0's latency, median/max cycles, lines 1..7 at "
                  "ascending levels changing the controller's winner",
    "T6 med/max": "seed 004's T6 (--suite matrix): line 0's latency, median/max cycles, with "
                  "parallel_lines other lines rising in the same cycle at its level",
    "T6 kIRQ/s": "seed 004's T6 throughput (--suite matrix): lines 0..parallel_lines held together, every "
                 "line's handler runs per second, in thousands",
    "T7 med/max": "seed 004's T7 (--suite matrix): line 0's latency, median/max cycles, while a second bus "
                  "master and the background loop make random memory traffic",
    "B-Lmax med/max": "seed 004's worst-case latency benchmark (T4 + T6 + T7 at once): median/max cycles",
    "B-Tmax kIRQ/s": "seed 004's maximal-throughput benchmark (T6's throughput procedure), in thousands of "
                     "interrupts per second",
    "drops": "events the trace unit dropped (its FIFO full)",
    "on-chip": "'equal' = the firmware's on-chip statistics equal the trace's; 'DIFFER' = they do not",
    # The headline (irqlab compare, the HTML page's first table)
    "kind": "'measured' here, or a published 'REFERENCE' figure (not measured here)",
    "latency med/max": "the 'latency' benchmark to a C handler, median/max cycles (own cores: B-retire; "
                       "stock cores: their software event); references: their published figure",
    "B-exec med/max": "the same interrupts with B = that instruction entering execute, median/max cycles; "
                      "n/a on stock cores (no such point)",
    "ret->B med/max": "back to back, the seeds' way: from a handler's return to the next handler's B, "
                      "median/max cycles; references: their back-to-back figure (CV32RT's emret to the next "
                      "handler, Cortex-M's tail chain)",
    "nested med/max": "a higher level preempting a running handler ('preempt'), median/max cycles",
    "B-Lmax": "seed 004's worst-case latency benchmark, cycles (headline: its max; the matrix table: "
              "median/max)",
    "B-Tmax": "seed 004's maximal-throughput benchmark, cycles per interrupt",
    "source": "where the figures come from: the results' board, clock and git version and B; for a "
              "reference, its paper and where in it",
    # The matrix table (report.md, --suite matrix)
    "row": "the benchmark row (irqlab/rows.py), or the demo's row",
    "T1 = B-Lmin": "seed 004's T1, the headline 'latency' benchmark: median/max cycles (no case is faster "
                   "on any row, so it is also B-Lmin)",
    "T1 kIRQ/s": "seed 004's T1 throughput, the headline 'throughput' benchmark, thousands of interrupts "
                 "per second",
    "T3": "T3, caches invalidated by each handler: line 0's latency, median/max cycles",
    "T4": "T4, every source enabled: line 0's latency, median/max cycles",
    "T5": "T5, changing priorities: line 0's latency, median/max cycles",
    "T6": "T6, lines rising together: line 0's latency, median/max cycles",
    "T7": "T7, random memory traffic: line 0's latency, median/max cycles",
    # The Modbus-RTU demo's table
    "baud": "the serial line's rate (bit/s); 'no traffic' = the row's run without requests",
    "answered": "requests answered correctly / requests sent",
    "lost": "requests that got no answer",
    "wrong": "answers with a wrong CRC or content",
    "background /s": "the background task's rate: its work units per second, from the trace unit's marks",
    "background loss": "how much of the background rate without traffic the traffic takes",
    # The PTO demo's table
    "max kHz": "the highest pulse-train frequency with no late edge over a long train (bisection on the "
               "half-period in cycles), at the run's clock",
    "half-period": "that frequency's half-period, cycles",
    "jitter 10 kHz": "normalized peak-to-peak period jitter at 10 kHz: (max - min period) / nominal period "
                     "over one train, the background task running",
    "jitter 100 kHz": "the same at 100 kHz",
    "jitter 250 kHz": "the same at 250 kHz",
    "late 100 kHz": "edges late at 100 kHz: by the trace (by the firmware's read of the timer)",
    "late 250 kHz": "the same at 250 kHz",
    "response": "cycles from an edge to the next when the handler is too slow (its whole path)",
    "handler-bound kHz": "the frequency that response alone would sustain",
}

# The text and Markdown tables' A and B, before their columns.
_PREAMBLE = """\
latency = B - A in cycles, over randomized arrival phases
  A = rising edge of the generator line at the core's interrupt input (trace unit, hardware event)
  B = handler entry (column 'B marker'); B-exec = the same interrupt's pc-match instruction entering execute"""


def column_note(header):
    """The explanation of a column, by its header ('?' where none is written:
    tests/test_htmlreport.py holds every table's headers to the dictionary)."""
    return COLUMN_NOTES.get(header, "?")


def legend(headers, preamble=True, width=110):
    """'header  explanation' for each column (wrapped under itself), after
    the A/B preamble."""
    import textwrap
    headers = list(dict.fromkeys(headers))
    w = max(len(h) for h in headers) + 2
    lines = [textwrap.fill(column_note(h), width, initial_indent=h.ljust(w), subsequent_indent=" " * w,
                           break_on_hyphens=False, break_long_words=False)
             for h in headers]
    return "\n".join(([_PREAMBLE] if preamble else []) + lines)


# Every column of the printed table (irqlab bench prints it under the table).
LEGEND = legend([c.header for c, _ in COLUMNS])


def several_per_entry(cores, tests=None):
    """[(row, test, requests served per entry)] of every test where one entry
    served several requests (analysis.serves_several_per_entry); cores is
    {row: its results entry}, tests the tests to look at (default: all)."""
    out = []
    for core, entry in cores.items():
        for name, t in entry.get("tests", {}).items():
            if (tests is None or name in tests) and serves_several_per_entry(t):
                out.append((core, name, serves_per_entry(t)))
    return out


def several_per_entry_note(rows):
    """Why a row's latency in a test is n/a: rows as several_per_entry() gives
    them; '' when there are none."""
    if not rows:
        return ""
    what = "; ".join(f"{row}: {spe:.0f} per entry in {test}" for row, test, spe in rows)
    return (f"One entry into the handler code serves several requests ({what}): a service loop takes the "
            "next request without leaving, so only the first rising edge before each entry pairs with a B, "
            "and that pair spans a whole loop. Such a test's latency is no interrupt's latency and is shown "
            "as n/a; its handler runs, b2b cyc and kIRQ/s count every request served and stand.")


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
    from irqlab.host.plots import row_styles
    styles = row_styles(results["cores"])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1]})
    names = []
    b2b = []
    for core, r in results["cores"].items():
        h = r["tests"].get("latency", {}).get("histogram", {})
        st = styles[core]
        if h:
            xs = [int(k) for k in h]
            ax1.bar(xs, list(h.values()), width=1.0, alpha=0.6, color=st.colour, hatch=st.hatch,
                    label=f"{core} (median {r['tests']['latency']['latency']['median']})")
        cpi = r["tests"].get("throughput", {}).get("cycles_per_irq", {})
        names.append(core)
        b2b.append(cpi.get("median", 0))
    ax1.set_yscale("log")
    ax1.set_xlabel("interrupt latency B - A [cycles]")
    ax1.set_ylabel("interrupts")
    ax1.set_title("Interrupt latency, randomized arrival phase")
    ax1.legend(fontsize=8, ncol=2 if len(names) > 8 else 1)
    ax1.grid(alpha=0.3)
    ax2.bar(names, b2b, color=[styles[n].colour for n in names], hatch=None)
    for bar, n in zip(ax2.patches, names):
        bar.set_hatch(styles[n].hatch)
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
           legend([c.header for c, _ in columns_of(results)]), "```", ""]
    loops = several_per_entry(results["cores"])
    if loops:
        out += [several_per_entry_note(loops), ""]
    if plot_name:
        out += [f"![latency]({plot_name})", ""]
    matrix = matrix_markdown(results)
    if matrix:
        heads = [h.strip() for h in matrix.splitlines()[0].strip("|").split("|")]
        out += ["## The measurement matrix (seed 004's test cases)", "",
                "Latency median/max in cycles, throughput in kIRQ/s (docs/MEASUREMENT.md, \"The measurement matrix\").",
                "", matrix, "", "```", legend(heads, preamble=False), "```", ""]
    cfg = results.get("config", {})
    if cfg:
        out += ["Firmware configuration: " + ", ".join(f"{k}={v}" for k, v in cfg.items() if k != "magic"), ""]
    return "\n".join(out)
