"""The HTML report in a real browser (headless Chromium): the page renders its
tables, every image loads (naturalWidth > 0), every column header explains
itself, and nothing is reported on the console. A copy of the page gets a
small check script as the first thing in its <head>: it records console
errors, uncaught exceptions and failed loads, and after the load event writes
what it found into the DOM, which `--dump-dom` prints. Chromium's own console
log (--enable-logging=stderr) is read too: the report has no scripts, so any
console line is a fault. Negative controls: a copy with a broken image path
and one with a script error must fail the check.

Chromium is the Debian package `chromium` (scripts/setup.sh installs it with
the packages the tests need); without it the tests skip, except under CI,
where they fail."""

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from irqlab.host import htmlreport, results as resultsfile

from test_htmlreport import results_file

CHECK_ID = "irqlab-browser-check"
CHECK = """<script>
(function () {
  var errors = [];
  var error = console.error;
  console.error = function () {
    errors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return error.apply(console, arguments);
  };
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href))
      errors.push("failed to load " + t.tagName.toLowerCase() + " " + (t.getAttribute("src") || t.getAttribute("href")));
    else
      errors.push("uncaught: " + e.message);
  }, true);
  window.addEventListener("load", function () {
    var out = {images: [], errors: errors, tables: document.querySelectorAll("table").length, untitled: []};
    Array.prototype.forEach.call(document.images, function (img) {
      out.images.push({src: img.getAttribute("src"), complete: img.complete, width: img.naturalWidth});
    });
    Array.prototype.forEach.call(document.querySelectorAll("th"), function (th) {
      if (!(th.getAttribute("title") || "").trim()) out.untitled.push(th.textContent);
    });
    var pre = document.createElement("pre");
    pre.id = "%s";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  });
})();
</script>""" % CHECK_ID


def chromium():
    """The browser's command, or a skip (a failure under CI) naming what to install."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    msg = ("headless Chromium not found: install the Debian package 'chromium' "
           "(apt-get install -y chromium; scripts/setup.sh installs it for the tests)")
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables = 0
        self.check = None
        self._in_check = False

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"
        self._in_check = tag == "pre" and dict(attrs).get("id") == CHECK_ID

    def handle_data(self, data):
        if self._in_check:
            self.check = (self.check or "") + data

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_check = False


def browse(page, tmp_path):
    """Load a copy of `page` (beside it, so its images resolve) with the check
    script in headless Chromium; returns (findings: dict, tables in the
    dumped DOM, console lines from Chromium's log)."""
    text = open(page, encoding="utf-8").read()
    head = text.index("<head>") + len("<head>")
    probe = os.path.join(os.path.dirname(page), "browser-check.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text[:head] + CHECK + text[head:])
    cmd = [chromium(), "--headless", "--disable-gpu", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=10000", "--dump-dom", "file://" + os.path.abspath(probe)]
    if os.geteuid() == 0:
        cmd.insert(2, "--no-sandbox")     # Chromium refuses root without it
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"chromium failed ({r.returncode}): {r.stderr[-2000:]}"
    dom = Tables()
    dom.feed(r.stdout)
    assert dom.check is not None, "the check script did not run (no load event before the DOM was dumped)"
    console = [ln for ln in r.stderr.splitlines() if re.search(r":CONSOLE[:(]", ln)]
    return json.loads(dom.check), dom.tables, console


def faults(found, console):
    """What a reader would meet as broken: each image that did not load, each
    error, each console line."""
    out = [f"image {i['src']} did not load" for i in found["images"] if not (i["complete"] and i["width"] > 0)]
    out += found["errors"]
    out += [f"console: {ln}" for ln in console]
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A report of a small results file with its trace (tables, every figure)."""
    d = tmp_path_factory.mktemp("report")
    runs = resultsfile.load([str(results_file(d))])
    return htmlreport.write(runs, str(d / "html"))


def test_the_report_renders_in_a_browser(page, tmp_path):
    found, tables, console = browse(page, tmp_path)
    assert faults(found, console) == []
    with open(page, encoding="utf-8") as f:
        written = Tables()
        written.feed(f.read())
    assert tables == found["tables"] == written.tables >= 2
    assert len(found["images"]) >= 4 and all(i["width"] > 100 for i in found["images"])
    assert found["untitled"] == [], "column headers without an explanation"


def test_a_broken_image_fails_the_check(page, tmp_path):
    broken = os.path.join(os.path.dirname(page), "broken.html")
    text = open(page, encoding="utf-8").read()
    first = re.search(r'<img src="([^"]+)"', text).group(1)
    with open(broken, "w", encoding="utf-8") as f:
        f.write(text.replace(f'src="{first}"', 'src="no-such-figure.png"', 1))
    found, _, console = browse(broken, tmp_path)
    problems = faults(found, console)
    assert "image no-such-figure.png did not load" in problems
    assert all(i["width"] > 0 for i in found["images"] if i["src"] != "no-such-figure.png")


def test_a_script_error_fails_the_check(page, tmp_path):
    bad = os.path.join(os.path.dirname(page), "script-error.html")
    text = open(page, encoding="utf-8").read()
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", "<script>reportNotDefined();</script></body>"))
    found, _, console = browse(bad, tmp_path)
    problems = faults(found, console)
    assert any("reportNotDefined" in p and p.startswith("uncaught") for p in problems), problems
    assert any("reportNotDefined" in ln for ln in console), console
    assert not [i for i in found["images"] if i["width"] == 0]


def test_a_header_without_its_explanation_fails_the_check(page, tmp_path):
    bare = os.path.join(os.path.dirname(page), "untitled.html")
    text = open(page, encoding="utf-8").read()
    with open(bare, "w", encoding="utf-8") as f:
        f.write(re.sub(r'<th title="[^"]*">', "<th>", text, count=1))
    found, _, _ = browse(bare, tmp_path)
    assert len(found["untitled"]) == 1
