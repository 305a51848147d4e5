"""`irqlab compare`: the headline table, one row per measured core and one per
published reference (trace/references.py), the references marked as such.

  memory    where code and data live (TCM, bus, bus+cache; results files
            written before the column existed print '?')
  latency   to a C handler: the 'latency' benchmark, median/max cycles (own
            core: B-retire, stock cores: their software event)
  B-exec    the same with B = that instruction entering execute (own core;
            'n/a' on stock cores, which have no such point); the seeds count
            to execution (seed 000, Sec. II-B3)
  b2b       back to back: the 'throughput' benchmark, cycles per interrupt
  ret->B    back to back, the seeds' way: from a handler's return to the next
            handler's B (the 'throughput' benchmark's handoffs, median/max;
            on the references, their back-to-back figure: CV32RT's emret to
            the next handler, Cortex-M's tail chain)
  nested    a higher level preempting a running handler: 'preempt', median/max
  B-Lmax    the worst-case latency benchmark (max cycles), B-Tmax the maximal
            throughput benchmark (cycles per interrupt) of CPS-IoTBench (seed
            004), as trace/benchmarks.py builds them; '-' in results files
            recorded before they existed
"""

from irqlab.host.benchmarks import b_execute
from irqlab.host.references import PAPERS, REFERENCES

B_LMAX = "b-lmax"
B_TMAX = "b-tmax"
HEADERS = ["core", "kind", "memory", "latency med/max", "B-exec med/max", "b2b cyc", "ret->B med/max",
           "nested med/max", "B-Lmax", "B-Tmax", "source"]
MEASURED, REFERENCE = "measured", "REFERENCE"


def _med_max(summary):
    if not summary or not summary.get("count"):
        return "-"
    return f"{summary['median']}/{summary['max']}"


def _per_irq(test):
    c = test.get("cycles_per_irq", {})
    return f"{c['median']:.1f}" if c.get("count") else "-"


def _figure(fig, med_max=True):
    if fig is None:
        return "-"
    if fig.stat == "max":
        return f"-/{fig.cycles}" if med_max else f"≤{fig.cycles}"
    return str(fig.cycles)


def rows(runs):
    """[{header: cell}] — measured rows first, then the references."""
    out = []
    for r in runs:
        lmax = r.test(B_LMAX).get("latency", {})
        out.append(dict(zip(HEADERS, [
            r.name, MEASURED, r.entry.get("memory", "?"), _med_max(r.test("latency").get("latency")),
            b_execute(r.test("latency"), ("median", "max")) or "-", _per_irq(r.test("throughput")),
            _med_max(r.test("throughput").get("handoff")), _med_max(r.test("preempt").get("latency")), str(lmax["max"]) if lmax.get("count") else "-",
            _per_irq(r.test(B_TMAX)), f"{r.source}, B {r.entry.get('b_marker_short', '?')}"])))
    for ref in REFERENCES:
        out.append(dict(zip(HEADERS, [
            ref.name, REFERENCE, ref.memory, _figure(ref.latency), "-", "-", _figure(ref.back_to_back),
            _figure(ref.nested),
            "-", "-", f"{ref.paper}, {ref.where}"])))
    return out


FOOTNOTE = ("REFERENCE rows are published figures, not measured here (single-cycle memory; "
            "'-/N' = worst case N, median not given; their latency counts to B's execution, "
            "to be read beside B-exec):")


def papers():
    return [f"{key}: {title}" for key, title in PAPERS.items()]


def table(runs):
    rs = rows(runs)
    widths = [max(len(h), *(len(r[h]) for r in rs)) for h in HEADERS]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADERS, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for k, r in enumerate(rs):
        if k and r["kind"] != rs[k - 1]["kind"]:
            lines.append("  ".join("-" * w for w in widths))
        lines.append("  ".join(r[h].ljust(w) for h, w in zip(HEADERS, widths)).rstrip())
    lines += ["", FOOTNOTE] + [f"  {p}" for p in papers()]
    return "\n".join(lines)
