"""The HTML report's figures (PNG, matplotlib): latency distribution per core
for one benchmark (a violin drawn from the results' histogram, so its width
is the exact count of each latency), its CDF, the throughput bars, and a
timeline of the first interrupts of the latency test from a raw trace. Each
function returns False when it has nothing to draw; files are written whole.

Every figure draws a row (a core's results, a task) in the style row_styles()
gives its name, so a row has one colour throughout a report and no two rows of
a figure share a style."""

from dataclasses import dataclass

from irqlab.host.analysis import events, interrupts
from irqlab.host import record as rec
from irqlab.host.atomic import atomic_open
from irqlab.host.protocol import CH_HANDLER_ENTRY

DPI = 110

# Twenty colours, pairwise at least 27 apart in CIELAB (CIE76 Delta E;
# tests/test_htmlreport.py checks it): matplotlib's ten, then ten chosen to
# stand apart from them and from each other, none too light on white.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#0804f9", "#ff08e8", "#3c4d03", "#0165fc", "#ffb07c", "#ff0789",
           "#8fb67b", "#0add08", "#750851", "#9a6200")
# Past the palette the colours come round again with another line style
# (curves) and hatch (bars, violins): the pair stays distinct.
LINESTYLES = ("-", "--", ":", "-.")
HATCHES = (None, "//", "..", "xx")


@dataclass(frozen=True)
class Style:
    colour: str
    linestyle: str
    hatch: str = None


def _registry_slots():
    """The benchmark rows' own slots (irqlab.rows order), the same in every
    report whichever rows it shows."""
    try:
        from irqlab.rows import ROWS
    except ImportError:          # the host package on its own
        return {}
    return {name: k for k, name in enumerate(ROWS)}


def row_styles(names):
    """name -> Style for every name, no two alike. A benchmark row of the
    registry keeps its slot (so the same colour in every report); any other
    name (a core of a foreign results file, 'clic (a)' beside 'clic (b)', a
    task) takes the first free slot in the order given. Slot k is colour
    k mod len(PALETTE), with the line style and hatch of round k // len(PALETTE)."""
    fixed = _registry_slots()
    names = list(dict.fromkeys(names))
    taken = {fixed[n] for n in names if n in fixed}
    slots, free = {}, (k for k in range(len(names) + len(fixed)) if k not in taken)
    for n in names:
        slots[n] = fixed[n] if n in fixed else next(free)
    rounds = len(LINESTYLES)
    return {n: Style(PALETTE[k % len(PALETTE)], LINESTYLES[k // len(PALETTE) % rounds],
                     HATCHES[k // len(PALETTE) % rounds]) for n, k in slots.items()}


def _styles(runs, styles):
    return styles if styles is not None else row_styles([r.name for r in runs])


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


def violin(runs, bench, path, styles=None):
    """One panel per core, each with its own latency axis (the spreads are a
    few cycles, the cores tens of cycles apart): a mirrored histogram whose
    width at each latency is its share of the interrupts, the median as a
    line, the whole range as a thin line with min and max written."""
    styles = _styles(runs, styles)
    data = [(r, _hist(r, bench)) for r in runs]
    data = [(r, h) for r, h in data if h]
    if not data:
        return False
    plt = _plt()
    fig, axes = plt.subplots(1, len(data), figsize=(max(4.5, 1.7 * len(data)), 3.8), squeeze=False)
    for (r, h), ax in zip(data, axes[0]):
        st = styles[r.name]
        top = max(c for _, c in h)
        lo, hi, med = h[0][0], h[-1][0], _median(h)
        pad = max(2, (hi - lo) * 0.08)
        half = max(0.45, (hi - lo + 2 * pad) * 0.006)     # a bin stays visible on a tall axis
        for value, count in h:
            w = 0.45 * count / top
            ax.fill_betweenx([value - half, value + half], -w, w, facecolor=st.colour, alpha=0.75, lw=0,
                             hatch=st.hatch, edgecolor="white" if st.hatch else None)
        ax.plot([0, 0], [lo, hi], color=st.colour, lw=0.8, linestyle=st.linestyle)
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


def cdf(runs, bench, path, styles=None):
    styles = _styles(runs, styles)
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
        st = styles[r.name]
        ax.step(xs, ys, where="post", label=r.name, color=st.colour, linestyle=st.linestyle)
    ax.set_xlabel("latency B - A [cycles]")
    ax.set_ylabel("fraction of interrupts")
    ax.set_title(f"{bench}: cumulative distribution", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2 if len(data) > 8 else 1)
    return _save(fig, path)


def throughput(runs, path, bench="throughput", styles=None):
    styles = _styles(runs, styles)
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
        bars = ax.bar(names, vals, color=[styles[n].colour for n in names])
        for bar, n in zip(bars, names):
            if styles[n].hatch:
                bar.set_hatch(styles[n].hatch)
                bar.set_edgecolor("white")
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


def timeline(traces, path, count=3, bench="latency", styles=None):
    """traces: [(name, records)]. The first `count` interrupts of `bench` per
    trace, each on its own row, in cycles after its A; the bar in its core's
    style, the marks in their kind's."""
    styles = styles if styles is not None else row_styles([name for name, _ in traces])
    rows = []
    for name, records in traces:
        evs = events(records)
        irqs = [i for i in interrupts(records) if i.test == bench][:count]
        for i in irqs:
            later = [e.ts for e in evs if e.kind == "fall" and e.index == rec.HW_GEN_LINE and e.ts >= i.b]
            until = max(i.b, later[0] if later else i.b) + 20
            rows.append((f"{name} #{i.index}", i, _marks(evs, i.a, until), until - i.a, styles[name]))
    if not rows:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.6))
    for y, (label, i, marks, _, st) in enumerate(rows):
        ax.barh(y, i.latency, left=0, height=0.5, color=st.colour, alpha=0.45, hatch=st.hatch)
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
    shown = [(t, clipped(t.segments)) for t in tl.tasks]
    shown = [(t, segs) for t, segs in shown if segs]
    task_styles = row_styles([f"task {t.index}" for t, _ in shown])     # by index: labels may repeat
    for t, segs in shown:
        task_row[t.index] = len(rows)
        rows.append((t.label, segs, task_styles[f"task {t.index}"].colour))
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


def pto_jitter(runs, path, styles=None):
    """The PTO demo: normalized period jitter (%) against the PTO frequency
    (kHz, log scale), one curve per row, the seed-002 bars as lines."""
    styles = _styles(runs, styles)
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
        st = styles[name]
        line, = ax.plot([k for k, _ in pts], [j for _, j in pts], marker="o", color=st.colour,
                        linestyle=st.linestyle, label=f"{name} (max {max_khz:.0f} kHz)")
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
