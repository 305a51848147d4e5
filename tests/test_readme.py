"""README.md and docs/: the README's figures are those of docs/results/
(irqlab/readme.py renders them), the README stays a front page, and the
docs index reaches every page."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from irqlab import readme

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
README_MAX_LINES = 250


def _text(path):
    with open(path) as f:
        return f.read()


def test_readme_matches_results():
    assert readme.stale(_text(readme.README)) == [], "README.md is out of date with docs/results: make readme"


def test_every_block_is_in_readme():
    assert set(readme.blocks_in(_text(readme.README))) == set(readme.BLOCKS)


def test_render_is_idempotent():
    text = _text(readme.README)
    assert readme.render(text) == text


def test_check_command(tmp_path):
    """`python -m irqlab.readme --check` passes on the README, and fails
    (exit 1) on a copy with one figure changed."""
    ok = subprocess.run([sys.executable, "-m", "irqlab.readme", "--check"], cwd=ROOT,
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    text = _text(readme.README)
    bad = tmp_path / "README.md"
    bad.write_text(_tamper_block(text, "latency-table"))
    r = subprocess.run([sys.executable, "-m", "irqlab.readme", "--check", "--readme", str(bad)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "latency-table" in r.stderr


def _tamper_block(text, name):
    """`text` with the first figure of the first measured row in block
    `name` changed (a digit raised by one)."""
    block = readme.blocks_in(text)[name]
    lines = block.split("\n")
    k = next(i for i, line in enumerate(lines) if re.search(r"(measured|pc-match|sw-event)", line))
    m = re.search(r"(?<=\s)(\d)", lines[k])
    lines[k] = lines[k][:m.start()] + str((int(m.group(1)) + 1) % 10) + lines[k][m.end():]
    return text.replace(block, "\n".join(lines))


@pytest.mark.parametrize("name", sorted(readme.BLOCKS))
def test_tampered_figure_in_readme_fails(name):
    tampered = _tamper_block(_text(readme.README), name)
    assert tampered != _text(readme.README)
    assert readme.stale(tampered) == [name]
    # and `make readme` puts it back
    assert readme.render(tampered) == _text(readme.README)


def _results_copy(tmp_path):
    out = tmp_path / "results"
    out.mkdir()
    for name in ("bench.json", "ctxsw.json"):
        shutil.copy(os.path.join(readme.RESULTS, name), out / name)
    return out


def test_results_copy_agrees(tmp_path):
    assert readme.stale(_text(readme.README), str(_results_copy(tmp_path))) == []


def test_tampered_latency_result_fails(tmp_path):
    out = _results_copy(tmp_path)
    results = json.loads((out / "bench.json").read_text())
    row = next(iter(results["cores"].values()))
    row["tests"]["latency"]["latency"]["max"] += 1
    (out / "bench.json").write_text(json.dumps(results))
    assert readme.stale(_text(readme.README), str(out)) == ["latency-table"]


def test_tampered_ctxsw_result_fails(tmp_path):
    out = _results_copy(tmp_path)
    results = json.loads((out / "ctxsw.json").read_text())
    row = next(iter(results["cores"].values()))
    row["cases"]["yield"]["mean"] += 1.0
    (out / "ctxsw.json").write_text(json.dumps(results))
    assert readme.stale(_text(readme.README), str(out)) == ["ctxsw-table"]


def test_readme_is_a_front_page():
    n = len(_text(readme.README).splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines, at most {README_MAX_LINES}"


def _doc_pages():
    return sorted(os.path.relpath(os.path.join(d, f), DOCS)
                  for d, dirs, files in os.walk(DOCS) if not os.path.relpath(d, DOCS).startswith("results")
                  for f in files if f.endswith(".md") and os.path.join(d, f) != os.path.join(DOCS, "README.md"))


def test_docs_index_links_every_page():
    index = _text(os.path.join(DOCS, "README.md"))
    links = set(re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", index))
    missing = [p for p in _doc_pages() if p not in links]
    assert not missing, f"docs/README.md does not link {missing}"


def test_links_resolve():
    """Every relative .md or image link of README.md and docs/*.md names a
    file that exists."""
    pages = [readme.README, os.path.join(DOCS, "README.md")] + [os.path.join(DOCS, p) for p in _doc_pages()]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", _text(page)):
            if not os.path.exists(os.path.join(os.path.dirname(page), target)):
                broken.append(f"{os.path.relpath(page, ROOT)} -> {target}")
    assert not broken, broken


# How the work was organised is history (CHANGELOG.md), not documentation. The
# words are put together so that this file does not match itself.
_STOP, _ISSUE, _BRANCH = "st" + "op", "iss" + "ue", "bra" + "nch"
HISTORY = re.compile(rf"{_ISSUE} #?[0-9]|{_STOP} [0-9]+|this {_STOP}|last {_STOP}|side {_BRANCH}", re.I)


def history_lines(paths):
    """'path:line: text' of every line of `paths` (relative to the root) that
    speaks of how the work was organised."""
    hits = []
    for rel in paths:
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue                                   # binary traces, images
        hits += [f"{rel}:{i}: {line.strip()}" for i, line in enumerate(lines, 1) if HISTORY.search(line)]
    return hits


def test_the_project_speaks_of_itself():
    """Code, tests, CLI help, docs and results speak of the project, not of
    how it came to be: every tracked file but CHANGELOG.md."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    hits = history_lines([p for p in tracked.splitlines() if p != "CHANGELOG.md"])
    assert not hits, "\n".join(hits)


def test_the_history_check_finds_history(tmp_path):
    """Negative control: lines that speak of the work are found, and the same
    words in their ordinary sense are not."""
    page = tmp_path / "page.md"
    page.write_text(f"Recorded again at this {_STOP}.\nFixed in {_ISSUE} #12.\nThe UART's {_STOP} bit.\n")
    hits = history_lines([str(page)])
    assert [h.split(":")[1] for h in hits] == ["1", "2"], hits
