"""The HTML report's figures (PNG, matplotlib): latency distribution per core
for one benchmark (a violin drawn from the results' histogram, so its width
is the exact count of each latency), its CDF, the throughput bars, and a
timeline of the first interrupts of the latency test from a raw trace. Each
function returns False when it has nothing to draw; files are written whole."""

from irqlab.host.analysis import events, interrupts
from irqlab.host import record as rec
from irqlab.host.atomic import atomic_open
from irqlab.host.protocol import CH_HANDLER_ENTRY

DPI = 110


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path):
    plt = _plt()
    fig.tight_layout()
    with atomic_open(path, binary=True) as f:
        fig.savefig(f, format="png", dpi=DPI)
    plt.close(fig)
    return True


def _hist(run, bench):
    h = run.test(bench).get("histogram") or {}
    return sorted((int(k), int(v)) for k, v in h.items() if int(v) > 0)


def _median(h):
    total, acc = sum(c for _, c in h), 0
    for value, count in h:
        acc += count
        if 2 * acc >= total:
            return value


def violin(runs, bench, path):
    """One panel per core, each with its own latency axis (the spreads are a
    few cycles, the cores tens of cycles apart): a mirrored histogram whose
    width at each latency is its share of the interrupts, the median as a
    line, the whole range as a thin line with min and max written."""
    data = [(r, _hist(r, bench)) for r in runs]
    data = [(r, h) for r, h in data if h]
    if not data:
        return False
    plt = _plt()
    fig, axes = plt.subplots(1, len(data), figsize=(max(4.5, 1.7 * len(data)), 3.8), squeeze=False)
    for x, ((r, h), ax) in enumerate(zip(data, axes[0])):
        top = max(c for _, c in h)
        lo, hi, med = h[0][0], h[-1][0], _median(h)
        pad = max(2, (hi - lo) * 0.08)
        half = max(0.45, (hi - lo + 2 * pad) * 0.006)     # a bin stays visible on a tall axis
        for value, count in h:
            w = 0.45 * count / top
            ax.fill_betweenx([value - half, value + half], -w, w, color=f"C{x % 10}", alpha=0.75, lw=0)
        ax.plot([0, 0], [lo, hi], color=f"C{x % 10}", lw=0.8)
        ax.plot([-0.48, 0.48], [med, med], color="black", lw=1.2)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_xlim(-0.5, 0.5)
        ax.set_xticks([])
        ax.set_title(r.name, fontsize=9)
        ax.set_xlabel(f"median {med}\nmin {lo}, max {hi}", fontsize=8)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("latency B - A [cycles]")
    fig.suptitle(f"{bench}: latency distribution per core (width = share of interrupts)", fontsize=10)
    return _save(fig, path)


def cdf(runs, bench, path):
    data = [(r, _hist(r, bench)) for r in runs]
    data = [(r, h) for r, h in data if h]
    if not data:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for r, h in data:
        total = sum(c for _, c in h)
        xs, ys, acc = [h[0][0] - 1], [0.0], 0
        for value, count in h:
            acc += count
            xs.append(value)
            ys.append(acc / total)
        ax.step(xs, ys, where="post", label=r.name)
    ax.set_xlabel("latency B - A [cycles]")
    ax.set_ylabel("fraction of interrupts")
    ax.set_title(f"{bench}: cumulative distribution", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def throughput(runs, path, bench="throughput"):
    data = [(r, r.test(bench)) for r in runs]
    data = [(r, t) for r, t in data if t.get("cycles_per_irq", {}).get("count")]
    if not data:
        return False
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(7, 1.2 * len(data) + 4), 3.6))
    names = [r.name for r, _ in data]
    cpi = [t["cycles_per_irq"]["median"] for _, t in data]
    rate = [t["throughput_hz"]["median"] / 1e3 for _, t in data]
    for ax, vals, label, fmt in ((a1, cpi, "cycles per interrupt (back to back)", "{:.1f}"),
                                 (a2, rate, "kIRQ/s at the clock", "{:.0f}")):
        ax.bar(names, vals, color=[f"C{k % 10}" for k in range(len(vals))])
        for k, v in enumerate(vals):
            ax.text(k, v, fmt.format(v), ha="center", va="bottom", fontsize=8)
        ax.set_title(label, fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


# Timeline: what happens between A and the line's acknowledge, per interrupt.
_MARKS = [("trap entry", "v", "tab:red"), ("PC match (B on own cores)", "D", "tab:green"),
          ("HANDLER_ENTRY store", "o", "tab:blue"), ("line falls (acknowledge)", "x", "black"),
          ("mret", "^", "tab:purple")]


def _marks(evs, a, until):
    gen = rec.HW_GEN_LINE
    out = {m: [] for m, _, _ in _MARKS}
    for e in evs:
        if e.ts < a or e.ts > until:
            continue
        if e.kind == "core" and e.index == rec.CORE_TRAP:
            out["trap entry"].append(e.ts - a)
        elif e.kind == "core" and e.index == rec.CORE_PC_MATCH:
            out["PC match (B on own cores)"].append(e.ts - a)
        elif e.kind == "core" and e.index == rec.CORE_MRET:
            out["mret"].append(e.ts - a)
        elif e.kind == "sw" and e.index == CH_HANDLER_ENTRY:
            out["HANDLER_ENTRY store"].append(e.ts - a)
        elif e.kind == "fall" and e.index == gen:
            out["line falls (acknowledge)"].append(e.ts - a)
    return out


def timeline(traces, path, count=3, bench="latency"):
    """traces: [(name, records)]. The first `count` interrupts of `bench` per
    trace, each on its own row, in cycles after its A."""
    rows = []
    for name, records in traces:
        evs = events(records)
        irqs = [i for i in interrupts(records) if i.test == bench][:count]
        for i in irqs:
            later = [e.ts for e in evs if e.kind == "fall" and e.index == rec.HW_GEN_LINE and e.ts >= i.b]
            until = max(i.b, later[0] if later else i.b) + 20
            rows.append((f"{name} #{i.index}", i, _marks(evs, i.a, until), until - i.a))
    if not rows:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.6))
    for y, (label, i, marks, _) in enumerate(rows):
        ax.barh(y, i.latency, left=0, height=0.5, color="tab:orange", alpha=0.5)
        ax.text(2, y, f"{i.latency} cyc, B = {i.marker}", va="center", fontsize=7)
        for m, shape, color in _MARKS:
            xs = marks[m]
            if xs:
                ax.scatter(xs, [y] * len(xs), marker=shape, color=color, s=22, zorder=3,
                           label=m if y == 0 or m not in ax.get_legend_handles_labels()[1] else None)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-5, max(r[3] for r in rows) + 5)
    ax.set_xlabel("cycles after A (the generator line's rising edge); bar = A to B")
    ax.set_title(f"First interrupts of the {bench} test", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="lower right")
    return _save(fig, path)


def rtos_timeline(tl, path, start, end, symbols=None, title=None):
    """FreeRTOS's timeline (trace/rtos.py) over cycles [start, end): a row per
    task that ran in the window (a bar per TASK_IN .. TASK_OUT), a row for the
    ISRs of the trace hooks (nested ones drawn thinner on top), a row per
    trap cause from the retire port (named by its targets' symbols, a
    trace.rtos.Symbols, where given), ticks as dotted lines, the
    kernel's other events as dots on the running task's row, overflows as
    red lines. A segment whose start or end is not in the trace is hatched."""
    from irqlab.host import rtos

    def clipped(segments):
        return [s for s in segments if s.end > start and s.start < end]

    rows = []     # (label, [(segment, depth)], color)
    task_row = {}
    for t in tl.tasks:
        segs = clipped(t.segments)
        if segs:
            task_row[t.index] = len(rows)
            rows.append((t.label, segs, f"C{len(rows) % 10}"))
    isrs = clipped(tl.isrs)
    if isrs:
        rows.append(("ISRs (hooks)", isrs, "black"))
    by_cause = {}
    for s in clipped(tl.handlers):
        by_cause.setdefault(s.cause, []).append(s)
    for cause, segs in by_cause.items():
        names = list(dict.fromkeys(rtos.handler_name(s, symbols) for s in segs))
        label = " / ".join(names[:2]) + (" / ..." if len(names) > 2 else "")
        rows.append((f"trap {cause & 0x7f}: {label}" if symbols and cause is not None else label, segs,
                     "slategray"))
    if not rows:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(11, 0.42 * len(rows) + 1.7))
    for y, (label, segs, color) in enumerate(rows):
        for s in sorted(segs, key=lambda s: s.depth):
            a, b = max(s.start, start), min(s.end, end)
            h = 0.6 * 0.7 ** s.depth
            cut = not (s.seen_start and s.seen_end)
            ax.broken_barh([(a, max(b - a, 0.5))], (y - h / 2, h), facecolors=color,
                           alpha=0.85 if not s.depth else 1.0, edgecolor="white" if s.depth else ("black" if cut else color),
                           linewidth=0.4, hatch="///" if cut else None)
    ticks = [i.ts for i in tl.ticks() if start <= i.ts < end]
    if ticks:
        ax.vlines(ticks, -0.5, len(rows) - 0.5, colors="gray", linestyles=":", linewidth=0.7, label="tick")
    kernel = [(i.ts, task_row[i.task.index]) for i in tl.instants
              if i.name != "TICK" and i.task is not None and i.task.index in task_row and start <= i.ts < end]
    if kernel:
        ax.scatter([x for x, _ in kernel], [y + 0.38 for _, y in kernel], s=6, color="black", marker="v",
                   zorder=3, label="kernel event (queue, ready, notify, ...)")
    lost = [(t, n) for t, n in tl.overflows if start <= t < end]
    for k, (t, n) in enumerate(lost):
        ax.axvline(t, color="red", linewidth=1.2, label="overflow (events dropped)" if k == 0 else None)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(start, end)
    ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel("cycle (hatched: its start or end is not in the trace)", fontsize=8)
    ax.set_title(title or f"FreeRTOS timeline, cycles {start}..{end}", fontsize=10, loc="left")
    ax.grid(axis="x", alpha=0.3)
    if ticks or kernel or lost:
        ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=3, frameon=False,
                  borderaxespad=0.2)
    return _save(fig, path)


def pto_jitter(runs, path):
    """The PTO demo: normalized period jitter (%) against the PTO frequency
    (kHz, log scale), one curve per row, the seed-002 bars as lines."""
    curves = []
    for r in runs:
        pts = [(p["khz"], 100 * p["jitter"]) for p in r.entry.get("pto", {}).get("points", [])
               if p.get("jitter") is not None]
        if pts:
            curves.append((r.name, sorted(pts), r.entry["pto"].get("max_khz")))
    if not curves:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, pts, max_khz in curves:
        line, = ax.plot([k for k, _ in pts], [j for _, j in pts], marker="o", label=f"{name} (max {max_khz:.0f} kHz)")
        if max_khz:
            ax.axvline(max_khz, color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(10, color="grey", linestyle="--", linewidth=1)
    ax.text(10, 10.3, "10 % at 100 kHz: demanding applications' limit", fontsize=7, color="grey")
    ax.axvline(20, color="grey", linestyle="--", linewidth=1)
    ax.text(20.5, 0.05, "20 kHz: actuation", fontsize=7, color="grey", rotation=90, va="bottom")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(bottom=0)
    from matplotlib.ticker import FuncFormatter
    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(fmt)
    ax.yaxis.set_major_formatter(fmt)
    ax.set_xlabel("PTO frequency (kHz, at 50 MHz)")
    ax.set_ylabel("period jitter (% of the period)")
    ax.set_title("PTO: jitter against frequency, background task running (dotted: max sustained)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return _save(fig, path)
