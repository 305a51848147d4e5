"""`irqlab report`: a static HTML page (report.html) with the PNG figures it
shows beside it (report-*.png): the headline table with the published
references, a table per benchmark (one row per core), the latency
distributions, throughput, and a timeline of the first interrupts from the
raw traces the results name. Every file is written whole; the page last."""

import html
import os

from irqlab.errors import ResultsError
from irqlab.host import compare, plots
from irqlab.host.atomic import atomic_open
from irqlab.host.benchmarks import BENCHMARKS, b_execute

PAGE = "report.html"
TIMELINE_INTERRUPTS = 3
COLUMNS = ["core", "memory", "irqs", "min", "median", "p99", "max", "jitter", "median ns",
           "B-exec min/med/p99/max", "b2b cyc", "kIRQ/s", "B marker", "on-chip"]

STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; } td:first-child, th:first-child { text-align: left; }
tr.reference td { font-style: italic; color: #555; background: #f7f7ef; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.note { color: #555; font-size: 0.85em; }
"""


def _cells(run, bench):
    t = run.test(bench)
    s = t.get("latency", {})
    cpi = t.get("cycles_per_irq", {})
    rate = t.get("throughput_hz", {})
    ns = s.get("ns", {})
    agrees = t.get("onchip_agrees")

    def v(x):
        return "-" if x is None else str(x)
    return [run.name, run.entry.get("memory", "-"), v(s.get("count")), v(s.get("min")), v(s.get("median")), v(s.get("p99")), v(s.get("max")),
            v(s.get("jitter")), f"{ns['median']:.0f}" if ns else "-", v(b_execute(t)),
            f"{cpi['median']:.1f}" if cpi.get("count") else "-",
            f"{rate['median'] / 1e3:.0f}" if rate.get("count") else "-",
            t.get("b_marker", "-"), "-" if agrees is None else ("equal" if agrees else "DIFFER")]


def _table(headers, rows, classes=None):
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>"]
    for k, row in enumerate(rows):
        cls = f' class="{classes[k]}"' if classes and classes[k] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    return "\n".join(out + ["</table>"])


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

    rows = compare.rows(runs)
    body += ["<h2>Headline</h2>",
             _table(compare.HEADERS, [[r[h] for h in compare.HEADERS] for r in rows],
                    ["reference" if r["kind"] == compare.REFERENCE else "" for r in rows]),
             f'<p class="note">{html.escape(compare.FOOTNOTE)}</p><ul class="note">'
             + "".join(f"<li>{html.escape(p)}</li>" for p in compare.papers()) + "</ul>"]

    for bench in _benchmarks(runs):
        held = [r for r in runs if r.test(bench)]
        b = BENCHMARKS.get(bench)
        body += [f"<h2>{html.escape(bench)}</h2>",
                 f'<p class="note">{html.escape(b.description) if b else ""}</p>',
                 _table(COLUMNS, [_cells(r, bench) for r in held])]
        for kind, fn in (("violin", plots.violin), ("cdf", plots.cdf)):
            name = f"report-{bench}-{kind}.png"
            if fn(held, bench, os.path.join(out_dir, name)):
                body.append(_img(name, f"{bench} latency {kind}"))

    if plots.throughput(runs, os.path.join(out_dir, "report-throughput.png")):
        body += ["<h2>Throughput</h2>", _img("report-throughput.png", "throughput per core")]
    traces = _traces(runs, warn)
    if plots.timeline(traces, os.path.join(out_dir, "report-timeline.png"), TIMELINE_INTERRUPTS):
        body += ["<h2>Timeline</h2>",
                 f'<p class="note">The first {TIMELINE_INTERRUPTS} interrupts of the latency test per core, '
                 "from the raw traces (cycles after A).</p>", _img("report-timeline.png", "timeline")]

    body += _modbus(out_dir, warn)
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
