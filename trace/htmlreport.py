"""`irqlab report`: a static HTML page (report.html) with the PNG figures it
shows beside it (report-*.png): the headline table with the published
references, a table per benchmark (one row per core), the latency
distributions, throughput, and a timeline of the first interrupts from the
raw traces the results name. Every table's header cells carry their column's
explanation (trace/report.py COLUMN_NOTES) as a tooltip, and a legend under the
table says the same. Every file is written whole; the page last."""

import html
import os

from irqlab.errors import ResultsError
from irqlab.host import compare, plots, pto, report
from irqlab.host.analysis import serves_per_entry, serves_several_per_entry
from irqlab.host.atomic import atomic_open
from irqlab.host.benchmarks import BENCHMARKS, NA, b_execute

PAGE = "report.html"
TIMELINE_INTERRUPTS = 3
_LATENCY = ["irqs", "min", "median", "p99", "max", "jitter", "median ns", "B-exec min/med/p99/max"]
# A benchmark's table by its kind (trace/benchmarks.py): a throughput test
# shows its handler runs and what one entry serves before its latency.
COLUMNS = {
    "latency": ["core", "memory"] + _LATENCY + ["B marker", "on-chip"],
    "throughput": ["core", "memory", "handled", "b2b cyc", "kIRQ/s", "ret->B", "serves/entry"] + _LATENCY
                  + ["B marker", "on-chip"],
}

STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; } td:first-child, th:first-child { text-align: left; }
tr.reference td { font-style: italic; color: #555; background: #f7f7ef; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.note { color: #555; font-size: 0.85em; }
th[title] { cursor: help; text-decoration: underline dotted; }
details.legend { margin: -0.5em 0 1em; }
details.legend dt { font-weight: bold; float: left; clear: left; margin-right: 0.5em; }
details.legend dd { margin: 0 0 0.2em 0; }
"""


def _cells(run, bench, headers):
    """The row's cells under `headers`. Where one entry served several
    requests (analysis.serves_several_per_entry) the latency cells are n/a:
    the A-B pairs span whole service loops (the table's note says so)."""
    t = run.test(bench)
    s = t.get("latency", {})
    cpi = t.get("cycles_per_irq", {})
    rate = t.get("throughput_hz", {})
    ns = s.get("ns", {})
    agrees = t.get("onchip_agrees")
    loop = serves_several_per_entry(t)
    spe = serves_per_entry(t)
    phases = t.get("phases")

    hand = t.get("handoff") or {}

    def v(x):
        return "-" if x is None else str(x)
    cells = {
        "core": run.name, "memory": run.entry.get("memory", "-"),
        "irqs": v(s.get("count")), "min": v(s.get("min")), "median": v(s.get("median")),
        "p99": v(s.get("p99")), "max": v(s.get("max")), "jitter": v(s.get("jitter")),
        "median ns": f"{ns['median']:.0f}" if ns else "-", "B-exec min/med/p99/max": v(b_execute(t)),
        "handled": str(sum(p["handled"] for p in phases)) if phases else "-",
        "b2b cyc": f"{cpi['median']:.1f}" if cpi.get("count") else "-",
        "kIRQ/s": f"{rate['median'] / 1e3:.0f}" if rate.get("count") else "-",
        "ret->B": f"{hand['median']:.0f}/{hand['max']:.0f}" if hand.get("count") else "-",
        "serves/entry": "-" if spe is None else f"{spe:.1f}" if spe < 10 else f"{spe:.0f}",
        "B marker": t.get("b_marker", "-"),
        "on-chip": "-" if agrees is None else ("equal" if agrees else "DIFFER"),
    }
    if loop:
        cells.update({k: NA for k in _LATENCY})
    return [cells[k] for k in headers]


def _table(headers, rows, classes=None):
    """A table whose header cells explain their columns (title=, from
    report.COLUMN_NOTES), with the same explanations in a legend under it. A
    header the dictionary lacks is written bare (the tests look for those)."""
    notes = {h: report.COLUMN_NOTES.get(h) for h in headers}

    def th(h):
        title = f' title="{html.escape(notes[h])}"' if notes[h] else ""
        return f"<th{title}>{html.escape(h)}</th>"
    out = ["<table>", "<tr>" + "".join(th(h) for h in headers) + "</tr>"]
    for k, row in enumerate(rows):
        cls = f' class="{classes[k]}"' if classes and classes[k] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    out.append("</table>")
    out += ['<details class="legend note"><summary>Columns</summary><dl>']
    out += [f"<dt>{html.escape(h)}</dt><dd>{html.escape(note)}</dd>" for h, note in notes.items() if note]
    out.append("</dl></details>")
    return "\n".join(out)


def _img(name, alt):
    return f'<img src="{html.escape(name)}" alt="{html.escape(alt)}">'


def _benchmarks(runs):
    """The benchmarks any run holds: the registry's order, then unknown ones."""
    held = {b for r in runs for b in r.entry.get("tests", {})}
    return [b for b in BENCHMARKS if b in held] + sorted(held - set(BENCHMARKS))


def _traces(runs, warn):
    from irqlab.host.decode import decode_bytes
    out = []
    for r in runs:
        path = r.trace_path
        if not path:
            continue
        try:
            with open(path, "rb") as f:
                records, _ = decode_bytes(f.read())
        except OSError:
            warn(f"{r.name}: trace '{path}' not found, left out of the timeline")
            continue
        out.append((r.name, records))
    return out


def write(runs, out_dir, warn=lambda msg: None):
    """Write the page and its figures into out_dir; returns the page's path."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ResultsError(f"output '{out_dir}' exists and is not a folder")
    os.makedirs(out_dir, exist_ok=True)
    body = ["<h1>irqlab benchmark report</h1>", '<p class="note">Results: ' + "; ".join(
        html.escape(f"{os.path.basename(p)} ({runs_of_path[0].source}, {runs_of_path[0].results.get('date', '?')})")
        for p, runs_of_path in _by_file(runs).items()) + ".</p>"]

    styles = plots.row_styles([r.name for r in runs])      # one style per row in every figure
    demo_runs = [r for r in runs if r.entry.get("pto")]
    runs = [r for r in runs if not r.entry.get("pto")]
    if runs:
        rows = compare.rows(runs)
        body += ["<h2>Headline</h2>",
                 _table(compare.HEADERS, [[r[h] for h in compare.HEADERS] for r in rows],
                        ["reference" if r["kind"] == compare.REFERENCE else "" for r in rows]),
                 f'<p class="note">{html.escape(compare.FOOTNOTE)}</p><ul class="note">'
                 + "".join(f"<li>{html.escape(p)}</li>" for p in compare.papers()) + "</ul>"]

    for bench in _benchmarks(runs):
        held = [r for r in runs if r.test(bench)]
        b = BENCHMARKS.get(bench)
        headers = COLUMNS["throughput" if b and b.kind == "throughput" else "latency"]
        loops = report.several_per_entry({r.name: r.entry for r in held}, (bench,))
        body += [f"<h2>{html.escape(bench)}</h2>",
                 f'<p class="note">{html.escape(b.description) if b else ""}</p>',
                 _table(headers, [_cells(r, bench, headers) for r in held])]
        if loops:
            body.append(f'<p class="note">{html.escape(report.several_per_entry_note(loops))} '
                        "Their latency is left out of the figures below too.</p>")
        # A service loop's A-B pairs are no interrupt's latency: not drawn.
        drawn = [r for r in held if not serves_several_per_entry(r.test(bench))]
        for kind, fn in (("violin", plots.violin), ("cdf", plots.cdf)):
            name = f"report-{bench}-{kind}.png"
            if fn(drawn, bench, os.path.join(out_dir, name), styles):
                body.append(_img(name, f"{bench} latency {kind}"))

    if plots.throughput(runs, os.path.join(out_dir, "report-throughput.png"), styles=styles):
        body += ["<h2>Throughput</h2>", _img("report-throughput.png", "throughput per core")]
    traces = _traces(runs, warn)
    if plots.timeline(traces, os.path.join(out_dir, "report-timeline.png"), TIMELINE_INTERRUPTS, styles=styles):
        body += ["<h2>Timeline</h2>",
                 f'<p class="note">The first {TIMELINE_INTERRUPTS} interrupts of the latency test per core, '
                 "from the raw traces (cycles after A).</p>", _img("report-timeline.png", "timeline")]

    body += _modbus(out_dir, warn)
    if demo_runs:
        body += ["<h2>PTO demo</h2>",
                 '<p class="note">The pulse-train output (seed 002 Sec. 5.4): per row the highest '
                 "frequency sustained with no late edge, and the period jitter against frequency with the "
                 "background task running, from the trace of the pin.</p>",
                 _table(pto.HEADERS, pto.table_rows({"cores": {r.name: r.entry for r in demo_runs}})),
                 f'<p class="note">{html.escape(pto.LEGEND)}</p>']
        if plots.pto_jitter(demo_runs, os.path.join(out_dir, "report-pto-jitter.png"), styles):
            body.append(_img("report-pto-jitter.png", "PTO jitter against frequency"))

    page = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            "<title>irqlab benchmark report</title>", f"<style>{STYLE}</style></head><body>"] \
        + body + ["</body></html>", ""]
    path = os.path.join(out_dir, PAGE)
    with atomic_open(path) as f:
        f.write("\n".join(page))
    return path


def _modbus(out_dir, warn):
    """The Modbus-RTU demo's section, when its results are in the same
    folder (`irqlab demo modbus --out`, trace/modbus.py)."""
    import json
    from irqlab.host import modbus
    path = os.path.join(out_dir, modbus.RESULTS_FILE)
    if not os.path.exists(path):
        return []
    try:
        with open(path) as f:
            results = json.load(f)
        rows = modbus.table_rows(results)
    except (OSError, ValueError, KeyError, TypeError) as e:
        warn(f"'{path}' left out of the report: {e}")
        return []
    out = ["<h2>Modbus-RTU demo</h2>",
           '<p class="note">pymodbus as the master through the simulator\'s serial bridge; background '
           "rate from the trace unit's marks, against the same row without traffic (irqlab demo modbus).</p>",
           _table(modbus.TABLE_HEADERS, rows),
           '<p class="note">Sustained without loss: ' + html.escape(", ".join(
               f"{row}: {baud or 'none'}" for row, baud in modbus.sustained(results).items())) + "</p>"]
    if os.path.exists(os.path.join(out_dir, modbus.PLOT_FILE)):
        out.append(_img(modbus.PLOT_FILE, "background rate against baud rate"))
    return out


def _by_file(runs):
    out = {}
    for r in runs:
        out.setdefault(r.path, []).append(r)
    return out
