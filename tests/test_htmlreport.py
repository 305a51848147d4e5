"""`irqlab report` and `irqlab compare` on a synthetic results file (the one of
tests/test_report.py) with a synthetic raw trace beside it: the page exists,
shows its images, the images are valid PNG, the headline table marks the
published references."""

import json
import re
import struct
import zlib
from html.parser import HTMLParser

from irqlab.host import compare, results as resultsfile
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
        self._row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
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

    def handle_endtag(self, tag):
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
    latency_rows = [row for row in page.rows if row and row[0] in ("ours", "peer") and len(row) == 14]
    assert latency_rows[0] == ["ours", "TCM", "100", "40", "42", "47", "47", "7", "420", "38/40/45/45",
                               "-", "-", "-", "equal"]
    assert latency_rows[1] == ["peer", "-", "100", "100", "108", "362", "362", "262", "1080", "n/a",
                               "-", "-", "sw-event", "DIFFER"]
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
