"""The README's figures, regenerated from the recorded results.

README.md holds blocks between markers:

    <!-- generated: NAME -->
    ...
    <!-- end generated -->

Each NAME is one entry of BLOCKS: a function of the results folder
(docs/results/) that prints what `make bench` prints for those results,
with the same formatting functions (trace/compare.py for the latency table
with its REFERENCE rows, irqlab/suites/ctxsw.py for the context-switch
table). Nothing between the markers is written by hand.

    python -m irqlab.readme           # rewrite README.md's blocks (make readme)
    python -m irqlab.readme --check   # exit 1 if a block differs from the results
"""

import argparse
import json
import os
import re
import sys

from irqlab import paths

README = os.path.join(paths.ROOT, "README.md")
RESULTS = os.path.join(paths.ROOT, "docs", "results")

BEGIN = "<!-- generated: {} -->"
END = "<!-- end generated -->"
_BLOCK = re.compile(r"<!-- generated: ([a-z0-9-]+) -->\n(.*?)" + re.escape(END), re.S)


def _read(results_dir, name):
    with open(os.path.join(results_dir, name)) as f:
        return json.load(f)


def _source(results, command):
    return (f"Recorded by `{command}`: {results['board']}, {results['clock_hz'] / 1e6:g} MHz, "
            f"git {results['git']}, {results['date'][:10]}.")


def latency_table(results_dir):
    """The headline table beside the published references, as `irqlab bench`
    prints it after the full table (trace/compare.py)."""
    from irqlab.host import compare, results as resultsfile
    path = os.path.join(results_dir, "bench.json")
    results = resultsfile.read(path)
    return "\n".join(["```text", compare.table(resultsfile.runs_of(results, path)), "```", "",
                      _source(results, "irqlab bench --suite all --out docs/results")])


def ctxsw_table(results_dir):
    """The context-switch table with the seeds' REFERENCE rows, as `irqlab
    bench --suite ctxsw` prints it (irqlab/suites/ctxsw.py)."""
    from irqlab.suites import ctxsw
    results = _read(results_dir, ctxsw.RESULTS_FILE)
    return "\n".join(["```text", ctxsw.table(results), "```", "",
                      _source(results, "irqlab bench --suite all --out docs/results")])


BLOCKS = {
    "latency-table": latency_table,
    "ctxsw-table": ctxsw_table,
}


def blocks_in(text):
    """{name: content} of the generated blocks in `text`."""
    return {m.group(1): m.group(2) for m in _BLOCK.finditer(text)}


def render(text, results_dir=RESULTS):
    """`text` with every generated block filled from `results_dir`. A block
    name not in BLOCKS is an error."""
    def fill(m):
        name = m.group(1)
        if name not in BLOCKS:
            raise KeyError(f"README block '{name}' has no generator (irqlab/readme.py BLOCKS)")
        return BEGIN.format(name) + "\n" + BLOCKS[name](results_dir) + "\n" + END
    return _BLOCK.sub(fill, text)


def stale(text, results_dir=RESULTS):
    """Names of the blocks whose content differs from the results, and of
    the BLOCKS the text lacks."""
    have = blocks_in(text)
    fresh = blocks_in(render(text, results_dir))
    return [n for n in BLOCKS if n not in have or have[n] != fresh[n]]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m irqlab.readme", description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="only check; exit 1 if README and results disagree")
    p.add_argument("--readme", default=README, help="the README to fill (default: README.md)")
    p.add_argument("--results", default=RESULTS, help="the results folder (default: docs/results)")
    args = p.parse_args(argv)
    with open(args.readme) as f:
        text = f.read()
    if args.check:
        bad = stale(text, args.results)
        if bad:
            print(f"{args.readme}: out of date with {args.results}: {', '.join(bad)} (run: make readme)",
                  file=sys.stderr)
            return 1
        print(f"{args.readme}: every generated block matches {args.results}")
        return 0
    new = render(text, args.results)
    if new != text:
        with open(args.readme, "w") as f:
            f.write(new)
    missing = [n for n in BLOCKS if n not in blocks_in(new)]
    if missing:
        print(f"{args.readme}: no block for {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
