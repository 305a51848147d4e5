"""Where a context-switch case's cycles go: the ctxsw suite's samples
(trace/ctxsw.py, the trace unit's marks) cut into the code they ran, from
the simulation's retire port.

    python -m irqlab.suites.ctxsw_where --core fastctx [--samples 50] [--top 8]

One short run of the suite on a row with a retire port, with the
simulator's probe logging every retirement. Each cycle of a sample goes to
the function (the nearest code symbol at or below the pc: assembly labels
count, so the port's entry code shows by its parts) of the instruction that
retires next, stall cycles included; a case's cycles per symbol are the mean
over its samples. The trace unit's and the probe's clocks are the same
cycles; their offset is taken from mark A's PC match against the probe's
retirement of mark A's first instruction. Attribution only: the figures of
record are the suite's (irqlab bench --suite ctxsw).
"""

import argparse
import bisect
import collections
import os
import sys
import tempfile

from irqlab.drivers import elfimage, sim
from irqlab.errors import BenchError
from irqlab.host import ctxsw, protocol
from irqlab.host import record as rec
from irqlab.rows import row as row_info

APP = "ctxsw"


def retirements(probe_path):
    """(ts, pc) of every retirement the probe logged ("R ts pc trap" lines)."""
    out = []
    with open(probe_path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "R":
                out.append((int(p[1]), int(p[2], 16)))
    return out


class CodeMap:
    """pc -> the name of the nearest code symbol at or below it."""

    def __init__(self, elf):
        by_addr = {}
        for value, name in sorted(elf.named_labels):
            if not name.startswith(".L"):
                by_addr.setdefault(value, name)
        self.addrs = sorted(by_addr)
        self.names = [by_addr[a] for a in self.addrs]

    def name(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else f"{pc:#x}"


def attribute(spans, retired, offset, code):
    """Per case: {symbol: mean cycles} over its spans [(start, end)] in trace
    time; `retired` (ts, pc) in probe time, probe = trace + offset. Each
    cycle in (start, end] goes to the next retirement's symbol."""
    times = [t for t, _ in retired]
    out = {}
    for case, pairs in spans.items():
        if not pairs:
            continue
        total = collections.Counter()
        for start, end in pairs:
            lo, hi = start + offset, end + offset
            i = bisect.bisect_right(times, lo)
            prev = lo
            while i < len(times) and times[i] <= hi:
                total[code.name(retired[i][1])] += times[i] - prev
                prev = times[i]
                i += 1
        out[case] = {k: v / len(pairs) for k, v in total.items()}
    return out


def check_sums(where, means):
    """Every cycle of every sample placed: a case's parts add up to its mean
    (the last retirement of a span is mark B's first instruction, at its
    end; a wrong clock offset or a lost retirement breaks this)."""
    for case, parts in where.items():
        if abs(sum(parts.values()) - means[case]) > 1e-6:
            raise BenchError(f"{case}: {sum(parts.values()):.1f} cycles placed of {means[case]:.1f}")


def clock_offset(records, retired, mark_a_pc):
    """Probe time minus trace time, from mark A's PC matches and the probe's
    retirements of mark A's first instruction (the same events)."""
    matches = [r.ts for r in records if r.type == rec.TYPE_CORE
               and (r.payload >> 32) & 0xFF == rec.CORE_PC_MATCH and (r.payload >> 40) & 0xFF == ctxsw.PC_A]
    probe = [t for t, pc in retired if pc == mark_a_pc]
    if not matches or len(matches) != len(probe):
        raise BenchError(f"mark A: {len(matches)} PC matches in the trace, {len(probe)} retirements in the probe")
    diffs = collections.Counter(p - m for p, m in zip(probe, matches))
    offset, n = diffs.most_common(1)[0]
    if n != len(matches):
        raise BenchError(f"the trace and the probe disagree on mark A's times ({dict(diffs)})")
    return offset


def profile(row, samples=50, workdir=None, progress=None):
    """{case: {symbol: mean cycles}} and {case: mean cycles} of a short run."""
    row_info(row)                      # an unknown row: a one-line error
    model = sim.ensure_model(row, progress)
    if not model.facts["trace"]["retire_port"]:
        raise BenchError(f"row '{row}' has no retire port: its cycles cannot be placed in its code")
    fw = sim.build_firmware(model, APP, progress)
    elf = elfimage.read(fw[:-4] + ".elf")
    # Not the routines a tick starts: a sample a tick, 100,000 cycles of retirements each.
    ticked = {c.routine for c in ctxsw.CASES.values() if c.start == "tick-edge"}
    image = sim.load_image(model, fw, samples=samples,
                           routines=ctxsw.routine_mask([r for r in ctxsw.ROUTINES if r not in ticked]))
    with tempfile.TemporaryDirectory(prefix="irqlab-where-", dir=workdir) as d:
        probe = os.path.join(d, "probe.txt")
        run = sim.run(model, image, os.path.join(d, "trace.bin"), probe_path=probe,
                      probe_retire=(0, 0xFFFF_FFFF), label=row, progress=progress)
        if run.exit_code != 0:
            raise BenchError(f"{row}: the ctxsw suite failed: {run.console[-300:]}")
        records, _ = run.trace()
        retired = retirements(probe)
    raw = ctxsw.samples(records, protocol.APP_PROTOCOLS[APP], protocol.APP_PROTOCOLS["freertos"], spans=True)
    offset = clock_offset(records, retired, elf.symbol("ctxsw_mark_a"))
    where = attribute(raw["spans"], retired, offset, CodeMap(elf))
    means = {c: sum(v) / len(v) for c, v in raw["cases"].items() if v}
    check_sums(where, means)
    return where, means


def table(where, means, top=8):
    lines = []
    for case, parts in where.items():
        if ctxsw.CASES[case].routine == "calib":
            continue
        lines.append(f"{case}: {means[case]:.1f} cycles (uncorrected)")
        ranked = sorted(parts.items(), key=lambda kv: -kv[1])
        for name, cyc in ranked[:top]:
            lines.append(f"  {cyc:7.1f}  {name}")
        rest = sum(c for _, c in ranked[top:])
        if rest:
            lines.append(f"  {rest:7.1f}  ({len(ranked) - top} more)")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m irqlab.suites.ctxsw_where", description=__doc__.split("\n\n")[0])
    p.add_argument("--core", required=True, help="a row with a retire port")
    p.add_argument("--samples", type=int, default=50, help="samples per case (default 50)")
    p.add_argument("--top", type=int, default=8, help="symbols shown per case (default 8)")
    args = p.parse_args(argv)
    try:
        if args.samples < 1:
            raise BenchError("--samples must be at least 1")
        where, means = profile(args.core, args.samples)
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(table(where, means, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
