"""`irqlab report` and `irqlab compare` on a synthetic results file (the one of
tests/test_report.py) with a synthetic raw trace beside it: the page exists,
shows its images, the images are valid PNG, the headline table marks the
published references. Every figure draws each row in a style of its own, the
same in every figure; a row whose entry serves several requests shows n/a for
its latency and says why; every column header carries its explanation."""

import json
import re
import struct
import zlib
from html.parser import HTMLParser

import pytest

from irqlab.host import compare, htmlreport, report, results as resultsfile
from irqlab.host.references import PAPERS, REFERENCES

from test_report import results
from clitool import irqlab
from tracegen import handler_trace



def results_file(tmp_path, with_trace=True):
    r = results()
    for core in r["cores"].values():
        core["trace_file"] = "trace-ours.bin"
    if with_trace:
        (tmp_path / "trace-ours.bin").write_bytes(handler_trace([40, 42, 47, 42]))
    p = tmp_path / "bench.json"
    p.write_text(json.dumps(r))
    return p


def valid_png(data):
    """The PNG signature, then chunks whose CRCs hold, IHDR first and IEND last."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, kinds = 8, []
    while i < len(data):
        length, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + length]
        (crc,) = struct.unpack(">I", data[i + 8 + length:i + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        kinds.append(kind)
        i += 12 + length
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND"
    width, height = struct.unpack(">II", data[16:24])
    return width > 100 and height > 100


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.rows, self.reference_rows = [], 0, [], 0
        self.headers = []        # (header text, its title) of every <th>
        self.legend = []         # the <dt> texts of the legends under the tables
        self._row = None
        self._dt = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "th":
            self.headers.append(["", a.get("title")])
        elif tag == "dt":
            self._dt = ""
        if tag == "img":
            self.images.append(a["src"])
        elif tag == "table":
            self.tables += 1
        elif tag == "tr":
            self._row = []
            self.reference_rows += a.get("class") == "reference"
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")

    def handle_data(self, data):
        if self._row:
            self._row[-1] += data
            if self.headers and self.headers[-1][0] is not None and self.lasttag == "th":
                self.headers[-1][0] += data
        if self._dt is not None:
            self._dt += data

    def handle_endtag(self, tag):
        if tag == "dt":
            self.legend.append(self._dt)
            self._dt = None
        if tag == "tr":
            self.rows.append(self._row)
            self._row = None


def test_report_page_images_and_tables(tmp_path):
    p = results_file(tmp_path)
    out = tmp_path / "html"
    r = irqlab("report", str(p), "-o", str(out))
    assert r.returncode == 0, r.stderr
    page_path = out / "report.html"
    assert r.stdout.strip() == str(page_path)
    page = Page()
    page.feed(page_path.read_text())
    assert page.images, "the page shows no image"
    for src in page.images:
        assert valid_png((out / src).read_bytes()), src
    names = set(page.images)
    for bench in ("latency",):          # the benchmarks with a histogram in the results
        assert {f"report-{bench}-violin.png", f"report-{bench}-cdf.png"} <= names
    assert {"report-throughput.png", "report-timeline.png"} <= names
    # The headline, then one table per benchmark in the results, one row per core that ran it.
    assert page.tables == 1 + 3
    assert page.reference_rows == len(REFERENCES)
    latency_rows = [row for row in page.rows if row and row[0] in ("ours", "peer")
                    and len(row) == len(htmlreport.COLUMNS["latency"])]
    assert latency_rows[0] == ["ours", "TCM", "100", "40", "42", "47", "47", "7", "420", "38/40/45/45",
                               "-", "equal"]
    assert latency_rows[1] == ["peer", "-", "100", "100", "108", "362", "362", "262", "1080", "n/a",
                               "sw-event", "DIFFER"]
    # The throughput table: handler runs and what an entry serves, then the test's latency.
    (tp,) = [row for row in page.rows if row and len(row) == len(htmlreport.COLUMNS["throughput"])
             and row[0] == "ours"]
    assert tp == ["ours", "TCM", "-", "51.2", "1951", "3/4", "-", "100", "30", "31", "33", "33", "3", "310",
                  "-", "-", "equal"]
    assert sorted(p.name for p in out.iterdir() if not p.name.endswith(".png")) == ["report.html"]


def test_report_without_its_trace_warns_and_leaves_out_the_timeline(tmp_path):
    p = results_file(tmp_path, with_trace=False)
    r = irqlab("report", str(p), "-o", str(tmp_path / "html"))
    assert r.returncode == 0, r.stderr
    assert "not found, left out of the timeline" in r.stderr
    assert not (tmp_path / "html" / "report-timeline.png").exists()


def test_compare_marks_the_references(tmp_path):
    p = results_file(tmp_path)
    r = irqlab("compare", str(p))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    ours = next(ln for ln in lines if ln.startswith("ours "))
    # memory, latency median/max, B-exec median/max, back to back (cycles per interrupt, and
    # ret->B median/max: the throughput test's handoffs), nested median/max, B-Lmax and B-Tmax
    # placeholders; a stock core's B-exec is 'n/a' (it has no such point)
    assert ours.split()[:10] == ["ours", "measured", "TCM", "42/47", "40/45", "51.2", "3/4", "46/50", "-", "-"]
    peer = next(ln for ln in lines if ln.startswith("peer "))
    assert peer.split()[:10] == ["peer", "measured", "?", "108/362", "n/a", "-", "-", "-", "-", "-"]
    for ref in REFERENCES:
        row = next(ln for ln in lines if ln.startswith(ref.name + " "))
        assert "REFERENCE" in row and ref.paper in row
    cv32rt = next(ln for ln in lines if ln.startswith("CV32RT fastirq"))
    assert re.search(r"REFERENCE\s+1-cycle\s+6\s+-\s+-\s+8\s", cv32rt)      # 8: emret to the next handler
    m4 = next(ln for ln in lines if ln.startswith("Arm Cortex-M4"))
    assert re.search(r"REFERENCE\s+1-cycle\s+12\s+-\s+-\s+6\s", m4)
    assert re.search(r"CV32E40P, regular ABI\s+REFERENCE\s+1-cycle\s+-/33", r.stdout)
    for title in PAPERS.values():
        assert title in r.stdout
    assert "not measured here" in r.stdout


def test_references_are_data_in_one_place():
    rows = compare.rows([])
    assert [row["core"] for row in rows] == [ref.name for ref in REFERENCES]
    assert all(row["kind"] == compare.REFERENCE for row in rows)


def test_two_results_files_with_the_same_core(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    runs = resultsfile.load([str(results_file(a)), str(results_file(b))])
    assert [r.name for r in runs] == ["ours (a)", "peer (a)", "ours (b)", "peer (b)"]


def test_bad_results_files(tmp_path):
    def one_line(r, word):
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith("irqlab: error:") and word in r.stderr
    one_line(irqlab("compare", str(tmp_path / "nope.json")), "cannot read")
    (tmp_path / "bad.json").write_text("{not json")
    one_line(irqlab("report", str(tmp_path / "bad.json"), "-o", str(tmp_path / "out")), "not JSON")
    (tmp_path / "other.json").write_text('{"traceEvents": []}')
    one_line(irqlab("compare", str(tmp_path / "other.json")), "not an irqlab results file")
    assert not (tmp_path / "out").exists()


def test_bench_writes_the_html_report_beside_its_outputs(tmp_path):
    from irqlab.suites.latency import write_outputs
    r = results()
    r["cores"]["ours"]["trace_file"] = "trace-ours.bin"
    (tmp_path / "trace-ours.bin").write_bytes(handler_trace([40, 42]))
    write_outputs(r, str(tmp_path))
    files = {p.name for p in tmp_path.iterdir()}
    assert {"bench.json", "report.md", "latency.png", "report.html", "report-timeline.png"} <= files


# ---- every figure: one style per row, the same for a row in every figure ----

def lab(colour):
    """CIELAB (D65) of a matplotlib colour."""
    from matplotlib import colors
    rgb = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colors.to_rgb(colour)]
    x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047
    y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def close_pairs(palette, min_delta_e=25):
    """The pairs of colours nearer than min_delta_e (CIE76) to each other."""
    import itertools
    import math
    return [(a, b) for a, b in itertools.combinations(palette, 2) if math.dist(lab(a), lab(b)) < min_delta_e]


def test_the_palette_has_sixteen_colours_that_stand_apart():
    from irqlab.host import plots
    assert len(set(plots.PALETTE)) == len(plots.PALETTE) >= 16
    assert close_pairs(plots.PALETTE) == []
    # Negative control: matplotlib's tab20 pairs each colour with a lighter one.
    from matplotlib import colormaps
    assert len(close_pairs(colormaps["tab20"].colors)) >= 5


ROW_NAMES = ["vexriscv", "cv32e40p", "clint", "clic", "clic-nv", "clic-rv32e", "fastirq", "fastirq-nv",
             "fastirq-dport", "fastirq-rv32e", "clic-bus", "clic-cache"]
# More than the palette holds: registry rows, foreign ones, a core of two files.
MANY = ROW_NAMES + ["ours", "peer", "clic (a)", "clic (b)"] + [f"next-{k}" for k in range(10)]


def many_runs(names=MANY):
    from irqlab.host.results import Run
    from test_report import latency
    out = []
    for k, name in enumerate(names):
        entry = {"memory": "TCM", "tests": {
            "latency": {"latency": latency(20 + k, 22 + k, 30 + k), "histogram": {str(20 + k): 5, str(22 + k): 90}},
            "throughput": {"latency": latency(30, 31, 33), "cycles_per_irq": {"count": 8, "median": 40.0 + k},
                           "throughput_hz": {"count": 8, "median": 2e6 / (1 + k)}}},
            "pto": {"max_khz": 100.0 + k, "points": [{"khz": 10, "jitter": 0.001 * (k + 1)},
                                                     {"khz": 100, "jitter": 0.01 * (k + 1)}]}}
        out.append(Run(name, name, entry, {"cores": {}}, "bench.json"))
    return out


def _hex(c):
    from matplotlib import colors
    return colors.to_hex(c, keep_alpha=False)


def _patch_style(p):
    return (_hex(p.get_facecolor()), p.get_hatch() or None)


def figure_styles(kind, fig):
    """row -> the styles its marks have in a figure drawn by `kind`."""
    import re as _re
    out = {}

    def add(name, style):
        out.setdefault(name, set()).add(style)
    axes = fig.axes
    if kind in ("cdf", "pto_jitter"):
        for line in axes[0].get_lines():
            label = line.get_label()
            if not label.startswith("_"):
                add(_re.sub(r" \(max .*\)$", "", label), (_hex(line.get_color()), line.get_linestyle()))
    elif kind == "violin":
        for ax in axes:
            for coll in ax.collections:
                add(ax.get_title(), (_hex(coll.get_facecolor()[0]), coll.get_hatch() or None))
    elif kind == "throughput":
        for ax in axes:
            for tick, bar in zip(ax.get_xticklabels(), ax.patches):
                add(tick.get_text(), _patch_style(bar))
    elif kind == "timeline":
        ax = axes[0]
        bars = [p for p in ax.patches]
        for tick, bar in zip(ax.get_yticklabels(), bars):
            add(tick.get_text().rsplit(" #", 1)[0], _patch_style(bar))
    elif kind == "plot_latency":
        ax1, ax2 = axes
        handles, labels = ax1.get_legend_handles_labels()
        for h, label in zip(handles, labels):
            add(label.split(" (median")[0], _patch_style(h.patches[0]))
        for tick, bar in zip(ax2.get_xticklabels(), ax2.patches):
            add(tick.get_text(), _patch_style(bar))
    elif kind == "rtos_timeline":
        ax = axes[0]
        for tick, coll in zip(ax.get_yticklabels(), ax.collections):
            add(tick.get_text(), (_hex(coll.get_facecolor()[0]),))
    return out


def style_faults(per_row):
    """What is wrong with a figure's row styles: a row drawn in two styles,
    two rows drawn in one."""
    faults = [f"{row} drawn in {len(s)} styles" for row, s in per_row.items() if len(s) != 1]
    owner = {}
    for row, s in per_row.items():
        for st in s:
            if st in owner:
                faults.append(f"{owner[st]} and {row} share {st}")
            owner[st] = row
    return faults


def draw_all(tmp_path, monkeypatch, names=MANY):
    """Every figure function on `names`; returns {kind: figure}."""
    from irqlab.host import plots, report, rtos
    from irqlab.host.decode import decode_bytes
    from test_rtos_timeline import RtosTrace
    figs = {}
    # Keep each figure instead of writing it (plots._save), or as it is written (report.plot_latency).
    monkeypatch.setattr(plots, "_save", lambda fig, path: figs.setdefault(current[0], fig) is fig)
    import matplotlib.figure
    real_savefig = matplotlib.figure.Figure.savefig

    def grab(fig, *a, **k):
        figs.setdefault(current[0], fig)
        return real_savefig(fig, *a, **k)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", grab)
    runs = many_runs(names)
    styles = plots.row_styles(names)
    current = ["violin"]
    assert plots.violin(runs, "latency", str(tmp_path / "v.png"), styles)
    current[0] = "cdf"
    assert plots.cdf(runs, "latency", str(tmp_path / "c.png"), styles)
    current[0] = "throughput"
    assert plots.throughput(runs, str(tmp_path / "t.png"), styles=styles)
    current[0] = "pto_jitter"
    assert plots.pto_jitter(runs, str(tmp_path / "p.png"), styles)
    current[0] = "timeline"
    traces = [(n, decode_bytes(handler_trace([40 + k, 42]))[0]) for k, n in enumerate(names)]
    assert plots.timeline(traces, str(tmp_path / "tl.png"), 2, styles=styles)
    current[0] = "plot_latency"
    assert report.plot_latency({"cores": {r.name: r.entry for r in runs}}, str(tmp_path / "l.png"))
    current[0] = "rtos_timeline"
    tb = RtosTrace().time_hi(0)
    tcbs = [0x30000000 + 0x100 * k for k in range(len(plots.PALETTE))]
    for k, tcb in enumerate(tcbs):
        tb.create(10 + 10 * k, tcb, f"task{k}")
    t = 1000
    tb.ev(t, "TASK_IN", tcbs[0])
    for a, b in zip(tcbs, tcbs[1:]):
        t += 100
        tb.switch(t, a, b)
    assert plots.rtos_timeline(rtos.timeline(tb.records()), str(tmp_path / "r.png"), 900, t + 200)
    return figs


def test_every_figure_gives_every_row_its_own_style(tmp_path, monkeypatch):
    from irqlab.host import plots
    figs = draw_all(tmp_path, monkeypatch)
    assert set(figs) == {"violin", "cdf", "throughput", "pto_jitter", "timeline", "plot_latency", "rtos_timeline"}
    colour_of = {}
    for kind, fig in figs.items():
        per_row = figure_styles(kind, fig)
        if kind == "rtos_timeline":
            assert len(per_row) == len(plots.PALETTE)                # tasks, not rows
        else:
            assert set(per_row) == set(MANY), kind
        assert style_faults(per_row) == [], kind
        if kind != "rtos_timeline":
            for row, styles in per_row.items():       # one colour per row across the figures
                colour_of.setdefault(row, set()).update(st[0] for st in styles)
    assert all(len(c) == 1 for c in colour_of.values()), colour_of
    # The registry's rows keep their colours whichever rows a report shows.
    assert plots.row_styles(["clic-nv"])["clic-nv"] == plots.row_styles(MANY)["clic-nv"]


def test_the_style_check_catches_rows_that_share_a_colour(tmp_path, monkeypatch):
    """Negative control: matplotlib's ten-colour cycle, as the figures were
    coloured before, gives the 11th row the 1st one's colour."""
    from irqlab.host import plots

    def cycle_of_ten(names):
        return {n: plots.Style(f"C{k % 10}", "-") for k, n in enumerate(dict.fromkeys(names))}
    monkeypatch.setattr(plots, "row_styles", cycle_of_ten)
    figs = draw_all(tmp_path, monkeypatch, ROW_NAMES)
    for kind in ("violin", "cdf", "throughput", "pto_jitter", "timeline", "plot_latency"):
        faults = style_faults(figure_styles(kind, figs[kind]))
        assert any("vexriscv and clic-bus share" in f for f in faults), (kind, faults)
    assert any("task0 and task10 share" in f for f in style_faults(figure_styles("rtos_timeline",
                                                                               figs["rtos_timeline"])))


# ---- a row whose entry serves several requests (a service loop) ----

def service_loop_entry(merged=5511):
    """A throughput test as a non-vectored CLIC row records it: one B (the
    entry's PC match) per stimulation phase, every further request served by
    the loop without a B of its own (merged edges)."""
    from test_report import latency
    return {"memory": "TCM", "b_marker_short": "pc-match", "tests": {"throughput": {
        "b_marker": "pc-match", "latency": latency(29, 23982, 23982, n=8), "merged_edges": merged,
        "phases": [{"cycles": 20000, "handled": 689}] * 8, "histogram": {"29": 1, "23982": 7},
        "cycles_per_irq": {"count": 8, "median": 29.03}, "throughput_hz": {"count": 8, "median": 3445000.0},
        "onchip_agrees": True}}}


def loop_report(tmp_path, monkeypatch, merged):
    """The page of results with the loop row; returns (page text, parsed
    page, the rows each latency figure drew per benchmark)."""
    from irqlab.host import plots
    r = results()
    r["cores"]["ours"]["tests"]["throughput"].update(merged_edges=0, histogram={"30": 3, "31": 5})
    r["cores"]["loop"] = service_loop_entry(merged)
    p = tmp_path / "bench.json"
    p.write_text(json.dumps(r))
    drawn = {}
    for kind in ("violin", "cdf"):
        def spy(runs, bench, path, styles=None, kind=kind, real=getattr(plots, kind)):
            drawn.setdefault(bench, {})[kind] = [run.name for run in runs]
            return real(runs, bench, path, styles)
        monkeypatch.setattr(plots, kind, spy)
    page_path = htmlreport.write(resultsfile.load([str(p)]), str(tmp_path / "html"))
    text = open(page_path).read()
    page = Page()
    page.feed(text)
    return text, page, drawn


def test_a_service_loops_latency_is_na_with_the_reason(tmp_path, monkeypatch):
    text, page, drawn = loop_report(tmp_path, monkeypatch, merged=5511)
    (row,) = [row for row in page.rows if row and row[0] == "loop"
              and len(row) == len(htmlreport.COLUMNS["throughput"])]
    cols = dict(zip(htmlreport.COLUMNS["throughput"], row))
    assert (cols["handled"], cols["serves/entry"], cols["b2b cyc"], cols["kIRQ/s"]) == ("5512", "690", "29.0", "3445")
    assert [cols[h] for h in ("irqs", "min", "median", "p99", "max", "jitter", "median ns")] == ["n/a"] * 7
    assert "23982" not in text and "239820" not in text
    assert "(loop: 690 per entry in throughput)" in text and "is shown as n/a" in text
    # Left out of the throughput test's latency figures; the other row is drawn.
    assert drawn["throughput"] == {"violin": ["ours"], "cdf": ["ours"]}


def test_a_row_with_an_entry_per_request_keeps_its_latency(tmp_path, monkeypatch):
    """Negative control: the same figures with no merged edges (an entry per
    request) are a latency, shown and drawn, and no note is written."""
    text, page, drawn = loop_report(tmp_path, monkeypatch, merged=0)
    (row,) = [row for row in page.rows if row and row[0] == "loop"
              and len(row) == len(htmlreport.COLUMNS["throughput"])]
    cols = dict(zip(htmlreport.COLUMNS["throughput"], row))
    assert (cols["serves/entry"], cols["median"]) == ("1.0", "23982")
    assert "is shown as n/a" not in text
    assert drawn["throughput"]["violin"] == ["ours", "loop"]


# ---- every column explained in place, from one dictionary ----

def every_table_header():
    from irqlab.host import modbus, pto
    matrix = ["row"] + [report.MATRIX_HEADS.get(n, n.split("-")[0].upper()) for n in report.MATRIX_ORDER]
    return ([c.header for c, _ in report.COLUMNS] + [h for hs in htmlreport.COLUMNS.values() for h in hs]
            + compare.HEADERS + pto.HEADERS + modbus.TABLE_HEADERS + matrix)


def test_every_column_of_every_table_has_its_explanation():
    missing = [h for h in every_table_header() if not report.COLUMN_NOTES.get(h, "").strip()]
    assert missing == []
    # The text table's legend is made from the same dictionary.
    for c, _ in report.COLUMNS:
        assert " ".join(report.column_note(c.header).split()) in " ".join(report.LEGEND.split())


def unexplained(page):
    """The header cells of a parsed page whose tooltip is not their column's
    explanation, and the headers its legends leave out."""
    out = [text for text, title in page.headers
           if not title or title != report.COLUMN_NOTES.get(text)]
    return out + [f"{text} (legend)" for text, _ in page.headers if text not in page.legend]


def test_the_page_explains_each_header_in_place(tmp_path):
    p = results_file(tmp_path)
    page_path = htmlreport.write(resultsfile.load([str(p)]), str(tmp_path / "html"))
    page = Page()
    page.feed(open(page_path).read())
    assert len(page.headers) > 30
    assert unexplained(page) == []


def test_a_column_without_an_explanation_is_found():
    """Negative control: a header the dictionary lacks is written bare, and
    the check names it; the text legend marks it '?'."""
    page = Page()
    page.feed(htmlreport._table(["median", "no such column"], [["1", "2"]]))
    assert unexplained(page) == ["no such column", "no such column (legend)"]
    assert report.legend(["no such column"], preamble=False) == "no such column  ?"


def test_the_markdown_report_explains_its_columns_from_the_same_dictionary():
    from test_report import results as bench_results
    r = bench_results()
    md = report.markdown(r)
    flat = " ".join(md.split())
    for c, _ in report.columns_of(r):
        assert " ".join(report.column_note(c.header).split()) in flat, c.header
    assert "T4 med/max" not in md          # the matrix's columns only in a run that has them
